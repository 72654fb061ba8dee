from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.core.ranking import LEAVE_PENALTY, place_points, split_pot


@pytest.mark.parametrize(
    "sides,expected",
    [
        (2, [10, -5]),
        (3, [15, 0, -10]),
        (4, [20, 5, 0, -10]),
    ],
)
def test_the_points_table_of_the_rules(sides, expected):
    assert [place_points(place, sides) for place in range(1, sides + 1)] == expected


@pytest.mark.parametrize(
    "sides,expected",
    [
        (5, [25, 10, 5, 0, -10]),
        (6, [30, 15, 10, 5, 0, -10]),
        (8, [40, 25, 20, 15, 10, 5, 0, -10]),
        (12, [60, 45, 40, 35, 30, 25, 20, 15, 10, 5, 0, -10]),
    ],
)
def test_five_to_twelve_sides_follow_the_reconstruction(sides, expected):
    assert [place_points(place, sides) for place in range(1, sides + 1)] == expected


def test_a_single_side_scores_nothing():
    assert place_points(1, 1) == 0


def test_shared_places_get_the_better_places_points():
    # Two players tie for first of four: both are place 1, the next is place 3.
    assert [place_points(p, 4) for p in (1, 1, 3, 4)] == [20, 20, 0, -10]


def test_leaving_costs_twenty():
    assert LEAVE_PENALTY == -20


@pytest.mark.parametrize("place,sides", [(0, 2), (3, 2), (1, 13)])
def test_impossible_places_are_refused(place, sides):
    with pytest.raises(ValueError):
        place_points(place, sides)


def test_one_winner_takes_the_pot():
    assert split_pot(300, [2]) == {2: 300}


def test_tied_winners_split_evenly():
    assert split_pot(400, [3, 1]) == {1: 200, 3: 200}


def test_the_remainder_goes_to_the_lowest_seat():
    assert split_pot(301, [4, 2]) == {2: 151, 4: 150}
    assert split_pot(100, [1, 2, 3]) == {1: 34, 2: 33, 3: 33}


@given(pot=st.integers(0, 10**9), winners=st.sets(st.integers(1, 12), min_size=1, max_size=12))
def test_a_split_pot_is_never_created_or_lost(pot, winners):
    payout = split_pot(pot, winners)
    assert sum(payout.values()) == pot
    assert set(payout) == winners
    assert max(payout.values()) - min(payout.values()) <= 1 + (pot % len(winners))
