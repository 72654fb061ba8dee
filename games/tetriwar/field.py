"""The TetriWar field: bitmask rows for collision, text rows for display.

Row 0 is the top hidden row; rows ``HIDDEN_ROWS`` … ``HEIGHT − 1`` are visible, so
visible row ``v`` is field row ``v + HIDDEN_ROWS`` (visible row 0 is the top one).
``masks`` has four full sentinel rows below the floor, so a piece test never needs
a floor check. ``text`` holds one string of ``WIDTH`` characters per row (alphabet in
``constants``); both are kept in step by every method here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from games.core.compiled import mypyc_attr
from games.tetriwar.constants import (
    BLOCK_CHARS,
    BOMB_CHARS,
    BOMB_OF_CHAR,
    EMPTY,
    FULL_ROW,
    GARBAGE,
    HEIGHT,
    HIDDEN_ROWS,
    PLAIN,
    WIDTH,
)

FLOOR_ROWS = 4
EMPTY_ROW = EMPTY * WIDTH
ALPHABET = frozenset(EMPTY) | BLOCK_CHARS | frozenset(BOMB_CHARS.values())


def row_mask(text: str) -> int:
    mask = 0
    for col, char in enumerate(text):
        if char != EMPTY:
            mask |= 1 << col
    return mask


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # as a plain class (games/core/compiled.py)
class Field:
    __slots__ = ("masks", "text")

    def __init__(self, text: Sequence[str] | None = None) -> None:
        rows = list(text) if text is not None else [EMPTY_ROW] * HEIGHT
        if len(rows) != HEIGHT:
            raise ValueError(f"a field has {HEIGHT} rows, got {len(rows)}")
        for row in rows:
            if len(row) != WIDTH or not set(row) <= ALPHABET:
                raise ValueError(f"bad field row {row!r}: {WIDTH} characters of {''.join(sorted(ALPHABET))}")
        self.text: list[str] = rows
        self.masks: list[int] = [row_mask(row) for row in rows] + [FULL_ROW] * FLOOR_ROWS

    @classmethod
    def from_rows(cls, *rows: str) -> Field:
        """A field from drawn rows, bottom-aligned: the last row given is the bottom row.

        Up to 22 rows (the top two are then the hidden rows). ``X`` is a plain block.
        """
        if len(rows) > HEIGHT:
            raise ValueError(f"at most {HEIGHT} rows")
        return cls([EMPTY_ROW] * (HEIGHT - len(rows)) + list(rows))

    def copy(self) -> Field:
        other = Field.__new__(Field)
        other.text = list(self.text)
        other.masks = list(self.masks)
        return other

    # --- reading ---------------------------------------------------------------------
    def visible(self) -> tuple[str, ...]:
        return tuple(self.text[HIDDEN_ROWS:])

    def is_empty(self) -> bool:
        return not any(self.masks[:HEIGHT])

    def block_count(self) -> int:
        return sum(bin(mask).count("1") for mask in self.masks[:HEIGHT])

    def blocks(self, chars: Iterable[str] | None = None) -> list[tuple[int, int]]:
        """``(row, col)`` of every block (or of every block whose character is in ``chars``)."""
        wanted = None if chars is None else frozenset(chars)
        found = []
        for row, line in enumerate(self.text):
            if self.masks[row]:
                for col, char in enumerate(line):
                    if char != EMPTY and (wanted is None or char in wanted):
                        found.append((row, col))
        return found

    def bombs(self) -> list[tuple[int, int, str]]:
        """``(row, col, bomb type)`` of every bomb lying in the field, top to bottom."""
        return [(r, c, BOMB_OF_CHAR[self.text[r][c]]) for r, c in self.blocks(BOMB_OF_CHAR)]

    def full_rows(self) -> list[int]:
        return [row for row in range(HEIGHT) if self.masks[row] == FULL_ROW]

    def __str__(self) -> str:
        return "\n".join(self.text)

    # --- writing -----------------------------------------------------------------------
    def set_cell(self, row: int, col: int, char: str) -> None:
        line = self.text[row]
        self.text[row] = line[:col] + char + line[col + 1 :]
        if char == EMPTY:
            self.masks[row] &= ~(1 << col)
        else:
            self.masks[row] |= 1 << col

    def set_row(self, row: int, text: str) -> None:
        self.text[row] = text
        self.masks[row] = row_mask(text)

    def remove_rows(self, rows: Iterable[int]) -> list[str]:
        """Remove rows; everything above moves down. Returns the removed rows' text."""
        removed = []
        for row in sorted(set(rows)):  # top first, so lower indices stay valid
            removed.append(self.text.pop(row))
            self.text.insert(0, EMPTY_ROW)
            del self.masks[row]
            self.masks.insert(0, 0)
        return removed

    def clear(self) -> None:
        self.text[:] = [EMPTY_ROW] * HEIGHT
        self.masks[:HEIGHT] = [0] * HEIGHT

    # --- bomb effects (each returns nothing; lines they complete are the caller's) -------
    def push_up(self, text: str) -> bool:
        """Add ``text`` as the new bottom row, pushing everything up one row.

        Returns False (and changes nothing) when the top row holds a block that would be
        pushed out of the field: the player tops out.
        """
        if self.masks[0]:
            return False
        del self.text[0]
        del self.masks[0]
        self.text.insert(HEIGHT - 1, text)
        self.masks.insert(HEIGHT - 1, row_mask(text))
        return True

    def add_garbage(self, hole: int) -> bool:
        return self.push_up("".join(EMPTY if c == hole else GARBAGE for c in range(WIDTH)))

    def shift_row(self, row: int, shift: int) -> None:
        """Shift a row's blocks ``shift`` columns to the right (negative: left), wrapping."""
        shift %= WIDTH
        if shift:
            line = self.text[row]
            self.set_row(row, line[-shift:] + line[:-shift])

    def defuse_bombs(self) -> None:
        for row, col, _ in self.bombs():
            self.set_cell(row, col, PLAIN)

    def drill(self, sample: Callable[[list, int], list], count: int) -> None:
        """``count`` blocks (fewer if fewer exist) picked by ``sample`` (a bomb's dice's,
        or a chance's ``sample``) disappear; the blocks in row-major order."""
        blocks = self.blocks()
        for row, col in sample(blocks, min(count, len(blocks))):
            self.set_cell(row, col, EMPTY)

    def collapse(self) -> None:
        """Every block falls straight down in its column (the gravity bomb)."""
        columns = []
        for col in range(WIDTH):
            stack = [line[col] for line in self.text if line[col] != EMPTY]
            columns.append([EMPTY] * (HEIGHT - len(stack)) + stack)
        for row in range(HEIGHT):
            self.set_row(row, "".join(column[row] for column in columns))

    def remove_bottom(self, count: int) -> None:
        self.remove_rows(range(HEIGHT - count, HEIGHT))


def field(*rows: str) -> Field:
    """Shorthand for tests: ``field("..........", "XXXXXXXXX.")`` (bottom-aligned)."""
    return Field.from_rows(*rows)


def fits(masks: list[int], shape, y: int) -> bool:
    """Whether a piece of ``shape`` (``pieces.SHAPES``: (row offset, row mask) pairs,
    None off the field) sits at row ``y`` on ``masks`` (the field's rows, with the
    floor rows below) without touching a block: the one overlap test of the engine
    and the computer player."""
    if shape is None or y + shape[0][0] < 0:
        return False
    for offset, mask in shape:
        if masks[y + offset] & mask:
            return False
    return True
