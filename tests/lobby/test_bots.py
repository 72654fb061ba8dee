from __future__ import annotations

import pytest
from django.urls import reverse

from lobby import selectors, services
from lobby.models import Table
from lobby.services import TableError
from tests.personas import ref


def test_the_host_seats_a_bot_that_is_ready_at_once(host, make_table):
    table = make_table(ref(host), seats=3)
    seat = services.bot_add(table_id=table.pk, player=ref(host), number=2, level="hard")
    assert seat.is_bot and seat.ready and seat.display_name == "Alan (bot, hard)"


def test_only_the_host_seats_or_removes_bots(host, opponent, make_table):
    table = make_table(ref(host), seats=3)
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    with pytest.raises(TableError) as exc:
        services.bot_add(table_id=table.pk, player=ref(opponent), number=3, level="easy")
    assert exc.value.code == "NOT_HOST"
    services.bot_add(table_id=table.pk, player=ref(host), number=3, level="easy")
    with pytest.raises(TableError) as exc:
        services.bot_remove(table_id=table.pk, player=ref(opponent), number=3)
    assert exc.value.code == "NOT_HOST"
    assert table.seats.count() == 3


def test_bots_play_only_at_friendly_tables(host, make_table):
    table = make_table(ref(host), stake=10)
    with pytest.raises(TableError) as exc:
        services.bot_add(table_id=table.pk, player=ref(host), number=2, level="easy")
    assert exc.value.code == "BOT_AT_COMPETITIVE"
    assert table.seats.count() == 1


@pytest.mark.parametrize(
    "number,level,code", [(2, "godlike", "BAD_BOT"), (9, "easy", "NO_SUCH_SEAT"), (1, "easy", "SEAT_TAKEN")]
)
def test_bad_bot_requests_are_refused_clearly(host, make_table, number, level, code):
    table = make_table(ref(host))
    with pytest.raises(TableError) as exc:
        services.bot_add(table_id=table.pk, player=ref(host), number=number, level=level)
    assert exc.value.code == code
    assert table.seats.count() == 1


def test_the_host_removes_a_bot_before_the_start(host, make_table):
    table = make_table(ref(host))
    services.bot_add(table_id=table.pk, player=ref(host), number=2, level="medium")
    services.bot_remove(table_id=table.pk, player=ref(host), number=2)
    assert list(table.seats.values_list("number", flat=True)) == [1]
    with pytest.raises(TableError) as exc:
        services.bot_remove(table_id=table.pk, player=ref(host), number=1)
    assert exc.value.code == "NOT_A_BOT"


def test_bots_cannot_be_removed_during_a_game(host, make_table):
    table = make_table(ref(host))
    services.bot_add(table_id=table.pk, player=ref(host), number=2, level="medium")
    services.seat_ready(table_id=table.pk, player=ref(host), ready=True)
    services.table_start(table_id=table.pk, player=ref(host))
    with pytest.raises(TableError) as exc:
        services.bot_remove(table_id=table.pk, player=ref(host), number=2)
    assert exc.value.code == "GAME_RUNNING"


def test_a_host_who_stands_up_keeps_hosting_the_bots(host, make_table):
    table = make_table(ref(host), seats=3)
    services.bot_add(table_id=table.pk, player=ref(host), number=2, level="easy")
    services.seat_leave(table_id=table.pk, player=ref(host))
    table.refresh_from_db()
    assert table.status == Table.Status.OPEN and selectors.is_host(table, ref(host))


def test_practice_is_two_clicks_from_the_lobby(client, host):
    client.force_login(host)
    lobby = client.get(reverse("lobby:index")).content.decode()
    assert "Practise TetriWar against a bot" in lobby
    response = client.post(reverse("lobby:practice", args=["tetriwar"]))  # click one
    table = Table.objects.get()
    assert response.status_code == 302 and response.url == table.get_absolute_url()
    assert table.stake == 0
    seats = {s.number: s for s in table.seats.all()}
    assert seats[1].user == host and seats[1].ready and seats[2].is_bot and seats[2].ready
    client.post(reverse("lobby:start", args=[table.pk]), HTTP_HX_REQUEST="true")  # click two
    table.refresh_from_db()
    assert table.status == Table.Status.RUNNING
    game = table.games.get()
    assert [p.bot_level for p in game.participations.order_by("seat")] == ["", "medium"]
    assert game.stake == 0 and game.pot == 0


def test_the_host_sees_add_bot_controls_at_friendly_tables_only(client, host, make_table):
    friendly = make_table(ref(host))
    competitive = make_table(ref(host), stake=5)
    client.force_login(host)
    assert "Add bot" in client.get(friendly.get_absolute_url()).content.decode()
    assert "Add bot" not in client.get(competitive.get_absolute_url()).content.decode()
