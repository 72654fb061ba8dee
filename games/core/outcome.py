"""How a game ended: an :class:`Outcome`, as python-chess's ``Outcome(termination,
winner)``, for every game of the site.

An engine that has finished says why (:class:`Termination`) and in what order the
sides finished (:class:`Standing`, best first). Services record it, results panels
show it, and a replay of the input log must end in the same one. Pure Python.
"""

from __future__ import annotations

import enum
from collections.abc import Hashable, Iterable
from dataclasses import asdict, dataclass, field


class Termination(enum.Enum):
    """Why a game ended."""

    TIME = "time"  # the game's clock ran out
    LAST_STANDING = "last_standing"  # one side is left in play
    FORFEIT = "forfeit"  # every side but one (or every side) left the game
    FULL_BOARD = "full_board"  # no place is left to play
    TARGET_SCORE = "target_score"  # a side reached the table's target score
    MOVE_LIMIT = "move_limit"  # the table's number of moves was played
    FULL_GRID = "full_grid"  # a player filled their whole grid and wins at once
    ALL_OUT = "all_out"  # every player is out (eliminated), none left to play
    DECK_EMPTY = "deck_empty"  # the deck of cards ran out
    ABORT = "abort"  # stopped without a result: stakes go back

    @property
    def words(self) -> str:
        return TERMINATION_WORDS[self]


TERMINATION_WORDS = {
    Termination.TIME: "Time is up.",
    Termination.LAST_STANDING: "Only one side is left standing.",
    Termination.FORFEIT: "The game ended when players left it.",
    Termination.FULL_BOARD: "The board is full.",
    Termination.TARGET_SCORE: "The target score was reached.",
    Termination.MOVE_LIMIT: "The last move was played.",
    Termination.FULL_GRID: "A player filled the whole grid.",
    Termination.ALL_OUT: "Every player is out.",
    Termination.DECK_EMPTY: "The deck ran out.",
    Termination.ABORT: "The game was stopped without a result.",
}


@dataclass(frozen=True)
class Standing:
    """One line of the results: a player, or a pair (``seats`` of both partners).

    ``forfeited``: the side ranks as a leaver (behind every side still in). ``left``:
    which of its seats left the game; each of them, and only they, take the leave
    penalty (RULES.md §6). A pair whose one partner left is ``forfeited`` with
    ``left`` naming that partner alone."""

    place: int  # 1 = first; shared places repeat (1, 1, 3)
    seats: tuple[int, ...]
    score: int
    lines: int = 0
    eliminations: int = 0
    shared: bool = False
    forfeited: bool = False
    left: tuple[int, ...] = ()

    @property
    def leavers(self) -> tuple[int, ...]:
        """The seats that left: ``left``, or for a side that names none but is
        ``forfeited`` (a game of one-seat sides), its seats."""
        if self.left:
            return self.left
        return self.seats if self.forfeited else ()


@dataclass(frozen=True)
class Outcome:
    termination: Termination
    standings: tuple[Standing, ...] = field(default=())

    @property
    def winners(self) -> tuple[int, ...]:
        """The seats placed first (partners, or a shared first place); none when aborted."""
        return tuple(seat for s in self.standings if s.place == 1 for seat in s.seats)

    def to_dict(self) -> dict:
        return {
            "termination": self.termination.value,
            "standings": [
                {**asdict(s), "seats": list(s.seats), "left": list(s.left)} for s in self.standings
            ],
        }

    @classmethod
    def from_dict(cls, data: dict) -> Outcome:
        """The stored form read back (records stored before ``left`` existed too)."""
        return cls(
            Termination(data["termination"]),
            tuple(
                Standing(**{**s, "seats": tuple(s["seats"]), "left": tuple(s.get("left", ()))})
                for s in data["standings"]
            ),
        )


def ranked(rows: Iterable[tuple[Hashable, dict]]) -> list[Standing]:
    """Standings from ``(key, fields)`` rows: sorted by key, lowest first; equal keys
    share their place (1, 1, 3)."""
    ordered = sorted(rows, key=lambda row: row[0])
    keys = [key for key, _ in ordered]
    return [
        Standing(place=keys.index(key) + 1, shared=keys.count(key) > 1, **fields) for key, fields in ordered
    ]
