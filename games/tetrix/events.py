"""What a Te-Trix game reports after each change, so a server renders only what
changed. Every event has ``seat`` (0: the whole game) and a ``kind``:

    rolled        the roller ``seat`` rolled ``dice`` (four symbols) for round ``round``
    turn          who acts now, until ``deadline``: the roller ``seat`` arranges
                  (``phase`` "arrange"; also when the dice pass on from a roller who
                  left), or every player writes (``phase`` "write", seat 0)
    arranged      the roller ``seat`` arranged the dice into ``shape`` with ``symbols``
                  (in the order of its cells); ``timeout`` when the clock did
    wrote         ``seat`` wrote ``cells`` (row, column, symbol); ``hanging`` symbols were
                  left over the edge (solo: ``crossed`` boxes of the bar crossed in all);
                  ``score``: the player's score after it; ``timeout`` when the clock did
    cannot_write  ``seat`` cannot write this round's shape: the game ends after the round
    stopped       the solo player stopped the game
    left          the player forfeited
    finished      the game is over (seat 0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from games.core.protocol import Event, GameFinished
from games.core.protocol import PlayerLeft as PlayerLeft  # every game's, re-exported

WrittenCell = tuple[int, int, str]  # (row, column, symbol)


@dataclass(frozen=True, slots=True)
class Rolled(Event):
    round: int
    dice: str
    kind: ClassVar[str] = "rolled"


@dataclass(frozen=True, slots=True)
class TurnChanged(Event):
    phase: str
    deadline: float
    kind: ClassVar[str] = "turn"


@dataclass(frozen=True, slots=True)
class Arranged(Event):
    shape: str
    symbols: str
    timeout: bool = False
    kind: ClassVar[str] = "arranged"


@dataclass(frozen=True, slots=True)
class Wrote(Event):
    cells: tuple[WrittenCell, ...]
    hanging: int
    score: int
    crossed: int = 0
    timeout: bool = False
    kind: ClassVar[str] = "wrote"


@dataclass(frozen=True, slots=True)
class CannotWrite(Event):
    kind: ClassVar[str] = "cannot_write"


@dataclass(frozen=True, slots=True)
class Stopped(Event):
    kind: ClassVar[str] = "stopped"


Finished = GameFinished
