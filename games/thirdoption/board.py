"""The Third Option grid and shapes (RULES.md §3) as bitmasks: fast fits tests.

A grid's 81 cells are the bits of a Python int, cell ``(row, column)`` the bit
``row * 9 + column`` (row 0 on top). A shape is precomputed once: each of its distinct
orientations (turned and mirrored) as bit offsets from its box's top-left cell, and the
mask of top-left cells where that box lies inside the grid. Then every place where an
orientation fits is one AND per cell of the shape, over the whole grid at once::

    anchors = orientation.anchors & (free >> offset_1) & (free >> offset_2) & ...

(the anchors mask keeps a shifted cell from wrapping into the next row), so "does this
card fit anywhere" costs at most 8 orientations × 7 cells of integer ANDs, whatever the
grid, instead of a test of each of the ~400 placements. ``Shape.placements`` lists them
all one by one, for the bot and for the tests that check the fast test against it.

``grid(...)`` draws a grid for tests: ``"#########"`` rows, ``.`` empty.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache

from games.core.geometry import Cell, draw_shape, mirror, normalise, parse_shape, rotate
from games.core.geometry import Shape as Cells
from games.thirdoption import constants as C

FULL = (1 << C.CELLS) - 1
EMPTY = "."  # a drawn grid's empty cell; any other character is a filled one


def bit(row: int, column: int) -> int:
    return 1 << (row * C.SIZE + column)


def mask_of(cells: Sequence[Cell]) -> int:
    mask = 0
    for row, column in cells:
        if not (0 <= row < C.SIZE and 0 <= column < C.SIZE):
            raise ValueError(f"cell {(row, column)} is outside the grid")
        mask |= bit(row, column)
    return mask


def cells_of(mask: int) -> tuple[Cell, ...]:
    """The cells of a mask, row by row from the top."""
    out = []
    while mask:
        low = mask & -mask
        index = low.bit_length() - 1
        out.append(divmod(index, C.SIZE))
        mask ^= low
    return tuple(out)


def _anchors(height: int, width: int) -> int:
    """Top-left cells where a box of ``height`` × ``width`` lies inside the grid."""
    mask = 0
    for row in range(C.SIZE - height + 1):
        for column in range(C.SIZE - width + 1):
            mask |= bit(row, column)
    return mask


def oriented(cells: Cells, turns: int, mirrored: bool) -> Cells:
    """The shape mirrored (left to right) if asked, then turned clockwise ``turns``
    quarter turns, normalised: how a placement names its orientation (the page's
    script does the very same)."""
    return rotate(mirror(cells) if mirrored else normalise(cells), turns)


@dataclass(frozen=True, slots=True)
class Orientation:
    turns: int  # clockwise quarter turns, after the mirroring
    mirrored: bool
    cells: Cells  # normalised: the box's top-left cell is (0, 0)
    height: int
    width: int
    offsets: tuple[int, ...]  # each cell as a bit offset from the box's top-left cell
    mask: int  # the cells placed with the box's top-left at (0, 0)
    anchors: int  # the top-left cells where the box lies inside the grid

    @classmethod
    def of(cls, cells: Cells, turns: int, mirrored: bool) -> Orientation:
        height = max(r for r, _ in cells) + 1
        width = max(c for _, c in cells) + 1
        offsets = tuple(r * C.SIZE + c for r, c in cells)
        return cls(
            turns,
            mirrored,
            cells,
            height,
            width,
            offsets,
            sum(1 << o for o in offsets),
            _anchors(height, width),
        )

    def at(self, row: int, column: int) -> int | None:
        """The mask of this orientation with its box's top-left at ``(row, column)``, or
        None if the box does not lie wholly inside the grid."""
        if not (0 <= row <= C.SIZE - self.height and 0 <= column <= C.SIZE - self.width):
            return None
        return self.mask << (row * C.SIZE + column)

    def fitting_anchors(self, free: int) -> int:
        """The top-left cells where this orientation lies on ``free`` cells only."""
        found = self.anchors
        for offset in self.offsets:
            found &= free >> offset
            if not found:
                return 0
        return found


class Shape:
    """A card's shape with everything a fits test needs, precomputed (``shape(name)``)."""

    __slots__ = ("name", "picture", "cells", "size", "orientations")

    def __init__(self, name: str, picture: str) -> None:
        self.name = name
        self.picture = picture
        self.cells: Cells = normalise(parse_shape(picture))
        self.size = len(self.cells)
        seen: dict[Cells, Orientation] = {}
        for mirrored in (False, True):
            for turns in range(4):
                cells = oriented(self.cells, turns, mirrored)
                if cells not in seen:
                    seen[cells] = Orientation.of(cells, turns, mirrored)
        self.orientations: tuple[Orientation, ...] = tuple(seen.values())

    def orientation(self, turns: int, mirrored: bool) -> Orientation:
        """The orientation a placement names by its turns and mirroring."""
        return Orientation.of(oriented(self.cells, turns, mirrored), turns, mirrored)

    def fits(self, filled: int) -> bool:
        """Whether the shape can be placed anywhere on a grid whose ``filled`` cells are
        taken (any orientation, any position, wholly inside, on empty cells only)."""
        free = ~filled & FULL
        for orientation in self.orientations:
            found = orientation.anchors
            for offset in orientation.offsets:
                found &= free >> offset
                if not found:
                    break
            if found:
                return True
        return False

    def first_placement(self, filled: int) -> tuple[Orientation, int, int] | None:
        """The first legal placement (orientation, row, column): orientations in order,
        then the top-left cell row by row (RULES.md's timeout placement); None if none."""
        free = ~filled & FULL
        for orientation in self.orientations:
            found = orientation.fitting_anchors(free)
            if found:
                row, column = divmod((found & -found).bit_length() - 1, C.SIZE)
                return orientation, row, column
        return None

    def placements(self, filled: int = 0) -> Iterator[tuple[Orientation, int, int, int]]:
        """Every legal placement, one by one: (orientation, row, column, mask)."""
        free = ~filled & FULL
        for orientation in self.orientations:
            found = orientation.fitting_anchors(free)
            while found:
                low = found & -found
                row, column = divmod(low.bit_length() - 1, C.SIZE)
                yield orientation, row, column, orientation.mask << (row * C.SIZE + column)
                found ^= low

    def __repr__(self) -> str:
        return f"Shape({self.name!r}, {self.picture!r})"


@cache
def shape(name: str) -> Shape:
    """A card's shape by its name (``"T4"``; constants.SHAPES), precomputed once."""
    try:
        return Shape(name, C.SHAPES[name])
    except KeyError:
        raise KeyError(f"no card shape is named {name!r}") from None


def start_name(seat: int) -> str:
    """The name of seat ``seat``'s starting shape, as its grid lists it: ``"S8"``."""
    return f"S{seat}"


def start_mask(seat: int) -> int:
    """Seat ``seat``'s starting shape placed over the dot (constants: centred as drawn,
    else the nearest shift that covers the dot)."""
    cells = normalise(parse_shape(C.START_SHAPES[seat - 1]))
    height = max(r for r, _ in cells) + 1
    width = max(c for _, c in cells) + 1
    top, left = (C.SIZE - height) // 2, (C.SIZE - width) // 2
    shifts = sorted(
        ((dr, dc) for dr in range(-C.SIZE, C.SIZE) for dc in range(-C.SIZE, C.SIZE)),
        key=lambda s: (s[0] ** 2 + s[1] ** 2, s[0], s[1]),
    )
    for dr, dc in shifts:
        row, column = top + dr, left + dc
        if (
            0 <= row <= C.SIZE - height
            and 0 <= column <= C.SIZE - width
            and (C.DOT[0] - row, C.DOT[1] - column) in cells
        ):
            return mask_of([(r + row, c + column) for r, c in cells])
    raise AssertionError(f"seat {seat}'s starting shape cannot cover the dot")  # pragma: no cover


class Grid:
    """One player's 9 × 9 grid: ``filled`` (a mask) and the ``pieces`` placed on it, in
    order, each ``(name, mask)``: the starting shape ``"S<seat>"``, then cards."""

    __slots__ = ("filled", "pieces")

    def __init__(self, pieces: Sequence[tuple[str, int]] = ()) -> None:
        self.filled = 0
        self.pieces: list[tuple[str, int]] = []
        for name, mask in pieces:
            self.place(name, mask)

    @classmethod
    def for_seat(cls, seat: int) -> Grid:
        return cls([(start_name(seat), start_mask(seat))])

    @classmethod
    def from_rows(cls, rows: Sequence[str]) -> Grid:
        """A grid from a drawing, 9 rows of 9 cells, ``.`` empty; cells drawn with the
        same character are one piece (named by that character)."""
        rows = list(rows)
        if len(rows) != C.SIZE or any(len(row) != C.SIZE for row in rows):
            raise ValueError(f"a grid is {C.SIZE} rows of {C.SIZE} cells, not {rows!r}")
        masks: dict[str, int] = {}
        for r, row in enumerate(rows):
            for c, char in enumerate(row):
                if char != EMPTY:
                    masks[char] = masks.get(char, 0) | bit(r, c)
        return cls(list(masks.items()))

    def copy(self) -> Grid:
        new = Grid()
        new.filled, new.pieces = self.filled, list(self.pieces)
        return new

    @property
    def empty(self) -> int:
        """The number of empty squares: an eliminated player's score (RULES.md §3)."""
        return C.CELLS - self.filled.bit_count()

    def is_full(self) -> bool:
        return self.filled == FULL

    def fits(self, name: str) -> bool:
        return shape(name).fits(self.filled)

    def place(self, name: str, mask: int) -> None:
        """Put a piece of ``mask`` cells on the grid (it must lie on empty cells)."""
        if mask & ~FULL or not mask:
            raise ValueError("a piece lies inside the grid and has cells")
        if mask & self.filled:
            raise ValueError("a piece lies on empty cells only")
        self.filled |= mask
        self.pieces.append((name, mask))

    def rows(self) -> tuple[str, ...]:
        """The text form: 9 rows of 9 cells, ``.`` empty, ``#`` filled."""
        return tuple(
            "".join("#" if self.filled >> (r * C.SIZE + c) & 1 else EMPTY for c in range(C.SIZE))
            for r in range(C.SIZE)
        )

    def owners(self) -> list[int]:
        """For each of the 81 cells, row by row, the index of its piece (−1: empty)."""
        out = [-1] * C.CELLS
        for index, (_, mask) in enumerate(self.pieces):
            for r, c in cells_of(mask):
                out[r * C.SIZE + c] = index
        return out

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Grid) and other.pieces == self.pieces

    def __repr__(self) -> str:
        return f"grid{self.rows()!r}"


def grid(*rows: str) -> Grid:
    """A grid from a drawing, for tests: ``grid("#########", ..., ".........")``."""
    return Grid.from_rows(rows)


def picture(name: str) -> str:
    """A card's picture, normalised (``"##./.##"``)."""
    return draw_shape(shape(name).cells)
