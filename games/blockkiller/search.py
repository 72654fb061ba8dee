"""Every placement a piece can reach: a breadth-first search over left, right, down and
SRS rotation both ways, from where it enters to where it can lock.

    for placement in placements(field, "T"):
        placement.piece, placement.keys, placement.spin

A placement is a resting position inside the visible field, reached with its last
successful action a move or (a distinct placement, which may be a spin) a rotation.
``keys`` is the shortest string of ``L R D U C`` (``U`` turns clockwise, ``C`` counter-
clockwise) that reaches it from the spawn; the engine's ``place:<card>:<keys>`` plays
exactly that and then locks. Of several shortest strings it is the first in the order
``L < R < D < U < C`` (the search tries the keys in that order), and placements come in
the order the search finds them.

The search is the bot's hot path, so it works on small ints, not :class:`Piece` values
(which it makes only for the placements found): a position ``p`` (rotation, row, column)
is one index into a ``bytes`` table of where the piece fits, built for the whole field at
once with bitboard shifts (see :func:`_fits`); a move is ``p ± 1`` or ``p + 16``.
"""

from __future__ import annotations

from dataclasses import dataclass

from games.blockkiller import constants as C
from games.blockkiller.field import (
    CELLS,
    GEOMETRY,
    KICKS,
    KICKS_CCW,
    KINDS,
    SPAWN_COLUMN,
    TOP_VISIBLE,
    TURNS,
    Field,
    Piece,
)

KEYS = {"L": (0, -1), "R": (0, 1), "D": (1, 0)}


@dataclass(frozen=True, slots=True)
class Placement:
    piece: Piece  # where it locks (``rotated``: its last action was a rotation)
    keys: str
    spin: bool


def step(field: Field, piece: Piece, key: str) -> Piece | None:
    """One key on a piece: ``L R D`` move, ``U`` turns clockwise, ``C`` counter-clockwise;
    None where blocked."""
    if key == "U":
        return field.rotate(piece)
    if key == "C":
        return field.rotate(piece, -1)
    drow, dcol = KEYS[key]
    return field.move(piece, drow, dcol)


# --- Positions as ints -----------------------------------------------------------------
# Position p = rotation * _ROT + (row + _ROW0) * 16 + (col + _COL0). Columns −4…11 and
# rows −6…25 of every rotation fit in the 16 × 32 block; a piece that fits anywhere has
# col ≥ −3, col ≤ 9 and row ≥ −3, row ≤ 21, so p ± 1, p ± 16 and every kick stay inside
# the table, in cells that never fit.
_COL0, _ROW0 = 4, 6
_ROT = 32 * 16
_BOARD_ROWS = 40  # the board bitboard reaches past the last row a piece cell can touch
_SLICE = (1 << _ROT) - 1
_AS_BYTES = bytes.maketrans(b"01", b"\x00\x01")
_SECOND = 4 * _ROT  # added to p in the queue: a second visit to p, known to be a placement


def _walls() -> int:
    """The board's bitboard around the field: every cell left, right, above or below it."""
    walls = 0
    for i in range(_BOARD_ROWS):
        row = i - _ROW0
        outside = 0xFFFF if not 0 <= row < C.HEIGHT else 0xFFFF ^ (C.FULL_ROW << _COL0)
        walls |= outside << (i * 16)
    return walls


_WALLS = _walls()


def _kick_moves(kind: str, table: dict, turn: int) -> tuple[tuple[int, ...], ...]:
    """The kicks of one direction as moves of p, from each rotation."""
    return tuple(
        tuple(((rot + turn) % 4 - rot) * _ROT + dr * 16 + dc for dr, dc in table[kind][rot]) if TURNS[kind] else ()
        for rot in range(4)
    )


def _tables(kind: str) -> tuple:
    """Of ``kind``: its cells' offsets and its kicks' moves (from p) in each rotation,
    clockwise then counter-clockwise, the smallest ``p % _ROT`` inside the visible field
    in each rotation, and its spawn."""
    cells = tuple(tuple(dr * 16 + dc for dr, dc in CELLS[kind][rot]) for rot in range(4))
    kicks = _kick_moves(kind, KICKS, 1)
    kicks_ccw = _kick_moves(kind, KICKS_CCW, -1)
    inside = tuple((TOP_VISIBLE - GEOMETRY[kind][rot][1] + _ROW0) * 16 for rot in range(4))
    spawn = (_ROW0 - GEOMETRY[kind][0][1]) * 16 + SPAWN_COLUMN[kind] + _COL0
    return cells, kicks, kicks_ccw, inside, spawn


_TABLES = {kind: _tables(kind) for kind in KINDS}
_PIECES: dict[str, dict[int, Piece]] = {kind: {} for kind in KINDS}  # by p * 2 + rotated


def _fits(rows: list[int], cells: tuple[tuple[int, ...], ...]) -> bytes:
    """``fits[p]`` is 1 where the piece is not :func:`~games.blockkiller.field.blocked`:
    the board (field and walls) as one int, shifted back by each cell's offset and OR-ed
    is where some cell is filled; its complement, one byte a position."""
    board = _WALLS
    for r, row in enumerate(rows):
        if row:
            board |= (row & C.FULL_ROW) << ((r + _ROW0) * 16 + _COL0)
    fits, last, free = 0, None, 0
    for rot in (3, 2, 1, 0):
        if cells[rot] != last:  # O and the monomino: one shape in all four rotations
            last, filled = cells[rot], 0
            for offset in last:
                filled |= board >> offset
            free = ~filled & _SLICE
        fits = fits << _ROT | free
    return format(fits, f"0{4 * _ROT}b")[::-1].encode().translate(_AS_BYTES)


def placements(field: Field, kind: str, mini_rule: bool = False) -> list[Placement]:
    """Every distinct lockable placement of ``kind`` on ``field`` (none when it cannot enter)."""
    cells, kicks, kicks_ccw, inside, spawn = _TABLES[kind]
    fits = _fits(field.rows, cells)
    if not fits[spawn]:
        return []
    # A state is (p, rotated). Both states of a position have the same successors, so only
    # the first one dequeued is expanded; the other is queued only if it is a placement.
    by_move = bytearray(fits)  # 1: (p, not rotated) not reached yet
    by_turn = bytearray(fits)  # 1: (p, rotated) not reached yet
    fresh = bytearray(fits)  # 1: neither reached yet
    by_move[spawn] = fresh[spawn] = 0
    queue: list[tuple[int, str]] = [(spawn, "")]
    push = queue.append
    found: list[tuple[int, str]] = []
    for p, path in queue:  # breadth first: the queue grows as it is read
        if p >= _SECOND:
            found.append((p - _SECOND, path))
            continue
        if not fits[p + 16] and p & (_ROT - 1) >= inside[p // _ROT]:
            found.append((p, path))
        # L, R, D and U unrolled: this loop is the hot path.
        q = p - 1
        if by_move[q]:
            by_move[q] = 0
            if fresh[q]:
                fresh[q] = 0
                push((q, path + "L"))
            elif not fits[q + 16] and q & (_ROT - 1) >= inside[q // _ROT]:
                push((q + _SECOND, path + "L"))
        q = p + 1
        if by_move[q]:
            by_move[q] = 0
            if fresh[q]:
                fresh[q] = 0
                push((q, path + "R"))
            elif not fits[q + 16] and q & (_ROT - 1) >= inside[q // _ROT]:
                push((q + _SECOND, path + "R"))
        q = p + 16
        if by_move[q]:
            by_move[q] = 0
            if fresh[q]:
                fresh[q] = 0
                push((q, path + "D"))
            elif not fits[q + 16] and q & (_ROT - 1) >= inside[q // _ROT]:
                push((q + _SECOND, path + "D"))
        for kick in kicks[p // _ROT]:  # the first kick that fits, as Field.rotate
            q = p + kick
            if fits[q]:
                if by_turn[q]:
                    by_turn[q] = 0
                    if fresh[q]:
                        fresh[q] = 0
                        push((q, path + "U"))
                    elif not fits[q + 16] and q & (_ROT - 1) >= inside[q // _ROT]:
                        push((q + _SECOND, path + "U"))
                break
        # Counter-clockwise: the same as above, written out again (a loop over the two
        # directions costs this search 10–15%, measured with bench/blockkiller.py).
        for kick in kicks_ccw[p // _ROT]:
            q = p + kick
            if fits[q]:
                if by_turn[q]:
                    by_turn[q] = 0
                    if fresh[q]:
                        fresh[q] = 0
                        push((q, path + "C"))
                    elif not fits[q + 16] and q & (_ROT - 1) >= inside[q // _ROT]:
                        push((q + _SECOND, path + "C"))
                break
    result = []
    pieces = _PIECES[kind]
    for p, path in found:
        rotated = path[-1:] in ("U", "C")
        piece = pieces.get(p * 2 + rotated)
        if piece is None:
            row, col = (p % _ROT) // 16 - _ROW0, p % 16 - _COL0
            piece = pieces[p * 2 + rotated] = Piece(kind, p // _ROT, row, col, rotated)
        # Field.is_spin: rotated last, and it cannot move left, right or up.
        spin = rotated and not (fits[p - 1] or fits[p + 1] or fits[p - 16])
        if spin and mini_rule and kind == "T":
            spin = field.is_spin(piece, mini_rule)
        result.append(Placement(piece, path, spin))
    return result
