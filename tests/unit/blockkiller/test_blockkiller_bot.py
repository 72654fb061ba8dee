"""The bot plays whole games: attacks, defences, counters, to a winner."""

from __future__ import annotations

import random

from games.blockkiller.bot import BlockKillerBot
from games.blockkiller.engine import Game, Options
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
