"""Block-Killer's hot path: the reachable-placement search the bot runs for every piece.

    python bench/blockkiller.py [--games N] [--seed S] [--seconds T] [--intents I]

*Record*: N 4-player games (default 3) played by the bot (``--intents``: stopped after I
of the bot's intents in all, for a short run); every (field, kind) the bot searched is
kept. *Measure* (timed, repeated for T seconds): ``search.placements`` (a
breadth-first search over left, right, down and SRS rotation, bitmask rows) on every
kept pair. Prints ``name: value`` lines; the last is ``placements_searched_per_s``:
searches a second on one core, over the recorded mix of fields and pieces.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import games.blockkiller.bot as bot_module  # noqa: E402
from bench.report import figure, timed  # noqa: E402
from games.blockkiller import search  # noqa: E402
from games.blockkiller.bot import BlockKillerBot  # noqa: E402
from games.blockkiller.engine import Game, Options  # noqa: E402


def record(games: int, seed: int, intents: int | None = None) -> tuple[list, float, int]:
    asked: list = []
    original = search.placements

    def spy(field, kind, mini_rule=False):
        asked.append((field.copy(), kind))
        return original(field, kind, mini_rule)

    bot_module.placements = spy
    started, moves = time.perf_counter(), 0
    try:
        for n in range(games):
            game = Game(Options(), seed + n, [1, 2, 3, 4], 0.0)
            bot = BlockKillerBot(random.Random(seed + n))
            now = 0.0
            while not game.finished and moves != intents:
                now += 1.0
                seat = game.acting
                game.apply(seat, bot.choose(game, seat), now)
                moves += 1
    finally:
        bot_module.placements = original
    return asked, time.perf_counter() - started, moves


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--intents", type=int, default=None,
                        help="stop recording after this many of the bot's intents in all (default: no limit)")
    args = parser.parse_args()
    asked, seconds, moves = record(args.games, args.seed, args.intents)
    figure("games", args.games)
    figure("bot_intents", moves)
    figure("bot_ms_per_intent", seconds / max(moves, 1) * 1000, ".2f")
    figure("searches_recorded", len(asked))
    found = sum(len(search.placements(f, k)) for f, k in asked)
    figure("placements_per_search", found / max(len(asked), 1), ".1f")

    def search_all() -> None:
        for f, k in asked:
            search.placements(f, k)

    elapsed, passes = timed(search_all, args.seconds)
    figure("placements_searched_per_s", passes * len(asked) / elapsed, ".0f")


if __name__ == "__main__":
    main()
