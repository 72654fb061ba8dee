"""The Te-Trix sheet, the shapes written on it, and the score (RULES.md §5), on bitmasks.

A sheet is three Python ints, one per symbol (circle, square, cross): cell
``(row, column)`` is the bit ``row * 8 + column`` (row 0 on top). Rows are 8 bits apart
though a sheet is 7 wide: the eighth bit of each row is never a cell, so a shift left
or right by one that leaves a row lands there and is masked away, and a whole area grows
by one ring of neighbours in five shifts and an AND, for every cell at once::

    area = (area | area << 1 | area >> 1 | area << 8 | area >> 8) & symbol

Grown until it stops changing, from one cell, that is the cell's orthogonally connected
area (:func:`symbol_areas`); the score of a symbol is then a handful of integer
operations per area (:func:`symbol_score`), cheap enough to run after every write of
every player, and for every placement a bot weighs.

A shape as arranged (constants.TETROMINOES, its symbols in the order of its cells) is
turned clockwise 0–3 quarter turns and written with the top-left cell of its box at
``(row, column)``, which may lie off the sheet: a :class:`Spot`. Every spot with at least
one cell on the sheet is precomputed once per shape.

``sheet(...)`` draws a sheet for tests: 7 rows of 7 cells, ``o`` ``s`` ``x`` or ``.``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache

from games.core.geometry import Cell, parse_shape
from games.tetrix import constants as C

STRIDE = 8  # bits from one row to the next: 7 cells and one bit that is never a cell
SYMBOL_INDEX = {symbol: index for index, symbol in enumerate(C.SYMBOLS)}


def bit(row: int, column: int) -> int:
    return 1 << (row * STRIDE + column)


FULL = sum(bit(r, c) for r in range(C.SIZE) for c in range(C.SIZE))  # the 49 cells


def cells_of(mask: int) -> tuple[Cell, ...]:
    """The cells of a mask, row by row from the top."""
    out = []
    while mask:
        low = mask & -mask
        out.append(divmod(low.bit_length() - 1, STRIDE))
        mask ^= low
    return tuple(out)


def mask_of(cells: Sequence[Cell]) -> int:
    mask = 0
    for row, column in cells:
        if not (0 <= row < C.SIZE and 0 <= column < C.SIZE):
            raise ValueError(f"cell {(row, column)} is off the sheet")
        mask |= bit(row, column)
    return mask


def spread(mask: int) -> int:
    """The cells orthogonally next to the cells of ``mask`` (and those cells), on the sheet."""
    return (mask | mask << 1 | mask >> 1 | mask << STRIDE | mask >> STRIDE) & FULL


# --- scoring ---------------------------------------------------------------------------
def areas_of(mask: int) -> Iterator[int]:
    """The orthogonally connected areas of one symbol's ``mask``, each a mask, in the
    order of their first cell (row by row): a flood fill by shifts, a whole row at once."""
    while mask:
        area = mask & -mask
        while True:
            grown = (area | area << 1 | area >> 1 | area << STRIDE | area >> STRIDE) & mask
            if grown == area:
                break
            area = grown
        mask ^= area
        yield area


def symbol_areas(mask: int) -> list[int]:
    """``areas_of(mask)`` as a list."""
    return list(areas_of(mask))


def symbol_score(mask: int) -> int:
    """RULES.md §5 for one symbol: (areas of ≥ 5 cells) × (the cells in them)."""
    # a cell with no neighbour of its symbol is an area of one: leave those out first
    mask &= mask << 1 | mask >> 1 | mask << STRIDE | mask >> STRIDE
    left = mask.bit_count()
    count = cells = 0
    for area in areas_of(mask) if left >= C.AREA_MIN else ():
        size = area.bit_count()
        if size >= C.AREA_MIN:
            count += 1
            cells += size
        left -= size
        if left < C.AREA_MIN:  # what is left cannot make another area
            break
    return count * cells


def score(sheet: Sheet) -> int:
    """A sheet's score (RULES.md §5): the sum over the three symbols of (areas of ≥ 5
    cells) × (the cells in them). A solo game adds the bar's uncrossed boxes (``total``)."""
    circles, squares, crosses = sheet.masks
    return symbol_score(circles) + symbol_score(squares) + symbol_score(crosses)


def areas(sheet: Sheet) -> dict[str, tuple[int, ...]]:
    """Every area of the sheet by symbol, each a mask (cells: :func:`cells_of`)."""
    return {symbol: tuple(symbol_areas(mask)) for symbol, mask in zip(C.SYMBOLS, sheet.masks, strict=True)}


def scoring_areas(sheet: Sheet) -> dict[str, tuple[int, ...]]:
    """The areas that score (≥ 5 cells) by symbol: the ones a page outlines."""
    return {
        symbol: tuple(area for area in found if area.bit_count() >= C.AREA_MIN)
        for symbol, found in areas(sheet).items()
    }


def area_cells(sheet: Sheet, minimum: int = C.AREA_MIN) -> dict[str, tuple[tuple[Cell, ...], ...]]:
    """The areas of at least ``minimum`` cells (by default those that score) by symbol,
    each as its cells, row by row: what a page outlines."""
    return {
        symbol: tuple(cells_of(area) for area in found if area.bit_count() >= minimum)
        for symbol, found in areas(sheet).items()
    }


def score_table(sheet: Sheet) -> dict[str, tuple[int, int]]:
    """The seed's scoring pad: for each symbol, (number of areas, number of symbols in
    them); the score is the sum of their products."""
    return {
        symbol: (len(found), sum(area.bit_count() for area in found))
        for symbol, found in scoring_areas(sheet).items()
    }


def verdict(points: int) -> str:
    """The solo verdict for a final score (RULES.md §5)."""
    for lowest, words in C.VERDICTS:
        if points >= lowest:
            return words
    return C.VERDICTS[-1][1]


# --- shapes and spots ------------------------------------------------------------------
def turned(cells: Sequence[Cell], turns: int) -> tuple[Cell, ...]:
    """The cells turned clockwise ``turns`` quarter turns, each staying in its place in
    the sequence (so it keeps its symbol), shifted so the box's top-left is (0, 0)."""
    out = list(cells)
    for _ in range(turns % C.TURNS):
        out = [(c, -r) for r, c in out]
    top = min(r for r, _ in out)
    left = min(c for _, c in out)
    return tuple((r - top, c - left) for r, c in out)


@cache
def shape_cells(name: str) -> tuple[Cell, ...]:
    """A tetromino's cells as arranged, in the order an arrangement names its symbols:
    row by row from the top, left to right."""
    try:
        return parse_shape(C.TETROMINOES[name])
    except KeyError:
        raise KeyError(f"no tetromino is named {name!r}") from None


@dataclass(frozen=True, slots=True)
class Spot:
    """A shape turned and placed: the top-left cell of its box at ``(row, column)``."""

    turns: int
    row: int
    column: int
    bits: tuple[int, ...]  # each cell of the shape as arranged: its bit, 0 off the sheet
    mask: int  # the cells on the sheet
    hanging: int  # the cells off it

    @property
    def cells(self) -> tuple[Cell | None, ...]:
        """Each cell of the shape as arranged: where it lies, None off the sheet."""
        return tuple(divmod(b.bit_length() - 1, STRIDE) if b else None for b in self.bits)


@cache
def spots(name: str) -> tuple[Spot, ...]:
    """Every spot of a shape with at least one cell on the sheet: turns 0–3, then the
    box's top-left row by row, column by column."""
    found = []
    low, high = C.POSITION_RANGE
    for turns in range(C.TURNS):
        cells = turned(shape_cells(name), turns)
        for row in range(low, high + 1):
            for column in range(low, high + 1):
                bits = tuple(
                    bit(row + r, column + c) if 0 <= row + r < C.SIZE and 0 <= column + c < C.SIZE else 0
                    for r, c in cells
                )
                mask = sum(bits)
                if mask:
                    found.append(Spot(turns, row, column, bits, mask, bits.count(0)))
    return tuple(found)


@cache
def _spot_index(name: str) -> dict[tuple[int, int, int], Spot]:
    return {(s.turns, s.row, s.column): s for s in spots(name)}


def spot(name: str, turns: int, row: int, column: int) -> Spot | None:
    """The spot of ``name`` turned ``turns`` at ``(row, column)``; None if no cell of it
    lies on the sheet."""
    return _spot_index(name).get((turns % C.TURNS, row, column))


@cache
def timeout_spots(name: str) -> tuple[Spot, ...]:
    """The spots in the order a timeout tries them (constants): fewest symbols hanging
    over, then fewest turns, then the top-left cell row by row, column by column."""
    return tuple(sorted(spots(name), key=lambda s: (s.hanging, s.turns, s.row, s.column)))


# --- the sheet -------------------------------------------------------------------------
class Sheet:
    """One player's sheet: ``masks``, the cells of each symbol (circle, square, cross);
    a solo sheet (``solo``) has a bar of 8 boxes, ``crossed`` of them crossed."""

    __slots__ = ("masks", "solo", "crossed")

    def __init__(self, masks: Sequence[int] = (0, 0, 0), solo: bool = False, crossed: int = 0) -> None:
        masks = list(masks)
        if len(masks) != len(C.SYMBOLS) or any(m & ~FULL for m in masks):
            raise ValueError("a sheet is three masks of cells on the sheet")
        if masks[0] & masks[1] or masks[0] & masks[2] or masks[1] & masks[2]:
            raise ValueError("a cell holds one symbol")
        if not 0 <= crossed <= (C.BAR_BOXES if solo else 0):
            raise ValueError(f"a bar has {C.BAR_BOXES} boxes; only a solo sheet has one")
        self.masks = masks
        self.solo = solo
        self.crossed = crossed

    @classmethod
    def for_seat(cls, seat: int, solo: bool = False) -> Sheet:
        """A new sheet: the seat's preprinted symbol in the centre cell (RULES.md §5)."""
        masks = [0, 0, 0]
        masks[SYMBOL_INDEX[C.SEAT_SYMBOLS[seat]]] = bit(*C.CENTRE)
        return cls(masks, solo)

    @classmethod
    def from_rows(cls, rows: Sequence[str], crossed: int | None = None) -> Sheet:
        """A sheet from a drawing, 7 rows of 7 cells (``o``, ``s``, ``x``, ``.``); with
        ``crossed``, a solo sheet with that many boxes of its bar crossed."""
        rows = list(rows)
        if len(rows) != C.SIZE or any(len(row) != C.SIZE for row in rows):
            raise ValueError(f"a sheet is {C.SIZE} rows of {C.SIZE} cells, not {rows!r}")
        masks = [0, 0, 0]
        for r, row in enumerate(rows):
            for c, char in enumerate(row):
                if char in SYMBOL_INDEX:
                    masks[SYMBOL_INDEX[char]] |= bit(r, c)
                elif char != C.EMPTY:
                    raise ValueError(f"a cell is o, s, x or {C.EMPTY}, not {char!r}")
        return cls(masks, crossed is not None, crossed or 0)

    def copy(self) -> Sheet:
        return Sheet(self.masks, self.solo, self.crossed)

    @property
    def filled(self) -> int:
        m = self.masks
        return m[0] | m[1] | m[2]

    @property
    def written(self) -> int:
        """How many cells hold a symbol (the preprinted one too)."""
        return self.filled.bit_count()

    def is_full(self) -> bool:
        return self.filled == FULL

    @property
    def boxes_left(self) -> int | None:
        """The bar's uncrossed boxes (None: not a solo sheet)."""
        return C.BAR_BOXES - self.crossed if self.solo else None

    @property
    def may_hang(self) -> int:
        """How many symbols a write may leave hanging over the edge: any (3, as one
        must be written), or on a solo sheet no more than its boxes left."""
        return C.DICE - 1 if not self.solo else min(C.DICE - 1, C.BAR_BOXES - self.crossed)

    @property
    def total(self) -> int:
        """The player's score: :func:`score`, and on a solo sheet 1 per uncrossed box."""
        return score(self) + (C.BOX_POINTS * (C.BAR_BOXES - self.crossed) if self.solo else 0)

    def symbol_at(self, row: int, column: int) -> str | None:
        b = bit(row, column)
        for symbol, mask in zip(C.SYMBOLS, self.masks, strict=True):
            if mask & b:
                return symbol
        return None

    def allows(self, where: Spot) -> bool:
        """Whether the spot may be written: on empty cells only, and not hanging over
        more than the bar allows."""
        return not where.mask & self.filled and where.hanging <= self.may_hang

    def legal_spots(self, name: str) -> Iterator[Spot]:
        filled, may_hang = self.filled, self.may_hang
        for s in spots(name):
            if not s.mask & filled and s.hanging <= may_hang:
                yield s

    def fits(self, name: str) -> bool:
        """Whether the shape can be written anywhere (any turn, any spot)."""
        return next(self.legal_spots(name), None) is not None

    def first_spot(self, name: str) -> Spot | None:
        """The spot a timeout writes (constants), or None if the shape fits nowhere."""
        filled, may_hang = self.filled, self.may_hang
        for s in timeout_spots(name):
            if not s.mask & filled and s.hanging <= may_hang:
                return s
        return None

    def write(self, where: Spot, symbols: str) -> tuple[tuple[int, int, str], ...]:
        """Write ``symbols`` (in the shape's cell order) at ``where``; on a solo sheet
        each symbol hanging over crosses a box. Returns the cells written."""
        if not self.allows(where):
            raise ValueError("a shape is written on empty cells, hanging over no more than allowed")
        written = []
        for b, symbol in zip(where.bits, symbols, strict=True):
            if b:
                self.masks[SYMBOL_INDEX[symbol]] |= b
                written.append((*divmod(b.bit_length() - 1, STRIDE), symbol))
        if self.solo:
            self.crossed += where.hanging
        return tuple(written)

    def rows(self) -> tuple[str, ...]:
        """The text form: 7 rows of 7 cells, ``o`` ``s`` ``x``, ``.`` empty (each cell
        as :meth:`symbol_at` reads it; a cell holds one symbol at most)."""
        grid = [[C.EMPTY] * C.SIZE for _ in range(C.SIZE)]
        for symbol, mask in zip(C.SYMBOLS, self.masks, strict=True):
            for row, column in cells_of(mask):
                grid[row][column] = symbol
        return tuple("".join(row) for row in grid)

    def bar(self) -> str:
        """A solo sheet's bar: ``X`` a crossed box, ``.`` an open one ("" without a bar)."""
        return "X" * self.crossed + C.EMPTY * (C.BAR_BOXES - self.crossed) if self.solo else ""

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Sheet)
            and other.masks == self.masks
            and (other.solo, other.crossed) == (self.solo, self.crossed)
        )

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"sheet{self.rows()!r}" + (f" bar {self.bar()}" if self.solo else "")


def sheet(*rows: str, crossed: int | None = None) -> Sheet:
    """A sheet from a drawing, for tests: ``sheet("ooo....", ..., ".......")``; with
    ``crossed``, a solo sheet with that many boxes crossed."""
    return Sheet.from_rows(rows, crossed)
