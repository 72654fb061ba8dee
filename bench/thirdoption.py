"""Third Option's hot path: the fits tests at the start of every round, for 12 players.

    python bench/thirdoption.py [--games N] [--seed S] [--seconds T]

Each round begins with the question "does either revealed card fit this grid?" for
every player still in (and, for those it does not, a third card's fit): 24 fits tests
or more per round at a full table, on grids that fill up as the game goes on, and the
worst case, a card that fits nowhere, is the common one late in a game.

Two phases. *Record*: N 12-player games (default 20) played by the greedy bot in every
seat; at each round's start, every player's grid and the two revealed cards are kept.
*Measure* (timed, repeated for T seconds): every kept (grid, card) pair through
``Shape.fits`` (bitmask: an AND over the whole grid per cell of each orientation), and
the same pairs through a test of each placement one by one (precomputed masks, the
first that misses every filled cell wins), which is what ``fits`` replaced; both must
give the same answers. Then whole rounds: ``Game._start_round`` (reveal, every fits
test, third options) on the kept positions, and the bot's choice of a placement.

Prints ``name: value`` lines; the last one is ``fits_checks_per_s``: fits tests a second
on one core, over the recorded mix of grids and cards.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.report import figure, timed  # noqa: E402
from games.thirdoption.board import shape  # noqa: E402
from games.thirdoption.bot import ThirdOptionBot  # noqa: E402
from games.thirdoption.engine import Game, Options  # noqa: E402

SEATS = list(range(1, 13))


def record(games: int, seed: int) -> tuple[list[tuple[int, str]], list[Game], float, int]:
    """Play bots' games; returns the (filled, card) pairs asked at round starts, a copy
    of each game at each round start, the bots' thinking seconds and their decisions."""
    pairs: list[tuple[int, str]] = []
    snapshots: list[Game] = []
    thinking, decisions = 0.0, 0
    for n in range(games):
        game = Game(Options(), seed + n, SEATS, 0.0)
        bot = ThirdOptionBot(random.Random(seed + n))
        now, round_ = 0.0, 0
        while not game.finished:
            if game.round != round_:
                round_ = game.round
                for seat in game.active_seats():
                    pairs.extend((game.players[seat].grid.filled, card) for card in game.cards)
                snapshots.append(Game.replay(game.options, game.seed, game.seats, game.start, game.log))
            now += 1.0
            for seat in game.waiting_for():
                started = time.perf_counter()
                intent = bot.choose(game, seat)
                thinking += time.perf_counter() - started
                decisions += 1
                game.apply(seat, intent, now)
                if game.finished or game.round != round_:
                    break
    return pairs, snapshots, thinking, decisions


def naive_fits(name: str, filled: int, masks: dict[str, list[int]]) -> bool:
    return any(not mask & filled for mask in masks[name])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()

    pairs, snapshots, thinking, decisions = record(args.games, args.seed)
    shapes = {name: shape(name) for _, name in pairs}
    masks = {name: [mask for *_, mask in s.placements(0)] for name, s in shapes.items()}
    answers = [shapes[name].fits(filled) for filled, name in pairs]
    assert answers == [naive_fits(name, filled, masks) for filled, name in pairs], "the two tests disagree"

    def fast() -> None:
        for filled, name in pairs:
            shapes[name].fits(filled)

    def naive() -> None:
        for filled, name in pairs:
            naive_fits(name, filled, masks)

    fast_s, fast_passes = timed(fast, args.seconds)
    naive_s, naive_passes = timed(naive, args.seconds)
    fits_per_s = len(pairs) * fast_passes / fast_s
    naive_per_s = len(pairs) * naive_passes / naive_s

    # whole round starts at a 12-player table, on the kept positions
    round_costs = []
    for game in snapshots:
        copy = Game.replay(game.options, game.seed, game.seats, game.start, game.log)
        started = time.perf_counter()
        copy._start_round(copy.now)  # the benchmark's one look inside: the round's start alone
        round_costs.append(time.perf_counter() - started)

    figure("games", args.games)
    figure("players", len(SEATS))
    figure("rounds", len(snapshots))
    figure("fits_checks", len(pairs))
    figure("fits_true_share", sum(answers) / len(answers), ".3f")
    figure("naive_fits_checks_per_s", naive_per_s, ".0f")
    figure("bitmask_over_naive", fits_per_s / naive_per_s, ".1f")
    figure("round_start_us_median", statistics.median(round_costs) * 1e6, ".1f")
    figure("round_start_us_max", max(round_costs) * 1e6, ".1f")
    figure("bot_decision_ms_mean", thinking / decisions * 1000, ".3f")
    figure("fits_checks_per_s", fits_per_s, ".0f")


if __name__ == "__main__":
    main()
