"""The timing of TetriWar's rules versions 1 and 2, in seconds, frozen as it was when
``games/tetriwar/constants.py`` still counted in seconds (rules version 3 counts in
integer milliseconds). Every number here is the one those versions were played with;
their sources are in ``games/tetriwar/constants.py``'s history. Never change them: a
replay of an old game must see the very same floats.
"""

from __future__ import annotations

MAX_LEVEL = 10  # RULES.md, seed
SOFT_DROP_FACTOR = 20  # RULES.md: soft drop is 20× gravity ...
LOCK_DELAY = 0.5  # RULES.md
MAX_LOCK_RESETS = 15  # RULES.md (how a move counts: the Player's lock rule)
LACK_OF_CONTROL_SECONDS = 5.0  # seed, RULES.md


def gravity_seconds(level: int) -> float:
    """Seconds per row at ``level``: (0.8 − (level − 1) × 0.007)^(level − 1) (RULES.md)."""
    return (0.8 - (level - 1) * 0.007) ** (level - 1)


def soft_drop_seconds(level: int, speed: int) -> float:
    """Seconds per row while ↓ is held (RULES.md: 20× gravity, at most 50 ms a row at
    the default ``speed`` of 20 rows per second; a player's faster speed makes the floor
    faster)."""
    return min(gravity_seconds(level) / SOFT_DROP_FACTOR, 1 / speed)


GRAVITY = {level: gravity_seconds(level) for level in range(1, MAX_LEVEL + 1)}
