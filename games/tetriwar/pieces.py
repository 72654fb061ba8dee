"""Tetromino tables for fast collision tests, and the 7-bag.

A field row is an int whose bit ``c`` is set when column ``c`` holds a block. For each
piece kind, rotation state and box column ``x`` we precompute the piece as
``((row_offset, row_mask), ...)``, so a collision test is a few ``&`` operations.
"""

from __future__ import annotations

import random
from typing import Final

from games.core.compiled import mypyc_attr
from games.core.srs import BOX_SIZE, STATES, kicks
from games.tetriwar.constants import FULL_ROW, HEIGHT, KINDS, WIDTH

X_OFFSET: Final = 3  # the lowest box column a piece can reach is −3 (a vertical I at column 0)

RowMasks = tuple[tuple[int, int], ...]


def _row_masks(cells, x: int) -> RowMasks | None:
    if any(not 0 <= c + x < WIDTH for _, c in cells):
        return None
    rows: dict[int, int] = {}
    for r, c in cells:
        rows[r] = rows.get(r, 0) | 1 << (c + x)
    return tuple(sorted(rows.items()))


# SHAPES[kind][rotation][x + X_OFFSET] -> row masks, or None where a wall is in the way.
SHAPES: Final[dict[str, tuple[tuple[RowMasks | None, ...], ...]]] = {
    kind: tuple(
        tuple(_row_masks(STATES[kind][rotation], x) for x in range(-X_OFFSET, WIDTH)) for rotation in range(4)
    )
    for kind in KINDS
}


def _under(shape: RowMasks | None) -> RowMasks | None:
    if shape is None:
        return None
    rows = dict(shape)
    under = ((offset + 1, mask & ~rows.get(offset + 1, 0)) for offset, mask in shape)
    return tuple((offset, mask) for offset, mask in under if mask)


# UNDER[kind][rotation][x + X_OFFSET]: the cells just below the piece that are not its
# own, as row masks (row offset, mask) like SHAPES'. A piece that fits where it is rests
# on something when one of them is taken: the test of a step down looks at these alone
# (one row for an O, a flat T, J or L, a standing I, where SHAPES has two to four).
UNDER: Final[dict[str, tuple[tuple[RowMasks | None, ...], ...]]] = {
    kind: tuple(tuple(_under(shape) for shape in SHAPES[kind][rotation]) for rotation in range(4)) for kind in KINDS
}
# KICKS[kind][rotation]: (row, col) offsets to try when turning clockwise from rotation.
KICKS: dict[str, tuple[tuple[tuple[int, int], ...], ...]] = {
    kind: tuple(kicks(kind, rotation, rotation + 1) for rotation in range(4)) for kind in KINDS
}

# TURNS[kind][rotation][x + X_OFFSET]: the clockwise turn's kick tests from box column x,
# in order, as (row masks, row offset, column offset), those a wall rules out left out.
TURNS: Final[dict[str, tuple[tuple[tuple[tuple[RowMasks, int, int], ...], ...], ...]]] = {
    kind: tuple(
        tuple(
            tuple(
                (SHAPES[kind][(rotation + 1) % 4][index], rows, cols)  # type: ignore[misc]  # never None: the test below
                for rows, cols in KICKS[kind][rotation]
                for index in (x + cols + X_OFFSET,)
                if 0 <= index < WIDTH + X_OFFSET and SHAPES[kind][(rotation + 1) % 4][index] is not None
            )
            for x in range(-X_OFFSET, WIDTH)
        )
        for rotation in range(4)
    )
    for kind in KINDS
}
CELLS = STATES  # (row, col) cells inside the box, by kind and rotation
# ROW_COLUMNS[kind][rotation]: ((row in the box, (columns in the box, ...)), ...), top row first
ROW_COLUMNS: dict[str, tuple[tuple[tuple[int, tuple[int, ...]], ...], ...]] = {
    kind: tuple(
        tuple(
            (row, tuple(c for r, c in STATES[kind][rotation] if r == row))
            for row in sorted({r for r, _ in STATES[kind][rotation]})
        )
        for rotation in range(4)
    )
    for kind in KINDS
}
BOX = BOX_SIZE


def _runs(kind: str, rotation: int, x: int) -> tuple[tuple[int, int, int, int, str], ...] | None:
    shape = SHAPES[kind][rotation][x + X_OFFSET]
    if shape is None:
        return None
    runs: list[tuple[int, int, int, int, str]] = []
    for (offset, mask), (row, columns) in zip(shape, ROW_COLUMNS[kind][rotation], strict=True):
        start, stop = x + min(columns), x + max(columns) + 1
        # a tetromino's rows follow one another, each one run of cells (Player.lock counts on it)
        if offset != row or offset != shape[0][0] + len(runs) or len(columns) != stop - start:
            raise ValueError(f"{kind} in rotation {rotation} has a gap at row {row}")
        runs.append((offset, mask, start, stop, kind * len(columns)))
    return tuple(runs)


# RUNS[kind][rotation][x + X_OFFSET]: the piece's rows as a lock writes them, top row
# first: (row offset, row mask, first column, the column after the last, the row's text).
RUNS: Final = {
    kind: tuple(tuple(_runs(kind, rotation, x) for x in range(-X_OFFSET, WIDTH)) for rotation in range(4))
    for kind in KINDS
}


def _bottoms(cells) -> tuple[tuple[int, int], ...]:
    lowest: dict[int, int] = {}
    for r, c in cells:
        lowest[c] = max(r, lowest.get(c, r))
    return tuple(sorted(lowest.items()))


# BOTTOMS[kind][rotation]: ((column in the box, lowest cell row in that column), ...),
# for the bots' quick landing searches.
BOTTOMS = {kind: tuple(_bottoms(CELLS[kind][r]) for r in range(4)) for kind in CELLS}


def column_tops(masks) -> list[int]:
    """The highest block's row in each column of a field's row masks (``HEIGHT``,
    the floor, when the column is empty)."""
    tops = [HEIGHT] * WIDTH
    seen = 0
    for row in range(HEIGHT):
        new = masks[row] & ~seen
        while new:
            low = new & -new
            tops[low.bit_length() - 1] = row
            new ^= low
        seen |= masks[row]
        if seen == FULL_ROW:
            break
    return tops


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # as a plain class (games/core/compiled.py)
class Bag:
    """The 7-bag: each bag is a shuffle of the 7 tetrominoes (Guideline, RULES.md)."""

    __slots__ = ("rng", "queue", "dealt")

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.queue: list[str] = []
        self.dealt = 0

    def _fill(self, count: int) -> None:
        while len(self.queue) < count:
            bag = list(KINDS)
            self.rng.shuffle(bag)
            self.queue.extend(bag)

    def peek(self, count: int) -> tuple[str, ...]:
        self._fill(count)
        return tuple(self.queue[:count])

    def take(self) -> str:
        self._fill(1)
        self.dealt += 1
        return self.queue.pop(0)
