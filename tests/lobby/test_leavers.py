"""A player who leaves a running game (issue 30): their page watches the rest of it,
and after it their seat is freed if they are gone, so the others' rematch does not
wait for them; a host frees the seat of a player who is away, between games."""

from __future__ import annotations

import pytest

from games import services as game_services
from games.models import Game
from lobby import selectors, services
from lobby.models import Seat, Table, Watcher
from lobby.services import TableError
from tests.games.test_money import outcome
from tests.personas import ref

pytestmark = pytest.mark.django_db


def watch(table, user, channel: str) -> None:
    """``user`` has the table's page open (a socket)."""
    services.watcher_add(table_id=table.pk, channel_name=channel, player=ref(user))


@pytest.fixture
def three_at_play(host, opponent, third, make_table):
    table = make_table(ref(host), seats=3)
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    services.seat_take(table_id=table.pk, player=ref(third), number=3)
    for player in (host, opponent, third):
        services.seat_ready(table_id=table.pk, player=ref(player), ready=True)
    services.table_start(table_id=table.pk, player=ref(host))
    return table


def finish(table) -> None:
    game = Game.objects.get(table=table, status=Game.Status.RUNNING)
    game_services.game_finish(game_id=game.pk, finished=outcome({1: 1, 2: 2, 3: 3}))


def test_a_leaver_s_page_watches_the_rest_of_the_game(three_at_play, third):
    table = three_at_play
    services.seats_mark_left(table_id=table.pk, seats=[3])
    table = selectors.table_for_page(table.pk)
    panels = selectors.table_panels(table, selectors.table_version(table.pk), ref(third))
    assert panels.my_seat == 0  # plays no more: no keys, no game tools
    context = selectors.table_page_context(table, ref(third))
    assert context["i_left"]
    status = selectors.table_panels(table, selectors.table_version(table.pk), ref(third)).html
    assert "forfeit-button" not in status and "left-note" in status
    # The others see who left, in words.
    assert "Left the game" in selectors.table_panels(table, selectors.table_version(table.pk), None).html


def test_after_the_game_a_leaver_who_is_gone_frees_the_seat_and_the_rematch_starts(
    three_at_play, host, opponent, third
):
    table = three_at_play
    watch(table, host, "host-page")
    watch(table, opponent, "opponent-page")
    services.seats_mark_left(table_id=table.pk, seats=[3])  # third closed the page: no watcher
    finish(table)
    assert services.seats_free_after_game(table_id=table.pk) == [3]
    assert not Seat.objects.filter(table=table, number=3).exists()
    services.table_rematch(table_id=table.pk, player=ref(host))
    services.table_rematch(table_id=table.pk, player=ref(opponent))
    table.refresh_from_db()
    assert table.status == Table.Status.RUNNING  # nobody waits for the player who left
    assert sorted(Game.objects.filter(table=table).order_by("-pk").first().participations.values_list("seat", flat=True)) == [1, 2]


def test_a_leaver_still_at_the_table_keeps_the_seat_and_plays_again_if_they_ask(
    three_at_play, host, opponent, third
):
    table = three_at_play
    for player, channel in ((host, "h"), (opponent, "o"), (third, "t")):
        watch(table, player, channel)
    services.seats_mark_left(table_id=table.pk, seats=[3])
    finish(table)
    assert services.seats_free_after_game(table_id=table.pk) == []
    seat = Seat.objects.get(table=table, number=3)
    assert not seat.left_game  # one of the players again, offered the rematch
    for player in (host, opponent, third):
        services.table_rematch(table_id=table.pk, player=ref(player))
    table.refresh_from_db()
    assert table.status == Table.Status.RUNNING


def test_a_host_who_left_and_is_gone_hands_the_table_over(three_at_play, opponent, third):
    table = three_at_play
    watch(table, opponent, "o")
    watch(table, third, "t")
    services.seats_mark_left(table_id=table.pk, seats=[1])
    finish(table)
    assert services.seats_free_after_game(table_id=table.pk) == [1]
    table.refresh_from_db()
    assert table.host_user_id == opponent.pk


def test_a_seat_is_marked_left_only_while_its_game_runs(host, opponent, make_table):
    table = make_table(ref(host))
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    services.seats_mark_left(table_id=table.pk, seats=[2])
    assert not Seat.objects.get(table=table, number=2).left_game


def test_a_new_game_starts_with_nobody_marked_left(three_at_play, host, opponent, third):
    table = three_at_play
    for player, channel in ((host, "h"), (opponent, "o"), (third, "t")):
        watch(table, player, channel)
    services.seats_mark_left(table_id=table.pk, seats=[2])
    game = Game.objects.get(table=table, status=Game.Status.RUNNING)
    game_services.game_abort(game_id=game.pk, reason="test")  # no seat freeing after it
    for player in (host, opponent, third):
        services.table_rematch(table_id=table.pk, player=ref(player))
    assert not Seat.objects.filter(table=table, left_game=True).exists()


@pytest.fixture
def waiting_with_an_absent_player(host, opponent, make_table):
    table = make_table(ref(host))
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    watch(table, host, "host-page")
    return table


def test_the_host_frees_the_seat_of_a_player_who_is_away(waiting_with_an_absent_player, host):
    table = waiting_with_an_absent_player
    views = selectors.seat_views(selectors.table_for_page(table.pk), ref(host))
    assert [v.away for v in views] == [False, True]
    html = selectors.table_panels(selectors.table_for_page(table.pk), selectors.table_version(table.pk), ref(host)).html
    assert "Free seat" in html and "away-mark" in html
    services.seat_free(table_id=table.pk, player=ref(host), number=2)
    assert not Seat.objects.filter(table=table, number=2).exists()


@pytest.mark.parametrize(
    "who, seat, code",
    [("opponent", 2, "NOT_HOST"), ("host", 1, "OWN_SEAT"), ("host", 2, "PLAYER_PRESENT"), ("host", 3, "NO_PLAYER")],
)
def test_a_seat_is_freed_only_by_the_host_and_only_of_a_player_who_is_gone(
    host, opponent, make_table, who, seat, code
):
    table = make_table(ref(host), seats=3)
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    watch(table, host, "h")
    watch(table, opponent, "o")
    with pytest.raises(TableError) as refused:
        services.seat_free(table_id=table.pk, player=ref({"host": host, "opponent": opponent}[who]), number=seat)
    assert refused.value.code == code
    assert Seat.objects.filter(table=table).count() == 2


def test_no_seat_is_freed_while_a_game_runs(three_at_play, host):
    with pytest.raises(TableError) as refused:
        services.seat_free(table_id=three_at_play.pk, player=ref(host), number=3)
    assert refused.value.code == "GAME_RUNNING"


def test_a_seated_player_closing_their_last_page_marks_them_away_for_everyone(
    waiting_with_an_absent_player, opponent
):
    table = waiting_with_an_absent_player
    watch(table, opponent, "o1")
    watch(table, opponent, "o2")  # a second tab
    services.watcher_remove(channel_name="o1")
    assert not selectors.seat_views(selectors.table_for_page(table.pk), None)[1].away
    services.watcher_remove(channel_name="o2")
    assert selectors.seat_views(selectors.table_for_page(table.pk), None)[1].away
    assert not Watcher.objects.filter(user=opponent).exists()
