"""The protocol every game engine follows.

An engine is a state machine: ``apply(seat, intent, now)`` and ``advance(now)`` change
its state and return events. Illegal input raises :class:`IllegalIntent` and changes
nothing; a bad table option raises :class:`InvalidOptions`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar

from games.core.errors import IllegalIntent, InvalidOptions, Refusal
from games.core.outcome import Outcome

__all__ = [
    "FORFEIT",
    "Event",
    "GameFinished",
    "IllegalIntent",
    "InvalidOptions",
    "OptionsMixin",
    "PlayerLeft",
    "Refusal",
    "Replayable",
    "RunsOnAClock",
    "checked_seats",
]

FORFEIT = "forfeit"  # how a forfeit is written in every game's input log


@dataclass(frozen=True, slots=True)
class Event:
    """Something that changed. ``seat`` is the player concerned (0: the whole game);
    ``kind`` tells a server which screen region to render again."""

    seat: int
    kind: ClassVar[str] = "event"

    def to_dict(self) -> dict:
        return {"kind": self.kind, **asdict(self)}


@dataclass(frozen=True, slots=True)
class PlayerLeft(Event):
    """The player ``seat`` forfeited (every game)."""

    kind: ClassVar[str] = "left"


@dataclass(frozen=True, slots=True)
class GameFinished(Event):
    """The game is over (seat 0); its ``outcome()`` says how (every game)."""

    kind: ClassVar[str] = "finished"


def split_intent(text: object) -> tuple[str, str | None]:
    """An intent's text form, ``name`` or ``name:argument`` (as the input log and the
    host keep it), split; anything but text is refused."""
    if not isinstance(text, str):
        raise IllegalIntent("UNKNOWN_INTENT", f"An intent is text, not {text!r}.")
    name, colon, argument = text.partition(":")
    return name, (argument if colon else None)


def require_known(name: str, names: tuple[str, ...]) -> None:
    if name not in names:
        raise IllegalIntent("UNKNOWN_INTENT", f"Unknown intent {name!r}; expected one of {', '.join(names)}.")


class OptionsMixin:
    """For a frozen settings dataclass (a game's ``Options``, as stored on a table; a
    player's handling): its JSON form. ``KIND`` names it in errors."""

    KIND = "options"

    @classmethod
    def from_dict(cls, data: dict):
        """Settings from JSON storage; missing keys take their defaults, unknown keys fail."""
        if not isinstance(data, dict):
            raise InvalidOptions(cls.KIND, f"{cls.KIND} must be a JSON object")
        known = {f.name for f in fields(cls)}
        for key in data:
            if key not in known:
                raise InvalidOptions(str(key), f"unknown {cls.KIND} setting {key!r}")
        return cls(**data)

    def to_dict(self) -> dict:
        return asdict(self)


class Replayable:
    """For an engine whose every change is in its input log (``log``: entries
    ``(time, seat, text)``): the game rebuilt from its seed, options and log.

    The engine says how one entry is played again (``replay_entry``); the loop, the
    start and the end are the same for every game."""

    @classmethod
    def replay(
        cls,
        options: Any,
        seed: int | str,
        seats: Iterable[int],
        start: float,
        log: Iterable[Sequence],
        end: float | None = None,
    ):
        """Rebuild a game from its options, seed, seats, start time and log, and run
        its clocks to ``end``."""
        game = cls(options, seed, seats, start)
        for t, seat, text in log:
            game.replay_entry(t, seat, text)
        if end is not None:
            game.advance(end)
        return game

    def replay_entry(self, t: float, seat: int, text: str) -> None:
        raise NotImplementedError

    def _begin(
        self, options: Any, seed: int | str, seats: Iterable[int], now: float, players: tuple[int, int]
    ) -> None:
        """What every game is first: its options (the engine's ``Options``), seed and
        seats (``players``: how many, at least and at most), its clock at ``now``, running."""
        if not isinstance(options, self.Options):
            raise TypeError("options must be an Options")
        self.options = options
        self.seed = seed
        self.seats: tuple[int, ...] = checked_seats(seats, *players)
        self.start = self.now = now
        self.finished = False
        self.termination = None

    def outcome(self) -> Outcome | None:
        """Why and in what order the game ended (``termination``, ``results()``); None
        while it runs."""
        if not self.finished:
            return None
        return Outcome(self.termination, tuple(self.results()))


def checked_seats(seats: Iterable[int], low: int, high: int) -> tuple[int, ...]:
    """A new game's seats, sorted: ``low`` to ``high`` different seats, numbered 1 to ``high``."""
    seats = list(seats)
    if not low <= len(seats) <= high or len(set(seats)) != len(seats):
        raise InvalidOptions("seats", f"a game has {low} to {high} different seats, not {seats!r}")
    if any(type(seat) is not int or not 1 <= seat <= high for seat in seats):
        raise InvalidOptions("seats", f"seats are numbered 1 to {high}, not {seats!r}")
    return tuple(sorted(seats))


class RunsOnAClock:
    """For an engine whose turns or rounds run on a clock (``_run_clock(now)``: the
    events of every deadline up to ``now``) and whose players may leave
    (``_check_playing(seat)`` refuses one who may not). What the clock does is logged
    as ``timeout`` or ``timeout:<what it did>``; the engine's ``Intent`` reads the rest."""

    TIMEOUT: ClassVar[str] = "timeout"

    def replay_entry(self, t: float, seat: int, text: str) -> None:
        """A leave is made again; a move of the clock is made again by the clock (what
        the log says is what the rules give anyway); anything else is the player's."""
        if text == FORFEIT:
            self.forfeit(seat, t)
        elif text == self.TIMEOUT or text.startswith(self.TIMEOUT + ":"):
            self.advance(t)
        else:
            self.apply(seat, self.Intent.parse(text), t)

    def advance(self, now: float) -> list:
        """Run the clock up to ``now``; a finished game's time stands still."""
        events = self._run_clock(now)
        if not self.finished:
            self.now = max(self.now, now)
        return events

    def _leaving(self, seat: int, now: float, check: Callable[[int], None] | None = None) -> list:
        """The clock run up to a leave at ``now`` (which becomes the game's time), once
        the seat is known to be playing then (and may leave: ``check``, a game's own
        refusal): its events, to which the leave adds. A refused leave keeps them for
        the next call (``_pending``) and changes nothing else."""
        check = check or self._check_playing
        check(seat)
        now = max(now, self.now)
        events = self._run_clock(now)
        try:
            check(seat)
        except IllegalIntent:
            self._pending = events
            raise
        self.now = now
        return events
