"""Edges of the rules (RULES.md §6, "Tables, ranking and chips"): rule facts of
games/core/ranking.py the other ranking tests do not pin yet."""

from __future__ import annotations

import pytest

from games.core.ranking import place_points, shared_ip, split_pot


# --- "For 5–12 players: 1st +5·N, 2nd +5·(N − 3), then 5 less per place down to 0, last −10" ----
@pytest.mark.parametrize("sides", range(5, 13))
def test_five_to_twelve_sides_every_place_by_the_formula(sides):
    table = [place_points(place, sides) for place in range(1, sides + 1)]
    assert table[0] == 5 * sides
    assert table[1] == 5 * (sides - 3)
    assert all(table[i] - table[i + 1] == 5 for i in range(1, sides - 2))  # 5 less per place
    assert table[-2] == 0  # "down to 0": the place before last is exactly 0
    assert table[-1] == -10
    assert min(table[:-1]) == 0  # never below 0 but for the last


# --- "Shared places share the better place's points" -- at the bottom too ------------------------
def test_a_shared_last_place_gets_the_better_places_points_not_minus_ten():
    # three of four share third: places 1, 2, 3, 3 -> the shared place is 3 (0), not 4 (−10)
    assert [place_points(p, 4) for p in (1, 2, 3, 3)] == [20, 5, 0, 0]
    # five sides, the last two share fourth place: 0 each
    assert [place_points(p, 5) for p in (1, 2, 3, 4, 4)] == [25, 10, 5, 0, 0]


def test_two_sides_sharing_first_both_get_plus_ten():
    assert [place_points(1, 2), place_points(1, 2)] == [10, 10]


# --- "tied winners ... split it evenly, a remainder of the split going to the lowest seat number" -
def test_the_whole_remainder_goes_to_the_lowest_seat_whatever_order_the_winners_come_in():
    assert split_pot(11, [9, 3, 5]) == {3: 5, 5: 3, 9: 3}
    assert split_pot(2, [12, 7, 4]) == {4: 2, 7: 0, 12: 0}
    assert split_pot(0, [2, 1]) == {1: 0, 2: 0}


# --- "No scoring if two seated players share the same IP address" --------------------------------
def test_two_seated_players_on_one_ip_make_the_game_unscored():
    assert shared_ip(["10.0.0.1", "10.0.0.2", "10.0.0.1"])
    assert not shared_ip(["10.0.0.1", "10.0.0.2", "10.0.0.3"])


def test_an_unknown_address_is_never_a_shared_one():
    assert not shared_ip([None, None, "10.0.0.1"])
    assert not shared_ip(["", "", "10.0.0.1"])
