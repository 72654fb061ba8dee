"""Te-Trix's hot path: the score of a sheet, after every write of every player.

    python bench/tetrix.py [--games N] [--seed S] [--seconds T]

Every write changes a sheet, and the page shows the writer's score and outlines the
areas of five or more at once; a bot weighs the score of every spot it could write, a
few hundred sheets a decision. The score is the orthogonally connected areas of each
symbol: on the sheet's bitmasks (one int per symbol) an area grows a ring of
neighbours at a time in five shifts and an AND (``games.tetrix.sheet.symbol_score``).

Two phases. *Record*: N 4-player games (default 20) played by the greedy bot in every
seat; every sheet after every write is kept, and the bots' decisions timed. *Measure*
(timed, repeated for T seconds): every kept sheet through ``score`` (bitmasks), and the
same sheets through a flood fill cell by cell over the drawn rows, which is what the
bitmasks replace; both must give the same scores. Then N solo games by the bot, for
its scores and verdicts.

Prints ``name: value`` lines; the last one is ``sheets_scored_per_s``: sheets scored a
second on one core, over the recorded mix of sheets.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.report import figure, timed  # noqa: E402
from games.tetrix import constants as C  # noqa: E402
from games.tetrix.bot import TetrixBot  # noqa: E402
from games.tetrix.engine import Game, Options  # noqa: E402
from games.tetrix.sheet import Sheet, score  # noqa: E402

SEATS = [1, 2, 3, 4]


def play(
    seats: list[int], seed: int, solo: bool, sheets: list[Sheet], timings: dict[str, list[float]]
) -> Game:
    """A bots' game; every sheet after every write goes to ``sheets``, every decision's
    seconds to ``timings`` by phase."""
    game = Game(Options(solo=solo), seed, seats, 0.0)
    bots = {seat: TetrixBot(random.Random(seed * 10 + seat)) for seat in seats}
    now = 0.0
    while not game.finished:
        now += 1.0
        for seat in game.waiting_for():
            phase = game.phase
            started = time.perf_counter()
            intent = bots[seat].choose(game, seat)
            timings[phase].append(time.perf_counter() - started)
            for event in game.apply(seat, intent, now):
                if event.kind == "wrote":
                    sheets.append(game.players[event.seat].sheet.copy())
            if game.finished or game.phase != phase:
                break
    return game


def naive_score(rows: tuple[str, ...]) -> int:
    """Cell by cell: a flood fill from every cell not yet seen."""
    seen = [[False] * C.SIZE for _ in range(C.SIZE)]
    total = 0
    counts = {symbol: [0, 0] for symbol in C.SYMBOLS}
    for r in range(C.SIZE):
        for c in range(C.SIZE):
            symbol = rows[r][c]
            if symbol == C.EMPTY or seen[r][c]:
                continue
            seen[r][c] = True
            stack, size = [(r, c)], 0
            while stack:
                y, x = stack.pop()
                size += 1
                for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                    if 0 <= ny < C.SIZE and 0 <= nx < C.SIZE and not seen[ny][nx] and rows[ny][nx] == symbol:
                        seen[ny][nx] = True
                        stack.append((ny, nx))
            if size >= C.AREA_MIN:
                counts[symbol][0] += 1
                counts[symbol][1] += size
    for count, cells in counts.values():
        total += count * cells
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()

    sheets: list[Sheet] = []
    timings: dict[str, list[float]] = {"arrange": [], "write": []}
    games = [play(SEATS, args.seed + n, False, sheets, timings) for n in range(args.games)]
    rows = [s.rows() for s in sheets]
    scores = [score(s) for s in sheets]
    assert scores == [naive_score(r) for r in rows], "the two scorers disagree"

    def fast() -> None:
        for s in sheets:
            score(s)

    def naive() -> None:
        for r in rows:
            naive_score(r)

    fast_s, fast_passes = timed(fast, args.seconds)
    naive_s, naive_passes = timed(naive, args.seconds)
    per_s = len(sheets) * fast_passes / fast_s
    naive_per_s = len(sheets) * naive_passes / naive_s

    solo_sheets: list[Sheet] = []
    solos = [play([1], args.seed + n, True, solo_sheets, timings) for n in range(args.games)]
    solo_scores = [g.score(1) for g in solos]
    verdicts = Counter(g.verdict() for g in solos)

    figure("games", args.games)
    figure("players", len(SEATS))
    figure("rounds_mean", statistics.mean(g.round for g in games), ".1f")
    figure("sheets", len(sheets))
    figure("winner_score_mean", statistics.mean(g.outcome().standings[0].score for g in games), ".1f")
    figure("solo_score_mean", statistics.mean(solo_scores), ".1f")
    figure("solo_score_max", max(solo_scores))
    figure("solo_stopped", sum(g.stopped for g in solos))
    for _, words in C.VERDICTS:
        figure(f"solo_{words.strip('!').replace(' ', '_').lower()}", verdicts[words])
    figure("bot_arrange_ms_mean", statistics.mean(timings["arrange"]) * 1000, ".3f")
    figure("bot_write_ms_mean", statistics.mean(timings["write"]) * 1000, ".3f")
    figure("naive_sheets_scored_per_s", naive_per_s, ".0f")
    figure("bitmask_over_naive", per_s / naive_per_s, ".1f")
    figure("score_us_mean", 1e6 / per_s, ".2f")
    figure("sheets_scored_per_s", per_s, ".0f")


if __name__ == "__main__":
    main()
