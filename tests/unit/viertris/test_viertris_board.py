"""The board (RULES.md §2): 8 × 6 cells, pieces fall to the lowest free cell, runs of 4
or more in four directions are found, removed pieces let the ones above fall."""

from __future__ import annotations

import pytest

from games.viertris import constants as C
from games.viertris.engine import Board, Dropped, IllegalIntent, Settled, board

from .viertris_helpers import drop, game_for, kinds


def test_the_board_is_8_columns_by_6_rows_drawn_top_row_first():
    game = game_for()
    assert (C.COLUMNS, C.ROWS) == (8, 6)
    assert game.board() == ("........",) * 6
    drop(game, 1, 2)
    drop(game, 2, 2)
    drop(game, 1, 7)
    assert game.board() == ("........",) * 4 + ("..2.....", "..1....1")


def test_a_piece_falls_to_the_lowest_free_cell_of_its_column():
    game = game_for(board=["..2.....", "..1....."], turn=1)
    events = drop(game, 1, 2)
    assert events[0] == Dropped(1, 2, 3)  # rows 5 and 4 are taken: it lands in row 3
    assert game.board()[3:] == ("..1.....", "..2.....", "..1.....")
    events = drop(game, 2, 0)
    assert events[0] == Dropped(2, 0, 5)


def test_a_full_column_is_refused_and_nothing_changes():
    game = game_for(board=["1.......", "2.......", "1.......", "2.......", "1.......", "2......."], turn=2)
    before = game.to_text()
    with pytest.raises(IllegalIntent) as error:
        drop(game, 2, 0, now=3.0)
    assert error.value.code == "COLUMN_FULL"
    assert game.to_text() == before and game.log == []


def test_a_drawing_with_a_floating_piece_is_refused():
    with pytest.raises(ValueError, match="floats"):
        board("1.......", "........")
    with pytest.raises(ValueError):
        board("1......")  # 7 cells
    with pytest.raises(ValueError):
        board("5.......")  # no seat 5
    assert board("1.......", "2.......").columns[0] == [2, 1]  # bottom first


@pytest.mark.parametrize(
    ("name", "drawing", "column", "cells"),
    [
        ("horizontal", ["111....."], 3, {(5, 0), (5, 1), (5, 2), (5, 3)}),
        ("vertical", ["1.......", "1.......", "1......."], 0, {(2, 0), (3, 0), (4, 0), (5, 0)}),
        # rising to the right: bottom-left to top-right
        ("diagonal /", ["..12....", ".122....", "1222...."], 3, {(5, 0), (4, 1), (3, 2), (2, 3)}),
        # falling to the right: top-left to bottom-right
        ("diagonal \\", ["....21..", "....221.", "....2221"], 4, {(2, 4), (3, 5), (4, 6), (5, 7)}),
    ],
)
def test_a_run_of_four_is_found_in_each_direction(name, drawing, column, cells):
    game = game_for(board=drawing, turn=1)
    events = drop(game, 1, column)
    cascade = events[1]
    assert cascade.kind == "cascade" and cascade.step == 1
    assert [(owner, base, pts, set(run)) for owner, base, pts, run in cascade.runs] == [(1, 2, 2, cells)]
    assert set(cascade.removed) == cells
    assert game.scores == {1: 2, 2: 0}
    assert all(game.grid.at(cell) == 0 for cell in cells)


def test_three_in_a_row_is_no_run_four_is():
    game = game_for(board=["11......"], turn=1)
    events = drop(game, 1, 2)
    assert kinds(events) == ["dropped", "turn"]
    assert game.board()[5] == "111....." and game.scores == {1: 0, 2: 0}

    game = game_for(board=["111....."], turn=1)
    events = drop(game, 1, 3)
    assert kinds(events) == ["dropped", "cascade", "score", "settled", "turn"]
    assert game.board()[5] == "........" and game.scores == {1: 2, 2: 0}


def test_a_run_is_maximal_and_of_one_owner_only():
    b = board("1112111.")
    assert b.runs() == []
    b = board("11111...")
    (run,) = b.runs()
    assert (run.owner, len(run.cells), run.base) == (1, 5, 3)  # one run of 5, not two of 4


def test_pieces_above_removed_cells_fall_down():
    game = game_for(board=[".2......", "22......", "111....."], turn=1)
    events = drop(game, 1, 3)
    settled = next(e for e in events if isinstance(e, Settled))
    assert settled.step == 1
    assert settled.moves == (((4, 0), (5, 0)), ((4, 1), (5, 1)), ((3, 1), (4, 1)))
    assert game.board()[3:] == ("........", ".2......", "22......")


def test_gravity_keeps_the_order_of_a_column_with_a_hole_in_the_middle():
    b = Board([[2, 1, 2, 2], [], [], [], [], [], [], []])
    moves = b._remove([(4, 0)])  # the 1 at height 1
    assert b.columns[0] == [2, 2, 2]
    assert moves == (((3, 0), (4, 0)), ((2, 0), (3, 0)))
