"""Small helpers so TetriWar tests read like the rules they check."""

from __future__ import annotations

from games.tetriwar.engine import Game, Intent, Options
from games.tetriwar.field import field

__all__ = ["field", "game_for", "land", "press", "rows", "WELL", "LEFT", "RIGHT", "ROTATE", "HARD_DROP"]

LEFT, RIGHT, ROTATE, HARD_DROP = (Intent(n) for n in ("left", "right", "rotate", "hard_drop"))
WELL = "XXXXXXXXX."  # a row with its only hole in the last column
I_IN_WELL = ("I", 1, 7, 0)  # a vertical I whose cells are in column 9, at the top


def game_for(seats=(1,), seed=7, now=0, **options) -> Game:
    return Game(Options(**options), seed, list(seats), now)


def press(game: Game, seat: int, *names: str, now: int | None = None) -> list:
    """Apply intents by text at ``now`` (default: the game's current time)."""
    events = []
    for name in names:
        events += game.apply(seat, Intent.parse(name), game.now if now is None else now)
    return events


def land(game: Game, seat: int, t: int) -> list:
    """The clocks run to ``t``, then ``seat``'s next piece enters then (as after a lock, the
    falling piece gone without a trace): the bombs due by ``t`` land on it first."""
    events = game.advance(t)
    game.players[seat].spawn(t, events)
    return events


def rows(game: Game, seat: int = 1, count: int = 4) -> tuple[str, ...]:
    """The bottom ``count`` visible rows of a board."""
    return game.view(seat).field[-count:]


def kinds(events) -> list[str]:
    return [event.kind for event in events]
