"""The bot: greedy, the write that scores most now; it arranges only the dice rolled,
never makes an illegal move, and finishes games of every size."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from games.tetrix.bot import TetrixBot, sheet_value
from games.tetrix.engine import Game, Intent, Options, Termination, score

from .tetrix_helpers import arrange, full_but, game_for, write

EMPTY = "......."


def test_as_a_writer_it_completes_an_area_of_five():
    game = game_for(seats=(1, 2), sheets={1: ["oooo...", *[EMPTY] * 6]}, roller=2, dice="osss")
    arrange(game, "I", "osss")
    intent = TetrixBot(random.Random(1)).choose(game, 1)
    write(game, 1, intent.turns, intent.row, intent.column)
    assert score(game.sheets[1]) == 5


def test_it_does_not_join_two_scoring_areas_when_it_need_not():
    two = ["ooooo..", EMPTY, EMPTY, EMPTY, EMPTY, EMPTY, "ooooo.."]
    game = game_for(seats=(1,), sheets={1: two}, roller=1, dice="oooo")
    arrange(game, "I", "oooo")
    intent = TetrixBot(random.Random(1)).choose(game, 1)
    write(game, 1, intent.turns, intent.row, intent.column)
    assert score(game.sheets[1]) >= 2 * 10  # never the 1 × 14 of one joined area


def test_as_the_roller_it_arranges_the_dice_rolled_and_nothing_else():
    bot = TetrixBot(random.Random(3))
    for seed in range(25):
        game = Game(Options(), seed, [1, 2], 0.0)
        intent = bot.choose(game, game.roller)
        assert intent.name == "arrange" and Counter(intent.symbols) == Counter(game.dice)
        game.apply(game.roller, intent, 1.0)  # never refused


def test_it_has_nothing_to_do_when_the_game_does_not_wait_for_it():
    game = game_for(seats=(1, 2), roller=1, dice="oxso")
    bot = TetrixBot(random.Random(1))
    assert bot.choose(game, 2) is None  # seat 1 arranges
    assert bot.next_action(game, 2, 0.0) == (0.5, None)
    arrange(game, "T", "oxso")
    write(game, 1, row=5, column=0)
    assert bot.choose(game, 1) is None  # it has written this round


def test_it_thinks_before_it_acts_and_never_past_the_clock():
    game = Game(Options(arrange_seconds=10), 3, [1, 2], 0.0)
    bot = TetrixBot(random.Random(2))
    delay, intent = bot.next_action(game, game.roller, 0.0)
    assert intent is None and 1.0 <= delay <= 2.5
    delay, intent = bot.next_action(game, game.roller, delay)
    assert intent is not None and intent.name == "arrange"
    game = Game(Options(arrange_seconds=10), 3, [1, 2], 0.0)
    game.advance(9.8)
    delay, intent = bot.next_action(game, game.roller, 9.8)
    assert intent is not None  # 0.2 s before the deadline: it acts at once


def test_alone_it_stops_when_every_arrangement_would_lose_points():
    # one empty cell, on the edge: every shape written there crosses three boxes and
    # makes no area of five
    game = game_for(
        seats=(1,), solo=True, sheets={1: full_but((0, 3))}, crossed={1: 5}, roller=1, dice="ssss"
    )
    assert TetrixBot(random.Random(1)).choose(game, 1) == Intent.stop()


def test_it_likes_a_sheet_for_its_score_and_for_areas_that_can_still_grow():
    empty = [0, 0, 0]
    four = [0b1111, 0, 0]  # four circles in a row, room to grow
    five = [0b11111, 0, 0]
    assert sheet_value(empty, 0, False) < sheet_value(four, 0, False) < sheet_value(five, 0, False)
    assert sheet_value(five, 0, True) > sheet_value(five, 3, True)  # open boxes count


def play(seats, seed, solo=False) -> Game:
    game = Game(Options(solo=solo), seed, seats, 0.0)
    bots = {seat: TetrixBot(random.Random(seat)) for seat in game.seats}
    now = 0.0
    while not game.finished:
        now += 0.5
        game.advance(now)
        for seat, bot in bots.items():
            if game.finished:
                break
            _, intent = bot.next_action(game, seat, now)
            if intent is not None:
                events = game.apply(seat, intent, now)  # never refused
                assert not any(getattr(e, "timeout", False) for e in events)
        assert now < 3600
    return game


@pytest.mark.parametrize("seats", [[1, 2], [1, 2, 3], [1, 2, 3, 4]])
def test_bots_play_whole_games_at_the_table(seats):
    for seed in range(3):
        game = play(seats, seed)
        assert game.termination is Termination.FULL_BOARD
        standings = game.outcome().standings
        assert standings[0].place == 1 and sorted(s.seats[0] for s in standings) == seats
        assert max(s.score for s in standings) >= 30  # it builds areas


@pytest.mark.parametrize("seat", [1, 4])
def test_a_bot_plays_whole_solo_games(seat):
    for seed in range(4):
        game = play([seat], seed, solo=True)
        assert game.termination in (Termination.FULL_BOARD, Termination.MOVE_LIMIT)
        assert game.verdict() in ("Chapeau!", "well played", "keep practising")
        assert game.score(seat) >= 30
