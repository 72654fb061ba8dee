"""Small helpers so Te-Trix tests read like the rules they check."""

from __future__ import annotations

import pytest

from games.tetrix.engine import Game, IllegalIntent, Intent, Options

# A sheet with every cell written but for those drawn "." (a pattern with no area of
# five: no row of it scores); the rows are the drawing, row 0 on top.
FULL_SHEET = (
    "osxosxo",
    "sxosxos",
    "xosxosx",
    "osxosxo",
    "sxosxos",
    "xosxosx",
    "osxosxo",
)


def full_but(*holes: tuple[int, int]) -> list[str]:
    """:data:`FULL_SHEET` with the cells ``holes`` empty."""
    rows = [list(row) for row in FULL_SHEET]
    for r, c in holes:
        rows[r][c] = "."
    return ["".join(row) for row in rows]


def game_for(
    seats=(1, 2), seed=7, now=0.0, sheets=None, roller=None, dice=None, crossed=None, **options
) -> Game:
    """A game at ``now``; with ``sheets`` (drawings by seat), a ``roller``, ``dice`` or
    (solo) ``crossed`` boxes, the round is started again on that position."""
    game = Game(Options(**options), seed, list(seats), now)
    if sheets is not None or roller is not None or dice is not None or crossed is not None:
        game.setup(sheets=sheets, roller=roller, dice=dice, crossed=crossed)
    return game


def arrange(game: Game, shape: str, symbols: str, now=None) -> list:
    """The roller arranges the dice (at ``now``, by default the game's current time)."""
    return game.apply(game.roller, Intent.arrange(shape, symbols), game.now if now is None else now)


def write(game: Game, seat: int, turns=0, row=0, column=0, now=None) -> list:
    return game.apply(seat, Intent.write(turns, row, column), game.now if now is None else now)


def kinds(events) -> list[str]:
    return [event.kind for event in events]


def refused(game: Game, seat: int, intent: Intent | str, code: str) -> IllegalIntent:
    """``seat``'s intent is refused with ``code`` and a message, and changes nothing."""
    before = game.to_text()
    with pytest.raises(IllegalIntent) as error:
        game.apply(seat, Intent.parse(intent) if isinstance(intent, str) else intent, game.now)
    assert error.value.code == code, error.value
    assert error.value.message
    assert game.to_text() == before
    return error.value
