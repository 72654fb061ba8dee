"""The Super Rotation System (Tetris Guideline): tetromino states and wall kicks.

Shared by every falling-block game (TetriWar, Block-Killer). Cells are ``(row, col)``
inside the piece's box, rows growing downwards. State 0 is the spawn state; states
1, 2, 3 are R, 2, L (one, two, three clockwise turns).

Kick offsets are written as in the Guideline, ``(x, y)`` with y pointing *up*;
:func:`kicks` converts them to ``(row, col)`` moves.
"""

from __future__ import annotations

from games.core.geometry import Cell, Shape, parse_shape, rotate_in_box

# Spawn states: JLSTZ in a 3 × 3 box, I in a 4 × 4 box, O in the top middle of a
# 3-wide box (so it spawns in the same columns as the Guideline's 4-wide O box).
SPAWN_PICTURES: dict[str, str] = {
    "I": "..../IIII/..../....",
    "O": ".OO/.OO/...",
    "J": "J../JJJ/...",
    "L": "..L/LLL/...",
    "S": ".SS/SS./...",
    "Z": "ZZ./.ZZ/...",
    "T": ".T./TTT/...",
}
KINDS = "IOJLSZT"
BOX_SIZE = {kind: 4 if kind == "I" else 3 for kind in KINDS}


def _states(kind: str) -> tuple[Shape, Shape, Shape, Shape]:
    spawn = parse_shape(SPAWN_PICTURES[kind], filled=kind)
    if kind == "O":
        return (spawn,) * 4  # the O piece does not change when it turns
    states = [tuple(sorted(spawn))]
    for _ in range(3):
        states.append(rotate_in_box(states[-1], BOX_SIZE[kind]))
    return tuple(states)  # type: ignore[return-value]


STATES: dict[str, tuple[Shape, Shape, Shape, Shape]] = {kind: _states(kind) for kind in KINDS}

# Guideline wall kicks, (x, y) with y up, tested in order; the first that fits wins.
JLSTZ_KICKS: dict[tuple[int, int], tuple[tuple[int, int], ...]] = {
    (0, 1): ((0, 0), (-1, 0), (-1, 1), (0, -2), (-1, -2)),
    (1, 0): ((0, 0), (1, 0), (1, -1), (0, 2), (1, 2)),
    (1, 2): ((0, 0), (1, 0), (1, -1), (0, 2), (1, 2)),
    (2, 1): ((0, 0), (-1, 0), (-1, 1), (0, -2), (-1, -2)),
    (2, 3): ((0, 0), (1, 0), (1, 1), (0, -2), (1, -2)),
    (3, 2): ((0, 0), (-1, 0), (-1, -1), (0, 2), (-1, 2)),
    (3, 0): ((0, 0), (-1, 0), (-1, -1), (0, 2), (-1, 2)),
    (0, 3): ((0, 0), (1, 0), (1, 1), (0, -2), (1, -2)),
}
I_KICKS: dict[tuple[int, int], tuple[tuple[int, int], ...]] = {
    (0, 1): ((0, 0), (-2, 0), (1, 0), (-2, -1), (1, 2)),
    (1, 0): ((0, 0), (2, 0), (-1, 0), (2, 1), (-1, -2)),
    (1, 2): ((0, 0), (-1, 0), (2, 0), (-1, 2), (2, -1)),
    (2, 1): ((0, 0), (1, 0), (-2, 0), (1, -2), (-2, 1)),
    (2, 3): ((0, 0), (2, 0), (-1, 0), (2, 1), (-1, -2)),
    (3, 2): ((0, 0), (-2, 0), (1, 0), (-2, -1), (1, 2)),
    (3, 0): ((0, 0), (1, 0), (-2, 0), (1, -2), (-2, 1)),
    (0, 3): ((0, 0), (-1, 0), (2, 0), (-1, -2), (2, 1)),
}


def kicks(kind: str, start: int, end: int) -> tuple[Cell, ...]:
    """The five ``(row, col)`` offsets tried when turning ``kind`` from ``start`` to ``end``."""
    if kind == "O":
        return ((0, 0),)
    table = I_KICKS if kind == "I" else JLSTZ_KICKS
    return tuple((-y, x) for x, y in table[(start % 4, end % 4)])
