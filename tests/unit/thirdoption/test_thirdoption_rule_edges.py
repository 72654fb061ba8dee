"""Edges of the rules (RULES.md §3, Third Option): rule facts the other Third Option tests do
not pin yet, each test naming the sentence of RULES.md it checks."""

from __future__ import annotations

import pytest

from games.thirdoption import constants as C
from games.thirdoption.board import cells_of, start_mask
from games.thirdoption.engine import (
    Eliminated,
    Game,
    IllegalIntent,
    Options,
    Placed,
    Termination,
    ThirdOption,
)

from .thirdoption_helpers import FULL_ROW, full_but, game_for, kinds, place

# Full but for a column of three cells (an I3 fits, turned), and one more cell far away.
I3_SLOT_AND_A_CELL = [*full_but("#.#######", "#.#######", "#.#######")[:8], "########."]
I3_SLOT = full_but("#.#######", "#.#######", "#.#######")
# Only single empty cells, none beside another: nothing but a 1 × 1 square fits.
ISOLATED = full_but(".#.######", "#########", "########.")
# A J-shaped slot of four cells (and one far cell): of the L4's eight orientations only
# mirrored ones go in.
J_SLOT = ["#.#######", "#.#######", "..#######", *[FULL_ROW] * 5, "########."]


# --- "each player receives a different starting shape, placed so that it covers the dot" -------
def test_at_a_table_of_twelve_every_player_starts_with_a_different_shape_on_the_dot():
    game = Game(Options(), 1, list(range(1, 13)), 0.0)
    starts = [game.grids[seat].pieces for seat in game.seats]
    assert starts == [[(f"S{seat}", start_mask(seat))] for seat in range(1, 13)]
    assert len({mask for ((_, mask),) in starts}) == 12
    assert all(C.DOT in cells_of(mask) for ((_, mask),) in starts)
    assert all(game.empty(seat) == C.CELLS - C.START_SHAPE_CELLS for seat in game.seats)


# --- "Shapes may be rotated and mirrored" / "The engine knows whether a card fits" ---------------
def test_a_card_that_fits_only_mirrored_fits_and_gives_no_third_option():
    game = game_for(grids={1: J_SLOT}, deck=["L4", "X5", "I3", "O4", "T4"])
    assert game.offered(1) == [(0, "L4"), (1, "X5")]  # no third option: the L4 fits
    assert game.players[1].third_options == 0 and game.deck == ["I3", "O4", "T4"]
    with pytest.raises(IllegalIntent) as error:
        place(game, 1, 0, turns=0, mirrored=False, row=0, column=0)  # not mirrored: no room
    assert error.value.code in ("OVERLAP", "OUT_OF_GRID")
    events = place(game, 1, 0, turns=1, mirrored=True, row=0, column=0)
    assert events[0] == Placed(1, "L4", ((0, 1), (1, 1), (2, 0), (2, 1)), 1)


# --- "one more card from the deck, for them alone" ----------------------------------------------
def test_a_third_option_is_for_its_player_alone():
    game = game_for(grids={1: I3_SLOT_AND_A_CELL}, deck=["O4", "T4", "I3", "2", "1"])
    assert game.offered(1) == [(2, "I3")]
    before = game.to_text()
    with pytest.raises(IllegalIntent) as error:
        place(game, 2, 2, turns=1, row=0, column=0)  # seat 2 may not take seat 1's card
    assert error.value.code == "CARD_NOT_OFFERED" and game.to_text() == before


# --- "several in one round: dealt in seat order" -------------------------------------------------
def test_when_one_card_is_left_the_lower_seat_gets_the_third_option():
    # our choice (constants.py): with the deck empty there is no third option, so out
    game = Game(Options(), 1, [1, 2, 3], 0.0)
    events = game.setup(grids={2: I3_SLOT, 3: I3_SLOT}, deck=["O4", "T4", "I3"])
    assert events[1:] == [ThirdOption(2, "I3", True), Eliminated(3, True, deck_empty=True)]
    assert game.offered(2) == [(2, "I3")] and game.offered(3) == [(2, "1")]


# --- the round clock: "on timeout the engine places the first legal placement of the first
# --- card that fits" -- a third option and the free square are placed as well ------------------
def test_on_timeout_the_clock_places_a_third_option_and_a_free_square():
    game = Game(Options(), 1, [1, 2, 3], 0.0)
    game.setup(grids={1: ISOLATED, 2: I3_SLOT_AND_A_CELL}, deck=["O4", "T4", "2", "I3", "1", "L4"])
    assert game.offered(1) == [(2, "1")] and game.offered(2) == [(2, "I3")]
    round_ = game.round
    events = game.advance(game.next_deadline())
    placed = [e for e in events if e.kind == "placed"]
    assert placed == [
        Placed(1, "1", ((0, 0),), 2, timeout=True),  # the free square, first empty cell
        Placed(2, "I3", ((0, 1), (1, 1), (2, 1)), 1, timeout=True),  # the third option, turned
        Placed(3, "O4", ((0, 0), (0, 1), (1, 0), (1, 1)), 69, timeout=True),
    ]
    assert game.round == round_ + 1 and game.players[2].state == "in"


def test_a_grid_filled_by_the_round_clock_wins_at_once_and_the_clock_stops():
    game = Game(Options(), 1, [1, 2, 3], 0.0)
    game.setup(grids={2: I3_SLOT}, deck=["O4", "T4", "I3", "1", "1", "O4"])
    events = game.advance(game.next_deadline())
    # seat 1 placed first (seat order); seat 2's third option fills the grid; seat 3 never places
    assert [(e.seat, e.card) for e in events if e.kind == "placed"] == [(1, "O4"), (2, "I3")]
    assert kinds(events)[-1] == "finished" and game.termination is Termination.FULL_GRID
    assert game.outcome().winners == (2,)


# --- "An eliminated player's score is their number of empty squares" and "fewest empty squares
# --- wins": an eliminated player ranks with those still in, by empty squares alone --------------
def test_an_eliminated_player_with_fewer_empty_squares_beats_a_player_still_in():
    game = Game(Options(), 1, [1, 2], 0.0)
    game.setup(grids={1: ISOLATED}, deck=["O4", "T4", "2", "I5", "L4"])
    assert game.players[1].state == "out" and game.offered(1) == [(2, "1")]
    place(game, 1, 2, row=0, column=0)  # the free square: 2 empty squares left
    place(game, 2, 0)  # the O4, top left
    place(game, 2, 0, row=8, column=0)  # round of I5 and L4: the deck is now empty
    assert game.finished and game.termination is Termination.DECK_EMPTY
    assert [(s.place, s.seats, s.score, s.eliminations) for s in game.results()] == [
        (1, (1,), 2, 1),
        (2, (2,), 73 - 4 - 5, 0),
    ]


# --- "a player fills the whole grid (that player wins at once)": the free square too ------------
def test_a_free_square_that_fills_the_grid_wins_at_once():
    one_hole = [*[FULL_ROW] * 8, "########."]
    game = Game(Options(), 1, [1, 2], 0.0)
    events = game.setup(grids={1: one_hole}, deck=["O4", "T4", "2", "I5", "I4", "L4"])
    assert events[1:] == [ThirdOption(1, "2", False), Eliminated(1, True)]
    events = place(game, 1, 2, row=8, column=8)
    assert kinds(events) == ["placed", "finished"]
    assert game.termination is Termination.FULL_GRID and game.outcome().winners == (1,)


# --- "Deck: 40 shape cards" / "tetrominoes only: 35 cards": no game shows more cards -------------
@pytest.mark.parametrize(("tetrominoes_only", "size"), [(False, 40), (True, 35)])
def test_every_card_a_game_shows_comes_from_its_deck_of_40_or_35(tetrominoes_only, size):
    for seed in range(3):
        game = Game(Options(tetrominoes_only=tetrominoes_only), seed, [1, 2, 3], 0.0)
        events = [*game.opening, *game.advance(10**6)]
        assert game.finished
        shown = [card for e in events if e.kind == "round" for card in e.cards]
        shown += [e.card for e in events if e.kind == "third"]
        assert len(shown) + len(game.deck) == size
        assert game.round <= size // C.CARDS_PER_ROUND
