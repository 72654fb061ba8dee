"""A version of a game's rules, as a replay needs it: the engine that plays it, and the
unit its clock counts in.

Every recorded game carries the version of its rules it was played under
(``games.models.Game.rules_version``); a game's live adapter names the engine of each
version it knows (``LiveGameBase.rules``), so an old game is rebuilt by the rules it
was played under, not by today's.

    rules = Rules(2, LegacyGame)                       # float seconds
    rules = Rules(3, Game, per_second=1000)            # integer milliseconds
    rules.clock(12345.0)    # a time as a record keeps it (a double): 12345 for version 3
    rules.seconds(12345)    # 12.345: the engine's clock in seconds, for people
"""

from __future__ import annotations

from dataclasses import dataclass


class UnknownRules(ValueError):
    """A game recorded under a version of its rules that this code does not know (a newer
    server's game, or a damaged record): it cannot be rebuilt here."""

    def __init__(self, version: object) -> None:
        super().__init__(f"recorded under rules version {version}, which this server does not know")
        self.version = version


@dataclass(frozen=True)
class Rules:
    version: int
    game: type  # the engine class (``Replayable``) that plays this version
    # The engine's clock ticks in a second: 1, a float of seconds; 1000, whole milliseconds.
    per_second: int = 1

    @property
    def whole(self) -> bool:
        """Whether the engine counts whole ticks (ints): then a recorded time, kept as a
        double in the packed log, is turned back into one before the engine sees it."""
        return self.per_second != 1

    def clock(self, recorded: float) -> float:
        """A time as the record keeps it, as the engine counts it."""
        return int(recorded) if self.whole else recorded

    def seconds(self, ticks: float) -> float:
        """A span of the engine's clock in seconds."""
        return ticks / self.per_second if self.whole else ticks

    def ticks(self, seconds: float) -> float:
        """Seconds as a span of the engine's clock (whole ticks, rounded, if it counts them)."""
        return round(seconds * self.per_second) if self.whole else seconds
