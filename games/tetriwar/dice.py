"""A dropped bomb's own dice (RULES.md §1, rules version 4): the random choices of its
effect (add line's hole, earthquake's shifts, drill's blocks) come from a 32-bit seed
drawn from the dropper's seeded chance when the bomb is dropped, and are applied to the
field as it stands when the effect lands. The seed travels with the bomb's
announcement, so the receiving page lands the effect itself, with the piece, in the
same frame as the server.

The generator is Mulberry32 (Tommy Ettinger's, public domain): a few integer operations
that JavaScript writes the same (``static/js/tetriwar_dice.js``), where
Python's Mersenne Twister and its ``sample`` would have to be copied whole. Its
quality is ample for a hole in a row; its one job is to be the same on both sides.

    dice = Dice(seed)
    dice.below(10)                      # 0..9, without modulo bias
     dice.sample(cells, 10)              # up to 10 of ``cells``, a partial Fisher–Yates
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")
M32 = 0xFFFFFFFF
SEED_BITS = 32  # the seed drawn at the drop: ``chance.getrandbits(SEED_BITS)``


class Dice:
    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & M32

    def next(self) -> int:
        """The next 32-bit number."""
        self.state = a = (self.state + 0x6D2B79F5) & M32
        t = ((a ^ (a >> 15)) * (a | 1)) & M32
        t = ((t + (((t ^ (t >> 7)) * (t | 61)) & M32)) & M32) ^ t
        return (t ^ (t >> 14)) & M32

    def below(self, n: int) -> int:
        """A number in 0..n−1, each as likely (draws past the last whole multiple of
        ``n`` below 2³² are drawn again)."""
        if not 0 < n <= 1 << 32:
            raise ValueError(f"n must be in 1..2**32, not {n}")
        limit = (1 << 32) - (1 << 32) % n
        while True:
            x = self.next()
            if x < limit:
                return x % n

    def sample(self, items: Sequence[T], k: int) -> list[T]:
        """``k`` of ``items`` (all of them if fewer), drawn without repeats: the first
        ``k`` places of a Fisher–Yates shuffle of a copy."""
        pool = list(items)
        k = min(k, len(pool))
        for i in range(k):
            j = i + self.below(len(pool) - i)
            pool[i], pool[j] = pool[j], pool[i]
        return pool[:k]
