"""What a Third Option game reports after each change, so a server renders only what
changed. Every event has ``seat`` (0: the whole game) and a ``kind``:

    round       round ``round`` began: ``cards`` revealed, ``deck`` cards left, until
                ``deadline``
    third       ``seat`` gets a third option, ``card`` (for their eyes only), which
                ``fits`` or not
    out         ``seat`` is eliminated; ``free_square`` if they get the free 1 × 1;
                ``deck_empty`` if neither card fitted and the deck had no third option
    placed      ``seat`` placed ``card`` (its name) on ``cells``; ``timeout`` when the
                round clock placed it
    left        the player forfeited
    finished    the game is over (seat 0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from games.core.protocol import Event, GameFinished
from games.core.protocol import PlayerLeft as PlayerLeft  # every game's, re-exported

Cell = tuple[int, int]


@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    round: int
    cards: tuple[str, ...]
    deck: int
    deadline: float
    kind: ClassVar[str] = "round"


@dataclass(frozen=True, slots=True)
class ThirdOption(Event):
    card: str
    fits: bool
    kind: ClassVar[str] = "third"


@dataclass(frozen=True, slots=True)
class Eliminated(Event):
    free_square: bool
    deck_empty: bool = False  # out because the deck had no third option left to deal
    kind: ClassVar[str] = "out"


@dataclass(frozen=True, slots=True)
class Placed(Event):
    card: str
    cells: tuple[Cell, ...]
    empty: int  # the player's empty squares after it
    timeout: bool = False
    kind: ClassVar[str] = "placed"


Finished = GameFinished
