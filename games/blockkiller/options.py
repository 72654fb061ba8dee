"""Table options of a Block-Killer game, validated against RULES.md §4."""

from __future__ import annotations

from dataclasses import dataclass

from games.blockkiller import constants as C
from games.core.protocol import InvalidOptions, OptionsMixin


@dataclass(frozen=True)
class Options(OptionsMixin):
    """Table options (RULES.md §4): the turn clock, Mini and No Mercy."""

    turn_seconds: int = C.TURN_SECONDS_DEFAULT
    mini: bool = False
    no_mercy: bool = False

    def __post_init__(self) -> None:
        low, high = C.TURN_SECONDS_RANGE
        if type(self.turn_seconds) is not int or not low <= self.turn_seconds <= high:
            raise InvalidOptions(
                "turn_seconds", f"turn_seconds must be a whole number from {low} to {high}, not {self.turn_seconds!r}"
            )
        for name in ("mini", "no_mercy"):
            if type(getattr(self, name)) is not bool:
                raise InvalidOptions(name, f"{name} must be true or false, not {getattr(self, name)!r}")
