"""A greedy Third Option bot: the placement that leaves the fewest isolated empty cells.

    bot = ThirdOptionBot(random.Random(seed))
    delay, intent = bot.next_action(game, seat, now)  # place ``intent`` (if any) now,
                                                      # ask again ``delay`` seconds later
    intent = bot.choose(game, seat)                   # or: the placement at once

For every card it may place and every legal placement of it, the bot looks at the empty
cells left: it prefers the fewest *isolated* ones (an empty cell with no empty
neighbour, which only a 1 × 1 square can ever fill), then the bigger card (fewer empty
squares is the score), then the shortest outline of the empty region (empty space kept
in one compact piece takes big shapes later). Equal placements go to the first in the
engine's order. All of it on the grid's bitmask: a few integer operations a placement.

The bot only reads the game, never changes it. One object may play several seats.
Standard library only.
"""

from __future__ import annotations

import random

from games.core.pause import Pause
from games.thirdoption import constants as C
from games.thirdoption.board import FULL, bit, shape
from games.thirdoption.engine import Game, Intent

NOT_FIRST_COLUMN = FULL & ~sum(bit(r, 0) for r in range(C.SIZE))
NOT_LAST_COLUMN = FULL & ~sum(bit(r, C.SIZE - 1) for r in range(C.SIZE))


def isolated(free: int) -> int:
    """How many of the ``free`` cells have no free neighbour (up, down, left, right)."""
    neighbours = (
        (free >> C.SIZE)
        | ((free << C.SIZE) & FULL)
        | ((free >> 1) & NOT_LAST_COLUMN)
        | ((free << 1) & NOT_FIRST_COLUMN)
    )
    return (free & ~neighbours).bit_count()


def outline(free: int) -> int:
    """The length of the free region's outline (edges between free and not free)."""
    pairs = (free & (free >> 1) & NOT_LAST_COLUMN).bit_count() + (free & (free >> C.SIZE)).bit_count()
    return 4 * free.bit_count() - 2 * pairs


def best_placement(filled: int, cards: list[tuple[int, str]]) -> tuple[tuple, int, object, int, int] | None:
    """The best (key, card, orientation, row, column) over ``cards`` on a grid whose
    ``filled`` cells are taken; None if no card fits."""
    best = None
    for card, name in cards:
        card_shape = shape(name)
        for orientation, row, column, mask in card_shape.placements(filled):
            free = ~(filled | mask) & FULL
            key = (isolated(free), -card_shape.size, outline(free))
            if best is None or key < best[0]:
                best = (key, card, orientation, row, column)
    return best


class ThirdOptionBot:
    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng if rng is not None else random.Random()
        self.pause = Pause(self.rng, C.BOT_THINK_SECONDS, C.BOT_IDLE_SECONDS)

    def choose(self, game: Game, seat: int) -> Intent | None:
        """The placement to make now for ``seat``; None if it has nothing to place."""
        found = best_placement(game.players[seat].grid.filled, game.offered(seat))
        if found is None:
            return None
        _, card, orientation, row, column = found
        return Intent(game.round, card, orientation.turns, orientation.mirrored, row, column)

    def next_action(self, game: Game, seat: int, now: float) -> tuple[float, Intent | None]:
        """What to place at ``now`` (None: nothing yet) and the seconds until the next call.

        Call it with the game advanced to ``now``. With a card to place, the bot first
        thinks for 1–2.5 s (never past the round clock), then places."""
        if game.finished or not game.offered(seat):
            self.pause.done(seat)
            return C.BOT_IDLE_SECONDS, None
        left = self.pause.left(seat, game.round, now, game.next_deadline())
        if left > 0:
            return left, None
        self.pause.done(seat)
        return C.BOT_IDLE_SECONDS, self.choose(game, seat)
