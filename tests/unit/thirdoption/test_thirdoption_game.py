"""The game (RULES.md §3): options, intents, rounds of two cards placed at the same
time, the third option, elimination and the free square, the three ends, ranking, the
round clock, forfeits and refusals, each from drawn grids."""

from __future__ import annotations

import pytest

from games.core.protocol import InvalidOptions
from games.core.ranking import place_points
from games.thirdoption import constants as C
from games.thirdoption.engine import (
    Eliminated,
    Game,
    IllegalIntent,
    Intent,
    Options,
    Placed,
    RoundStarted,
    Standing,
    Termination,
    ThirdOption,
)

from .thirdoption_helpers import FULL_ROW, full_but, game_for, kinds, place

# Full but for a column of three cells: an I3 fits (turned), a 4-cell card never does.
I3_SLOT = full_but("#.#######", "#.#######", "#.#######")
# ... and one more empty cell, far away, so that filling the slot does not fill the grid.
I3_SLOT_AND_A_CELL = [*I3_SLOT[:8], "########."]
# Only single empty cells, none beside another: nothing but a 1 × 1 square fits.
ISOLATED = full_but(".#.######", "#########", "########.")
FOUR_EMPTY = ["##..#####", "##..#####", *[FULL_ROW] * 7]  # a 2 × 2 hole


# --- options and players -----------------------------------------------------------------------
def test_default_options_a_90_second_round_and_the_full_deck():
    assert Options() == Options(round_seconds=90, tetrominoes_only=False)
    assert C.ROUND_SECONDS_DEFAULT == 90
    assert Game(Options(), 1, [1], 0.0).next_deadline() == 90.0


@pytest.mark.parametrize(
    ("field", "good", "bad"),
    [
        ("round_seconds", [15, 90, 600], [14, 601, None, 90.0, "90", True]),
        ("tetrominoes_only", [True, False], [0, 1, "yes", None]),
    ],
)
def test_options_are_validated_naming_the_field(field, good, bad):
    for value in good:
        assert getattr(Options(**{field: value}), field) == value
    for value in bad:
        with pytest.raises(InvalidOptions) as error:
            Options(**{field: value})
        assert error.value.field == field and field in error.value.message


def test_options_round_trip_through_a_dict():
    options = Options(round_seconds=30, tetrominoes_only=True)
    assert Options.from_dict(options.to_dict()) == options
    assert Options.from_dict({}) == Options()


@pytest.mark.parametrize("seats", [[1], list(range(1, 13)), [2, 7, 12]])
def test_one_to_twelve_players(seats):
    game = Game(Options(), 1, seats, 0.0)
    assert game.seats == tuple(seats) and game.round == 1
    assert all(game.offered(seat) == [(0, game.cards[0]), (1, game.cards[1])] for seat in seats)


@pytest.mark.parametrize("seats", [[], list(range(1, 14)), [1, 1], [0, 1], [13]])
def test_more_than_twelve_or_no_players_or_bad_seats_are_refused(seats):
    with pytest.raises(InvalidOptions) as error:
        Game(Options(), 1, seats, 0.0)
    assert error.value.field == "seats"


# --- intents ---------------------------------------------------------------------------------------
def test_an_intent_has_a_text_form():
    intent = Intent(round=3, card=1, turns=2, mirrored=True, row=4, column=0)
    assert str(intent) == "place:3,1,2,1,4,0"
    assert Intent.parse("place:3,1,2,1,4,0") == intent


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("place", "BAD_PLACEMENT"),
        ("place:1,3,0,0,0,0", "BAD_PLACEMENT"),  # card 3
        ("place:1,0,4,0,0,0", "BAD_PLACEMENT"),  # turns 4
        ("place:1,0,0,2,0,0", "BAD_PLACEMENT"),  # mirrored 2
        ("place:1,0,0,0,9,0", "BAD_PLACEMENT"),  # row 9
        ("place:1,0,0,0,0,-1", "BAD_PLACEMENT"),
        ("place:0,0,0,0,0,0", "BAD_PLACEMENT"),  # round 0
        ("place:1,0,0,0,0", "BAD_PLACEMENT"),
        ("drop:3", "UNKNOWN_INTENT"),
        ("", "UNKNOWN_INTENT"),
    ],
)
def test_malformed_intents_are_refused_with_a_code(text, code):
    with pytest.raises(IllegalIntent) as error:
        Intent.parse(text)
    assert error.value.code == code


# --- rounds ----------------------------------------------------------------------------------------
def test_each_round_reveals_two_cards_from_the_deck():
    game = game_for(seats=(1, 2, 3), deck=["T4", "P5", "O4", "I3", "1", "2"])
    assert game.cards == ("T4", "P5")
    assert game.deck == ["O4", "I3", "1", "2"]


def test_everyone_places_at_the_same_time_and_the_round_ends_when_all_have_placed():
    game = game_for(seats=(1, 2, 3), deck=["T4", "P5", "O4", "I3", "1", "2"])
    first = game.round
    assert kinds(place(game, 2, 1, turns=1)) == ["placed"]  # the P5, turned, top left
    assert kinds(place(game, 3, 1, turns=1)) == ["placed"]  # several may pick the same card
    assert game.round == first and game.waiting_for() == (1,)
    events = place(game, 1, 0, now=12.5)
    assert kinds(events) == ["placed", "round"]
    assert events[1] == RoundStarted(0, first + 1, ("O4", "I3"), 2, 12.5 + 90)
    assert game.round == first + 1 and game.waiting_for() == (1, 2, 3)


def test_a_card_is_placed_turned_and_mirrored_where_the_player_says():
    game = game_for(seats=(1,), deck=["L4", "O4", "T4", "I3"])
    events = place(game, 1, 0, turns=1, mirrored=True, row=0, column=7)
    assert events[0] == Placed(1, "L4", ((0, 8), (1, 8), (2, 7), (2, 8)), 73 - 4)
    assert game.grids[1].rows()[:3] == ("........#", "........#", ".......##")


def test_shapes_need_not_touch_earlier_shapes():
    game = game_for(seats=(1,), deck=["1", "2", "T4", "I3"])
    place(game, 1, 0, row=8, column=8)
    assert game.grids[1].rows()[8] == "........#"


# --- the third option ------------------------------------------------------------------------------
def test_a_player_for_whom_neither_card_fits_gets_a_third_option_and_must_place_it():
    game = game_for(grids={1: I3_SLOT_AND_A_CELL}, deck=["O4", "T4", "I3", "2", "1"])
    assert game.offered(1) == [(2, "I3")]  # their own card, and only that one
    assert game.offered(2) == [(0, "O4"), (1, "T4")]
    assert game.deck == ["2", "1"]
    with pytest.raises(IllegalIntent) as error:
        place(game, 1, 0)
    assert error.value.code == "CARD_NOT_OFFERED"
    place(game, 1, 2, turns=1, row=0, column=1)
    assert game.players[1].state == "in"  # it fitted: they stay in
    assert game.grids[1].empty == 1


def test_the_third_option_event_tells_its_player_the_card():
    game = Game(Options(), 1, [1, 2], 0.0)
    events = game.setup(grids={1: I3_SLOT_AND_A_CELL}, deck=["O4", "T4", "I3", "2", "1"])
    # the round's event counts the deck as the two cards leave it, before any third option
    assert events == [RoundStarted(0, game.round, ("O4", "T4"), 3, 90.0), ThirdOption(1, "I3", True)]


def test_third_options_are_dealt_in_seat_order():
    game = game_for(
        seats=(1, 2, 3), grids={1: I3_SLOT, 2: I3_SLOT, 3: I3_SLOT}, deck=["O4", "T4", "1", "2", "I3", "X5"]
    )
    assert [game.offered(seat) for seat in (1, 2, 3)] == [[(2, "1")], [(2, "2")], [(2, "I3")]]


def test_a_third_option_that_fits_keeps_the_player_in_for_another_one_next_round():
    game = game_for(grids={1: I3_SLOT_AND_A_CELL}, deck=["O4", "T4", "2", "X5", "I4", "1", "I5"])
    place(game, 1, 2, turns=1, row=0, column=1)  # the domino in the slot: one cell of it left
    place(game, 2, 0)
    assert game.cards == ("X5", "I4")
    assert game.offered(1) == [(2, "1")]  # neither fits again: another third option


def test_a_player_whose_third_option_does_not_fit_is_out_and_the_first_out_gets_a_free_square():
    game = Game(Options(), 1, [1, 2], 0.0)
    events = game.setup(grids={1: ISOLATED}, deck=["O4", "T4", "2", "I5", "I4"])
    assert events[1:] == [ThirdOption(1, "2", False), Eliminated(1, True)]
    assert game.players[1].state == "out"
    assert game.offered(1) == [(2, "1")]  # the free 1 × 1 square
    assert game.waiting_for() == (1, 2)  # the round waits for the free square too
    place(game, 1, 2, row=0, column=0)
    assert game.grids[1].empty == 2
    with pytest.raises(IllegalIntent) as error:
        place(game, 1, 2, row=0, column=2)
    assert error.value.code in ("ELIMINATED", "ALREADY_PLACED")


def test_everyone_eliminated_in_that_first_round_gets_a_free_square():
    game = Game(Options(), 1, [1, 2, 3], 0.0)
    events = game.setup(grids={1: ISOLATED, 3: ISOLATED}, deck=["O4", "T4", "2", "I3", "I5", "I4"])
    assert [e for e in events if e.kind == "out"] == [Eliminated(1, True), Eliminated(3, True)]
    assert game.offered(1) == game.offered(3) == [(2, "1")]


def test_later_eliminations_get_no_free_square_and_the_round_does_not_wait_for_them():
    game = Game(Options(), 1, [1, 2, 3], 0.0)
    events = game.setup(grids={2: ISOLATED}, deck=["O4", "T4", "2", "I5", "I4"], out=[3])
    assert events[-1] == Eliminated(2, False)
    assert game.offered(2) == [] and game.waiting_for() == (1,)
    with pytest.raises(IllegalIntent) as error:
        place(game, 2, 2)
    assert error.value.code == "ELIMINATED"


def test_with_the_deck_empty_there_is_no_third_option_and_the_player_is_out():
    game = Game(Options(), 1, [1, 2], 0.0)
    events = game.setup(grids={1: ISOLATED}, deck=["O4", "T4"])
    assert kinds(events) == ["round", "out"]


# --- the end ---------------------------------------------------------------------------------------
def test_filling_the_whole_grid_wins_at_once():
    game = game_for(seats=(1, 2, 3), grids={1: FOUR_EMPTY}, deck=["O4", "I3", "T4", "L4"])
    events = place(game, 1, 0, row=0, column=2)
    assert kinds(events) == ["placed", "finished"]
    assert game.finished and game.termination is Termination.FULL_GRID
    assert game.waiting_for() == () and game.next_deadline() is None  # the others never placed
    outcome = game.outcome()
    assert outcome.winners == (1,) and outcome.standings[0] == Standing(place=1, seats=(1,), score=0)


def test_the_game_ends_when_every_player_is_out():
    game = game_for(seats=(1, 2), grids={1: ISOLATED, 2: ISOLATED}, deck=["O4", "T4", "2", "2", "I3", "I5"])
    place(game, 1, 2, row=0, column=0)
    events = place(game, 2, 2, row=0, column=2)
    assert kinds(events) == ["placed", "finished"]
    assert game.termination is Termination.ALL_OUT
    # An eliminated player's score is their number of empty squares: equal here, shared.
    assert [(s.seats, s.score, s.place, s.shared, s.eliminations) for s in game.results()] == [
        ((1,), 2, 1, True, 1), ((2,), 2, 1, True, 1),
    ]  # fmt: skip


def test_the_game_ends_when_every_player_is_out_at_the_start_of_a_round():
    # seat 3 went out in an earlier round; now the last two go out, with no free square
    game = Game(Options(), 1, [1, 2, 3], 0.0)
    game.setup(grids={1: ISOLATED, 2: ISOLATED}, deck=["O4", "T4", "2", "2", "I3"], out=[3])
    assert game.finished and game.termination is Termination.ALL_OUT


def test_the_game_ends_when_the_deck_cannot_reveal_two_more_cards():
    game = game_for(seats=(1, 2), deck=["T4", "O4", "I5"])
    place(game, 1, 0)
    events = place(game, 2, 1)
    assert kinds(events) == ["placed", "finished"]
    assert game.termination is Termination.DECK_EMPTY and game.deck == ["I5"]


# --- ranking ----------------------------------------------------------------------------------------
def test_fewest_empty_squares_wins_and_equal_counts_share_the_place():
    five = full_but(".....####")
    nine = full_but(".........")
    game = game_for(seats=(1, 2, 3), grids={1: nine, 2: five, 3: five}, deck=["1", "1"])
    assert [(s.seats, s.score, s.place, s.shared) for s in game.results()] == [
        ((2,), 5, 1, True), ((3,), 5, 1, True), ((1,), 9, 3, False),
    ]  # fmt: skip


def test_a_player_who_leaves_is_ranked_last():
    game = game_for(seats=(1, 2, 3), grids={1: full_but("##.......")}, deck=["O4", "I3", "T4", "L4"])
    game.forfeit(1, 3.0)
    results = game.results()
    assert results[-1].seats == (1,) and results[-1].forfeited
    assert not game.finished  # two players are still at the table


def test_twelve_players_place_points_by_rules_section_6():
    # RULES.md §6 for 5–12 players: 1st 5·N, 2nd 5·(N − 3), then 5 less down to 0, last −10
    assert [place_points(p, 12) for p in (1, 2, 3, 11, 12)] == [60, 45, 40, 0, -10]


# --- the round clock --------------------------------------------------------------------------------
def test_on_timeout_the_first_legal_placement_of_the_first_card_that_fits_is_made():
    row_slot = full_but(
        "###...###", FULL_ROW, FULL_ROW, FULL_ROW, FULL_ROW, FULL_ROW, FULL_ROW, FULL_ROW, "########."
    )
    game = game_for(seats=(1, 2), grids={1: row_slot}, deck=["O4", "I3", "T4", "L4", "I4", "1"])
    round_ = game.round
    events = game.advance(90.0)
    assert events[:2] == [
        Placed(1, "I3", ((0, 3), (0, 4), (0, 5)), 1, timeout=True),  # the O4 does not fit
        Placed(2, "O4", ((0, 0), (0, 1), (1, 0), (1, 1)), 69, timeout=True),  # top left, as drawn
    ]
    assert events[2] == RoundStarted(0, round_ + 1, ("T4", "L4"), 2, 180.0)
    assert [text for _, _, text in game.log] == [f"timeout:{round_},1,0,0,0,3", f"timeout:{round_},0,0,0,0,0"]


def test_the_clock_places_only_for_those_who_have_not_placed():
    game = game_for(seats=(1, 2), deck=["O4", "I3", "T4", "L4"])
    place(game, 1, 1, row=8, column=0, now=10.0)
    events = game.advance(89.9)
    assert events == []
    events = game.advance(90.0)
    assert [(e.seat, e.timeout) for e in events if e.kind == "placed"] == [(2, True)]


# --- leaving -------------------------------------------------------------------------------------------
def test_the_round_no_longer_waits_for_a_player_who_leaves():
    game = game_for(seats=(1, 2, 3), deck=["O4", "I3", "T4", "L4"])
    round_ = game.round
    place(game, 1, 0)
    place(game, 3, 0)
    events = game.forfeit(2, 5.0)
    assert kinds(events) == ["left", "round"] and game.round == round_ + 1
    assert game.waiting_for() == (1, 3)


def test_the_game_ends_when_one_player_is_left_at_the_table():
    game = game_for(seats=(1, 2), deck=["O4", "I3", "T4", "L4"])
    events = game.forfeit(2, 5.0)
    assert kinds(events) == ["left", "finished"] and game.termination is Termination.FORFEIT
    assert game.outcome().winners == (1,)


ISOLATED = full_but(".#.######", "#########", "########.")  # three lone cells: nothing fits


def test_a_player_who_is_out_cannot_forfeit_their_result_away():
    """RULES.md §3: an eliminated player's score is their empty squares, and the game
    ends only when every player is out, the deck runs out or a grid is full. Their
    leaving used to end the game at once, ranking them last."""
    game = Game(Options(), 1, [1, 2], 0.0)
    game.setup(grids={1: ISOLATED}, deck=["O4", "T4", "2", "I5", "I4", "L4", "T4", "O4"])
    place(game, 1, 2, row=0, column=0)  # out, and their free square placed
    assert game.players[1].state == "out" and game.empty(1) == 2
    before = game.to_text()
    with pytest.raises(IllegalIntent) as refused_leave:
        game.forfeit(1, 5.0)
    assert refused_leave.value.code == "ALREADY_OUT" and "2 empty squares" in refused_leave.value.message
    assert game.to_text() == before and not game.finished
    assert not game.results()[-1].forfeited


def test_a_solo_player_who_leaves_ends_the_game():
    game = Game(Options(), 1, [4], 0.0)
    game.forfeit(4, 1.0)
    assert game.finished and game.termination is Termination.FORFEIT


# --- refusals: each says why with a code, and changes nothing --------------------------------------
def refused(game: Game, seat: int, intent: Intent, code: str) -> None:
    before = game.to_text()
    with pytest.raises(IllegalIntent) as error:
        game.apply(seat, intent, game.now)
    assert error.value.code == code, error.value
    assert error.value.message
    assert game.to_text() == before


def test_placing_twice_in_a_round_is_refused():
    game = game_for(deck=["O4", "I3", "T4", "L4"])
    place(game, 1, 0)
    refused(game, 1, Intent(game.round, 1, row=8, column=0), "ALREADY_PLACED")


def test_placing_a_card_not_revealed_is_refused():
    game = game_for(deck=["O4", "I3", "T4", "L4"])
    refused(game, 1, Intent(game.round, 2), "CARD_NOT_OFFERED")


def test_a_placement_off_the_grid_is_refused():
    game = game_for(deck=["I4", "I3", "T4", "L4"])
    refused(game, 1, Intent(game.round, 0, row=0, column=6), "OUT_OF_GRID")  # columns 6–9
    refused(game, 1, Intent(game.round, 0, turns=1, row=6, column=0), "OUT_OF_GRID")  # rows 6–9


def test_an_overlapping_placement_is_refused():
    game = game_for(deck=["O4", "I3", "T4", "L4"])
    refused(game, 1, Intent(game.round, 0, row=3, column=3), "OVERLAP")  # on the starting shape


def test_a_placement_meant_for_another_round_is_refused():
    game = game_for(deck=["O4", "I3", "T4", "L4"])
    refused(game, 1, Intent(game.round - 1, 0), "WRONG_ROUND")


def test_acting_after_elimination_is_refused():
    game = game_for(seats=(1, 2, 3), deck=["O4", "I3", "T4", "L4"], out=[3])
    refused(game, 3, Intent(game.round, 0), "ELIMINATED")


def test_a_seat_not_playing_or_gone_and_a_finished_game_are_refused():
    game = game_for(seats=(1, 2, 3), deck=["O4", "I3", "T4", "L4"])
    refused(game, 4, Intent(game.round, 0), "NOT_PLAYING")
    game.forfeit(3, 1.0)
    refused(game, 3, Intent(game.round, 0), "NOT_PLAYING")
    game.forfeit(2, 2.0)
    refused(game, 1, Intent(game.round, 0), "GAME_OVER")


def test_a_refused_placement_after_a_timeout_still_reports_the_clock():
    game = game_for(deck=["O4", "I3", "T4", "L4", "I4", "I5"])
    with pytest.raises(IllegalIntent):
        game.apply(1, Intent(game.round, 0, row=3, column=3), 95.0)  # the clock ran out first
    assert game.round == 3  # the clock placed for both
    events = game.advance(95.0)
    assert [e.kind for e in events].count("placed") == 2
