"""The bot plays whole games: attacks, defences, counters, to a winner."""

from __future__ import annotations

import random

import pytest

from games.blockkiller.bot import BlockKillerBot
from games.blockkiller.engine import Game, Intent, Options
from games.core.outcome import Termination


def test_bots_finish_a_three_player_game_with_attacks_and_defences():
    game = Game(Options(), 3, [1, 2, 3], 0.0)
    bot = BlockKillerBot(random.Random(3))
    now = 0.0
    while not game.finished:
        now += 1.0
        seat = game.acting
        game.apply(seat, bot.choose(game, seat), now)  # the bot never makes an illegal move
        assert now < 3000
    assert game.outcome().termination is Termination.LAST_STANDING
    assert len(game.outcome().standings) == 3
    assert any(e.attack for e in game.exchanges) and any(e.defence for e in game.exchanges)
    again = Game.replay(game.options, 3, game.seats, 0.0, list(game.log), game.now)
    assert again.to_text() == game.to_text()


@pytest.mark.parametrize("players", [2, 3, 4, 6])
@pytest.mark.parametrize("seed", [1, 2, 5])
def test_bots_games_end_with_a_winner_and_counters_happen(players, seed):
    game = Game(Options(no_mercy=seed == 5), seed, range(1, players + 1), 0.0)
    bot = BlockKillerBot(random.Random(seed))
    now = 0.0
    while not game.finished:
        now += 1.0
        seat = game.acting
        game.apply(seat, bot.choose(game, seat), now)
        assert now < 2000, "the bots' game does not end"
    assert game.card_count() == 201
    assert [s.place for s in game.outcome().standings][0] == 1


def test_the_bot_stacks_garbage_of_one_kind_into_a_well_and_attacks_with_it():
    game = Game(Options(), 1, [1, 2, 3], 0.0)
    # four cards with a hole at column 0, one with a hole at column 3, and two I's
    game.setup(hands={1: ([72, 73], [90, 91, 92, 93, 120]), 2: ([60], [100]), 3: ([61], [110, 111])}, turn=1)
    bot = BlockKillerBot(random.Random(1))
    attack = bot.choose(game, 1)
    assert attack == Intent("attack", target=3)  # worth attacking (a tetris), the one holding most garbage
    game.apply(1, attack, 1.0)
    stack = bot.choose(game, 1)
    assert stack.name == "stack" and {90, 91, 92, 93} <= {card for row in stack.stack for card, _ in row}
    now = 2.0
    while (intent := bot.choose(game, 1)) != Intent("done"):
        game.apply(1, intent, now)
        now += 1.0
    # the four rows of the well go with a tetris (the 5th card's row first, for a combo)
    assert game.draft.attack >= 4 and not {90, 91, 92, 93} & set(game.players[1].garbage)


def test_the_bot_defends_with_what_it_holds():
    game = Game(Options(), 1, [1, 2, 3], 0.0)
    game.setup(hands={1: ([72, 60, 61, 62, 63, 64], [120]), 2: ([73], [100, 101, 102, 103]), 3: ([65], [110])},
               turn=1)
    bot = BlockKillerBot(random.Random(1))
    now = 1.0
    while game.phase != "defend":
        game.apply(1, bot.choose(game, 1), now)  # obliged: six block cards
        now += 1.0
    assert game.acting == 2 or game.acting == 3
    defender = game.acting
    while game.acting == defender and game.phase == "defend":
        game.apply(defender, bot.choose(game, defender), now)
        now += 1.0
    exchange = game.exchanges[-1]
    assert exchange.defender == defender and exchange.defence >= (4 if defender == 2 else 0)
