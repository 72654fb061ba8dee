"""TetriWar engine throughput: random legal intents across a 4-player game with bombs.

    python bench/engine.py [--intents N] [--seed S]

Prints ``name: value`` lines; the last one is ``intents_per_s`` (intents applied per
second of wall time, the players' choices included). Intents arrive every 0–8 ms from a
random seat, so gravity, lock delay and the clocks run as in a real game. Each player
steers most pieces toward the deepest landing column of a random rotation (so lines
clear and bombs appear), and mixes in random intents and bomb drops. When a game's
time runs out the next one starts and the count goes on.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from games.tetriwar.constants import FULL_ROW, HEIGHT, WIDTH  # noqa: E402
from games.tetriwar.engine import Game, Intent, Options  # noqa: E402
from games.tetriwar.pieces import CELLS, SHAPES, X_OFFSET  # noqa: E402

LEFT, RIGHT, ROTATE = Intent("left"), Intent("right"), Intent("rotate")
HARD_DROP, SOFT_ON, SOFT_OFF = Intent("hard_drop"), Intent("soft_drop_on"), Intent("soft_drop_off")
ANY = [LEFT, RIGHT, ROTATE, SOFT_ON, SOFT_OFF]
BOMBS = [Intent("bomb"), *(Intent("bomb", n) for n in range(1, 5))]


# BOTTOMS[kind][rotation]: ((column offset in the box, lowest cell row in it), ...)
BOTTOMS = {
    kind: tuple(
        tuple(
            sorted(
                {
                    c: max(r for r, cc in CELLS[kind][rotation] if cc == c) for _, c in CELLS[kind][rotation]
                }.items()
            )
        )
        for rotation in range(4)
    )
    for kind in CELLS
}


def tops(player) -> list[int]:
    """The highest block's row in each column (the floor's row when empty)."""
    top = [HEIGHT] * WIDTH
    seen = 0
    for row, mask in enumerate(player.field.masks[:HEIGHT]):
        new = mask & ~seen
        while new:
            low = new & -new
            top[low.bit_length() - 1] = row
            new ^= low
        seen |= mask
        if seen == FULL_ROW:
            break
    return top


def deepest(player, rotation: int, rng: random.Random) -> int:
    """The box column where ``rotation`` of the falling piece lands lowest (ignoring
    overhangs: the bench's players are simple)."""
    top = tops(player)
    best, best_y = player.x, -99
    for x in range(-X_OFFSET, WIDTH):
        if SHAPES[player.kind][rotation][x + X_OFFSET] is None:
            continue
        y = min(top[x + c] - r for c, r in BOTTOMS[player.kind][rotation]) - 1
        if y > best_y or (y == best_y and rng.random() < 0.5):
            best, best_y = x, y
    return best


def choose(game: Game, seat: int, aims: dict, rng: random.Random) -> Intent:
    player = game.players[seat]
    roll = rng.random()
    if player.store and roll < 0.2:
        return rng.choice(BOMBS)
    if roll < 0.25:
        return rng.choice(ANY)
    dealt = player.bag.dealt
    aim = aims.get(seat)
    if aim is None or aim[0] != dealt:
        rotation = rng.randrange(4)
        aim = aims[seat] = (dealt, rotation, deepest(player, rotation, rng))
    _, rotation, x = aim
    if player.rotation != rotation:
        return ROTATE
    reversed_keys = player.reversed_until != float("inf")
    if player.x > x:
        return RIGHT if reversed_keys else LEFT
    if player.x < x:
        return LEFT if reversed_keys else RIGHT
    return HARD_DROP


def run(intents: int, seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    seats = [1, 2, 3, 4]
    options = Options(minutes=15, start_level=1, lines_per_level=10, bombs="manual")
    now = 0.0
    game = Game(options, seed, seats, now)
    aims: dict = {}
    games, events, bombs, lines, eliminations = 1, 0, 0, 0, 0
    started = time.perf_counter()
    for _ in range(intents):
        now += rng.random() * 0.008
        if now >= game.end:
            events += len(game.advance(now))
            lines += sum(p.lines for p in game.players.values())
            eliminations += sum(p.eliminations for p in game.players.values())
            games += 1
            game = Game(options, seed + games, seats, now)
            aims.clear()
        seat = seats[int(rng.random() * 4)]
        intent = choose(game, seat, aims, rng)
        bombs += intent.name == "bomb"
        events += len(game.apply(seat, intent, now))
    elapsed = time.perf_counter() - started
    lines += sum(p.lines for p in game.players.values())
    eliminations += sum(p.eliminations for p in game.players.values())
    return {
        "intents": intents,
        "seconds": round(elapsed, 3),
        "games": games,
        "game_seconds": round(now, 1),
        "lines": lines,
        "bombs_dropped": bombs,
        "eliminations": eliminations,
        "events": events,
        "intents_per_s": int(intents / elapsed),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--intents", type=int, default=300_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for name, value in run(args.intents, args.seed).items():
        print(f"{name}: {value}")


if __name__ == "__main__":
    main()
