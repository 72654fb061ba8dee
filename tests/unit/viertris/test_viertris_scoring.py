"""Points (RULES.md §2, seed "Calculation of points"): base = length − 2, step k of a
cascade scores base × k, crossing runs, and points to the owner of the run."""

from __future__ import annotations

import pytest

from games.viertris import constants as C
from games.viertris.engine import board

from .viertris_helpers import drop, game_for, kinds, points


def test_the_base_points_table_is_length_minus_two():
    assert C.BASE_POINTS == {4: 2, 5: 3, 6: 4, 7: 5, 8: 6}
    assert all(base == length - 2 for length, base in C.BASE_POINTS.items())
    assert C.MIN_RUN == 4


@pytest.mark.parametrize(
    ("row", "column", "length", "base"),
    [
        ("111.....", 3, 4, 2),
        ("11.11...", 2, 5, 3),
        ("111.11..", 3, 6, 4),
        ("111.111.", 3, 7, 5),
    ],
)
def test_a_drop_scores_the_base_points_of_its_run(row, column, length, base):
    game = game_for(board=[row], turn=1)
    events = drop(game, 1, column)
    (cascade,) = [e for e in events if e.kind == "cascade"]
    ((owner, run_base, run_points, cells),) = cascade.runs
    assert (owner, len(cells), run_base, run_points) == (1, length, base, base)
    assert game.scores[1] == base


# Seat 2 drops into column 5 (row 3): two diagonals of seat 2 cross there (step 1: 2 + 2).
# Removing them lets a 1 fall into columns 3 and 7 of the bottom row, which becomes a
# row of eight 1s (step 2: base 6 × 2 = 12 for seat 1).
EIGHT = [
    "....2.2.",
    "....1.1.",
    "...12221",
    "11121112",
]


def test_a_run_of_eight_scores_six_base_points():
    game = game_for(board=EIGHT, turn=2)
    events = drop(game, 2, 5)
    assert points(events) == [(1, 2, 2), (1, 2, 2), (2, 1, 12)]
    step2 = [e for e in events if e.kind == "cascade"][1]
    ((owner, base, pts, cells),) = step2.runs
    assert (owner, len(cells), base, pts) == (1, 8, 6, 12)
    assert game.scores == {1: 12, 2: 4}
    assert game.board()[4:] == ("........", "....121.")


def test_crossing_runs_of_one_owner_both_count_and_the_shared_piece_goes_once():
    game = game_for(board=["111.....", "2221....", "2221....", "2221...."], turn=1)
    events = drop(game, 1, 3)  # lands in row 2: a row of four and a column of four
    (cascade,) = [e for e in events if e.kind == "cascade"]
    assert sorted(len(cells) for _, _, _, cells in cascade.runs) == [4, 4]
    assert (2, 3) in cascade.runs[0][3] and (2, 3) in cascade.runs[1][3]
    assert len(cascade.removed) == 7 == len(set(cascade.removed))
    assert game.scores == {1: 4, 2: 0}
    assert game.board()[3:] == ("222.....",) * 3


def test_runs_of_two_owners_in_one_step_both_score():
    # seat 3's row of four in row 4 goes; the 2s in column 0 and the 1s in column 1 close up
    game = game_for(
        seats=(1, 2, 3),
        board=["21......", "21......", "21......", "333.....", "2121...."],
        turn=3,
    )
    events = drop(game, 3, 3)
    assert points(events) == [(1, 3, 2), (2, 2, 4), (2, 1, 4)]
    assert game.scores == {1: 4, 2: 4, 3: 2}
    assert game.board()[5] == "..21...."


# Seat 1 drops into column 3 (row 4): a row of four 1s (step 1, × 1). Column 0 closes
# up into four 2s (step 2, × 2), and its top 1 falls to the bottom row, next to three
# 1s (step 3, × 3).
THREE_STEPS = [
    "1.......",
    "2.......",
    "2.......",
    "2.......",
    "111.....",
    "2111....",
]


def test_a_cascade_of_three_steps_multiplies_by_one_two_three():
    game = game_for(board=THREE_STEPS, turn=1)
    events = drop(game, 1, 3)
    assert points(events) == [(1, 1, 2 * 1), (2, 2, 2 * 2), (3, 1, 2 * 3)]
    assert kinds(events) == ["dropped"] + ["cascade", "score", "settled"] * 3 + ["turn"]
    assert [e.score for e in events if e.kind == "score"] == [2, 4, 8]
    assert game.scores == {1: 8, 2: 4}
    assert game.board() == ("........",) * 6
    assert game.turn == 2  # then the next player moves


def test_a_run_of_another_colour_made_by_a_move_scores_for_its_owner():
    # seat 2's row of four in row 4 goes; column 0 closes up into four 1s
    game = game_for(board=["1.......", "1.......", "1.......", "222.....", "1112...."], turn=2)
    events = drop(game, 2, 3)
    assert points(events) == [(1, 2, 2), (2, 1, 4)]
    assert game.scores == {1: 4, 2: 2}
    assert [(e.seat, e.score) for e in events if e.kind == "score"] == [(2, 2), (1, 4)]


def test_the_cascade_stops_when_no_run_is_left():
    b = board(*THREE_STEPS)
    b.drop(3, 1)
    steps = b.cascade()
    assert [step.number for step in steps] == [1, 2, 3]
    assert b.runs() == [] and b.cascade() == []
