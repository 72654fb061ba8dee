"""The grid, the starting shapes, the cards and the deck (RULES.md §3), and the fits
test, from drawn grids."""

from __future__ import annotations

from collections import Counter

import pytest

from games.core.geometry import normalise, orientations, parse_shape
from games.thirdoption import constants as C
from games.thirdoption.board import Grid, cells_of, grid, mask_of, picture, shape, start_mask
from games.thirdoption.engine import Options, deck_for

from .thirdoption_helpers import EMPTY_ROW, FULL_ROW


def free_form(cells) -> tuple:
    """The same for a shape and every turn and mirror image of it."""
    return min(orientations(cells))


def all_free_polyominoes(size: int) -> set:
    """Every free polyomino of ``size`` cells, grown cell by cell (to check a list)."""
    found = {((0, 0),)}
    for _ in range(size - 1):
        grown = set()
        for cells in found:
            for r, c in cells:
                for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
                    cell = (r + dr, c + dc)
                    if cell not in cells:
                        grown.add(free_form(normalise([*cells, cell])))
        found = grown
    return found


# --- the grid ------------------------------------------------------------------------------------
def test_the_grid_is_9_by_9_with_the_dot_in_the_centre_cell():
    assert (C.SIZE, C.CELLS, C.DOT) == (9, 81, (4, 4))
    assert Grid().rows() == (EMPTY_ROW,) * 9
    assert Grid().empty == 81
    assert grid(*[FULL_ROW] * 9).is_full()


def test_a_drawn_grid_reads_back_and_knows_its_pieces():
    g = grid(
        "aa.......",
        "a........",
        ".........",
        ".........",
        "....b....",
        ".........",
        ".........",
        ".........",
        "........c",
    )
    assert g.rows()[0] == "##......." and g.rows()[8] == "........#"
    assert [name for name, _ in g.pieces] == ["a", "b", "c"]
    assert cells_of(g.pieces[0][1]) == ((0, 0), (0, 1), (1, 0))
    assert g.empty == 81 - 5
    with pytest.raises(ValueError):
        grid(EMPTY_ROW)  # 9 rows, not 1


# --- the starting shapes -----------------------------------------------------------------------
RULES_START_SHAPES = (
    "####/##../##..", "####/.#../###.", "##../####/...#/...#", ".#./###/.#./###",
    "#..#/####/#..#", "#..../#####/....#/....#", "##../.##./..##/..##",
    "###/#.#/###", "######/#....#", ".##./####/.##.", "#.../##../.##./..##/...#",
    ".###/.#../##../#.../#...",
)  # fmt: skip


def test_the_twelve_starting_shapes_are_rules_list_one_per_seat():
    assert C.START_SHAPES == RULES_START_SHAPES
    assert len(C.START_SHAPES) == C.MAX_PLAYERS == 12


def test_every_starting_shape_has_8_cells_and_no_two_are_alike_even_turned_or_mirrored():
    cells = [parse_shape(text) for text in C.START_SHAPES]
    assert [len(c) for c in cells] == [C.START_SHAPE_CELLS] * 12 == [8] * 12
    assert len({free_form(c) for c in cells}) == 12


def test_seat_8s_starting_shape_is_the_corrected_ring_and_still_covers_the_dot():
    # RULES.md's latest change: seat 8 starts with a ring of 8 round an empty middle.
    assert C.START_SHAPES[7] == "###/#.#/###"
    # Centred, its empty middle would sit on the dot: it moves up one row instead.
    assert Grid.for_seat(8).rows() == (
        EMPTY_ROW,
        EMPTY_ROW,
        "...###...",
        "...#.#...",
        "...###...",
        EMPTY_ROW, EMPTY_ROW, EMPTY_ROW, EMPTY_ROW,
    )  # fmt: skip


def test_seat_1_starts_with_its_shape_as_drawn_over_the_dot():
    assert Grid.for_seat(1).rows() == (
        EMPTY_ROW, EMPTY_ROW, EMPTY_ROW,
        "...####..",
        "...##....",
        "...##....",
        EMPTY_ROW, EMPTY_ROW, EMPTY_ROW,
    )  # fmt: skip


@pytest.mark.parametrize("seat", range(1, 13))
def test_each_seat_starts_with_its_own_shape_covering_the_dot(seat):
    g = Grid.for_seat(seat)
    assert g.pieces == [(f"S{seat}", start_mask(seat))]
    cells = cells_of(g.filled)
    assert C.DOT in cells
    assert normalise(cells) == normalise(parse_shape(C.START_SHAPES[seat - 1]))  # as drawn, not turned
    assert g.empty == 81 - 8 == 73


# --- the cards and the deck ----------------------------------------------------------------------
def test_the_deck_has_the_40_cards_of_rules():
    deck = Counter(deck_for(Options(), seed=1))
    assert sum(deck.values()) == C.DECK_SIZE == 40
    by_size = Counter()
    for name, count in deck.items():
        by_size[shape(name).size] += count
    assert by_size == {1: 2, 2: 3, 3: 4, 4: 10, 5: 12, 6: 5, 7: 4}
    assert (deck["1"], deck["2"], deck["I3"], deck["L3"]) == (2, 3, 2, 2)
    assert picture("I3") == "###" and picture("L3") == "##/#."
    # tetrominoes I O T L S, two of each
    tetrominoes = {name: count for name, count in deck.items() if shape(name).size == 4}
    assert {picture(n) for n in tetrominoes} == {"####", "##/##", "###/.#.", "###/#..", ".##/##."}
    assert set(tetrominoes.values()) == {2}
    # the 12 pentominoes, one of each
    pentominoes = [name for name in deck if shape(name).size == 5]
    assert {free_form(shape(n).cells) for n in pentominoes} == all_free_polyominoes(5)
    assert len(pentominoes) == 12 and all(deck[n] == 1 for n in pentominoes)
    # the hexominoes and heptominoes exactly as RULES.md draws them, one of each
    big = sorted(C.SHAPES[name] for name in deck if shape(name).size >= 6)
    assert big == sorted([
        "######", "###/###", "#####/#....", "#####/..#..", ".#../####/.#..",
        "#######", "######/#.....", "#.#/###/#.#", "#...#/#####",
    ])  # fmt: skip
    assert all(deck[name] == 1 for name in deck if shape(name).size >= 6)


def test_tetrominoes_only_is_35_cards_the_five_free_tetrominoes_7_times_each():
    deck = Counter(deck_for(Options(tetrominoes_only=True), seed=1))
    assert sum(deck.values()) == C.TETROMINO_DECK_SIZE == 35
    assert set(deck.values()) == {7} and len(deck) == 5
    assert {free_form(shape(name).cells) for name in deck} == all_free_polyominoes(4)


def test_the_deck_is_shuffled_from_the_game_seed():
    assert deck_for(Options(), seed=5) == deck_for(Options(), seed=5)
    assert deck_for(Options(), seed=5) != deck_for(Options(), seed=6)
    assert sorted(deck_for(Options(), seed=5)) == sorted(deck_for(Options(), seed=6))


# --- turning and mirroring ------------------------------------------------------------------------
def test_shapes_turn_and_mirror_into_their_distinct_orientations():
    counts = {
        name: len(shape(name).orientations) for name in ("1", "2", "O4", "I4", "T4", "S4", "L4", "X5", "F5")
    }
    assert counts == {"1": 1, "2": 2, "O4": 1, "I4": 2, "T4": 4, "S4": 4, "L4": 8, "X5": 1, "F5": 8}
    l4 = shape("L4")
    assert l4.orientation(0, False).cells == parse_shape("###/#..")
    assert l4.orientation(1, False).cells == normalise(parse_shape("##./.#./.#."))  # a quarter turn clockwise
    assert l4.orientation(0, True).cells == normalise(parse_shape("###/..#"))  # mirrored left to right
    assert l4.orientation(1, True).cells == normalise(parse_shape(".#/.#/##"))  # mirrored, then turned


# --- fits -------------------------------------------------------------------------------------------
TWO_BY_TWO_HOLE = grid(
    FULL_ROW, FULL_ROW, FULL_ROW,
    "###..####",
    "###..####",
    FULL_ROW, FULL_ROW, FULL_ROW, FULL_ROW,
)  # fmt: skip


def test_a_shape_fits_only_where_it_lies_wholly_on_empty_cells():
    assert TWO_BY_TWO_HOLE.fits("O4")
    assert TWO_BY_TWO_HOLE.fits("L3") and TWO_BY_TWO_HOLE.fits("2") and TWO_BY_TWO_HOLE.fits("1")
    assert (
        not TWO_BY_TWO_HOLE.fits("I4") and not TWO_BY_TWO_HOLE.fits("T4") and not TWO_BY_TWO_HOLE.fits("I3")
    )


def test_a_shape_fits_turned():
    column_slot = grid(*["####.####"] * 4, *[FULL_ROW] * 5)
    assert column_slot.fits("I4") and not column_slot.fits("I5")
    assert shape("I4").first_placement(column_slot.filled)[1:] == (0, 4)


def test_a_shape_fits_mirrored():
    # a J-shaped slot: only the L mirrored (and turned) goes in
    j_slot = grid(
        "#.#######",
        "#.#######",
        "..#######",
        *[FULL_ROW] * 6,
    )
    assert j_slot.fits("L4")
    orientation, row, column = shape("L4").first_placement(j_slot.filled)
    assert orientation.mirrored and (row, column) == (0, 0)
    assert not grid("#.#######", "#.#######", ".########", *[FULL_ROW] * 6).fits("L4")


def test_a_shape_never_fits_across_the_edge_of_the_grid():
    # 2 empty cells at the end of row 0 and 2 at the start of row 1: adjacent as bits only
    edges = grid("#######..", "..#######", *[FULL_ROW] * 7)
    assert edges.fits("2") and not edges.fits("I4") and not edges.fits("I3")


def test_placements_lists_every_place_and_orientation():
    assert len(list(shape("1").placements(0))) == 81
    assert len(list(shape("O4").placements(0))) == 64
    assert len(list(shape("I4").placements(0))) == 2 * 9 * 6
    assert list(shape("O4").placements(TWO_BY_TWO_HOLE.filled))[0][1:] == (
        3,
        3,
        mask_of([(3, 3), (3, 4), (4, 3), (4, 4)]),
    )
