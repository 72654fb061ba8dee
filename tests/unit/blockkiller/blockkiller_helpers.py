"""Helpers for Block-Killer's engine tests: cards by kind, keys to a drawn placement."""

from __future__ import annotations

from games.blockkiller.cards import BLOCK_KIND, GARBAGE_KIND
from games.blockkiller.engine import Game, Intent, Options
from games.blockkiller.field import Field
from games.blockkiller.search import placements


def blocks_of(kind: str, n: int = 1, skip: int = 0) -> list[int]:
    return [card for card, k in BLOCK_KIND.items() if k == kind][skip:skip + n]


def garbage_of(kind: str, n: int = 1, skip: int = 0) -> list[int]:
    return [card for card, k in GARBAGE_KIND.items() if k == kind][skip:skip + n]


def keys_to(field: Field, kind: str, cells: set[tuple[int, int]], spin: bool | None = None) -> str:
    """The keys that bring ``kind`` to lock on ``cells`` (with or without a spin)."""
    for p in placements(field, kind):
        if set(p.piece.cells()) == cells and (spin is None or p.spin == spin):
            return p.keys
    raise AssertionError(f"no placement of {kind} on {sorted(cells)}")


def column(col: int, bottom: int, height: int) -> set[tuple[int, int]]:
    """Cells of a vertical I in ``col`` whose lowest cell is row ``bottom``."""
    return {(bottom - i, col) for i in range(height)}


def game(seats=(1, 2, 3), **options) -> Game:
    return Game(Options(**options), seed=7, seats=list(seats), now=0.0)


def play(g: Game, seat: int, *texts: str, now: float = 1.0) -> list:
    events = []
    for text in texts:
        events += g.apply(seat, Intent.parse(text), now)
    return events
