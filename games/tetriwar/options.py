"""Table options of a TetriWar game, validated against RULES.md §1."""

from __future__ import annotations

from dataclasses import dataclass

from games.core.protocol import InvalidOptions, OptionsMixin
from games.tetriwar.constants import (
    BOMB_MODES,
    BOMBS_DEFAULT,
    LINES_PER_LEVEL_DEFAULT,
    LINES_PER_LEVEL_RANGE,
    MINUTES_DEFAULT,
    MINUTES_RANGE,
    START_LEVEL_DEFAULT,
    START_LEVEL_RANGE,
)


def _check_int(name: str, value: object, bounds: tuple[int, int]) -> None:
    low, high = bounds
    if type(value) is not int or not low <= value <= high:
        raise InvalidOptions(name, f"{name} must be a whole number from {low} to {high}, not {value!r}")


@dataclass(frozen=True)
class Options(OptionsMixin):
    minutes: int = MINUTES_DEFAULT
    start_level: int = START_LEVEL_DEFAULT
    lines_per_level: int = LINES_PER_LEVEL_DEFAULT
    bombs: str = BOMBS_DEFAULT
    pairs: bool = False

    def __post_init__(self) -> None:
        _check_int("minutes", self.minutes, MINUTES_RANGE)
        _check_int("start_level", self.start_level, START_LEVEL_RANGE)
        _check_int("lines_per_level", self.lines_per_level, LINES_PER_LEVEL_RANGE)
        if self.bombs not in BOMB_MODES:
            raise InvalidOptions("bombs", f"bombs must be one of {', '.join(BOMB_MODES)}, not {self.bombs!r}")
        if type(self.pairs) is not bool:
            raise InvalidOptions("pairs", f"pairs must be true or false, not {self.pairs!r}")
