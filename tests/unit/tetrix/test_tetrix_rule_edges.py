"""Edges of RULES.md §5 (Te-Trix): rule facts the other test files
leave unpinned, each test naming the line of RULES.md (or of the seed, ``te-trix.txt``)
that it checks."""

from __future__ import annotations

from itertools import permutations

import pytest

from games.tetrix import constants as C
from games.tetrix.engine import CannotWrite, Game, Intent, Options, Termination, roll
from games.tetrix.sheet import shape_cells, spots, turned

from .tetrix_helpers import arrange, full_but, game_for, kinds, refused, write

EMPTY = "......."
# Only a 2 × 2 hole inside the sheet is empty: an O fits, no other shape does.
O_HOLE = full_but((1, 1), (1, 2), (2, 1), (2, 2))
# One empty cell inside the sheet: no shape fits, even hanging over.
INSIDE_HOLE = full_but((2, 2))
# One empty cell on the top edge: a shape fits only with three symbols hanging over.
EDGE_HOLE = full_but((0, 3))
# Scores 122 (checked by hand: circles 3 × 24, squares 2 × 12, crosses 2 × 13); full.
SCORES_122 = ["osxooxo", "osxosxo", "osxosxo", "osxosxo", "osxosxo", "osxosxo", "osoooxo"]


def pattern(cells, symbols) -> frozenset:
    """The symbols on their cells, shifted so the box's top-left is (0, 0)."""
    top = min(r for r, _ in cells)
    left = min(c for _, c in cells)
    return frozenset(((r - top, c - left), s) for (r, c), s in zip(cells, symbols, strict=True))


# --- the roll and the roller's choices --------------------------------------------------------
def test_the_dice_of_a_round_come_from_the_seed_whoever_rolls():
    """RULES.md §5 "Four dice ... one player rolls all four" (seeded: every game replays
    from its seed): the roll of a round is the seed's, the same whichever seat rolls."""
    first = Game(Options(), 11, [1, 2, 3, 4], 0.0)
    other = Game(Options(), 11, [2, 3], 0.0)
    assert first.dice == other.dice == roll(11, 1)


@pytest.mark.parametrize("name", sorted(C.TETROMINOES))
def test_the_roller_may_put_each_rolled_symbol_on_any_cell_of_any_tetromino(name):
    """RULES.md §5: the roller "arranges the four results into one of the seven
    tetrominoes, assigning the symbols to its cells freely"."""
    for order in sorted(set(permutations("oxso"))):
        symbols = "".join(order)
        game = game_for(seats=(1, 2), roller=2, dice="oxso")
        arrange(game, name, symbols)
        assert (game.shape, game.symbols, game.phase) == (name, symbols, "write")


# --- writing: turned, never mirrored -----------------------------------------------------------
@pytest.mark.parametrize("name", sorted(C.TETROMINOES))
def test_a_shape_is_written_in_its_four_turns_with_its_symbols_and_never_mirrored(name):
    """RULES.md §5 "Writing: rotate by 90°, 180° or 270°, never mirror, never change ...
    symbols": the symbol patterns that can be written wholly on the sheet are exactly the
    four turns of the arrangement; its mirror image is one of them only for the I (whose
    mirror is its half turn)."""
    symbols = "osxx"  # three kinds on four cells: a mirror shows unless it is a turn
    cells = shape_cells(name)
    turns = {pattern(turned(cells, t), symbols) for t in range(C.TURNS)}
    written = {pattern(s.cells, symbols) for s in spots(name) if s.hanging == 0}
    assert written == turns
    mirror = pattern([(r, -c) for r, c in cells], symbols)
    assert (mirror in written) == (name == "I")


def test_a_write_hanging_over_the_edge_is_refused_on_a_written_cell_too():
    """RULES.md §5 "cells may hang over the edge (not written) ... never on a written
    cell": a write partly over the edge whose cells on the sheet meet a written one is
    refused."""
    game = game_for(seats=(1, 2), roller=1, dice="oxso")
    arrange(game, "I", "oxso")
    refused(game, 1, Intent.write(0, 3, 2), "CELL_WRITTEN")  # two cells over, one on the centre
    assert write(game, 1, turns=0, row=3, column=4)[0].hanging == 1  # right of the centre: fine


# --- the preprinted symbol in the score ----------------------------------------------------------
@pytest.mark.parametrize("seat", [1, 2, 3, 4])
def test_the_preprinted_centre_symbol_counts_in_an_area_at_every_seat(seat):
    """RULES.md §5 "Score: ... orthogonally connected areas of that symbol with at least
    5 cells (the preprinted cell counts)": three symbols above the centre make an area of
    four with it (nothing), symbols diagonal to it do not join it, three beside it do."""
    symbol = C.SEAT_SYMBOLS[seat]
    game = game_for(seats=(seat,), roller=seat, dice=symbol * 4)
    arrange(game, "I", symbol * 4)
    write(game, seat, turns=1, row=-1, column=3)  # upright: (0..2, 3), one over the top
    assert game.score(seat) == 0  # an area of 4 with the centre
    game.setup(dice=symbol * 4)
    arrange(game, "I", symbol * 4)
    write(game, seat, turns=0, row=4, column=4)  # (4, 4..6): diagonal to the centre
    assert game.score(seat) == 0
    game.setup(dice=symbol * 4)
    arrange(game, "I", symbol * 4)
    write(game, seat, turns=0, row=3, column=4)  # (3, 4..6): right of the centre
    assert game.score(seat) == 4 + 3 + 3 == 10  # one area, joined below it too


def test_an_area_of_four_adds_nothing_beside_an_area_of_five():
    """RULES.md §5: only areas "with at least 5 cells" count, both for the number of
    areas and for the cells: five and four circles score 1 × 5, not 2 × 9 nor 1 × 9."""
    game = game_for(seats=(2,), roller=2, sheets={2: ["ooooo..", EMPTY, "oooo...", *[EMPTY] * 4]})
    assert game.score(2) == 5


# --- the end -----------------------------------------------------------------------------------
def test_when_all_four_players_cannot_write_the_game_ends_at_once():
    """RULES.md §5 "The game ends after a round in which some player cannot write the
    shape": with four players of whom none can write it, the round is over at once."""
    game = game_for(seats=(1, 2, 3, 4), sheets={s: O_HOLE for s in (1, 2, 3, 4)}, roller=3, dice="osxo")
    events = arrange(game, "T", "osxo")
    assert kinds(events) == ["arranged", "turn", *["cannot_write"] * 4, "finished"]
    assert [e.seat for e in events if isinstance(e, CannotWrite)] == [1, 2, 3, 4]
    assert game.termination is Termination.FULL_BOARD


def test_a_sheet_filled_mid_round_ends_the_game_only_after_everyone_else_has_written():
    """RULES.md §5 "The game ends after a round in which ... a sheet is full": the
    player who fills their sheet first does not end the round for the other three."""
    corner = full_but((0, 0), (0, 1), (1, 0), (1, 1))
    game = game_for(seats=(1, 2, 3, 4), sheets={3: corner}, roller=1, dice="oooo")
    arrange(game, "O", "oooo")
    write(game, 3, row=0, column=0)
    assert game.sheets[3].is_full() and not game.finished
    assert game.waiting_for() == (1, 2, 4)
    write(game, 1, row=5, column=5)
    write(game, 2, row=5, column=5)
    events = write(game, 4, row=5, column=5)
    assert kinds(events) == ["wrote", "finished"] and game.termination is Termination.FULL_BOARD


def test_a_lone_player_at_a_table_game_who_cannot_write_ends_it():
    """RULES.md §5 (1–4 players): a one-player game that is not solo ends after the
    round in which the player cannot write the shape (here their own arrangement)."""
    game = game_for(seats=(1,), sheets={1: O_HOLE}, roller=1, dice="osxo")
    events = arrange(game, "I", "osxo")
    assert kinds(events) == ["arranged", "turn", "cannot_write", "finished"]


# --- solo: the bar, the early stop, the verdict -------------------------------------------------
@pytest.mark.parametrize("boxes_left", [0, 1, 2, 3, 8])
def test_solo_a_write_may_hang_over_as_many_symbols_as_boxes_are_left_and_no_more(boxes_left):
    """RULES.md §5 "Every symbol left hanging over the edge crosses one box; with no
    boxes left, nothing may hang over" (the seed: only eight symbols may hang over)."""
    game = game_for(seats=(1,), solo=True, roller=1, dice="oxso", crossed={1: 8 - boxes_left})
    arrange(game, "I", "oxso")
    most = min(boxes_left, C.DICE - 1)  # one symbol is always written
    if most < C.DICE - 1:
        refused(game, 1, Intent.write(0, 0, -(most + 1)), "BAR_FULL")
    events = write(game, 1, turns=0, row=0, column=-most)
    assert events[0].hanging == most and game.sheets[1].boxes_left == boxes_left - most


@pytest.mark.parametrize(("crossed", "ended"), [(5, False), (6, True)])
def test_solo_ends_when_no_shape_fits_within_the_boxes_left(crossed, ended):
    """RULES.md §5 "The game ends when no shape can be written": a lone empty cell on
    the edge takes any shape but the O with three symbols hanging over, so with three
    boxes left the game goes on, with two it is over at the roll."""
    game = game_for(seats=(1,), solo=True, sheets={1: EDGE_HOLE}, crossed={1: crossed}, roller=1, dice="oxso")
    assert game.finished == ended
    if ended:
        assert game.termination is Termination.FULL_BOARD


def test_solo_ends_when_no_shape_fits_whatever_the_bar():
    """RULES.md §5 "The game ends when no shape can be written": an empty cell inside
    the sheet takes nothing, even with every box of the bar open."""
    game = game_for(seats=(1,), solo=True, sheets={1: INSIDE_HOLE}, crossed={1: 0}, roller=1, dice="oxso")
    assert game.finished and game.score(1) == 0 + 8  # no area of five; eight open boxes


@pytest.mark.parametrize("crossed", range(C.BAR_BOXES + 1))
def test_solo_the_player_may_stop_at_any_box_count_and_scores_a_point_per_open_box(crossed):
    """RULES.md §5 "The game ends ... when the player stops. Score + 1 per uncrossed
    box": five circles (5) and 8 − crossed open boxes."""
    game = game_for(
        seats=(1,), solo=True, sheets={1: ["ooooo..", *[EMPTY] * 6]}, crossed={1: crossed}, roller=1
    )
    assert kinds(game.apply(1, Intent.stop(), 1.0)) == ["stopped", "finished"]
    assert game.score(1) == game.results()[0].score == 5 + (8 - crossed)
    assert game.verdict() == "keep practising"
    refused(game, 1, Intent.stop(), "GAME_OVER")


@pytest.mark.parametrize(
    ("crossed", "points", "words"),
    [(0, 130, "Chapeau!"), (1, 129, "well played"), (8, 122, "well played")],
)
def test_solo_verdict_at_the_edge_of_chapeau_in_a_game(crossed, points, words):
    """RULES.md §5 verdict: 130 and more "Chapeau!", 120–129 "well played" (on the score
    with the open boxes): 122 on the sheet and 8, 7 or 0 open boxes."""
    game = game_for(seats=(1,), solo=True, sheets={1: SCORES_122}, crossed={1: crossed}, roller=1)
    assert game.finished  # the sheet is full
    assert game.score(1) == points and game.verdict() == words
