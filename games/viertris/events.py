"""What a Viertris game reports after each change, so a server renders only what changed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from games.core.protocol import Event, GameFinished
from games.core.protocol import PlayerLeft as PlayerLeft  # every game's, re-exported
from games.viertris.board import Cell

# Every event has ``seat`` (0 = the whole game) and a ``kind`` naming what changed:
#   dropped   a piece landed at (row, column); ``timeout`` when the clock played it
#   cascade   step ``step`` of a cascade found ``runs`` and removed the ``removed`` cells
#   settled   after that removal, pieces fell: ``moves`` are (from_cell, to_cell)
#   score     a player's score changed
#   turn      it is now ``seat``'s turn, until ``deadline``
#   left      the player forfeited
#   finished  the game is over (seat 0)


@dataclass(frozen=True, slots=True)
class Dropped(Event):
    column: int
    row: int
    timeout: bool = False
    kind: ClassVar[str] = "dropped"


@dataclass(frozen=True, slots=True)
class Cascade(Event):
    """``runs``: ``(owner, base, points, cells)`` for each run; points = base × step."""

    step: int
    runs: tuple[tuple[int, int, int, tuple[Cell, ...]], ...]
    removed: tuple[Cell, ...]
    kind: ClassVar[str] = "cascade"


@dataclass(frozen=True, slots=True)
class Settled(Event):
    step: int
    moves: tuple[tuple[Cell, Cell], ...]
    kind: ClassVar[str] = "settled"


@dataclass(frozen=True, slots=True)
class ScoreChanged(Event):
    score: int
    kind: ClassVar[str] = "score"


@dataclass(frozen=True, slots=True)
class TurnChanged(Event):
    deadline: float
    kind: ClassVar[str] = "turn"


Finished = GameFinished  # the name Viertris's engine and tests use
