"""What a Block-Killer game reports after each change, so a server renders only what changed.

Every event has ``seat`` (0 = the whole game) and a ``kind``:
  turn       it is ``seat``'s turn (``phase``: draw, play, attack or defend) until ``deadline``
  drew       ``seat`` drew ``blocks`` block and ``garbage`` garbage cards
  passed     ``seat`` ended the turn without playing (``timeout``: the clock did)
  field      the field of ``seat``'s play changed (stack, piece moved, piece locked)
  cleared    a piece of ``seat`` cleared ``lines`` (``spin``, ``combo``, ``b2b``) for ``attack`` / ``offset``
  attacked   ``seat`` sent ``attack`` to ``target``
  exchange   the exchange is settled: see the fields
  out        ``seat`` holds more than 12 garbage cards and is out
  left       the player forfeited
  finished   the game is over (seat 0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from games.core.protocol import Event, GameFinished
from games.core.protocol import PlayerLeft as PlayerLeft  # every game's, re-exported


@dataclass(frozen=True, slots=True)
class TurnChanged(Event):
    phase: str
    deadline: float
    kind: ClassVar[str] = "turn"


@dataclass(frozen=True, slots=True)
class Drew(Event):
    blocks: int
    garbage: int
    kind: ClassVar[str] = "drew"


@dataclass(frozen=True, slots=True)
class Passed(Event):
    timeout: bool = False
    kind: ClassVar[str] = "passed"


@dataclass(frozen=True, slots=True)
class FieldChanged(Event):
    kind: ClassVar[str] = "field"


@dataclass(frozen=True, slots=True)
class Cleared(Event):
    lines: int
    spin: bool
    combo: int
    b2b: bool
    attack: int
    offset: int
    kind: ClassVar[str] = "cleared"


@dataclass(frozen=True, slots=True)
class Attacked(Event):
    target: int
    attack: int
    kind: ClassVar[str] = "attacked"


@dataclass(frozen=True, slots=True)
class Exchange(Event):
    """``seat`` attacked ``defender`` with ``attack``; the defence made ``defence`` and
    ``offset``; the defender drew ``to_defender``, the attacker ``to_attacker``."""

    defender: int
    attack: int
    defence: int
    offset: int
    to_defender: int
    to_attacker: int
    kind: ClassVar[str] = "exchange"


@dataclass(frozen=True, slots=True)
class Out(Event):
    kind: ClassVar[str] = "out"


Finished = GameFinished
