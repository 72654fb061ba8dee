"""The field of one play: garbage rows at the bottom, pieces moved by left, right, down
and SRS rotations, full rows cleared.

A row is an int, bit ``c`` set where column ``c`` is filled; row 0 is the top hidden row
and row ``HEIGHT − 1`` the floor row. Each row also remembers the garbage cards it was
made of, so uncleared garbage goes back to the hand and cleared garbage to the discard.
A piece is a :class:`Piece` value: kind, rotation state (0–3, SRS), and the row and
column of its box's top-left corner.

    f = field("..........", "XXXXXXXXX.")   # the bottom rows, drawn, top first
    p = spawn(f, "I")
    p = rotate(f, p); ...                      # None where the move is blocked
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from games.blockkiller import constants as C
from games.blockkiller.cards import garbage_row, row_text
from games.core.srs import STATES, kicks

W, H = C.WIDTH, C.HEIGHT
KINDS = "ZSJLTOIM"
TOP_VISIBLE = C.HIDDEN_ROWS  # the first visible row


def _geometry(cells) -> tuple[tuple[tuple[int, int], ...], int, int, int, int]:
    rows: dict[int, int] = {}
    for r, c in cells:
        rows[r] = rows.get(r, 0) | 1 << c
    rs = [r for r, _ in cells]
    cs = [c for _, c in cells]
    return tuple(sorted(rows.items())), min(rs), max(rs), min(cs), max(cs)


CELLS: dict[str, tuple[tuple[tuple[int, int], ...], ...]] = {
    **{kind: STATES[kind] for kind in "ZSJLTOI"},
    "M": (((0, 0),),) * 4,
}
GEOMETRY = {kind: tuple(_geometry(CELLS[kind][rot]) for rot in range(4)) for kind in KINDS}
TURNS = {kind: kind not in "OM" for kind in KINDS}  # O and the monomino do not turn
KICKS = {kind: tuple(kicks(kind, rot, rot + 1) for rot in range(4)) for kind in "ZSJLTOI"}  # clockwise
KICKS_CCW = {kind: tuple(kicks(kind, rot, rot - 1) for rot in range(4)) for kind in "ZSJLTOI"}
# Where a piece enters: its box's column, and the row that puts its top cells in row 0.
SPAWN_COLUMN = {**{kind: 3 for kind in "ZSJLTOI"}, "M": 4}
# The T's front corners (the side it points to) by rotation state, in its 3 × 3 box.
T_CORNERS = ((0, 0), (0, 2), (2, 0), (2, 2))
T_FRONT = {0: ((0, 0), (0, 2)), 1: ((0, 2), (2, 2)), 2: ((2, 0), (2, 2)), 3: ((0, 0), (2, 0))}


@dataclass(frozen=True, slots=True)
class Piece:
    kind: str
    rotation: int
    row: int
    col: int
    rotated: bool = False  # was the last successful action a rotation?

    def cells(self) -> tuple[tuple[int, int], ...]:
        return tuple((self.row + r, self.col + c) for r, c in CELLS[self.kind][self.rotation])

    @property
    def key(self) -> tuple[int, int, int]:
        return self.rotation, self.row, self.col


def blocked(rows: Sequence[int], kind: str, rotation: int, row: int, col: int) -> bool:
    """Whether the piece there would leave the field or overlap a filled cell."""
    masks, top, bottom, left, right = GEOMETRY[kind][rotation]
    if col + left < 0 or col + right >= W or row + top < 0 or row + bottom >= H:
        return True
    if col >= 0:
        return any(rows[row + dr] & (m << col) for dr, m in masks)
    return any(rows[row + dr] & (m >> -col) for dr, m in masks)


class Field:
    """Rows of one play, with the garbage cards of each row."""

    __slots__ = ("rows", "cards")

    def __init__(self, rows: Sequence[int] | None = None, cards: Sequence[tuple[int, ...]] | None = None) -> None:
        self.rows: list[int] = list(rows) if rows is not None else [0] * H
        self.cards: list[tuple[int, ...]] = list(cards) if cards is not None else [()] * H
        assert len(self.rows) == H and len(self.cards) == H

    def copy(self) -> Field:
        return Field(self.rows, self.cards)

    @classmethod
    def stacked(cls, stack: Sequence[Sequence[tuple[int, bool]]]) -> Field:
        """An empty field with garbage rows at the bottom, ``stack[0]`` lowest. Each row is
        one card ``((card, flipped),)`` or two checkerboard cards merged into one row."""
        field = cls()
        for i, row_cards in enumerate(stack):
            row = 0
            for card, flipped in row_cards:
                row |= garbage_row(card, flipped)
            field.rows[H - 1 - i] = row
            field.cards[H - 1 - i] = tuple(card for card, _ in row_cards)
        return field

    def garbage_cards(self) -> list[int]:
        return [card for cards in self.cards for card in cards]

    def text(self) -> tuple[str, ...]:
        """The visible rows, top first: ``X`` filled, ``.`` empty."""
        return tuple(row_text(row) for row in self.rows[TOP_VISIBLE:])

    # --- pieces ------------------------------------------------------------------------
    def spawn(self, kind: str) -> Piece | None:
        rotation = 0
        top = GEOMETRY[kind][rotation][1]
        piece = Piece(kind, rotation, -top, SPAWN_COLUMN[kind])
        return None if self.blocks(piece) else piece

    def blocks(self, piece: Piece) -> bool:
        return blocked(self.rows, piece.kind, piece.rotation, piece.row, piece.col)

    def move(self, piece: Piece, drow: int, dcol: int) -> Piece | None:
        """The piece moved by (drow, dcol), or None where it is blocked."""
        if blocked(self.rows, piece.kind, piece.rotation, piece.row + drow, piece.col + dcol):
            return None
        return Piece(piece.kind, piece.rotation, piece.row + drow, piece.col + dcol, False)

    def rotate(self, piece: Piece, turn: int = 1) -> Piece | None:
        """The piece turned clockwise (``turn`` 1) or counter-clockwise (−1) with the SRS
        kick tests, or None if all five fail."""
        if not TURNS[piece.kind]:
            return None
        end = (piece.rotation + turn) % 4
        for dr, dc in (KICKS if turn == 1 else KICKS_CCW)[piece.kind][piece.rotation]:
            if not blocked(self.rows, piece.kind, end, piece.row + dr, piece.col + dc):
                return Piece(piece.kind, end, piece.row + dr, piece.col + dc, True)
        return None

    def drop(self, piece: Piece) -> Piece:
        """Down until it stops (the hard drop); unchanged (a rotation stays last) if it rests."""
        while (lower := self.move(piece, 1, 0)) is not None:
            piece = lower
        return piece

    def resting(self, piece: Piece) -> bool:
        return self.move(piece, 1, 0) is None

    def is_spin(self, piece: Piece, mini_rule: bool = False) -> bool:
        """RULES.md §4: the last successful action was a rotation and the piece cannot move
        left, right or up. With the Mini option, a T with fewer than two front corners
        filled is no spin."""
        if not piece.rotated:
            return False
        if self.move(piece, 0, -1) or self.move(piece, 0, 1) or self.move(piece, -1, 0):
            return False
        if mini_rule and piece.kind == "T":
            filled = sum(self._filled(piece.row + r, piece.col + c) for r, c in T_FRONT[piece.rotation])
            return filled >= 2
        return True

    def _filled(self, row: int, col: int) -> bool:
        return not (0 <= col < W and 0 <= row < H) or bool(self.rows[row] >> col & 1)

    def inside(self, piece: Piece) -> bool:
        """Whether every cell of the piece is in the visible field."""
        return piece.row + GEOMETRY[piece.kind][piece.rotation][1] >= TOP_VISIBLE

    def lock(self, piece: Piece) -> tuple[int, list[int]]:
        """Put the piece down and clear full rows: ``(lines, garbage cards cleared)``."""
        for r, c in piece.cells():
            self.rows[r] |= 1 << c
        full = [r for r in range(H) if self.rows[r] == C.FULL_ROW]
        cleared = [card for r in full for card in self.cards[r]]
        if full:
            gone = set(full)
            rows = [row for r, row in enumerate(self.rows) if r not in gone]
            cards = [cards for r, cards in enumerate(self.cards) if r not in gone]
            self.rows = [0] * len(full) + rows
            self.cards = [()] * len(full) + cards
        return len(full), cleared


def field(*drawn: str) -> Field:
    """A field from drawn rows (``X`` filled, ``.`` empty), the last one on the floor; rows
    drawn with ``G`` are garbage rows holding no card (for tests)."""
    f = Field()
    for i, line in enumerate(reversed(drawn)):
        if len(line) != W:
            raise ValueError(f"a row is {W} cells, not {line!r}")
        f.rows[H - 1 - i] = sum(1 << c for c, ch in enumerate(line) if ch != ".")
    return f
