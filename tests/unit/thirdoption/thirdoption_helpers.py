"""Small helpers so Third Option tests read like the rules they check."""

from __future__ import annotations

from games.thirdoption.engine import Game, Intent, Options

FULL_ROW = "#########"
EMPTY_ROW = "........."


def game_for(seats=(1, 2), seed=7, now=0.0, grids=None, deck=None, out=(), **options) -> Game:
    """A game at ``now``; with ``grids`` (drawings by seat), a ``deck`` (drawing order)
    or seats already ``out``, a new round is started on that position (``Game.setup``)."""
    game = Game(Options(**options), seed, list(seats), now)
    if grids is not None or deck is not None or out:
        game.setup(grids=grids, deck=deck, out=out)
    return game


def place(
    game: Game, seat: int, card: int, turns=0, mirrored=False, row=0, column=0, now=None, round=None
) -> list:
    """``seat`` places card ``card`` (0, 1: revealed; 2: their own) at ``now`` (default:
    the game's current time) in the current round."""
    intent = Intent(game.round if round is None else round, card, turns, mirrored, row, column)
    return game.apply(seat, intent, game.now if now is None else now)


def kinds(events) -> list[str]:
    return [event.kind for event in events]


def full_but(*holes: str) -> list[str]:
    """A grid drawn full but for the rows given from the top (``"##..#####"``), the
    rest full."""
    return [*holes, *[FULL_ROW] * (9 - len(holes))]
