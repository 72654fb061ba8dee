"""A turn-based bot's person-like pause: it looks at a position for a while, then acts.

    pause = Pause(rng, think=(1.0, 2.5), idle=0.5)
    left = pause.left(seat, position, now, deadline)  # seconds still to think; 0: act now
    pause.done(seat)                                   # it acted (or the position is not its)

The pause is drawn once for each position a seat must act on (``position``: anything
that changes when the position does, such as the number of moves played), never past the
game's next deadline (less ``idle``, the bot's look-again interval). ``looked(seconds,
now)`` counts time already spent looking at the board as it stands at ``now`` as
thought: a game resumed after a restart shows its players the board through a
countdown, and its bots, watching with them, act on that board at its end. Standard
library only.
"""

from __future__ import annotations

import random
from collections.abc import Hashable


class Pause:
    def __init__(self, rng: random.Random, think: tuple[float, float], idle: float) -> None:
        self.rng = rng
        self.think = think
        self.idle = idle
        self.plans: dict[int, tuple[Hashable, float]] = {}  # seat -> (position, act at)
        self.head_start = (0.0, float("-inf"))  # (seconds looked, at this game time)

    def looked(self, seconds: float, now: float) -> None:
        """The bot has been looking for ``seconds`` at the board as it stands at ``now``:
        a pause for a position found at ``now`` is shorter by that much."""
        self.head_start = (seconds, now)
        self.plans.clear()

    def left(self, seat: int, position: Hashable, now: float, deadline: float | None) -> float:
        plan = self.plans.get(seat)
        if plan is None or plan[0] != position:
            low, high = self.think
            ready_at = now + self.rng.uniform(low, high)
            seconds, at = self.head_start
            if now <= at:
                ready_at -= seconds
            if deadline is not None:
                ready_at = min(ready_at, max(now, deadline - self.idle))
            plan = self.plans[seat] = (position, ready_at)
        return max(0.0, plan[1] - now)

    def done(self, seat: int) -> None:
        """``seat`` acted, or has nothing to act on: its next position is thought anew."""
        self.plans.pop(seat, None)
