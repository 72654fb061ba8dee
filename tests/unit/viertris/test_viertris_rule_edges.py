"""Edges of the rules (RULES.md §2, Viertris): rule facts the other Viertris tests do not pin
yet, each test naming the sentence of RULES.md it checks."""

from __future__ import annotations

import pytest

from games.viertris import constants as C
from games.viertris.engine import Board, Termination

from .viertris_helpers import drop, game_for, kinds, points

FULL = ["11221122", "22112211"] * 3
ALMOST_FULL = ["1122112.", *FULL[1:]]


def _staircase(length: int, rising: bool) -> Board:
    """A diagonal of ``length`` pieces of seat 1 on stacks of seat 2's pieces: column
    ``i`` is ``i`` pieces of seat 2 topped by a 1 (mirrored when not ``rising``)."""
    columns = [[2] * i + [1] for i in range(length)] + [[]] * (C.COLUMNS - length)
    return Board(columns if rising else columns[::-1])


# --- "every maximal run of ≥ 4 ... horizontal, vertical or diagonal (both directions)",
# --- "base = length − 2 (4 → 2, 5 → 3, 6 → 4 ...)" -----------------------------------------------
@pytest.mark.parametrize("length", [4, 5, 6])
@pytest.mark.parametrize("rising", [True, False])
def test_a_diagonal_run_of_four_five_or_six_scores_length_minus_two(length, rising):
    b = _staircase(length, rising)
    (run,) = [run for run in b.runs() if run.owner == 1]
    assert (len(run.cells), run.base) == (length, length - 2)
    step = b.cascade()[0]  # seat 2's stacks may score too: seat 1's share is the diagonal
    assert step.number == 1 and step.points()[1] == length - 2


@pytest.mark.parametrize("length", [4, 5, 6])
def test_a_vertical_run_of_four_five_or_six_scores_length_minus_two(length):
    b = Board([[1] * length] + [[]] * (C.COLUMNS - 1))
    (run,) = b.runs()
    assert (run.owner, len(run.cells), run.base) == (1, length, length - 2)
    (step,) = b.cascade()
    assert step.points() == {1: length - 2} and b.columns[0] == []


# --- "All runs found in the step are removed at once (a piece in two runs counts in both)" -------
# Seat 1 drops into column 3 (lands in row 2): that one piece completes a row, a column
# and both diagonals at once, four runs of four through one shared cell.
FOUR_WAYS = [
    "........",
    "........",
    "111.....",
    "22111...",
    "212121..",
    "1221221.",
]


def test_one_piece_in_four_runs_counts_in_all_four_and_is_removed_once():
    game = game_for(board=FOUR_WAYS, turn=1)
    events = drop(game, 1, 3)
    (cascade,) = [e for e in events if e.kind == "cascade"]
    assert cascade.step == 1 and len(cascade.runs) == 4
    assert all((2, 3) in cells and len(cells) == 4 for _, _, _, cells in cascade.runs)
    # 4 runs × 4 cells, the shared cell once: 13 cells, removed together in one step
    assert len(cascade.removed) == 13 == len(set(cascade.removed))
    assert points(events) == [(1, 1, 2)] * 4
    assert game.scores == {1: 8, 2: 0}
    assert game.board()[4:] == ("222.2...", "222.22..")


# --- "Then the next player moves" / the end comes after the whole cascade ------------------------
# As in test_viertris_scoring: steps 1, 2 and 3 score 2, 4 and 6.
THREE_STEPS = ["1.......", "2.......", "2.......", "2.......", "111.....", "2111...."]


def test_a_target_score_reached_in_step_one_still_plays_the_whole_cascade():
    game = game_for(board=THREE_STEPS, turn=1, target_score=10, scores={1: 8})
    events = drop(game, 1, 3)  # step 1 already brings seat 1 to 10
    assert points(events) == [(1, 1, 2), (2, 2, 4), (3, 1, 6)]
    assert game.scores == {1: 16, 2: 4}
    assert game.board() == ("........",) * 6
    assert kinds(events)[-1] == "finished" and game.termination is Termination.TARGET_SCORE


# --- "Points go to the owner of the pieces in a run" with four colours ---------------------------
def test_with_four_colours_an_indirect_run_scores_for_seat_four():
    # seat 3's row of four in row 4 goes; column 0 closes up into four pieces of seat 4
    game = game_for(
        seats=(1, 2, 3, 4),
        board=["4.......", "4.......", "4.......", "333.....", "4443...."],
        turn=3,
    )
    events = drop(game, 3, 3)
    assert points(events) == [(1, 3, 2), (2, 4, 2 * 2)]
    assert game.scores == {1: 0, 2: 0, 3: 2, 4: 4}
    assert game.turn == 4  # then the next player in seat order moves


# --- "The game ends when every cell is occupied, or at the ... target score or move limit" -------
def test_each_end_is_reported_with_its_reason():
    game = game_for(board=ALMOST_FULL, turn=2)
    drop(game, 2, 7)
    assert game.outcome().termination is Termination.FULL_BOARD

    game = game_for(board=["111....."], turn=1, target_score=10, scores={1: 8})
    drop(game, 1, 3)
    assert game.outcome().termination is Termination.TARGET_SCORE

    game = game_for(move_limit=8)
    for column in range(8):
        drop(game, game.turn, column)
    assert game.outcome().termination is Termination.MOVE_LIMIT


def test_without_a_target_or_move_limit_only_a_full_board_ends_the_game():
    game = game_for(scores={1: 10_000})  # no target score: any score plays on
    for n in range(C.COLUMNS * 3):
        drop(game, game.turn, n % C.COLUMNS)
    assert not game.finished and game.moves == 24


# --- "on timeout the move is played in a random legal column" -- and it is a move like any other --
def test_a_timed_out_move_scores_its_run_for_the_player_who_timed_out():
    # only column 7 is free; seat 1's piece there completes a row of four in row 0
    top = ["2212111.", *FULL[1:]]
    game = game_for(board=top, turn=1)
    events = game.advance(60.0)
    assert events[0].kind == "dropped" and events[0].timeout and events[0].column == 7
    assert points(events) == [(1, 1, 2)]
    assert game.scores == {1: 2, 2: 0} and game.turn == 2
    assert game.board()[0] == "2212...."


def test_a_timed_out_move_that_fills_the_last_cell_ends_the_game():
    game = game_for(board=ALMOST_FULL, turn=2)
    events = game.advance(60.0)
    assert kinds(events) == ["dropped", "finished"] and events[0].timeout and events[0].column == 7
    assert game.board() == tuple(FULL)
    assert game.termination is Termination.FULL_BOARD
