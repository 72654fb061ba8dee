"""Small helpers so Viertris tests read like the rules they check."""

from __future__ import annotations

from games.viertris.engine import Game, Intent, Options


def game_for(seats=(1, 2), seed=7, now=0.0, board=None, turn=None, scores=None, **options) -> Game:
    """A game at ``now``; ``board`` (rows top to bottom, the bottom rows if fewer than 6),
    ``turn`` and ``scores`` arranged with ``Game.setup``."""
    game = Game(Options(**options), seed, list(seats), now)
    game.setup(board=board, turn=turn, scores=scores)
    return game


def drop(game: Game, seat: int, column: int, now: float | None = None) -> list:
    """``seat`` drops into ``column`` at ``now`` (default: the game's current time)."""
    return game.apply(seat, Intent("drop", column), game.now if now is None else now)


def kinds(events) -> list[str]:
    return [event.kind for event in events]


def points(events) -> list[tuple[int, int, int]]:
    """Each run scored, as (step, owner, points), in the order the events report them."""
    return [(e.step, owner, pts) for e in events if e.kind == "cascade" for owner, _, pts, _ in e.runs]
