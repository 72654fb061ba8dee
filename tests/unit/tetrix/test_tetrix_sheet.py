"""The sheet, the dice, the shapes and the score (RULES.md §5), from drawn sheets."""

from __future__ import annotations

from collections import Counter

import pytest

from games.core.geometry import normalise
from games.tetrix import constants as C
from games.tetrix.engine import roll
from games.tetrix.sheet import (
    FULL,
    Sheet,
    area_cells,
    areas,
    bit,
    cells_of,
    mask_of,
    score,
    score_table,
    scoring_areas,
    shape_cells,
    sheet,
    spot,
    spots,
    symbol_score,
    turned,
    verdict,
)

from .tetrix_helpers import FULL_SHEET, full_but

EMPTY = "......."

# The seed's worked example, drawn: circles 2 areas of 11 cells (6 + 5), squares 1 area
# of 17, crosses 2 areas of 13 (6 + 7); the rest in areas of fewer than five.
EXAMPLE = (
    "sssssss",
    "sssssss",
    "sssoxxx",
    "oooooxx",
    "xxxx.sx",
    "x.oooo.",
    "xxo.ss.",
)


# --- the sheet -----------------------------------------------------------------------------
def test_the_sheet_is_7_by_7_with_a_preprinted_centre_cell():
    assert (C.SIZE, C.CELLS, C.CENTRE) == (7, 49, (3, 3))
    assert FULL.bit_count() == 49 and len(cells_of(FULL)) == 49
    new = Sheet.for_seat(1)
    assert new.rows() == (EMPTY, EMPTY, EMPTY, "...o...", EMPTY, EMPTY, EMPTY)
    assert new.written == 1 and not new.is_full()


@pytest.mark.parametrize(
    ("seat", "symbol", "colour"),
    [(1, "o", "yellow"), (2, "s", "blue"), (3, "x", "white"), (4, "o", "red")],
)
def test_each_seat_has_its_colour_and_preprinted_symbol(seat, symbol, colour):
    assert C.SEAT_SYMBOLS[seat] == symbol and C.SEAT_COLOURS[seat] == colour
    assert Sheet.for_seat(seat).symbol_at(3, 3) == symbol
    assert C.SYMBOL_SIGNS[symbol] == {"o": "○", "s": "□", "x": "✕"}[symbol]


def test_three_symbols_circle_square_cross():
    assert C.SYMBOLS == ("o", "s", "x")
    assert [C.SYMBOL_NAMES[s] for s in C.SYMBOLS] == ["circle", "square", "cross"]


def test_a_drawn_sheet_reads_back():
    drawn = sheet(*EXAMPLE)
    assert drawn.rows() == EXAMPLE
    assert drawn.symbol_at(0, 0) == "s" and drawn.symbol_at(4, 4) is None
    assert drawn.written == 44
    assert sheet(*FULL_SHEET).is_full()
    with pytest.raises(ValueError):
        sheet(*EXAMPLE[:6])
    with pytest.raises(ValueError):
        sheet("sssssq.", *EXAMPLE[1:])


def test_cells_and_masks_convert_both_ways_and_refuse_cells_off_the_sheet():
    cells = ((0, 0), (3, 6), (6, 6))
    assert cells_of(mask_of(cells)) == cells
    for off in ((7, 0), (0, 7), (-1, 0)):
        with pytest.raises(ValueError):
            mask_of([off])


# --- dice ------------------------------------------------------------------------------------
def test_four_dice_each_showing_every_symbol_twice():
    assert C.DICE == 4
    assert len(C.DIE_FACES) == 6 and Counter(C.DIE_FACES) == {"o": 2, "s": 2, "x": 2}


def test_a_roll_is_four_faces_from_the_seed_and_every_symbol_comes_up():
    rolls = [roll(9, n) for n in range(1, 301)]
    assert all(len(r) == 4 and set(r) <= set(C.SYMBOLS) for r in rolls)
    assert rolls == [roll(9, n) for n in range(1, 301)]  # the same seed, the same dice
    assert rolls != [roll(10, n) for n in range(1, 301)]
    counts = Counter("".join(rolls))
    assert all(330 <= counts[s] <= 470 for s in C.SYMBOLS)  # 1200 faces, a third each
    assert "oooo" in rolls or "ssss" in rolls or "xxxx" in rolls or len(set(rolls)) > 30


# --- shapes ------------------------------------------------------------------------------------
def test_the_seven_tetrominoes_each_of_four_connected_cells():
    assert sorted(C.TETROMINOES) == sorted("IOTSZJL")
    for name in C.TETROMINOES:
        cells = shape_cells(name)
        assert len(cells) == 4 and cells == tuple(sorted(cells))  # as arranged: row by row
        assert len(cells_of(mask_of(cells))) == 4
        grown, rest = {cells[0]}, set(cells[1:])
        while rest:
            near = {c for c in rest if any(abs(c[0] - g[0]) + abs(c[1] - g[1]) == 1 for g in grown)}
            assert near, f"{name} is not connected"
            grown |= near
            rest -= near


def test_turning_never_mirrors_j_into_l_or_s_into_z():
    def turns_of(name):
        return {normalise(turned(shape_cells(name), t)) for t in range(4)}

    assert not turns_of("J") & turns_of("L")
    assert not turns_of("S") & turns_of("Z")
    assert len({frozenset(turns_of(n)) for n in C.TETROMINOES}) == 7  # seven different shapes


def test_a_turn_keeps_every_symbol_on_its_own_cell():
    # the T as arranged: nose (0, 1), then the bar (1, 0), (1, 1), (1, 2)
    assert shape_cells("T") == ((0, 1), (1, 0), (1, 1), (1, 2))
    # one clockwise turn: the nose points right; the bar is the left column, top to bottom
    assert turned(shape_cells("T"), 1) == ((1, 1), (0, 0), (1, 0), (2, 0))
    assert turned(shape_cells("T"), 4) == shape_cells("T")


def test_a_spot_may_hang_over_the_edge_but_needs_one_cell_on_the_sheet():
    where = spot("I", 0, 0, -3)  # the bar across the left edge: one cell on the sheet
    assert where is not None and where.hanging == 3 and where.cells == (None, None, None, (0, 0))
    assert spot("I", 0, 0, -4) is None and spot("I", 1, -4, 0) is None
    assert spot("O", 0, 6, 6).hanging == 3
    assert spot("T", 0, 2, 2).hanging == 0
    assert all(s.mask & FULL == s.mask and 1 <= s.mask.bit_count() <= 4 for s in spots("L"))


def test_a_shape_fits_a_hole_on_the_edge_hanging_over_but_not_a_hole_inside():
    inside = sheet(*full_but((2, 2)))
    edge = sheet(*full_but((0, 3)))
    for name in C.TETROMINOES:
        assert not inside.fits(name)
        # all but the O have a cell that is, turned, alone at the bottom: it is written and
        # the rest hangs over the top edge
        assert edge.fits(name) == (name != "O")
    assert sheet(*full_but((1, 1), (1, 2), (2, 1), (2, 2))).fits("O")
    assert not sheet(*full_but((1, 1), (1, 2), (2, 1), (2, 2))).fits("I")


# --- the score ---------------------------------------------------------------------------------
def test_the_seeds_worked_example_scores_65():
    drawn = sheet(*EXAMPLE)
    assert score_table(drawn) == {"o": (2, 11), "s": (1, 17), "x": (2, 13)}
    assert 2 * 11 + 1 * 17 + 2 * 13 == C.EXAMPLE_SCORE == 65
    assert score(drawn) == 65


def test_an_area_of_four_scores_nothing_and_one_of_five_scores_five():
    four = sheet("oooo...", *[EMPTY] * 6)
    five = sheet("ooooo..", *[EMPTY] * 6)
    assert C.AREA_MIN == 5
    assert score(four) == 0 and scoring_areas(four) == {"o": (), "s": (), "x": ()}
    assert score(five) == 5 and score_table(five)["o"] == (1, 5)


def test_the_preprinted_symbol_counts_in_its_area():
    drawn = Sheet.for_seat(2)
    for column in range(3):
        drawn.masks[1] |= bit(3, column)  # three squares left of the centre: four with it
    assert score(drawn) == 0
    drawn.masks[1] |= bit(4, 3)  # and one below the centre: five with it
    assert score_table(drawn)["s"] == (1, 5) and score(drawn) == 5


def test_diagonal_neighbours_are_not_one_area():
    drawn = sheet("x.x....", ".x.x...", "x.x.x..", ".x.....", *[EMPTY] * 3)
    assert len(areas(drawn)["x"]) == 8 and score(drawn) == 0


def test_the_end_of_a_row_does_not_touch_the_start_of_the_next():
    drawn = sheet("....sss", "ss.....", *[EMPTY] * 5)
    assert [a.bit_count() for a in areas(drawn)["s"]] == [3, 2]
    assert score(drawn) == 0


def test_number_of_areas_times_their_cells_so_a_join_can_cost_points():
    apart = sheet("ooooo.o", "......o", "......o", "......o", "......o", EMPTY, EMPTY)
    assert score_table(apart)["o"] == (2, 10) and score(apart) == 2 * 10
    joined = sheet("ooooooo", "......o", "......o", "......o", "......o", EMPTY, EMPTY)
    assert score_table(joined)["o"] == (1, 11) and score(joined) == 11


def test_the_three_symbols_add_up():
    drawn = sheet("ooooo..", "sssss..", "xxxxx..", "xxxxx..", "...o...", "ssss...", "ooooooo")
    assert score_table(drawn) == {"o": (2, 12), "s": (1, 5), "x": (1, 10)}
    assert score(drawn) == 2 * 12 + 5 + 10
    assert symbol_score(drawn.masks[0]) == 24


def test_areas_give_their_cells_for_a_page_to_outline():
    drawn = sheet(*EXAMPLE)
    found = scoring_areas(drawn)
    assert sorted(len(cells_of(a)) for a in found["o"]) == [5, 6]
    assert sorted(len(cells_of(a)) for a in found["x"]) == [6, 7]
    assert cells_of(found["s"][0])[-3:] == ((2, 0), (2, 1), (2, 2))
    outlines = area_cells(drawn)
    assert outlines["o"] == (
        ((2, 3), (3, 0), (3, 1), (3, 2), (3, 3), (3, 4)),
        ((5, 2), (5, 3), (5, 4), (5, 5), (6, 2)),
    )
    assert [len(a) for a in area_cells(drawn, minimum=1)["s"]] == [17, 1, 2]
    every = areas(drawn)
    assert sum(a.bit_count() for found in every.values() for a in found) == drawn.written


# --- the solo bar and verdict ------------------------------------------------------------------
def test_the_solo_bar_has_8_boxes_each_open_box_a_point():
    solo = Sheet.for_seat(1, solo=True)
    assert C.BAR_BOXES == 8 and solo.boxes_left == 8 and solo.bar() == "........"
    assert solo.total == score(solo) + 8
    three = sheet(*EXAMPLE, crossed=3)
    assert three.bar() == "XXX....." and three.total == 65 + 5
    assert Sheet.for_seat(1).boxes_left is None and Sheet.for_seat(1).total == 0


@pytest.mark.parametrize(
    ("points", "words"),
    [(200, "Chapeau!"), (130, "Chapeau!"), (129, "well played"), (120, "well played"),
     (119, "keep practising"), (0, "keep practising")],
)  # fmt: skip
def test_the_solo_verdict_bands(points, words):
    assert verdict(points) == words
