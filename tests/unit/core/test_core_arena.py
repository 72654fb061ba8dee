"""The arena's rules (games/core/arena.py, issue 51): points by place, streaks, the
standings' order, the prize split and the pairing."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.core import arena
from games.core.arena import NO_STREAK, Streak, pairings, place_points, prize_split, score, standings

# --- points by place -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "points"),
    [(2, [1, 0]), (3, [2, 1, 0]), (4, [3, 2, 1, 0]), (12, list(range(11, -1, -1)))],
)
def test_each_place_scores_players_less_place(players, points):
    assert [place_points(place, players) for place in range(1, players + 1)] == points


def test_tied_places_share_the_better_places_points():
    # A drawn duel: both first. Three players, two tied second: both score 1.
    assert place_points(1, 2) == 1
    assert [place_points(p, 3) for p in (1, 2, 2)] == [2, 1, 1]


@pytest.mark.parametrize(("place", "players"), [(0, 2), (3, 2), (1, 0)])
def test_a_place_outside_the_game_is_refused(place, players):
    with pytest.raises(ValueError):
        place_points(place, players)


# --- streaks ---------------------------------------------------------------------------


def play(results, players=2):
    """Points of a run of games: 'W' a sole first, 'D' a shared first, 'L' last, 'F' a forfeit."""
    streak, points = NO_STREAK, []
    for result in results:
        place = {"W": 1, "D": 1, "L": players, "F": players}[result]
        scored = score(streak, place=place, players=players, sole_first=result == "W", forfeited=result == "F")
        points.append(scored.points)
        streak = scored.streak
    return points, streak


def test_two_firsts_in_a_row_double_the_games_after_them():
    assert play("WWWW")[0] == [1, 1, 2, 2]


def test_the_first_game_that_is_not_a_first_is_doubled_and_ends_the_streak():
    points, streak = play("WWWLW")
    assert points == [1, 1, 2, 0, 1]
    assert streak == Streak(firsts=1, on_fire=False)
    # In a game of four, a second place on fire scores twice its 2 points.
    assert play("WWW", players=4)[0] == [3, 3, 6]
    streak = Streak(firsts=2, on_fire=True)
    assert score(streak, place=2, players=4, sole_first=False, forfeited=False).points == 4


def test_a_draw_on_a_streak_scores_two_and_ends_it():
    points, streak = play("WWD")
    assert points == [1, 1, 2]
    assert streak == NO_STREAK
    assert play("WWDW")[0] == [1, 1, 2, 1]


def test_a_shared_first_does_not_start_a_streak():
    assert play("DDDW")[0] == [1, 1, 1, 1]
    assert play("WDWW")[0] == [1, 1, 1, 1]


def test_a_forfeit_scores_nothing_and_ends_the_streak():
    points, streak = play("WWFWW", players=3)
    assert points == [2, 2, 0, 2, 2]
    assert streak == Streak(firsts=2, on_fire=True)
    assert play("WWWF")[0][-1] == 0


@given(st.lists(st.sampled_from("WDLF"), max_size=40))
def test_a_game_scores_its_place_or_twice_it_never_more(results):
    points, _ = play(results)
    for result, got in zip(results, points, strict=True):
        base = {"W": 1, "D": 1, "L": 0, "F": 0}[result]
        assert got in (base, 2 * base)


# --- standings -------------------------------------------------------------------------


@dataclass
class Row:
    name: str
    points: int
    games: int
    rating: float
    joined: int


def test_standings_points_then_fewer_games_then_rating_then_joining():
    rows = [
        Row("late", 5, 3, 25.0, 4),
        Row("many-games", 5, 4, 40.0, 0),
        Row("top", 9, 6, 10.0, 5),
        Row("rated", 5, 3, 30.0, 6),
        Row("early", 5, 3, 25.0, 1),
    ]
    assert [r.name for r in standings(rows)] == ["top", "rated", "early", "late", "many-games"]


# --- prizes ----------------------------------------------------------------------------


def test_the_pool_goes_fifty_thirty_twenty_to_the_chip():
    assert prize_split(1000, 3) == [500, 300, 200]
    assert prize_split(101, 5) == [51, 30, 20]
    assert prize_split(7, 3) == [4, 2, 1]
    assert prize_split(0, 3) == [0, 0, 0]


def test_fewer_than_three_share_in_the_same_proportion():
    assert prize_split(800, 2) == [500, 300]
    assert prize_split(801, 2) == [501, 300]
    assert prize_split(90, 1) == [90]
    assert prize_split(90, 0) == []


@given(st.integers(min_value=0, max_value=10**9), st.integers(min_value=1, max_value=300))
def test_the_split_conserves_the_pool_and_keeps_the_podium_in_order(pool, podium):
    split = prize_split(pool, podium)
    assert sum(split) == pool
    assert len(split) == min(podium, 3)
    assert split == sorted(split, reverse=True)
    assert all(share >= 0 for share in split)


# --- pairing ---------------------------------------------------------------------------


@dataclass
class Waiter:
    key: str
    points: int = 0
    rating: float = 25.0
    since: float = 0.0
    last_opponents: frozenset[str] = field(default_factory=frozenset)


def keys(groups):
    return [[w.key for w in group] for group in groups]


def test_pairing_by_score_first_then_rating():
    waiting = [
        Waiter("low", points=0, rating=40),
        Waiter("top", points=9, rating=10),
        Waiter("mid-strong", points=4, rating=35),
        Waiter("mid-weak", points=4, rating=20),
    ]
    assert keys(pairings(waiting, 2)) == [["top", "mid-strong"], ["mid-weak", "low"]]


def test_last_games_opponents_are_passed_over_while_others_wait():
    waiting = [
        Waiter("a", points=3, last_opponents=frozenset({"b"})),
        Waiter("b", points=2, last_opponents=frozenset({"a"})),
        Waiter("c", points=1),
        Waiter("d", points=0),
    ]
    assert keys(pairings(waiting, 2)) == [["a", "c"], ["b", "d"]]


def test_the_same_opponents_again_when_nobody_else_waits():
    waiting = [Waiter("a", last_opponents=frozenset({"b"})), Waiter("b", last_opponents=frozenset({"a"}))]
    assert sorted(keys(pairings(waiting, 2))[0]) == ["a", "b"]


def test_multiplayer_tables_and_the_smaller_rest():
    waiting = [Waiter(str(n), points=10 - n) for n in range(7)]
    assert keys(pairings(waiting, 3)) == [["0", "1", "2"], ["3", "4", "5"]]  # one waits
    assert keys(pairings(waiting, 4)) == [["0", "1", "2", "3"], ["4", "5", "6"]]
    assert keys(pairings(waiting, 4, smallest=4)) == [["0", "1", "2", "3"]]
    assert pairings(waiting[:1], 2) == []


def test_the_rest_waits_a_little_for_a_full_table():
    waiting = [Waiter("a", since=0.0), Waiter("b", since=3.0)]
    assert pairings(waiting, 3, now=5.0, patience=8.0) == []  # a third may come
    assert keys(pairings(waiting, 3, now=8.0, patience=8.0)) == [["a", "b"]]  # a waited 8 s
    full = [*waiting, Waiter("c", since=4.0), Waiter("d", since=4.5)]
    assert keys(pairings(full, 3, now=5.0, patience=8.0)) == [["a", "b", "c"]]  # d waits on


def test_a_table_of_three_passes_over_anyone_who_played_any_of_it():
    waiting = [
        Waiter("a", points=5, last_opponents=frozenset({"c"})),
        Waiter("b", points=4),
        Waiter("c", points=3, last_opponents=frozenset({"a"})),
        Waiter("d", points=2),
    ]
    assert keys(pairings(waiting, 3)) == [["a", "b", "d"]]


def test_bad_table_sizes_are_refused():
    with pytest.raises(ValueError):
        pairings([], 1, 1)
    with pytest.raises(ValueError):
        pairings([], 2, 3)


@given(
    st.lists(
        st.tuples(st.integers(0, 20), st.floats(0, 50), st.sets(st.integers(0, 15), max_size=3)),
        max_size=16,
    ),
    st.integers(2, 5),
)
def test_nobody_is_seated_twice_and_everyone_left_is_too_few(rows, size):
    waiting = [
        Waiter(str(n), points=p, rating=r, since=n, last_opponents=frozenset(str(o) for o in opp))
        for n, (p, r, opp) in enumerate(rows)
    ]
    groups = pairings(waiting, size)
    seated = [w.key for group in groups for w in group]
    assert len(seated) == len(set(seated))
    assert all(2 <= len(group) <= size for group in groups)
    assert len(waiting) - len(seated) < 2


def test_the_quiet_minute_and_the_lengths():
    assert arena.QUIET_SECONDS == 60
    assert (arena.MIN_MINUTES, arena.MAX_MINUTES) == (10, 120)
    assert arena.PRIZE_SHARES == (50, 30, 20)
