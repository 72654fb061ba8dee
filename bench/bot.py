"""How well and how fast the TetriWar computer player plays alone.

    python bench/bot.py [--seeds N] [--cap L] [--level hard]

For each seed the bot (``games/tetriwar/ai.py``) plays one game alone: 1 seat, bombs
off, start level 1, 10 lines per level, until it has cleared ``--cap`` lines. It plays
through ``next_action`` as on a live table, with one change of pace so that 2000 lines
fit into the engine's longest game (15 minutes): each key is pressed 1 ms after the
previous one (not 1/12 s), while its reaction time to a new piece is kept. Gravity and
lock delay still run between keys. If the clock runs out first, the seed says
``clock_ran_out: 1``.

A top-out eliminates the player, who keeps playing on an empty field, so the score of a
seed is the lines cleared before its *first* top-out (the cap if it never topped out).
Prints ``name: value`` lines; ``decision_ms_mean`` is the bot's thinking time per piece
(all its calls for that piece together) and the last line, ``bot_mean_lines``, is the
mean over the seeds.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.report import figure  # noqa: E402
from games.tetriwar.ai import LEVELS, TetriWarAI  # noqa: E402
from games.tetriwar.engine import Game, Options  # noqa: E402

OPTIONS = Options(minutes=15, start_level=1, lines_per_level=10, bombs="off")
KEY_STEP = 1  # ms of game time between two keys (see above)


def play(seed: int, cap: int, level: str) -> dict[str, float]:
    game = Game(OPTIONS, seed, [1], 0)
    player = game.players[1]
    bot = TetriWarAI(level, random.Random(seed))
    now, thinking, first_top_out = 0, 0.0, None  # now: ms, the engine's clock
    while player.lines < cap and not game.finished:
        started = time.perf_counter()
        delay, key = bot.next_action(game, 1, now)
        thinking += time.perf_counter() - started
        if key is not None:
            game.apply(1, key, now)
            now += KEY_STEP
        else:
            now += max(1, round(delay * 1000))  # the bot's delays are seconds
        if first_top_out is None and player.eliminations:
            first_top_out = player.lines
        if now >= game.end:
            game.advance(now)
    pieces = player.bag.dealt
    return {
        "lines": player.lines,
        "lines_before_top_out": cap if first_top_out is None else min(first_top_out, cap),
        "eliminations": player.eliminations,
        "pieces": pieces,
        "clock_ran_out": int(player.lines < cap),
        "game_seconds": round(now / 1000, 1),
        "decision_ms": 1000 * thinking / max(pieces, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--cap", type=int, default=2000)
    parser.add_argument("--level", choices=sorted(LEVELS), default="hard")
    args = parser.parse_args()
    results = []
    for seed in range(1, args.seeds + 1):
        result = play(seed, args.cap, args.level)
        results.append(result)
        for name in ("lines_before_top_out", "eliminations", "pieces", "clock_ran_out", "game_seconds"):
            figure(f"seed_{seed}_{name}", result[name])
        figure(f"seed_{seed}_decision_ms", result["decision_ms"], ".2f")
    pieces = sum(r["pieces"] for r in results)
    figure("level", args.level)
    figure("eliminations", sum(r["eliminations"] for r in results))
    figure("decision_ms_mean", sum(r["decision_ms"] * r["pieces"] for r in results) / max(pieces, 1), ".2f")
    figure("bot_mean_lines", sum(r["lines_before_top_out"] for r in results) / len(results), "g")


if __name__ == "__main__":
    main()
