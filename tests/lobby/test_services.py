from __future__ import annotations

import pytest

from lobby import selectors, services
from lobby.models import Seat, Table
from lobby.services import TableError
from tests.personas import guest, ref


def codes(excinfo) -> str:
    return excinfo.value.code


def test_creating_a_table_seats_the_host_in_seat_one(host, make_table):
    table = make_table(ref(host))
    assert table.status == Table.Status.OPEN
    assert list(table.seats.values_list("number", "user__username")) == [(1, "hostess")]
    assert selectors.is_host(table, ref(host))
    assert table.title == "hostess's table" and table.name == "" and table.name_kind == "table"


def test_an_unknown_game_is_refused(host):
    with pytest.raises(TableError) as exc:
        services.table_create(player=ref(host), game="chess", options={}, seats_total=2)
    assert codes(exc) == "NO_SUCH_GAME"
    assert not Table.objects.exists()


def test_seats_outside_the_games_range_are_refused(host):
    with pytest.raises(TableError) as exc:
        services.table_create(player=ref(host), game="tetriwar", options={}, seats_total=5)
    assert codes(exc) == "BAD_SEATS"
    assert not Table.objects.exists()


def test_opponent_sits_in_a_free_seat(host, opponent, make_table):
    table = make_table(ref(host))
    seat = services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    assert seat.number == 2 and seat.user == opponent


@pytest.mark.parametrize("number", [0, 3, 99, -1])
def test_a_seat_out_of_range_is_refused_and_changes_nothing(host, opponent, make_table, number):
    table = make_table(ref(host))
    with pytest.raises(TableError) as exc:
        services.seat_take(table_id=table.pk, player=ref(opponent), number=number)
    assert codes(exc) == "NO_SUCH_SEAT"
    assert "seats 1–2" in exc.value.message
    assert table.seats.count() == 1


def test_a_taken_seat_is_refused(host, opponent, make_table):
    table = make_table(ref(host))
    with pytest.raises(TableError) as exc:
        services.seat_take(table_id=table.pk, player=ref(opponent), number=1)
    assert codes(exc) == "SEAT_TAKEN"


def test_a_repeated_join_is_refused(host, opponent, make_table):
    table = make_table(ref(host), seats=3)
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    with pytest.raises(TableError) as exc:
        services.seat_take(table_id=table.pk, player=ref(opponent), number=3)
    assert codes(exc) == "ALREADY_SEATED"
    assert table.seats.count() == 2


def test_a_forged_table_id_is_refused(opponent, db):
    with pytest.raises(TableError) as exc:
        services.seat_take(table_id=424242, player=ref(opponent), number=1)
    assert codes(exc) == "NO_SUCH_TABLE"


def test_nobody_may_sit_without_a_name(host, make_table):
    table = make_table(ref(host))
    with pytest.raises(TableError) as exc:
        services.seat_take(table_id=table.pk, player=None, number=2)
    assert codes(exc) == "WHO_ARE_YOU"


def test_a_guest_sits_at_a_friendly_table(host, make_table):
    table = make_table(ref(host))
    seat = services.seat_take(table_id=table.pk, player=guest(), number=2)
    assert seat.is_guest and seat.display_name == "visitor (guest)"


def test_a_guest_cannot_sit_at_a_competitive_table(host, make_table):
    table = make_table(ref(host), stake=50)
    with pytest.raises(TableError) as exc:
        services.seat_take(table_id=table.pk, player=guest(), number=2)
    assert codes(exc) == "GUEST_AT_COMPETITIVE"
    assert table.seats.count() == 1


def test_a_guest_cannot_open_a_competitive_table(db):
    with pytest.raises(TableError) as exc:
        services.table_create(player=guest(), game="tetriwar", options={}, seats_total=2, stake=10)
    assert codes(exc) == "GUEST_AT_COMPETITIVE"
    assert not Table.objects.exists()


def test_a_player_without_the_stake_cannot_sit(host, make_user, make_table):
    poor = make_user("poor", chips=40)
    table = make_table(ref(host), stake=50)
    with pytest.raises(TableError) as exc:
        services.seat_take(table_id=table.pk, player=ref(poor), number=2)
    assert codes(exc) == "NOT_ENOUGH_CHIPS"
    assert "50" in exc.value.message and "40" in exc.value.message


def test_a_player_holding_the_stake_sits(host, opponent, make_table):
    table = make_table(ref(host), stake=1000)
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    assert table.seats.count() == 2


def test_standing_up_frees_the_seat(host, opponent, make_table):
    table = make_table(ref(host))
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    services.seat_leave(table_id=table.pk, player=ref(opponent))
    assert list(table.seats.values_list("number", flat=True)) == [1]


def test_when_the_host_stands_up_the_lowest_seat_hosts(host, opponent, make_table):
    table = make_table(ref(host))
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    services.seat_leave(table_id=table.pk, player=ref(host))
    table.refresh_from_db()
    assert selectors.is_host(table, ref(opponent))
    assert table.host_name == "opponent"


def test_the_last_player_to_leave_closes_the_table(host, make_table):
    table = make_table(ref(host))
    services.seat_leave(table_id=table.pk, player=ref(host))
    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED


def test_standing_without_a_seat_is_refused(host, outsider, make_table):
    table = make_table(ref(host))
    with pytest.raises(TableError) as exc:
        services.seat_leave(table_id=table.pk, player=ref(outsider))
    assert codes(exc) == "NOT_SEATED"


def test_the_host_starts_when_every_seated_player_is_ready(host, opponent, make_table):
    table = make_table(ref(host))
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    services.seat_ready(table_id=table.pk, player=ref(host), ready=True)
    with pytest.raises(TableError) as exc:
        services.table_start(table_id=table.pk, player=ref(host))
    assert codes(exc) == "NOT_READY" and "opponent" in exc.value.message
    services.seat_ready(table_id=table.pk, player=ref(opponent), ready=True)
    assert services.table_start(table_id=table.pk, player=ref(host)).status == Table.Status.RUNNING


def test_a_player_cannot_start_someone_elses_table(host, opponent, make_table):
    table = make_table(ref(host))
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    for p in (host, opponent):
        services.seat_ready(table_id=table.pk, player=ref(p), ready=True)
    with pytest.raises(TableError) as exc:
        services.table_start(table_id=table.pk, player=ref(opponent))
    assert codes(exc) == "NOT_HOST"
    table.refresh_from_db()
    assert table.status == Table.Status.OPEN


def test_pairs_need_four_seated_players(host, opponent, make_table):
    table = make_table(ref(host), seats=4, options={"pairs": True})
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    for p in (host, opponent):
        services.seat_ready(table_id=table.pk, player=ref(p), ready=True)
    with pytest.raises(TableError) as exc:
        services.table_start(table_id=table.pk, player=ref(host))
    assert "4" in exc.value.message


def test_nobody_sits_down_while_a_game_runs(host, outsider, make_table):
    table = make_table(ref(host), seats=2)
    services.seat_ready(table_id=table.pk, player=ref(host), ready=True)
    services.table_start(table_id=table.pk, player=ref(host))
    with pytest.raises(TableError) as exc:
        services.seat_take(table_id=table.pk, player=ref(outsider), number=2)
    assert codes(exc) == "GAME_RUNNING"


def test_closing_a_table_releases_its_seats_and_says_why(host, opponent, admin_user, make_table):
    table = make_table(ref(host))
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    services.table_close(table_id=table.pk, reason="Abusive name.", by=admin_user)
    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED
    assert table.closed_reason == "Abusive name."
    assert not Seat.objects.filter(table=table).exists()
    with pytest.raises(TableError) as exc:
        services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    assert codes(exc) == "TABLE_CLOSED"


def test_a_banned_player_loses_seats_at_open_tables(host, opponent, admin_user, make_table):
    table = make_table(ref(host))
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    services.player_ban(user=opponent, reason="cheating", by=admin_user)
    assert list(table.seats.values_list("number", flat=True)) == [1]
    opponent.refresh_from_db()
    assert opponent.is_banned and not opponent.is_active


def test_a_ban_and_the_release_of_its_seats_are_one_transaction(
    host, opponent, admin_user, make_table, monkeypatch
):
    table = make_table(ref(host))
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)

    def fail(**kwargs):
        raise RuntimeError("the lobby could not release the seats")

    monkeypatch.setattr(services, "seats_release_for_user", fail)
    with pytest.raises(RuntimeError):
        services.player_ban(user=opponent, reason="cheating", by=admin_user)
    opponent.refresh_from_db()
    assert opponent.is_active and not opponent.is_banned  # the ban was undone with it
    assert list(table.seats.values_list("number", flat=True)) == [1, 2]


def test_watchers_leaving_a_closed_table_tell_no_lobby(host, outsider, make_table, monkeypatch):
    # The lobby dropped the table's row when it closed: a row fragment now would look
    # for a row that no lobby page has (htmx:oobErrorNoTarget).
    from lobby import broadcast

    told = []
    monkeypatch.setattr(broadcast, "watchers_changed", lambda table_id, seats=False: told.append(table_id))
    table = make_table(ref(host))
    services.watcher_add(table_id=table.pk, channel_name="specific.a", player=ref(outsider), server="gone")
    services.watcher_add(table_id=table.pk, channel_name="specific.b", player=None, server="gone")
    services.watcher_add(table_id=table.pk, channel_name="specific.c", player=None, server="gone")
    services.watcher_remove(channel_name="specific.a")
    assert told == [table.pk] * 4  # an open table's count changes for everybody
    services.table_close(table_id=table.pk, reason="Closed for the night.")
    services.watcher_remove(channel_name="specific.b")  # a page that closes
    assert services.watchers_reconcile(alive={"here"}) == 1  # a process that died
    assert told == [table.pk] * 4
