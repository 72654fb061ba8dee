"""Arenas (issue 51, lobby/arenas.py): creating, joining, pausing and leaving, the
pairing as games end, the scoring, the end with its prizes, cancelling. Times are
explicit (``now=``): the tests move the clock, nothing sleeps."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db.models import Sum
from django.test import TestCase
from django.utils import timezone

from accounts.models import ChipTransaction, ModerationAction, User
from games import services as game_services
from games.models import Game
from lobby import arenas
from lobby.arenas import ArenaError
from lobby.models import Arena, ArenaPlayer, ArenaSchedule, Table, Watcher
from tests.games.test_money import outcome
from tests.personas import guest, ref

pytestmark = pytest.mark.django_db
START = timezone.now().replace(microsecond=0) + dt.timedelta(minutes=30)


def at(minutes: float) -> dt.datetime:
    return START + dt.timedelta(minutes=minutes)


@pytest.fixture(autouse=True)
def clock(monkeypatch):
    """The arenas' clock, which the test moves (``clock.now``); at the start by default."""

    class Clock:
        now = at(0)

        def to(self, minutes: float) -> None:
            self.now = at(minutes)

    it = Clock()
    monkeypatch.setattr(arenas, "clock", lambda: it.now)
    return it


@pytest.fixture
def staff(make_user):
    user = make_user("staffer")
    User.objects.filter(pk=user.pk).update(is_staff=True)
    user.refresh_from_db()
    return user


@pytest.fixture
def players(make_user):
    return [make_user(f"player{n}") for n in range(6)]


def make_arena(staff, *, fee=0, minutes=30, game="viertris", options=None, seats=None) -> Arena:
    return arenas.arena_create(
        by=staff, title="Sunday arena", game=game, starts_at=START, minutes=minutes, fee=fee, options=options,
        seats=seats,
        now=START - dt.timedelta(minutes=30),
    )


def refused(code, call, *args, **kwargs):
    with pytest.raises(ArenaError) as err:
        call(*args, **kwargs)
    assert err.value.code == code, err.value
    assert str(err.value.message)


def join(arena, user, minutes=-5, ip=None):
    return arenas.arena_join(arena_id=arena.pk, player=ref(user), ip=ip, now=at(minutes))


def with_pages(table: Table) -> None:
    """Every player of the table has its page open (a closed page pauses its player)."""
    for seat in table.seats.all():
        Watcher.objects.create(table=table, channel_name=f"page-{table.pk}-{seat.number}", user_id=seat.user_id,
                               guest_token=seat.guest_token)


def arena_tables(arena) -> list[Table]:
    return list(Table.objects.filter(arena=arena).order_by("pk"))


def running(arena) -> list[Table]:
    return [t for t in arena_tables(arena) if t.status == Table.Status.RUNNING]


def finish(table: Table, places: dict, forfeits=(), *, pages=True) -> None:
    """The table's game ends so (what follows its commit too: its players paired again)."""
    if pages:
        with_pages(table)
    game = Game.objects.get(table=table, status=Game.Status.RUNNING)
    with TestCase.captureOnCommitCallbacks(execute=True):
        game_services.game_finish(game_id=game.pk, finished=outcome(places, forfeits=forfeits))


def seat_of(table: Table, user) -> int:
    return table.seats.get(user=user).number


def entry(arena, user) -> ArenaPlayer:
    return ArenaPlayer.objects.get(arena=arena, user=user)


def total_chips() -> int:
    return (User.objects.aggregate(total=Sum("chips"))["total"] or 0) + sum(a.pool for a in Arena.objects.all())


# --- creating ---------------------------------------------------------------------------


def test_staff_create_an_arena_with_a_fee_and_it_is_logged(staff):
    arena = make_arena(staff, fee=50)
    assert (arena.fee, arena.minutes, arena.status) == (50, 30, Arena.Status.SCHEDULED)
    assert arena.seats == 2  # a duel by default
    action = ModerationAction.objects.get(arena_id=arena.pk)
    assert (action.admin, action.action) == (staff, ModerationAction.Action.CREATE_ARENA)


def test_block_killer_arenas_seat_three_and_third_option_the_chosen_seats(staff):
    assert make_arena(staff, game="blockkiller").seats == 3
    assert make_arena(staff, game="thirdoption", seats=4).seats == 4
    refused("BAD_SEATS", make_arena, staff, game="thirdoption", seats=13)
    refused("BAD_SEATS", make_arena, staff, game="viertris", seats=1)


def test_a_player_makes_friendly_arenas_only_and_few_of_them(players):
    maker = players[0]
    refused("FEE_FOR_STAFF", make_arena, maker, fee=10)
    make_arena(maker)
    make_arena(maker)
    refused("TOO_MANY_ARENAS", make_arena, maker)
    assert not ModerationAction.objects.exists()  # a player's own arena is no moderation


@pytest.mark.parametrize("minutes", [9, 121, 0])
def test_an_arena_lasts_10_to_120_minutes(staff, minutes):
    refused("BAD_LENGTH", make_arena, staff, minutes=minutes)


def test_bad_games_options_titles_and_starts_are_refused(staff):
    refused("NO_SUCH_GAME", make_arena, staff, game="chess")
    refused("BAD_OPTIONS", make_arena, staff, options={"no such option": 99})
    refused("BAD_TITLE", arenas.arena_create, by=staff, title=" ", game="viertris", starts_at=START, minutes=20)
    refused("IN_THE_PAST", arenas.arena_create, by=staff, title="Old", game="viertris",
            starts_at=START - dt.timedelta(days=1), minutes=20, now=START)


# --- joining, pausing, leaving ----------------------------------------------------------


def test_joining_pays_the_fee_into_the_pool_once(staff, players):
    arena = make_arena(staff, fee=100)
    before = total_chips()
    join(arena, players[0])
    refused("ALREADY_JOINED", join, arena, players[0])
    players[0].refresh_from_db()
    arena.refresh_from_db()
    assert (players[0].chips, arena.pool) == (900, 100)
    assert ChipTransaction.objects.filter(user=players[0], reason="arena_fee", delta=-100).count() == 1
    assert total_chips() == before


def test_joining_is_refused_without_the_chips_as_a_guest_at_a_fee_or_for_nobody(staff, players, make_user):
    arena = make_arena(staff, fee=100)
    poor = make_user("poor", chips=99)
    refused("NOT_ENOUGH_CHIPS", join, arena, poor)
    refused("GUEST_AT_FEE", arenas.arena_join, arena_id=arena.pk, player=guest(), now=at(-5))
    refused("WHO_ARE_YOU", arenas.arena_join, arena_id=arena.pk, player=None, now=at(-5))
    assert not ArenaPlayer.objects.exists()
    poor.refresh_from_db()
    assert poor.chips == 99


def test_a_guest_may_join_a_friendly_arena(staff):
    arena = make_arena(staff)
    arenas.arena_join(arena_id=arena.pk, player=guest(), now=at(-5))
    assert ArenaPlayer.objects.get().user_id is None


def test_joining_before_the_window_after_the_end_or_a_forged_arena_is_refused(staff, players):
    arena = make_arena(staff)
    refused("TOO_EARLY", join, arena, players[0], minutes=-61)
    refused("ARENA_OVER", join, arena, players[0], minutes=30)
    for forged in ("999999", "abc", None, -1, "1 OR 1=1"):
        refused("NO_SUCH_ARENA", arenas.arena_join, arena_id=forged, player=ref(players[0]), now=at(0))
    join(arena, players[0], minutes=-60)  # the window opens an hour before the start


def test_pausing_and_leaving_are_for_ones_own_entry(staff, players):
    arena = make_arena(staff)
    mine = join(arena, players[0])
    other = join(arena, players[1])
    refused("NOT_YOURS", arenas.arena_pause, arena_id=arena.pk, player=ref(players[0]), whose=other.pk)
    refused("NOT_YOURS", arenas.arena_leave, arena_id=arena.pk, player=ref(players[0]), whose=other.pk)
    refused("NOT_JOINED", arenas.arena_pause, arena_id=arena.pk, player=ref(players[2]))
    arenas.arena_pause(arena_id=arena.pk, player=ref(players[0]), whose=mine.pk)
    refused("ALREADY_PAUSED", arenas.arena_pause, arena_id=arena.pk, player=ref(players[0]))
    assert entry(arena, players[1]).status == ArenaPlayer.Status.ACTIVE


def test_leaving_before_the_start_returns_the_fee(staff, players):
    arena = make_arena(staff, fee=100)
    before = total_chips()
    join(arena, players[0])
    arenas.arena_leave(arena_id=arena.pk, player=ref(players[0]), now=at(-1))
    players[0].refresh_from_db()
    arena.refresh_from_db()
    assert (players[0].chips, arena.pool) == (1000, 0)
    assert total_chips() == before
    join(arena, players[0], minutes=-1)  # and may join again, paying again
    arena.refresh_from_db()
    assert arena.pool == 100


# --- pairing ----------------------------------------------------------------------------


def test_the_arena_starts_and_pairs_whoever_waits(staff, players):
    arena = make_arena(staff)
    for user in players[:3]:
        join(arena, user)
    arenas.arena_tick(arena_id=arena.pk, now=at(-1))
    assert arena_tables(arena) == []  # not before its start
    arenas.arena_tick(arena_id=arena.pk, now=at(0))
    arena.refresh_from_db()
    assert arena.status == Arena.Status.RUNNING
    [table] = running(arena)
    assert table.seats.count() == 2 and table.stake == 0
    waiting = ArenaPlayer.objects.filter(arena=arena, waiting_since__isnull=False)
    assert waiting.count() == 1  # the third waits for a partner


def test_a_paused_player_is_not_paired_and_comes_back_by_joining(staff, players):
    arena = make_arena(staff)
    join(arena, players[0])
    join(arena, players[1])
    arenas.arena_pause(arena_id=arena.pk, player=ref(players[1]))
    arenas.arena_tick(arena_id=arena.pk, now=at(0))
    assert arena_tables(arena) == []
    join(arena, players[1], minutes=1)
    arenas.arena_tick(arena_id=arena.pk, now=at(1))
    assert len(running(arena)) == 1


def test_the_pairing_runs_at_most_once_a_second_however_many_look(staff, players):
    arena = make_arena(staff)
    join(arena, players[0])
    join(arena, players[1])
    arenas.arena_tick(arena_id=arena.pk, now=at(0))
    join(arena, players[2], minutes=0)
    join(arena, players[3], minutes=0)
    half = at(0) + dt.timedelta(seconds=0.5)
    arenas.arena_tick(arena_id=arena.pk, now=half)
    assert len(arena_tables(arena)) == 1
    arenas.arena_tick(arena_id=arena.pk, now=at(0) + dt.timedelta(seconds=1))
    assert len(arena_tables(arena)) == 2


def test_no_new_pairing_in_the_last_minute(staff, players):
    arena = make_arena(staff, minutes=10)
    join(arena, players[0])
    join(arena, players[1])
    arenas.arena_tick(arena_id=arena.pk, now=at(9.1))
    assert arena_tables(arena) == []
    arena.refresh_from_db()
    assert arena.status == Arena.Status.RUNNING


def test_a_block_killer_arena_seats_three(staff, players):
    arena = make_arena(staff, game="blockkiller")
    for user in players[:5]:
        join(arena, user)
    arenas.arena_tick(arena_id=arena.pk, now=at(0))
    assert [t.seats.count() for t in running(arena)] == [3]  # two wait: too few for a table


# --- scoring and pairing again ----------------------------------------------------------


def after_the_results(arena, clock, minutes=0.0):
    """The results' moment has passed (``arenas.RESULTS_SECONDS``): the arena pairs again."""
    clock.now = at(minutes) + dt.timedelta(seconds=arenas.RESULTS_SECONDS)
    arenas.arena_tick(arena_id=arena.pk)


def test_a_finished_game_scores_and_its_players_are_paired_again_not_with_each_other(staff, players, clock):
    arena = make_arena(staff)
    for user in players[:5]:
        join(arena, user)
    arenas.arena_tick(arena_id=arena.pk, now=at(0))
    first, second = running(arena)
    [fifth] = [e.user for e in ArenaPlayer.objects.filter(arena=arena, waiting_since__isnull=False)]
    winner, loser = (s.user for s in first.seats.order_by("number"))
    finish(first, {1: 1, 2: 2})
    first.refresh_from_db()
    assert first.status == Table.Status.CLOSED  # no rematch at an arena's table
    assert (entry(arena, winner).points, entry(arena, loser).points) == (1, 0)
    assert entry(arena, winner).games == entry(arena, loser).games == 1
    assert len(running(arena)) == 1  # not at once: the results first
    # Then paired again: the winner (1 point) with the one who waited, not the loser
    # they just played; the loser waits for the next game to end.
    after_the_results(arena, clock)
    new = running(arena)[-1]
    assert {s.user_id for s in new.seats.all()} == {winner.pk, fifth.pk}
    assert entry(arena, loser).waiting_since is not None
    # Two who just played each other meet again when nobody else waits.
    c, d = (s.user for s in second.seats.order_by("number"))
    arenas.arena_pause(arena_id=arena.pk, player=ref(loser))
    finish(second, {1: 1, 2: 2})
    after_the_results(arena, clock, minutes=1)
    assert {s.user_id for s in running(arena)[-1].seats.all()} == {c.pk, d.pk}


def test_streaks_double_after_two_firsts_and_a_forfeit_scores_nothing(staff, players):
    arena = make_arena(staff)
    star, rival = players[0], players[1]
    join(arena, star)
    join(arena, rival)
    history = []
    for n, star_wins in enumerate([True, True, True, False, True]):
        arenas.arena_tick(arena_id=arena.pk, now=at(n))
        [table] = running(arena)
        places = {seat_of(table, star): 1 if star_wins else 2, seat_of(table, rival): 2 if star_wins else 1}
        finish(table, places)
        history.append(entry(arena, star).points)
    assert history == [1, 2, 4, 4, 5]  # 1, 1, 2 (on fire), 0 (doubled, ends it), 1
    arenas.arena_tick(arena_id=arena.pk, now=at(6))
    [table] = running(arena)
    finish(table, {seat_of(table, star): 2, seat_of(table, rival): 1}, forfeits=(seat_of(table, star),))
    assert entry(arena, star).points == 5
    assert (entry(arena, star).firsts, entry(arena, star).on_fire) == (0, False)


def test_a_game_between_players_of_one_address_counts_for_nobody(staff, players):
    arena = make_arena(staff)
    join(arena, players[0], ip="203.0.113.7")
    join(arena, players[1], ip="203.0.113.7")
    arenas.arena_tick(arena_id=arena.pk, now=at(0))
    [table] = running(arena)
    finish(table, {1: 1, 2: 2})
    assert [entry(arena, p).games for p in players[:2]] == [0, 0]
    assert [entry(arena, p).points for p in players[:2]] == [0, 0]


def test_a_player_whose_page_is_gone_is_paused_after_the_game(staff, players):
    arena = make_arena(staff)
    join(arena, players[0])
    join(arena, players[1])
    arenas.arena_tick(arena_id=arena.pk, now=at(0))
    [table] = running(arena)
    Watcher.objects.create(table=table, channel_name="still-here", user=players[0])
    finish(table, {1: 1, 2: 2}, pages=False)
    assert entry(arena, players[1]).status == ArenaPlayer.Status.PAUSED
    assert entry(arena, players[0]).status == ArenaPlayer.Status.ACTIVE


def test_an_aborted_arena_game_scores_nothing_and_its_players_wait_again(staff, players, clock):
    arena = make_arena(staff)
    join(arena, players[0])
    join(arena, players[1])
    arenas.arena_tick(arena_id=arena.pk, now=at(0))
    [table] = running(arena)
    with_pages(table)
    game = Game.objects.get(table=table, status=Game.Status.RUNNING)
    with TestCase.captureOnCommitCallbacks(execute=True):
        game_services.game_abort(game_id=game.pk, reason="test")
    assert [entry(arena, p).games for p in players[:2]] == [0, 0]
    after_the_results(arena, clock)
    assert len(running(arena)) == 1  # paired again


# --- the end, prizes, cancelling ------------------------------------------------------


def play_out(arena, users, wins):
    """Each round, everyone waiting is paired; the lower seat's player wins where
    ``wins`` says so."""
    for n in range(wins):
        arenas.arena_tick(arena_id=arena.pk, now=at(n))
        for table in running(arena):
            finish(table, {1: 1, 2: 2})


def test_the_end_waits_for_the_last_games_then_pays_the_podium_to_the_chip(staff, players, clock):
    arena = make_arena(staff, fee=101, minutes=10)
    before = total_chips()
    for user in players[:4]:
        join(arena, user)
    play_out(arena, players[:4], 3)
    arenas.arena_tick(arena_id=arena.pk, now=at(5))
    assert running(arena)  # one more round
    clock.to(10)
    arenas.arena_tick(arena_id=arena.pk)
    arena.refresh_from_db()
    assert arena.status == Arena.Status.RUNNING  # its games run on: the arena waits
    for table in running(arena):
        finish(table, {1: 1, 2: 2})  # the last one's end ends the arena
    arena.refresh_from_db()
    assert arena.status == Arena.Status.FINISHED and arena.pool == 0
    podium = arenas.standings(arena)[:3]
    assert [e.rank for e in podium] == [1, 2, 3]
    assert [e.prize for e in podium] == [203, 121, 80]  # 404 chips: 50/30/20, the rest to the first
    assert sum(e.prize for e in ArenaPlayer.objects.filter(arena=arena)) == 404
    assert total_chips() == before
    arenas.arena_finish(arena_id=arena.pk)  # once only
    assert ChipTransaction.objects.filter(reason="arena_prize").count() == 3


def test_nobody_played_so_every_fee_goes_back(staff, players):
    arena = make_arena(staff, fee=100, minutes=10)
    before = total_chips()
    join(arena, players[0])
    arenas.arena_tick(arena_id=arena.pk, now=at(10))
    arena.refresh_from_db()
    players[0].refresh_from_db()
    assert arena.status == Arena.Status.FINISHED
    assert (players[0].chips, arena.pool) == (1000, 0)
    assert total_chips() == before


def test_cancelling_returns_every_fee_once_and_is_logged(staff, players):
    arena = make_arena(staff, fee=100)
    before = total_chips()
    for user in players[:3]:
        join(arena, user)
    arenas.arena_cancel(arena_id=arena.pk, by=staff, reason="server maintenance")
    refused("ARENA_OVER", arenas.arena_cancel, arena_id=arena.pk, by=staff)
    assert ChipTransaction.objects.filter(reason="arena_refund").count() == 3
    assert total_chips() == before
    assert ModerationAction.objects.filter(arena_id=arena.pk, action="cancel_arena").count() == 1
    refused("ARENA_CANCELLED", join, arena, players[4])


def test_a_cancelled_arenas_running_game_counts_nothing(staff, players):
    arena = make_arena(staff)
    join(arena, players[0])
    join(arena, players[1])
    arenas.arena_tick(arena_id=arena.pk, now=at(0))
    [table] = running(arena)
    arenas.arena_cancel(arena_id=arena.pk, by=staff)
    finish(table, {1: 1, 2: 2})
    assert [entry(arena, p).points for p in players[:2]] == [0, 0]


# --- weekly arenas ----------------------------------------------------------------------


def test_a_weekly_arena_makes_its_next_one_once(staff):
    schedule = ArenaSchedule.objects.create(
        title="Sunday TetriWar", game="tetriwar", options={}, weekday=ArenaSchedule.Weekday.SUNDAY,
        time_utc=dt.time(18, 0), minutes=60,
    )
    monday = dt.datetime(2026, 11, 30, 9, 0, tzinfo=dt.UTC)
    [arena] = arenas.arenas_scheduled(now=monday)
    assert arena.starts_at == dt.datetime(2026, 12, 6, 18, 0, tzinfo=dt.UTC)
    assert arenas.arenas_scheduled(now=monday) == []
    sunday_late = dt.datetime(2026, 12, 6, 18, 30, tzinfo=dt.UTC)
    assert arenas.next_weekly(schedule, sunday_late) == dt.datetime(2026, 12, 13, 18, 0, tzinfo=dt.UTC)


def test_a_game_with_a_bot_never_counts(staff, players):
    """The pairing seats no bot; a game that had one all the same (an arena table a host
    changed, say) scores nothing for anybody."""
    from types import SimpleNamespace

    arena = make_arena(staff)
    join(arena, players[0])
    join(arena, players[1])
    arenas.arena_tick(arena_id=arena.pk, now=at(0))
    [table] = running(arena)
    with_pages(table)
    seats = {s.number: s for s in table.seats.all()}
    parts = [SimpleNamespace(seat=n, user_id=s.user_id, ip=None, bot_level="easy" if n == 2 else "")
             for n, s in seats.items()]
    assert arenas.arena_game_over(table_id=table.pk, parts=parts, outcome=outcome({1: 1, 2: 2}).outcome)
    assert [entry(arena, p).points for p in players[:2]] == [0, 0]
    assert [entry(arena, p).games for p in players[:2]] == [0, 0]


def test_the_profile_shows_the_players_arenas(client, staff, players):
    arena = make_arena(staff)
    join(arena, players[0])
    join(arena, players[1])
    arenas.arena_tick(arena_id=arena.pk, now=at(0))
    [table] = running(arena)
    finish(table, {1: 1, 2: 2})
    page = client.get(f"/accounts/players/{players[1].username}/").content.decode()
    assert 'id="arena-history"' in page and "Sunday arena" in page


def test_the_boards_sql_order_is_the_rules_order(staff, make_user):
    """lobby/arenas.py STANDINGS_ORDER sorts in the database as games/core/arena.py
    ``standings_key`` does: points, fewer games, higher rating, who joined first."""
    import random

    from games.core import arena as rules

    arena = make_arena(staff)
    rng = random.Random(7)
    for n in range(40):
        entry = join(arena, make_user(f"sorted{n}"))
        ArenaPlayer.objects.filter(pk=entry.pk).update(
            points=rng.randint(0, 4), games=rng.randint(0, 3), rating=rng.choice([20.0, 25.0, 30.0])
        )
    in_sql = [e.pk for e in arenas.ranked(arena)]
    assert in_sql == [e.pk for e in rules.standings(ArenaPlayer.objects.filter(arena=arena))]
