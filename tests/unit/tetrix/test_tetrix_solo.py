"""The solo game (RULES.md §5): the 8-box bar, symbols hanging over the edge, the end
when no shape can be written or when the player stops, a point per open box, and the
verdict."""

from __future__ import annotations

import pytest

from games.core.protocol import InvalidOptions
from games.tetrix import constants as C
from games.tetrix.engine import Game, Intent, Options, Rolled, Stopped, Termination, Wrote
from games.tetrix.events import Finished

from .tetrix_helpers import arrange, full_but, game_for, kinds, refused, write

EMPTY = "......."
STRIPES_119 = ["osxosxo"] * 7  # 3 × 21 + 2 × 14 + 2 × 14 = 119
STRIPES_147 = ["osoxoso"] * 7  # 4 × 28 + 2 × 14 + 1 × 7 = 147
EDGE_HOLE = full_but((0, 3))  # one empty cell, on the top edge: written only hanging over


def solo(seat=1, **setup) -> Game:
    return game_for(seats=(seat,), solo=True, **setup)


# --- the sheet and the bar ---------------------------------------------------------------------
@pytest.mark.parametrize("seat", [1, 2, 3, 4])
def test_the_solo_game_is_one_player_at_any_seat_with_a_bar_of_8_boxes(seat):
    game = Game(Options(solo=True), 1, [seat], 0.0)
    sheet = game.sheets[seat]
    assert sheet.solo and sheet.boxes_left == C.BAR_BOXES == 8
    assert sheet.symbol_at(3, 3) == C.SEAT_SYMBOLS[seat]
    assert game.score(seat) == 8  # nothing scores yet; each open box is a point


@pytest.mark.parametrize("seats", [[1, 2], [1, 2, 3, 4], []])
def test_the_solo_game_has_exactly_one_seat(seats):
    with pytest.raises(InvalidOptions) as error:
        Game(Options(solo=True), 1, seats, 0.0)
    assert error.value.field == "seats"


def test_the_solo_player_rolls_every_round():
    game = solo(roller=1, dice="oxso")
    for round_ in range(1, 4):
        assert (game.round, game.roller) == (round_, 1)
        arrange(game, "I", game.dice)
        events = write(game, 1, turns=1, row=0, column=round_ - 1)
        assert events[1] == Rolled(1, round_ + 1, game.dice)


# --- hanging over the edge ----------------------------------------------------------------------
def test_every_symbol_hanging_over_crosses_a_box():
    game = solo(roller=1, dice="oxso")
    arrange(game, "I", "oxso")
    events = write(game, 1, turns=0, row=0, column=-3)
    assert events[0] == Wrote(1, ((0, 0, "o"),), 3, 5, crossed=3)  # 0 points + 5 open boxes
    assert game.sheets[1].bar() == "XXX....." and game.score(1) == 5


def test_no_more_symbols_may_hang_over_than_boxes_are_left():
    game = solo(roller=1, dice="oxso", crossed={1: 6})
    arrange(game, "I", "oxso")
    error = refused(game, 1, Intent.write(0, 0, -3), "BAR_FULL")  # 3 over, 2 boxes left
    assert "2 boxes" in error.message
    events = write(game, 1, turns=0, row=0, column=-2)  # 2 over: the last two boxes
    assert events[0].crossed == 8 and game.sheets[1].boxes_left == 0


def test_with_no_box_left_nothing_may_hang_over():
    game = solo(roller=1, dice="oxso", crossed={1: 8})
    arrange(game, "I", "oxso")
    refused(game, 1, Intent.write(0, 0, -1), "BAR_FULL")  # a single symbol over
    assert write(game, 1, turns=0, row=0, column=0)[0].hanging == 0
    assert game.score(1) == 0


# --- the end -------------------------------------------------------------------------------------
def test_the_game_ends_when_no_shape_can_be_written():
    game = Game(Options(solo=True), 1, [1], 0.0)
    events = game.setup(sheets={1: EDGE_HOLE}, crossed={1: 8}, roller=1, dice="oxso")
    assert events == [Rolled(1, game.round, "oxso"), Finished(0)]
    assert game.finished and game.termination is Termination.FULL_BOARD


def test_with_boxes_left_a_shape_may_still_be_written_over_the_edge():
    game = solo(sheets={1: EDGE_HOLE}, crossed={1: 5}, roller=1, dice="oxso")
    assert not game.finished
    refused(game, 1, Intent.arrange("O", "oxso"), "NO_ROOM")  # the O fits nowhere
    arrange(game, "T", "oxso")
    events = write(game, 1, turns=2, row=-1, column=2)  # upside down: the nose alone on the sheet
    assert events[0].cells == ((0, 3, "o"),) and events[0].crossed == 8
    assert kinds(events) == ["wrote", "finished"]  # the sheet is full


def test_the_rollers_timeout_in_solo_arranges_a_shape_that_fits():
    game = solo(sheets={1: EDGE_HOLE}, crossed={1: 0}, roller=1, dice="sxoo")
    events = game.advance(30.0)
    assert (events[0].shape, events[0].timeout) == ("T", True)


def test_the_player_may_stop_at_any_moment_and_keeps_the_score():
    game = solo(sheets={1: ["ooooo..", *[EMPTY] * 6]}, crossed={1: 2}, roller=1, dice="oxso")
    events = game.apply(1, Intent.stop(), 3.0)
    assert events == [Stopped(1), Finished(0)]
    assert game.stopped and game.termination is Termination.MOVE_LIMIT
    assert game.outcome().standings[0].score == 5 + 6
    assert list(game.log) == [(3.0, 1, "stop")]


def test_the_player_may_stop_before_writing_the_shape_arranged():
    game = solo(roller=1, dice="oxso")
    arrange(game, "T", "oxso")
    assert kinds(game.apply(1, Intent.stop(), 1.0)) == ["stopped", "finished"]


# --- score and verdict ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("drawn", "crossed", "points", "words"),
    [
        (STRIPES_147, 8, 147, "Chapeau!"),
        (STRIPES_119, 0, 127, "well played"),
        (STRIPES_119, 7, 120, "well played"),
        (STRIPES_119, 8, 119, "keep practising"),
    ],
)
def test_the_score_adds_a_point_per_open_box_and_earns_a_verdict(drawn, crossed, points, words):
    game = solo(sheets={1: drawn}, crossed={1: crossed}, roller=1)
    assert game.finished  # a full sheet: no shape can be written
    assert game.score(1) == points and game.verdict() == words
    assert game.results()[0].score == points


def test_a_game_at_the_table_has_no_verdict():
    assert Game(Options(), 1, [1], 0.0).verdict() is None


def test_the_solo_player_who_leaves_ends_the_game():
    game = solo(roller=1)
    game.forfeit(1, 2.0)
    assert game.termination is Termination.FORFEIT


def test_a_solo_game_replays_from_its_log():
    game = Game(Options(solo=True), 8, [3], 0.0)
    arrange(game, "Z", game.dice, now=2.0)
    write(game, 3, turns=1, row=-1, column=0, now=3.0)
    game.advance(200.0)
    game.apply(3, Intent.stop(), 201.0)
    copy = Game.replay(game.options, game.seed, game.seats, game.start, game.log, 201.0)
    assert copy.to_text() == game.to_text() and copy.stopped
