"""Seeded randomness: every random choice of a game comes from its seed.

Streams are derived from the game seed and labels (a seat, a purpose) through SHA-256,
so each player's stream is reproducible on its own and does not shift when another
player draws more numbers. ``random.Random`` seeded with an int is stable across
CPython versions for ``random``, ``randrange``, ``shuffle`` and ``sample``; weighted
choices use integer weights and ``randrange`` rather than ``random.choices``.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence


def derive_seed(seed: int | str, *labels: object) -> int:
    """A 64-bit seed for the stream named by ``labels`` inside the game ``seed``."""
    text = "/".join([str(seed), *(str(label) for label in labels)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def stream(seed: int | str, *labels: object) -> random.Random:
    """An independent random stream for ``labels`` (e.g. ``stream(seed, "bag", 2)``)."""
    return random.Random(derive_seed(seed, *labels))


def weighted_choice(rng: random.Random, items: Sequence, weights: Sequence[int]):
    """One of ``items`` drawn with integer ``weights`` (stable across Python versions)."""
    total = sum(weights)
    if total <= 0:
        raise ValueError("weights must add up to more than 0")
    pick = rng.randrange(total)
    for item, weight in zip(items, weights, strict=True):
        if pick < weight:
            return item
        pick -= weight
    raise AssertionError("unreachable")  # pragma: no cover
