"""What a TetriWar game reports after each change, so a server renders only what changed.

Every event has ``seat`` (0 = the whole game) and a ``kind`` naming the screen region:

=============  ===============================================================
``piece``      the falling piece or its ghost moved, turned, fell or spawned
``field``      field rows changed (lock, clear, bomb): ``rows`` are visible row
               indices, 0 = top visible row
``score``      score, level, lines or eliminations changed
``next``       the 3-piece preview changed
``store``      the bomb store changed
``feed``       a bomb was dropped on the board (announced at once, lands later):
               ``sender`` is the dropper's number as the
               receiver numbers players (1 = oneself), ``from_seat`` their seat
``landed``     a bomb announced earlier took effect (``bomb``, ``sender`` its seat);
               its changes come as their own events
``control``    lack of control began (``reversed`` True, ``until``) or ended
``eliminated`` the player topped out and starts again on an empty field
``left``       the player forfeited
``over``       the game ended with this player still in it: the board stops, its
               falling piece and ghost are gone (one per such board, before ``finished``)
``finished``   the game is over (seat 0)
=============  ===============================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from games.core.protocol import Event
from games.core.protocol import GameFinished as GameFinished  # every game's, re-exported
from games.core.protocol import PlayerLeft as PlayerLeft


@dataclass(frozen=True, slots=True)
class PieceChanged(Event):
    kind: ClassVar[str] = "piece"


# The events every piece placed makes (a lock) have their own ``__init__``: dataclass's
# sets each field of a frozen class through ``object.__setattr__``, by name, twice as slow
# as setting the slot itself (``_set``, below). bench/engine.py: a few % of a replay.


@dataclass(frozen=True, slots=True)
class FieldChanged(Event):
    rows: tuple[int, ...]
    kind: ClassVar[str] = "field"

    def __init__(self, seat: int, rows: tuple[int, ...]) -> None:
        _set_seat(self, seat)
        _set_rows(self, rows)


@dataclass(frozen=True, slots=True)
class ScoreChanged(Event):
    score: int
    level: int
    lines: int
    eliminations: int
    kind: ClassVar[str] = "score"

    def __init__(self, seat: int, score: int, level: int, lines: int, eliminations: int) -> None:
        _set_seat(self, seat)
        _set_score(self, score)
        _set_level(self, level)
        _set_lines(self, lines)
        _set_eliminations(self, eliminations)


@dataclass(frozen=True, slots=True)
class NextChanged(Event):
    next: tuple[str, ...]
    kind: ClassVar[str] = "next"

    def __init__(self, seat: int, next: tuple[str, ...]) -> None:
        _set_seat(self, seat)
        _set_next(self, next)


def _set(cls: type, name: str):
    """The setter of a slot of a frozen event class."""
    return next(c.__dict__[name] for c in cls.__mro__ if name in c.__dict__).__set__


_set_seat = _set(Event, "seat")
_set_rows = _set(FieldChanged, "rows")
_set_score = _set(ScoreChanged, "score")
_set_level = _set(ScoreChanged, "level")
_set_lines = _set(ScoreChanged, "lines")
_set_eliminations = _set(ScoreChanged, "eliminations")
_set_next = _set(NextChanged, "next")


@dataclass(frozen=True, slots=True)
class StoreChanged(Event):
    store: tuple[str, ...]
    kind: ClassVar[str] = "store"


@dataclass(frozen=True, slots=True)
class BombReceived(Event):
    sender: int
    bomb: str
    from_seat: int
    kind: ClassVar[str] = "feed"


@dataclass(frozen=True, slots=True)
class ControlChanged(Event):
    reversed: bool
    until: int | None
    kind: ClassVar[str] = "control"


@dataclass(frozen=True, slots=True)
class Eliminated(Event):
    eliminations: int
    kind: ClassVar[str] = "eliminated"


@dataclass(frozen=True, slots=True)
class BoardOver(Event):
    kind: ClassVar[str] = "over"


@dataclass(frozen=True, slots=True)
class FeedEntry:
    """One received bomb, as the receiver's board shows it."""

    sender: int  # the dropper's number as the receiver numbers players (1 = oneself)
    bomb: str
    from_seat: int


@dataclass(frozen=True, slots=True)
class BombLanded(Event):
    """A bomb announced earlier took effect on ``seat``'s board (at its next piece at or
    after BOMB_DELAY_MS from the drop): ``sender`` is the dropper's seat."""

    bomb: str
    sender: int
    kind: ClassVar[str] = "landed"
