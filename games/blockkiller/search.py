"""Every placement a piece can reach: a breadth-first search over left, right, down and
clockwise SRS rotation, from where it enters to where it can lock.

    for placement in placements(field, "T"):
        placement.piece, placement.keys, placement.spin

A placement is a resting position inside the visible field, reached with its last
successful action a move or (a distinct placement, which may be a spin) a rotation.
``keys`` is the shortest string of ``L R D U`` that reaches it from the spawn; the
engine's ``place:<card>:<keys>`` plays exactly that and then locks.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from games.blockkiller.field import Field, Piece

KEYS = {"L": (0, -1), "R": (0, 1), "D": (1, 0)}


@dataclass(frozen=True, slots=True)
class Placement:
    piece: Piece  # where it locks (``rotated``: its last action was a rotation)
    keys: str
    spin: bool


def step(field: Field, piece: Piece, key: str) -> Piece | None:
    """One key on a piece: ``L R D`` move, ``U`` turns clockwise; None where blocked."""
    if key == "U":
        return field.rotate(piece)
    drow, dcol = KEYS[key]
    return field.move(piece, drow, dcol)


def placements(field: Field, kind: str, mini_rule: bool = False) -> list[Placement]:
    """Every distinct lockable placement of ``kind`` on ``field`` (none when it cannot enter)."""
    start = field.spawn(kind)
    if start is None:
        return []
    parent: dict[Piece, tuple[Piece | None, str]] = {start: (None, "")}
    queue = deque([start])
    found: list[Placement] = []
    while queue:
        piece = queue.popleft()
        if field.resting(piece) and field.inside(piece):
            found.append(Placement(piece, _keys(parent, piece), field.is_spin(piece, mini_rule)))
        for key in "LRDU":
            nxt = step(field, piece, key)
            if nxt is not None and nxt not in parent:
                parent[nxt] = (piece, key)
                queue.append(nxt)
    return found


def _keys(parent: dict[Piece, tuple[Piece | None, str]], piece: Piece) -> str:
    keys = []
    while True:
        before, key = parent[piece]
        if before is None:
            return "".join(reversed(keys))
        keys.append(key)
        piece = before
