"""Polyomino geometry shared by the falling-block and placement games.

A shape is a collection of cells ``(row, col)``; rows grow downwards, as on screen,
so a clockwise turn maps ``(row, col)`` to ``(col, -row)``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

Cell = tuple[int, int]
Shape = tuple[Cell, ...]


def parse_shape(text: str, filled: str = "#") -> Shape:
    """Cells of a picture such as ``"##./.##"`` (rows separated by ``/``)."""
    return tuple(
        (row, col)
        for row, line in enumerate(text.split("/"))
        for col, char in enumerate(line)
        if char in filled
    )


def draw_shape(cells: Iterable[Cell], filled: str = "#") -> str:
    """The picture of a shape, normalised: the inverse of :func:`parse_shape`."""
    cells = normalise(cells)
    if not cells:
        return ""
    height = max(r for r, _ in cells) + 1
    width = max(c for _, c in cells) + 1
    present = set(cells)
    return "/".join(
        "".join(filled if (r, c) in present else "." for c in range(width)) for r in range(height)
    )


def normalise(cells: Iterable[Cell]) -> Shape:
    """Shift a shape so its top row and left column are 0; cells sorted."""
    cells = list(cells)
    if not cells:
        return ()
    top = min(r for r, _ in cells)
    left = min(c for _, c in cells)
    return tuple(sorted((r - top, c - left) for r, c in cells))


def rotate(cells: Iterable[Cell], turns: int = 1) -> Shape:
    """Turn a shape clockwise ``turns`` quarter turns (negative: anticlockwise), normalised."""
    result = list(cells)
    for _ in range(turns % 4):
        result = [(c, -r) for r, c in result]
    return normalise(result)


def rotate_in_box(cells: Iterable[Cell], size: int) -> Shape:
    """Turn a shape clockwise inside a ``size`` × ``size`` box, without normalising.

    This is how the Super Rotation System defines its rotation states.
    """
    return tuple(sorted((c, size - 1 - r) for r, c in cells))


def mirror(cells: Iterable[Cell]) -> Shape:
    """Flip a shape left to right, normalised."""
    return normalise((r, -c) for r, c in cells)


def orientations(cells: Iterable[Cell], allow_mirror: bool = True) -> list[Shape]:
    """The distinct normalised orientations of a shape (at most 8)."""
    base = normalise(cells)
    candidates = [base, mirror(base)] if allow_mirror else [base]
    seen: list[Shape] = []
    for start in candidates:
        for turns in range(4):
            shape = rotate(start, turns)
            if shape not in seen:
                seen.append(shape)
    return seen


def translate(cells: Iterable[Cell], rows: int, cols: int) -> Shape:
    return tuple((r + rows, c + cols) for r, c in cells)


def fits(cells: Iterable[Cell], occupied: Collection[Cell], height: int, width: int) -> bool:
    """True when every cell lies inside a ``height`` × ``width`` grid and off ``occupied``."""
    return all(0 <= r < height and 0 <= c < width and (r, c) not in occupied for r, c in cells)
