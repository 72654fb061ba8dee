"""Quick play (issue 32, lobby/quickplay.py): the queue, the matcher's rating window and
how it widens, one queue and one seat per person, leaving, reloading, stale entries.
Times are explicit (``now=``): the tests move the clock, nothing sleeps."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from games.models import Game, Rating
from games.registry import GAMES
from games.services import game_abort
from lobby import quickplay, services
from lobby.models import QueueEntry, Seat, Table
from lobby.quickplay import (
    RATING_WINDOW_MU,
    RATING_WINDOW_MU_PER_SECOND,
    STALE_SECONDS,
    Waiting,
    pairings,
    queue_join,
    queue_leave,
    queue_match,
    queue_poll,
    rating_window,
)
from tests.personas import guest, ref

pytestmark = pytest.mark.django_db
T0 = timezone.make_aware(dt.datetime(2026, 11, 27, 12, 0, 0))


def at(seconds: float) -> dt.datetime:
    return T0 + dt.timedelta(seconds=seconds)


def rated(user, kind: str, mu: float):
    Rating.objects.create(user=user, kind=kind, mu=mu, sigma=3.0)
    return user


def seats_of(user) -> list[Seat]:
    return list(Seat.objects.filter(user=user, table__status__in=("open", "running")))


# --- the pairing alone ----------------------------------------------------------------


def test_the_window_is_100_points_and_widens_by_100_points_every_5_seconds():
    assert rating_window(0) == RATING_WINDOW_MU == 2.5  # 40 shown points a mu: 100
    assert rating_window(5) == pytest.approx(2.5 + 5 * RATING_WINDOW_MU_PER_SECOND) == pytest.approx(5.0)
    assert rating_window(20) == pytest.approx(12.5)


def test_two_players_within_the_window_are_paired_at_once():
    a, b = Waiting("a", 25.0, at(0)), Waiting("b", 27.0, at(0))
    assert pairings([a, b], 2, at(0)) == [[a, b]]


def test_players_too_far_apart_wait_until_the_window_has_widened_enough():
    a, b = Waiting("a", 20.0, at(0)), Waiting("b", 25.0, at(0))  # 5 mu apart: 200 points
    assert pairings([a, b], 2, at(0)) == []
    assert pairings([a, b], 2, at(4.9)) == []  # 2.5 + 2.45 < 5
    assert pairings([a, b], 2, at(5)) == [[a, b]]  # 2.5 + 2.5 = 5


def test_the_longest_waiter_gets_the_nearest_rating_in_its_window():
    old = Waiting("old", 25.0, at(0))
    near, far, other = Waiting("near", 25.5, at(3)), Waiting("far", 27.0, at(1)), Waiting("o", 27.2, at(2))
    assert pairings([far, near, old, other], 2, at(4)) == [[old, near], [far, other]]


def test_a_game_of_three_or_more_waits_for_as_many_within_the_window():
    a, b, c = Waiting("a", 25.0, at(0)), Waiting("b", 26.0, at(0)), Waiting("c", 40.0, at(0))
    assert pairings([a, b, c], 3, at(0)) == []
    assert pairings([a, b, c], 3, at(24)) == []  # 2.5 + 12 < 15
    assert pairings([a, b, c], 3, at(25)) == [[a, b, c]]  # 2.5 + 12.5 = 15


def test_every_game_is_matched_two_at_a_time_or_as_many_as_it_needs():
    assert {slug: quickplay.players_per_match(spec) for slug, spec in GAMES.items()} == {
        "tetriwar": 2, "viertris": 2, "thirdoption": 2, "blockkiller": 3, "tetrix": 2,
    }


# --- the queue in the database ---------------------------------------------------------


def test_two_players_who_press_play_now_meet_at_a_running_table_of_default_options(host, opponent):
    queue_join(player=ref(host), game="viertris", now=at(0))
    entry = queue_join(player=ref(opponent), game="viertris", now=at(1))
    table = entry.table
    assert table is not None and table.status == Table.Status.RUNNING
    assert table.game == "viertris" and table.options == GAMES["viertris"].options_form.defaults()
    assert table.stake == 0 and table.seats_total == 2
    assert {(s.number, s.user_id, s.ready) for s in table.seats.all()} == {(1, host.pk, True), (2, opponent.pk, True)}
    assert Game.objects.get(table=table).status == Game.Status.RUNNING
    assert table.host_user_id == host.pk  # the longest waiter


def test_block_killer_is_matched_three_at_a_time(host, opponent, third):
    for n, user in enumerate((host, opponent)):
        assert queue_join(player=ref(user), game="blockkiller", now=at(n)).table is None
    table = queue_join(player=ref(third), game="blockkiller", now=at(2)).table
    assert table.seats_total == 3 and table.seats.count() == 3 and table.status == Table.Status.RUNNING


def test_players_outside_the_window_are_matched_once_it_has_widened(host, opponent):
    rated(host, "tetrix", 20.0)
    rated(opponent, "tetrix", 25.0)
    queue_join(player=ref(host), game="tetrix", now=at(0))
    assert queue_join(player=ref(opponent), game="tetrix", now=at(0)).table is None
    assert queue_poll(player=ref(host), now=at(4)).table is None
    assert QueueEntry.objects.get(user=opponent).rating == 25.0  # the snapshot taken at the join
    entry = queue_poll(player=ref(host), now=at(5))
    assert entry.table is not None and entry.table.status == Table.Status.RUNNING


def test_friendly_and_competitive_queues_never_mix(make_user):
    rich = [make_user(f"rich{i}", chips=1000) for i in range(3)]
    queue_join(player=ref(rich[0]), game="tetriwar", stake=0, now=at(0))
    assert queue_join(player=ref(rich[1]), game="tetriwar", stake=50, now=at(0)).table is None
    assert queue_join(player=ref(rich[2]), game="tetriwar", stake=100, now=at(0)).table is None
    assert Table.objects.count() == 0


def test_a_competitive_match_takes_the_stakes_into_the_pot(make_user):
    one, two = make_user("one", chips=500), make_user("two", chips=500)
    queue_join(player=ref(one), game="tetriwar", stake=100, now=at(0))
    table = queue_join(player=ref(two), game="tetriwar", stake=100, now=at(0)).table
    assert table.stake == 100 and table.status == Table.Status.RUNNING
    assert Game.objects.get(table=table).pot == 200
    one.refresh_from_db(), two.refresh_from_db()
    assert (one.chips, two.chips) == (400, 400)


def test_guests_play_friendly_only(db):
    queue_join(player=guest("anna", "tok-a"), game="viertris", now=at(0))
    with pytest.raises(services.TableError) as refused:
        queue_join(player=guest("bert", "tok-b"), game="viertris", stake=10, now=at(0))
    assert refused.value.code == "GUEST_AT_COMPETITIVE"
    table = queue_join(player=guest("bert", "tok-b"), game="viertris", now=at(0)).table
    assert sorted(table.seats.values_list("guest_token", flat=True)) == ["tok-a", "tok-b"]


def test_a_competitive_join_needs_the_free_chips(make_user):
    poor = make_user("poor", chips=30)
    with pytest.raises(services.TableError) as refused:
        queue_join(player=ref(poor), game="tetriwar", stake=50, now=at(0))
    assert refused.value.code == "NOT_ENOUGH_CHIPS"
    assert not QueueEntry.objects.exists()


# --- one queue, one seat ---------------------------------------------------------------


def test_joining_another_game_s_queue_moves_the_player(host):
    queue_join(player=ref(host), game="viertris", now=at(0))
    entry = queue_join(player=ref(host), game="tetrix", now=at(5))
    assert list(QueueEntry.objects.values_list("game", flat=True)) == ["tetrix"]
    assert entry.joined_at == at(5)  # at the back of the new queue


def test_a_player_in_two_queues_is_impossible_and_is_seated_once(host, opponent, third):
    queue_join(player=ref(host), game="viertris", now=at(0))
    queue_join(player=ref(host), game="tetrix", now=at(1))
    queue_join(player=ref(opponent), game="viertris", now=at(2))
    queue_join(player=ref(third), game="tetrix", now=at(3))
    assert len(seats_of(host)) == 1 and seats_of(host)[0].table.game == "tetrix"
    assert seats_of(opponent) == []  # the Viertris queue they joined is empty of the host


def test_a_player_matched_once_is_not_matched_again_by_a_later_sweep(host, opponent, third):
    queue_join(player=ref(host), game="viertris", now=at(0))
    queue_join(player=ref(opponent), game="viertris", now=at(0))
    queue_join(player=ref(third), game="viertris", now=at(1))
    for second in range(2, 9, 2):
        assert queue_match(now=at(second)) == []
    assert len(seats_of(host)) == 1 and len(seats_of(opponent)) == 1 and seats_of(third) == []
    assert Table.objects.count() == 1


def test_a_player_at_a_running_game_cannot_join(host, opponent, third):
    queue_join(player=ref(host), game="viertris", now=at(0))
    queue_join(player=ref(opponent), game="viertris", now=at(0))
    with pytest.raises(services.TableError) as refused:
        queue_join(player=ref(host), game="tetrix", now=at(1))
    assert refused.value.code == "ALREADY_PLAYING"


def test_a_player_seated_at_a_waiting_table_cannot_join(host, make_table):
    make_table(ref(host))
    with pytest.raises(services.TableError) as refused:
        queue_join(player=ref(host), game="tetrix", now=at(0))
    assert refused.value.code == "SEATED_ELSEWHERE"
    assert not QueueEntry.objects.exists()


def test_after_a_finished_game_play_now_stands_the_player_up_from_its_table(host, opponent):
    queue_join(player=ref(host), game="viertris", now=at(0))
    table = queue_join(player=ref(opponent), game="viertris", now=at(0)).table
    game = Game.objects.get(table=table)
    game_abort(game_id=game.pk, reason="test")
    assert Table.objects.get(pk=table.pk).status == Table.Status.OPEN
    entry = queue_join(player=ref(host), game="viertris", now=at(60))
    assert entry.table is None and seats_of(host) == []


def test_a_player_seated_meanwhile_leaves_the_queue_and_the_other_waits_on(host, opponent, outsider, make_table):
    queue_join(player=ref(host), game="viertris", now=at(0))
    # The opponent joins, then sits down at a table by hand before the matcher runs.
    QueueEntry.objects.create(
        player_key=f"u{opponent.pk}", user=opponent, name=opponent.username, game="viertris",
        rating=25.0, joined_at=at(0), seen_at=at(0),
    )
    table = make_table(ref(outsider))
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    assert queue_match(game="viertris", now=at(1)) == []
    assert list(QueueEntry.objects.values_list("user_id", flat=True)) == [host.pk]
    assert len(seats_of(opponent)) == 1


# --- leaving, reloading, going stale ---------------------------------------------------


def test_leaving_the_queue_takes_the_player_out(host, opponent):
    queue_join(player=ref(host), game="viertris", now=at(0))
    assert queue_leave(player=ref(host)) is None
    assert queue_join(player=ref(opponent), game="viertris", now=at(1)).table is None


def test_leaving_after_being_matched_gives_the_table(host, opponent):
    queue_join(player=ref(host), game="viertris", now=at(0))
    table = queue_join(player=ref(opponent), game="viertris", now=at(0)).table
    assert queue_leave(player=ref(host)) == table


def test_a_reload_keeps_the_player_s_place(host, opponent):
    queue_join(player=ref(host), game="viertris", now=at(0))
    queue_join(player=ref(host), game="viertris", now=at(8))  # Play now again, or the page reloaded
    entry = queue_poll(player=ref(host), now=at(9))
    assert entry.joined_at == at(0) and entry.seen_at == at(9)


def test_an_entry_whose_page_stopped_asking_is_dropped_by_the_matcher(host, opponent):
    queue_join(player=ref(host), game="viertris", now=at(0))  # then the page is closed
    assert queue_join(player=ref(opponent), game="viertris", now=at(STALE_SECONDS + 1)).table is None
    assert list(QueueEntry.objects.values_list("user_id", flat=True)) == [opponent.pk]
    assert queue_poll(player=ref(host), now=at(STALE_SECONDS + 2)) is None


def test_an_entry_whose_page_keeps_asking_stays(host, opponent):
    queue_join(player=ref(host), game="viertris", now=at(0))
    for second in range(2, 31, 2):
        queue_poll(player=ref(host), now=at(second))
    assert queue_join(player=ref(opponent), game="viertris", now=at(31)).table is not None


def test_the_page_follows_a_match_once(host, opponent):
    queue_join(player=ref(host), game="viertris", now=at(0))
    table = queue_join(player=ref(opponent), game="viertris", now=at(0)).table
    assert queue_poll(player=ref(host), now=at(1)).table == table
    assert queue_poll(player=ref(host), now=at(2)) is None  # Back from the table: no queue
