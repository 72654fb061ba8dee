"""A simple TetriWar player for benchmarks, recorded test games and empty seats.

For each new piece it picks a rotation and column (quick: a random rotation where it lands
deepest; careful: the deepest placement that leaves no gaps, looking at column tops
only), then steers there and hard-drops. A
share of its intents are random, and it drops stored bombs now and then. It never
sends an illegal intent. Its choices come from its own ``random.Random``.
"""

from __future__ import annotations

import random

from games.tetriwar.constants import HEIGHT, RED_BOMBS, WIDTH
from games.tetriwar.engine import Game, Intent
from games.tetriwar.pieces import BOTTOMS, SHAPES, X_OFFSET, column_tops
from games.tetriwar.player import Player

LEFT, RIGHT, ROTATE = Intent("left"), Intent("right"), Intent("rotate")
HARD_DROP = Intent("hard_drop")
RANDOM = (LEFT, RIGHT, ROTATE, Intent("soft_drop_on"), Intent("soft_drop_off"))
ENTER = Intent("bomb")
KEYS = tuple(Intent("bomb", number) for number in range(1, 5))


class Bot:
    def __init__(
        self, rng: random.Random, randomness: float = 0.25, bomb_rate: float = 0.2, careful: bool = False
    ) -> None:
        self.rng = rng
        self.careful = careful
        self.randomness = randomness
        self.bomb_rate = bomb_rate
        self.aims: dict[int, tuple[int, int, int]] = {}  # seat -> (piece number, rotation, x)

    def placement(self, player: Player) -> tuple[int, int]:
        """Where to put the falling piece: ``(rotation, box column)``.

        Quick mode: a random rotation, at the column where it lands deepest. Careful mode:
        every rotation, preferring placements that leave no gap under the piece."""
        top = column_tops(player.field.masks)
        rotations = range(4) if self.careful else (self.rng.randrange(4),)
        best, best_score = (player.rotation, player.x), None
        for rotation in rotations:
            shapes, bottoms = SHAPES[player.kind][rotation], BOTTOMS[player.kind][rotation]
            for x in range(-X_OFFSET, WIDTH):
                if shapes[x + X_OFFSET] is None:
                    continue
                y = HEIGHT
                for c, r in bottoms:
                    if top[x + c] - r < y:
                        y = top[x + c] - r
                score = y
                if self.careful:  # each empty cell left under the piece costs two rows
                    score -= 2 * sum(top[x + c] - r - y for c, r in bottoms)
                if (
                    best_score is None
                    or score > best_score
                    or (score == best_score and self.rng.random() < 0.5)
                ):
                    best, best_score = (rotation, x), score
        return best

    def choose(self, game: Game, seat: int) -> Intent:
        player = game.players[seat]
        rng = self.rng
        roll = rng.random()
        if player.store and game.options.bombs == "manual" and roll < self.bomb_rate:
            return self.bomb(game, player)
        if roll < self.randomness:
            return RANDOM[int(rng.random() * len(RANDOM))]
        aim = self.aims.get(seat)
        if aim is None or aim[0] != player.bag.dealt:
            aim = self.aims[seat] = (player.bag.dealt, *self.placement(player))
        _, rotation, x = aim
        if player.rotation != rotation:
            return ROTATE
        swapped = player.reversed_until is not None
        if player.x > x:
            return RIGHT if swapped else LEFT
        if player.x < x:
            return LEFT if swapped else RIGHT
        return HARD_DROP

    def bomb(self, game: Game, player: Player) -> Intent:
        """Enter, or the key of a player still in the game (never an illegal intent)."""
        numbers = [n for n, seat in player.seats_by_number.items() if not game.players[seat].left]
        if self.rng.random() < 0.5 and (player.store[0] not in RED_BOMBS or game.opponents(player.seat)):
            return ENTER
        return KEYS[self.rng.choice(numbers) - 1]
