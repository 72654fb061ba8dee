"""The game (RULES.md §5): options, intents, the roll and the roller's arrangement, every
player writing the same shape, the two ends, ranking, the clocks, leaving and refusals,
each from drawn sheets."""

from __future__ import annotations

import pytest

from games.core.protocol import InvalidOptions
from games.tetrix import constants as C
from games.tetrix.engine import (
    Arranged,
    CannotWrite,
    Game,
    IllegalIntent,
    Intent,
    Options,
    PlayerLeft,
    Rolled,
    Standing,
    Termination,
    TurnChanged,
    Wrote,
    roll,
)

from .tetrix_helpers import arrange, full_but, game_for, kinds, refused, write

EMPTY = "......."
# Only a 2 × 2 hole inside the sheet is empty: an O fits, no other shape does.
O_HOLE = full_but((1, 1), (1, 2), (2, 1), (2, 2))
# ... and one more empty cell, alone inside the sheet, so that the O does not fill it.
O_HOLE_AND_A_CELL = full_but((1, 1), (1, 2), (2, 1), (2, 2), (5, 5))


# --- options and players -----------------------------------------------------------------------
def test_default_options_30_seconds_to_arrange_60_to_write_not_solo():
    assert Options() == Options(arrange_seconds=30, write_seconds=60, solo=False)
    assert (C.ARRANGE_SECONDS_DEFAULT, C.WRITE_SECONDS_DEFAULT) == (30, 60)
    assert Game(Options(), 1, [1], 0.0).next_deadline() == 30.0


@pytest.mark.parametrize(
    ("field", "good", "bad"),
    [
        ("arrange_seconds", [10, 30, 300], [9, 301, None, 30.0, "30", True]),
        ("write_seconds", [15, 60, 600], [14, 601, None, 60.0, "60", True]),
        ("solo", [True, False], [0, 1, "yes", None]),
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
    options = Options(arrange_seconds=12, write_seconds=20, solo=True)
    assert Options.from_dict(options.to_dict()) == options
    assert Options.from_dict({}) == Options()


@pytest.mark.parametrize("seats", [[1], [1, 2, 3, 4], [2, 4]])
def test_one_to_four_players_each_with_their_own_sheet(seats):
    game = Game(Options(), 1, seats, 0.0)
    assert game.seats == tuple(seats)
    assert all(game.sheets[seat].symbol_at(3, 3) == C.SEAT_SYMBOLS[seat] for seat in seats)
    assert all(game.sheets[seat].boxes_left is None for seat in seats)


@pytest.mark.parametrize("seats", [[], [1, 2, 3, 4, 5], [1, 1], [0, 1], [5]])
def test_more_than_four_or_no_players_or_bad_seats_are_refused(seats):
    with pytest.raises(InvalidOptions) as error:
        Game(Options(), 1, seats, 0.0)
    assert error.value.field == "seats"


# --- intents ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("intent", "text"),
    [
        (Intent.arrange("T", "oxso"), "arrange:T:oxso"),
        (Intent.write(1, -2, 3), "write:1:-2:3"),
        (Intent.write(0, 6, -3), "write:0:6:-3"),
        (Intent.stop(), "stop"),
    ],
)
def test_an_intent_has_a_text_form(intent, text):
    assert intent.text == str(intent) == text
    assert Intent.parse(text) == intent


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("arrange", "BAD_ARRANGE"),
        ("arrange:T", "BAD_ARRANGE"),
        ("arrange:Q:oxso", "BAD_ARRANGE"),
        ("arrange:t:oxso", "BAD_ARRANGE"),
        ("arrange:T:oxs", "BAD_ARRANGE"),
        ("arrange:T:oxsoo", "BAD_ARRANGE"),
        ("arrange:T:oxsq", "BAD_ARRANGE"),
        ("arrange:T:ox:so", "BAD_ARRANGE"),
        ("write", "BAD_WRITE"),
        ("write:4:0:0", "BAD_WRITE"),
        ("write:0:7:0", "BAD_WRITE"),
        ("write:0:-4:0", "BAD_WRITE"),
        ("write:0:0:-4", "BAD_WRITE"),
        ("write:0:0", "BAD_WRITE"),
        ("write:0:0:x", "BAD_WRITE"),
        ("write:0:0:--1", "BAD_WRITE"),
        ("write:0:0:-", "BAD_WRITE"),
        ("write:0:0:0:0", "BAD_WRITE"),
        ("stop:1", "BAD_ARGUMENT"),
        ("drop:3", "UNKNOWN_INTENT"),
        ("", "UNKNOWN_INTENT"),
    ],
)
def test_malformed_intents_are_refused_with_a_code(text, code):
    with pytest.raises(IllegalIntent) as error:
        Intent.parse(text)
    assert error.value.code == code and error.value.message


# --- the roll and the arrangement ---------------------------------------------------------------
def test_the_first_roller_is_drawn_from_the_seed_and_the_dice_are_rolled_at_once():
    game = Game(Options(), 5, [1, 2, 3], 0.0)
    assert game.round == 1 and game.phase == "arrange" and game.dice == roll(5, 1)
    assert game.opening == [Rolled(game.roller, 1, game.dice), TurnChanged(game.roller, "arrange", 30.0)]
    assert game.waiting_for() == (game.roller,)
    assert {Game(Options(), seed, [1, 2, 3], 0.0).roller for seed in range(30)} == {1, 2, 3}


def test_the_roller_arranges_the_four_symbols_rolled_into_any_tetromino():
    game = game_for(seats=(1, 2), roller=1, dice="oxso")
    events = arrange(game, "T", "soxo", now=4.0)
    assert events == [Arranged(1, "T", "soxo"), TurnChanged(0, "write", 64.0)]
    assert (game.phase, game.shape, game.symbols) == ("write", "T", "soxo")
    assert game.waiting_for() == (1, 2)  # the roller writes too


@pytest.mark.parametrize("symbols", ["ooox", "ssss", "oxsx", "xxoo"])
def test_an_arrangement_of_other_symbols_than_the_roll_is_refused(symbols):
    game = game_for(seats=(1, 2), roller=1, dice="oxso")
    refused(game, 1, Intent.arrange("T", symbols), "NOT_THE_ROLL")


def test_only_the_roller_arranges_and_only_once():
    game = game_for(seats=(1, 2), roller=1, dice="oxso")
    refused(game, 2, Intent.arrange("T", "oxso"), "NOT_YOUR_TURN")
    refused(game, 2, Intent.write(0, 0, 0), "NOT_YOUR_TURN")  # nothing to write yet
    refused(game, 1, Intent.write(0, 0, 0), "NOT_YOUR_TURN")
    arrange(game, "T", "oxso")
    refused(game, 1, Intent.arrange("O", "oxso"), "ALREADY_ARRANGED")
    refused(game, 2, Intent.arrange("O", "oxso"), "NOT_YOUR_TURN")


# --- writing ---------------------------------------------------------------------------------------
def test_every_player_writes_the_same_shape_with_the_same_symbols_turned_as_they_like():
    game = game_for(seats=(1, 2), roller=1, dice="oxso")
    arrange(game, "T", "oxso")  # the nose o, then the bar x s o
    assert write(game, 1, turns=0, row=0, column=0) == [
        Wrote(1, ((0, 1, "o"), (1, 0, "x"), (1, 1, "s"), (1, 2, "o")), 0, 0)
    ]
    events = write(game, 2, turns=1, row=4, column=5)  # a quarter turn: the nose to the right
    assert events[0].cells == ((5, 6, "o"), (4, 5, "x"), (5, 5, "s"), (6, 5, "o"))
    assert game.sheets[1].rows()[:2] == (".o.....", "xso....")
    assert game.sheets[2].rows()[4:] == (".....x.", ".....so", ".....o.")


def test_shapes_need_not_touch_earlier_ones():
    game = game_for(seats=(1,), roller=1, dice="oooo")
    arrange(game, "O", "oooo")
    write(game, 1, row=5, column=0)
    assert game.sheets[1].rows()[3:] == ("...o...", EMPTY, "oo.....", "oo.....")


def test_cells_may_hang_over_the_edge_and_are_not_written():
    game = game_for(seats=(1, 2), roller=1, dice="ooxx")
    arrange(game, "I", "oxox")
    events = write(game, 1, turns=0, row=0, column=-3)  # three cells over the left edge
    assert events == [Wrote(1, ((0, 0, "x"),), 3, 0)]
    events = write(game, 2, turns=1, row=5, column=6)  # upright, two cells over the bottom edge
    assert events[0].cells == ((5, 6, "o"), (6, 6, "x")) and events[0].hanging == 2


def test_at_least_one_symbol_must_be_written():
    game = game_for(seats=(1, 2), roller=1, dice="ooxx")
    arrange(game, "I", "oxox")
    refused(game, 1, Intent.write(0, -3, 0), "NOTHING_WRITTEN")  # the bar lies above the sheet
    refused(game, 1, Intent.write(1, 0, -1), "NOTHING_WRITTEN")  # upright, left of it
    assert kinds(write(game, 1, turns=1, row=-3, column=6)) == ["wrote"]  # the lowest cell alone


def test_nothing_is_written_on_a_written_cell():
    game = game_for(seats=(1, 2), roller=1, dice="oxso")
    arrange(game, "T", "oxso")
    refused(game, 1, Intent.write(0, 2, 2), "CELL_WRITTEN")  # the bar over the preprinted centre
    write(game, 1, row=0, column=0)
    write(game, 2, row=0, column=0)
    arrange(game, "O", game.dice)
    refused(game, 1, Intent.write(0, 1, 0), "CELL_WRITTEN")  # over the T of round 1


def test_writing_twice_in_a_round_is_refused():
    game = game_for(seats=(1, 2), roller=1, dice="oxso")
    arrange(game, "T", "oxso")
    write(game, 1, row=0, column=0)
    refused(game, 1, Intent.write(0, 5, 0), "ALREADY_WROTE")


def test_when_everyone_has_written_the_next_player_in_seat_order_rolls():
    game = game_for(seats=(1, 3, 4), roller=3, dice="oxso")
    rollers = []
    for _ in range(4):
        rollers.append(game.roller)
        arrange(game, "I", game.dice)
        for seat in game.seats:
            events = write(game, seat, turns=1, row=-3, column=len(rollers))  # upright, hanging over
        assert kinds(events) == ["wrote", "rolled", "turn"]
        assert events[1] == Rolled(game.roller, game.round, roll(game.seed, game.round))
    assert rollers == [3, 4, 1, 3]


# --- the end ---------------------------------------------------------------------------------------
def test_a_player_who_cannot_write_the_shape_ends_the_game_after_the_round_the_others_still_write():
    game = game_for(seats=(1, 2, 3), sheets={2: O_HOLE}, roller=1, dice="osxo")
    events = arrange(game, "I", "osxo")
    assert kinds(events) == ["arranged", "turn", "cannot_write"] and events[2] == CannotWrite(2)
    assert game.waiting_for() == (1, 3)  # the engine does not wait for seat 2
    refused(game, 2, Intent.write(0, 1, 1), "CANNOT_WRITE")
    assert kinds(write(game, 1)) == ["wrote"]
    events = write(game, 3)
    assert kinds(events) == ["wrote", "finished"]
    assert game.finished and game.termination is Termination.FULL_BOARD
    assert game.next_deadline() is None and game.waiting_for() == ()


def test_a_shape_that_fits_lets_the_game_go_on():
    game = game_for(seats=(1, 2), sheets={2: O_HOLE_AND_A_CELL}, roller=1, dice="osxo")
    arrange(game, "O", "osxo")
    write(game, 1)
    events = write(game, 2, row=1, column=1)
    assert kinds(events) == ["wrote", "rolled", "turn"] and not game.finished


def test_the_roller_may_arrange_a_shape_they_cannot_write_themselves():
    game = game_for(seats=(1, 2), sheets={1: O_HOLE}, roller=1, dice="osxo")
    events = arrange(game, "L", "osxo")
    assert events[-1] == CannotWrite(1)
    assert kinds(write(game, 2)) == ["wrote", "finished"]


def test_when_nobody_can_write_the_game_ends_at_once():
    game = game_for(seats=(1, 2), sheets={1: O_HOLE, 2: O_HOLE}, roller=2, dice="osxo")
    events = arrange(game, "T", "osxo")
    assert kinds(events) == ["arranged", "turn", "cannot_write", "cannot_write", "finished"]


def test_a_full_sheet_ends_the_game_after_its_round():
    corner = full_but((0, 0), (0, 1), (1, 0), (1, 1))
    game = game_for(seats=(1, 2), sheets={1: corner}, roller=2, dice="oooo")
    arrange(game, "O", "oooo")
    write(game, 1, row=0, column=0)
    assert game.sheets[1].is_full() and not game.finished  # seat 2 still writes
    events = write(game, 2, row=5, column=5)
    assert kinds(events) == ["wrote", "finished"] and game.termination is Termination.FULL_BOARD


# --- ranking ----------------------------------------------------------------------------------------
def test_the_highest_score_wins_and_equal_scores_share_the_place():
    five_circles = ["ooooo..", *[EMPTY] * 6]
    two_areas = ["ooooo.o", "......o", "......o", "......o", "......o", EMPTY, EMPTY]
    five_crosses = [EMPTY, EMPTY, EMPTY, EMPTY, "..xxxxx", EMPTY, EMPTY]
    game = game_for(seats=(1, 2, 3), sheets={1: five_circles, 2: two_areas, 3: five_crosses}, roller=1)
    assert [game.score(seat) for seat in (1, 2, 3)] == [5, 20, 5]
    assert game.results() == [
        Standing(place=1, seats=(2,), score=20),
        Standing(place=2, seats=(1,), score=5, shared=True),
        Standing(place=2, seats=(3,), score=5, shared=True),
    ]


def test_the_outcome_names_the_winner_once_finished():
    game = game_for(seats=(1, 2), sheets={1: O_HOLE, 2: ["ooooo..", *[EMPTY] * 6]}, roller=1, dice="oxso")
    arrange(game, "T", "oxso")  # seat 1 cannot write it: the last round
    assert game.outcome() is None
    write(game, 2, row=4, column=0)
    outcome = game.outcome()
    assert outcome.termination is Termination.FULL_BOARD
    assert outcome.winners == (2,) and outcome.standings[0].score == 5


# --- the clocks --------------------------------------------------------------------------------------
def test_on_the_rollers_timeout_the_dice_are_arranged_as_rolled():
    game = game_for(seats=(1, 2), roller=1, dice="xsoo")
    assert game.advance(29.9) == []
    events = game.advance(30.0)
    assert events == [Arranged(1, "O", "xsoo", timeout=True), TurnChanged(0, "write", 90.0)]
    assert list(game.log) == [(30.0, 1, "timeout:arrange:O:xsoo")]


def test_the_rollers_timeout_takes_the_first_shape_the_roller_can_write():
    game = game_for(seats=(1, 2), sheets={1: full_but((0, 3))}, roller=1, dice="xsoo")
    events = game.advance(30.0)
    assert events[0] == Arranged(1, "T", "xsoo", timeout=True)  # O fits nowhere, T does


def test_on_the_write_timeout_the_first_spot_with_fewest_symbols_over_the_edge_is_written():
    game = game_for(seats=(1, 2), roller=1, dice="xsoo")
    arrange(game, "O", "xsoo", now=10.0)
    write(game, 1, row=5, column=5, now=20.0)
    assert game.advance(69.9) == []
    events = game.advance(70.0)
    assert events[0] == Wrote(2, ((0, 0, "x"), (0, 1, "s"), (1, 0, "o"), (1, 1, "o")), 0, 0, timeout=True)
    assert kinds(events) == ["wrote", "rolled", "turn"]
    assert list(game.log)[-1] == (70.0, 2, "timeout:write:0:0:0")


def test_the_write_timeout_prefers_a_spot_wholly_on_the_sheet_to_an_earlier_one_over_the_edge():
    sheet_ = full_but((0, 0), (4, 1), (4, 2), (4, 3), (4, 4))
    game = game_for(seats=(1,), sheets={1: sheet_}, roller=1, dice="xsoo")
    arrange(game, "I", "xsoo")
    game.advance(60.0)
    assert list(game.log)[-1] == (60.0, 1, "timeout:write:0:4:1")


def test_a_game_of_idle_players_ends_on_the_clocks_alone():
    game = Game(Options(arrange_seconds=10, write_seconds=15), 3, [1, 2, 3, 4], 0.0)
    t = 0.0
    while not game.finished:
        t += 7.0
        game.advance(t)
        assert game.round <= C.CELLS
    assert game.termination is Termination.FULL_BOARD
    assert all(text.startswith("timeout:") for _, _, text in game.log)


# --- leaving -------------------------------------------------------------------------------------------
def test_a_player_who_leaves_is_ranked_last_and_the_round_no_longer_waits_for_them():
    game = game_for(seats=(1, 2, 3), roller=1, dice="oxso")
    arrange(game, "T", "oxso")
    write(game, 1)
    write(game, 3, row=4, column=0)
    events = game.forfeit(2, 5.0)
    assert kinds(events) == ["left", "rolled", "turn"]
    assert game.roller == 3  # seat 2, next after seat 1, has left
    assert game.results()[-1] == Standing(place=3, seats=(2,), score=0, forfeited=True)


def test_a_roller_who_leaves_passes_the_dice_as_rolled_to_the_next_player():
    game = game_for(seats=(1, 2, 3), roller=2, dice="oxso")
    events = game.forfeit(2, 5.0)
    assert events == [PlayerLeft(2), TurnChanged(3, "arrange", 35.0)]
    assert (game.roller, game.dice, game.round) == (3, "oxso", 1)
    arrange(game, "S", "xoos")


def test_leavers_rank_behind_everyone_the_earliest_last():
    game = game_for(seats=(1, 2, 3, 4), roller=1)
    game.forfeit(3, 1.0)
    game.forfeit(1, 2.0)
    assert [s.seats for s in game.results()] == [(2,), (4,), (1,), (3,)]
    assert [s.place for s in game.results()] == [1, 1, 3, 4]


def test_the_game_ends_when_one_player_is_left_at_the_table():
    game = game_for(seats=(1, 2), roller=1)
    events = game.forfeit(2, 5.0)
    assert kinds(events) == ["left", "finished"] and game.termination is Termination.FORFEIT
    assert game.outcome().winners == (1,)


def test_a_lone_player_who_leaves_ends_the_game():
    game = Game(Options(), 1, [4], 0.0)
    game.forfeit(4, 1.0)
    assert game.finished and game.termination is Termination.FORFEIT


# --- refusals: each says why with a code, and changes nothing --------------------------------------
def test_stop_is_for_the_solo_game_only():
    game = game_for(seats=(1, 2), roller=1)
    refused(game, 1, Intent.stop(), "NOT_SOLO")


def test_a_seat_not_playing_or_gone_and_a_finished_game_are_refused():
    game = game_for(seats=(1, 2, 3), roller=1, dice="oxso")
    refused(game, 4, Intent.arrange("T", "oxso"), "NOT_PLAYING")
    game.forfeit(3, 1.0)
    refused(game, 3, Intent.write(0, 0, 0), "NOT_PLAYING")
    game.forfeit(2, 2.0)
    refused(game, 1, Intent.arrange("T", "oxso"), "GAME_OVER")
    with pytest.raises(IllegalIntent) as error:
        game.forfeit(1, 3.0)
    assert error.value.code == "GAME_OVER"


def test_anything_but_an_intent_is_refused():
    game = game_for(seats=(1, 2), roller=1)
    with pytest.raises(IllegalIntent) as error:
        game.apply(1, "arrange:T:oxso", 0.0)
    assert error.value.code == "UNKNOWN_INTENT"


def test_a_refused_intent_after_a_timeout_still_reports_the_clock():
    game = game_for(seats=(1, 2), roller=1, dice="oxso")
    with pytest.raises(IllegalIntent):
        game.apply(1, Intent.arrange("T", "oxso"), 31.0)  # the clock arranged first
    assert game.phase == "write" and game.shape == "O"
    assert kinds(game.advance(31.0)) == ["arranged", "turn"]


def test_events_carry_their_kind_for_the_page():
    game = game_for(seats=(1, 2), roller=1, dice="oxso")
    event = arrange(game, "T", "oxso")[0]
    assert event.to_dict() == {
        "kind": "arranged",
        "seat": 1,
        "shape": "T",
        "symbols": "oxso",
        "timeout": False,
    }


# --- replay ------------------------------------------------------------------------------------------
def test_a_game_replays_from_its_input_log():
    game = Game(Options(), 17, [1, 2, 3], 0.0)
    arrange(game, "L", game.dice, now=3.0)
    write(game, 1, turns=2, row=-1, column=2, now=4.0)
    write(game, 2, turns=3, row=5, column=5, now=6.0)
    game.advance(100.0)  # seat 3's write, then the next roller's arrangement, on the clock
    game.forfeit(2, 101.0)
    copy = Game.replay(game.options, game.seed, game.seats, game.start, game.log, 200.0)
    game.advance(200.0)
    assert copy.to_text() == game.to_text()
    assert copy.results() == game.results()
