"""A simple Viertris bot: greedy with one-move look-ahead.

    bot = ViertrisBot(random.Random(seed))
    delay, intent = bot.next_action(game, seat, now)  # drop ``intent`` (if any) now,
                                                      # ask again ``delay`` seconds later
    intent = bot.choose(game, seat)                   # or: the column at once, no pause

For each legal column it plays the drop on a copy of the board (the whole cascade) and
values it as the points it wins itself, less the points the move hands to other players
(their runs completed by its cascade), less the most the next player could then win
with one reply. A move that ends the game leaves no reply. Equal values go to the column
nearer the middle, then to a draw from the bot's own ``random.Random``.

The bot only reads the game, never changes it, and never chooses a full column. One
object may play several seats. Standard library only.
"""

from __future__ import annotations

import random

from games.core.pause import Pause
from games.viertris import constants as C
from games.viertris.engine import Board, Game, Intent

MIDDLE = (C.COLUMNS - 1) / 2


def _gains(board: Board, column: int, seat: int) -> dict[int, int]:
    """Points won by each owner when ``seat`` drops into ``column`` (``board`` changes)."""
    won: dict[int, int] = {}
    _, steps = board.play(column, seat)
    for step in steps:
        for owner, points in step.points().items():
            won[owner] = won.get(owner, 0) + points
    return won


def best_reply(board: Board, seat: int) -> int:
    """The most points ``seat`` can win for itself with one drop on ``board``."""
    best = 0
    for column in board.legal_columns():
        best = max(best, _gains(board.copy(), column, seat).get(seat, 0))
    return best


class ViertrisBot:
    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng if rng is not None else random.Random()
        self.pause = Pause(self.rng, C.BOT_THINK_SECONDS, C.BOT_IDLE_SECONDS)

    def evaluate(self, game: Game, seat: int) -> dict[int, int]:
        """The value of each legal column for ``seat`` (see the module docstring)."""
        values = {}
        replier = game.next_seat(seat)
        for column in game.grid.legal_columns():
            board = game.grid.copy()
            won = _gains(board, column, seat)
            own = won.get(seat, 0)
            given = sum(points for owner, points in won.items() if owner != seat)
            scores = {s: game.scores[s] + won.get(s, 0) for s in game.scores}
            ends = game.ends_after(board, scores, game.moves + 1)
            reply = 0 if ends or replier == seat else best_reply(board, replier)
            values[column] = own - given - reply
        return values

    def choose(self, game: Game, seat: int) -> Intent:
        """The drop to play now for ``seat`` (the game must be running)."""
        values = self.evaluate(game, seat)
        if not values:
            raise ValueError("the board is full: there is no move")
        column = max(values, key=lambda c: (values[c], -abs(c - MIDDLE), self.rng.random()))
        return Intent("drop", column)

    def next_action(self, game: Game, seat: int, now: float) -> tuple[float, Intent | None]:
        """What to drop at ``now`` (None: nothing yet) and the seconds until the next call.

        Call it with the game advanced to ``now``. On its turn the bot first thinks for
        0.6–1.2 s, then drops; on another's turn it looks again a little later."""
        if game.finished or seat in game.left or game.turn != seat:
            self.pause.done(seat)
            return C.BOT_IDLE_SECONDS, None
        left = self.pause.left(seat, game.moves, now, game.next_deadline())
        if left > 0:
            return left, None
        self.pause.done(seat)
        return C.BOT_IDLE_SECONDS, self.choose(game, seat)
