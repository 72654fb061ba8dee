"""A rematch (issue 19): after a game, the same players at the same table play again
as soon as every one of them has asked."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games import services as game_services
from games.models import Game
from lobby import services
from lobby.models import Table
from lobby.services import TableError
from tests.games.test_money import outcome
from tests.personas import ref

pytestmark = pytest.mark.django_db


def play_one_game(table, host, opponent) -> None:
    for player in (host, opponent):
        services.seat_ready(table_id=table.pk, player=ref(player), ready=True)
    services.table_start(table_id=table.pk, player=ref(host))
    game = Game.objects.get(table=table, status=Game.Status.RUNNING)
    game_services.game_finish(game_id=game.pk, finished=outcome({1: 1, 2: 2}))


@pytest.fixture
def after_a_game(host, opponent, make_table):
    table = make_table(ref(host), stake=100)
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    play_one_game(table, host, opponent)
    table.refresh_from_db()
    assert table.status == Table.Status.OPEN
    return table


def test_the_game_starts_again_once_both_players_ask_for_a_rematch(after_a_game, host, opponent):
    table = after_a_game
    services.table_rematch(table_id=table.pk, player=ref(opponent))  # not the host: still asks
    table.refresh_from_db()
    assert table.status == Table.Status.OPEN  # waiting for the host
    services.table_rematch(table_id=table.pk, player=ref(host))
    table.refresh_from_db()
    assert table.status == Table.Status.RUNNING
    games = list(Game.objects.filter(table=table).order_by("pk"))
    assert [g.status for g in games] == [Game.Status.FINISHED, Game.Status.RUNNING]
    rematch = games[1]
    assert {(p.seat, p.user_id) for p in rematch.participations.all()} == {(1, host.pk), (2, opponent.pk)}
    assert rematch.pot == 200  # the same stake, taken again


def test_a_practice_table_plays_again_at_the_first_ask(host):
    table = services.practice_create(player=ref(host), game="tetriwar")
    services.table_start(table_id=table.pk, player=ref(host))
    game = Game.objects.filter(table_id=table.pk, status=Game.Status.RUNNING).get()
    game_services.game_finish(game_id=game.pk, finished=outcome({1: 2, 2: 1}))
    services.table_rematch(table_id=table.pk, player=ref(host))  # the bot is always ready
    table.refresh_from_db()
    assert table.status == Table.Status.RUNNING


def test_there_is_no_rematch_before_a_first_game(host, opponent, make_table):
    table = make_table(ref(host))
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    with pytest.raises(TableError) as refused:
        services.table_rematch(table_id=table.pk, player=ref(host))
    assert refused.value.code == "NO_REMATCH"


def test_a_spectator_cannot_ask_for_a_rematch(after_a_game, outsider):
    with pytest.raises(TableError) as refused:
        services.table_rematch(table_id=after_a_game.pk, player=ref(outsider))
    assert refused.value.code == "NOT_SEATED"


def test_the_rematch_button_is_offered_to_the_players_after_a_game(client, after_a_game, host, outsider):
    client.force_login(host)
    page = client.get(reverse("lobby:table", args=[after_a_game.pk])).content.decode()
    assert 'id="rematch-button"' in page
    client.force_login(outsider)
    assert 'id="rematch-button"' not in client.get(reverse("lobby:table", args=[after_a_game.pk])).content.decode()


def test_the_rematch_button_answers_with_the_table_panels(client, after_a_game, host):
    client.force_login(host)
    response = client.post(reverse("lobby:rematch", args=[after_a_game.pk]), HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert "You asked for a rematch." in response.content.decode()
