"""The Viertris board (RULES.md §2): 8 × 6 cells, pieces that fall, runs of 4 and the
cascade that removes and scores them, and a text form for tests (``board(...)``).

A cell is ``(row, column)``: row 0 is the top row, column 0 the left column. A piece
is stored as its owner's seat number (1–4), an empty cell as 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from games.viertris import constants as C

Cell = tuple[int, int]  # (row, column); row 0 is the top


@dataclass(frozen=True)
class Run:
    """A maximal line of at least 4 pieces of one owner."""

    owner: int
    cells: tuple[Cell, ...]

    @property
    def base(self) -> int:
        return C.BASE_POINTS[len(self.cells)]


@dataclass(frozen=True)
class Step:
    """One step of a cascade: the runs found, every cell removed, the pieces that fell."""

    number: int  # k: runs score base × k
    runs: tuple[Run, ...]
    removed: tuple[Cell, ...]
    moves: tuple[tuple[Cell, Cell], ...]

    def points(self) -> dict[int, int]:
        """Points won in this step, by owner."""
        won: dict[int, int] = {}
        for run in self.runs:
            won[run.owner] = won.get(run.owner, 0) + run.base * self.number
        return won


# right, down, down-right, down-left: every line is found once, from its first cell
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


class Board:
    """8 × 6 cells. Stored as columns, bottom first, so pieces never float."""

    __slots__ = ("columns",)

    def __init__(self, columns: Iterable[Iterable[int]] | None = None) -> None:
        self.columns: list[list[int]] = (
            [[] for _ in range(C.COLUMNS)] if columns is None else [list(c) for c in columns]
        )

    @classmethod
    def from_rows(cls, rows: Sequence[str]) -> Board:
        """A board from a drawing, rows top to bottom (``"..12...."``); fewer than 6 rows
        are the bottom rows. A piece over an empty cell is refused (pieces fall)."""
        rows = list(rows)
        if len(rows) > C.ROWS:
            raise ValueError(f"a board has {C.ROWS} rows, not {len(rows)}")
        rows = [C.EMPTY * C.COLUMNS] * (C.ROWS - len(rows)) + rows
        columns: list[list[int]] = [[] for _ in range(C.COLUMNS)]
        for row in reversed(range(C.ROWS)):
            text = rows[row]
            if len(text) != C.COLUMNS:
                raise ValueError(f"row {row} must have {C.COLUMNS} cells, not {text!r}")
            for column, char in enumerate(text):
                if char == C.EMPTY:
                    continue
                if char not in "1234":
                    raise ValueError(f"a cell is {C.EMPTY!r} or a seat 1–4, not {char!r}")
                if len(columns[column]) != C.ROWS - 1 - row:
                    raise ValueError(f"the piece at row {row}, column {column} floats over an empty cell")
                columns[column].append(int(char))
        return cls(columns)

    def copy(self) -> Board:
        return Board(self.columns)

    def rows(self) -> tuple[str, ...]:
        """The text form: 6 strings of 8 cells, row 0 on top, '.' empty, else the seat."""
        return tuple("".join(str(owner) if owner else C.EMPTY for owner in row) for row in self.matrix())

    def at(self, cell: Cell) -> int:
        """The owner of the piece at ``cell`` (0: empty)."""
        row, column = cell
        height = C.ROWS - 1 - row
        stack = self.columns[column]
        return stack[height] if height < len(stack) else 0

    def is_full(self, column: int | None = None) -> bool:
        if column is None:
            return all(len(stack) == C.ROWS for stack in self.columns)
        return len(self.columns[column]) == C.ROWS

    def legal_columns(self) -> list[int]:
        return [c for c, stack in enumerate(self.columns) if len(stack) < C.ROWS]

    def matrix(self) -> list[list[int]]:
        """Owners as rows, top first (0: empty)."""
        grid = [[0] * C.COLUMNS for _ in range(C.ROWS)]
        for column, stack in enumerate(self.columns):
            for height, owner in enumerate(stack):
                grid[C.ROWS - 1 - height][column] = owner
        return grid

    def runs(self) -> list[Run]:
        """Every maximal line of ≥ 4 pieces of one owner: rows, columns, both diagonals."""
        grid = self.matrix()
        found = []
        for dr, dc in DIRECTIONS:
            for row in range(C.ROWS):
                for column in range(C.COLUMNS):
                    owner = grid[row][column]
                    if not owner:
                        continue
                    pr, pc = row - dr, column - dc
                    if 0 <= pr < C.ROWS and 0 <= pc < C.COLUMNS and grid[pr][pc] == owner:
                        continue  # not the first cell of its line
                    cells = [(row, column)]
                    r, c = row + dr, column + dc
                    while 0 <= r < C.ROWS and 0 <= c < C.COLUMNS and grid[r][c] == owner:
                        cells.append((r, c))
                        r, c = r + dr, c + dc
                    if len(cells) >= C.MIN_RUN:
                        found.append(Run(owner, tuple(cells)))
        return found

    def drop(self, column: int, seat: int) -> int:
        """Put ``seat``'s piece on top of ``column``; returns the row it lands in."""
        stack = self.columns[column]
        if len(stack) >= C.ROWS:
            raise ValueError(f"column {column} is full")
        stack.append(seat)
        return C.ROWS - len(stack)

    def cascade(self) -> list[Step]:
        """Remove runs step by step (k = 1, 2, ...) until none is left (RULES.md §2)."""
        steps = []
        number = 1
        while runs := self.runs():
            removed = sorted({cell for run in runs for cell in run.cells})
            moves = self._remove(removed)
            steps.append(Step(number, tuple(runs), tuple(removed), moves))
            number += 1
        return steps

    def play(self, column: int, seat: int) -> tuple[int, list[Step]]:
        """A whole move: the drop and its cascade. Returns the landing row and the steps."""
        row = self.drop(column, seat)
        return row, self.cascade()

    def _remove(self, cells: Iterable[Cell]) -> tuple[tuple[Cell, Cell], ...]:
        """Empty ``cells``; the pieces above fall. Returns each fall (from_cell, to_cell)."""
        gone: dict[int, set[int]] = {}
        for row, column in cells:
            gone.setdefault(column, set()).add(C.ROWS - 1 - row)
        moves = []
        for column in sorted(gone):
            heights = gone[column]
            stack = self.columns[column]
            kept = []
            for height, owner in enumerate(stack):
                if height in heights:
                    continue
                if height != len(kept):
                    moves.append(((C.ROWS - 1 - height, column), (C.ROWS - 1 - len(kept), column)))
                kept.append(owner)
            self.columns[column] = kept
        return tuple(moves)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and other.columns == self.columns

    def __repr__(self) -> str:
        return f"board{self.rows()!r}"


def board(*rows: str) -> Board:
    """A board from a drawing, for tests: ``board("..1.....", "2112....")`` (bottom rows)."""
    return Board.from_rows(rows)
