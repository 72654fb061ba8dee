"""Pieces: the 7 tetrominoes, SRS states and kicks, the 7-bag, spawning, the preview."""

from __future__ import annotations

import random

from tetriwar_helpers import HARD_DROP, game_for

from games.core.geometry import draw_shape
from games.core.srs import I_KICKS, JLSTZ_KICKS, STATES, kicks
from games.tetriwar.pieces import Bag


def test_the_seven_tetrominoes_in_their_spawn_states():
    pictures = {kind: draw_shape(STATES[kind][0]) for kind in "IOJLSZT"}
    assert pictures == {
        "I": "####",
        "O": "##/##",
        "J": "#../###",
        "L": "..#/###",
        "S": ".##/##.",
        "Z": "##./.##",
        "T": ".#./###",
    }
    assert all(len(STATES[kind][r]) == 4 for kind in STATES for r in range(4))


def test_clockwise_states_follow_the_guideline():
    assert draw_shape(STATES["T"][1]) == "#./##/#."
    assert draw_shape(STATES["T"][2]) == "###/.#."
    assert draw_shape(STATES["T"][3]) == ".#/##/.#"
    assert STATES["I"][1] == ((0, 2), (1, 2), (2, 2), (3, 2))  # column 2 of the 4 × 4 box
    assert STATES["I"][2] == ((2, 0), (2, 1), (2, 2), (2, 3))  # row 2


def test_kick_tables_are_the_guideline_ones_with_y_up():
    assert JLSTZ_KICKS[(0, 1)] == ((0, 0), (-1, 0), (-1, 1), (0, -2), (-1, -2))
    assert JLSTZ_KICKS[(1, 2)] == ((0, 0), (1, 0), (1, -1), (0, 2), (1, 2))
    assert JLSTZ_KICKS[(2, 3)] == ((0, 0), (1, 0), (1, 1), (0, -2), (1, -2))
    assert JLSTZ_KICKS[(3, 0)] == ((0, 0), (-1, 0), (-1, -1), (0, 2), (-1, 2))
    assert I_KICKS[(0, 1)] == ((0, 0), (-2, 0), (1, 0), (-2, -1), (1, 2))
    assert I_KICKS[(1, 2)] == ((0, 0), (-1, 0), (2, 0), (-1, 2), (2, -1))
    assert I_KICKS[(2, 3)] == ((0, 0), (2, 0), (-1, 0), (2, 1), (-1, -2))
    assert I_KICKS[(3, 0)] == ((0, 0), (1, 0), (-2, 0), (1, -2), (-2, 1))
    # as (row, col) moves, y up becomes a row up
    assert kicks("T", 0, 1) == ((0, 0), (0, -1), (-1, -1), (2, 0), (2, -1))
    assert len(kicks("I", 0, 1)) == len(kicks("Z", 2, 3)) == 5


def test_each_bag_deals_every_piece_once_per_seven():
    bag = Bag(random.Random(3))
    dealt = [bag.take() for _ in range(70)]
    for start in range(0, 70, 7):
        assert sorted(dealt[start : start + 7]) == sorted("IOJLSZT")


def test_each_player_has_a_bag_from_the_game_seed():
    one = game_for(seats=(1, 2), seed=5)
    again = game_for(seats=(1, 2), seed=5)
    other = game_for(seats=(1, 2), seed=6)
    assert one.view(1).next == again.view(1).next
    sequence = [one.players[1].bag.peek(14), one.players[2].bag.peek(14), other.players[1].bag.peek(14)]
    assert len(set(sequence)) == 3


def test_the_preview_shows_the_next_three_pieces():
    game = game_for()
    player = game.players[1]
    upcoming = player.bag.peek(4)
    assert game.view(1).next == upcoming[:3]
    game.apply(1, HARD_DROP, 0)
    assert game.view(1).piece.kind == upcoming[0]
    assert game.view(1).next == upcoming[1:4]


def test_pieces_spawn_in_the_hidden_rows_and_drop_one_row_at_once():
    game = game_for()
    cells = {}
    for kind in "IOJLSZT":
        game.setup(1, piece=kind)
        cells[kind] = game.view(1).piece.cells
    # (visible row, column); visible row -1 is the lower hidden row
    assert cells["T"] == ((-1, 4), (0, 3), (0, 4), (0, 5))
    assert cells["I"] == ((0, 3), (0, 4), (0, 5), (0, 6))
    assert cells["O"] == ((-1, 4), (-1, 5), (0, 4), (0, 5))
    assert cells["J"] == ((-1, 3), (0, 3), (0, 4), (0, 5))
    assert cells["L"] == ((-1, 5), (0, 3), (0, 4), (0, 5))
    assert cells["S"] == ((-1, 4), (-1, 5), (0, 3), (0, 4))
    assert cells["Z"] == ((-1, 3), (-1, 4), (0, 4), (0, 5))
