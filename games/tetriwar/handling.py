"""A player's handling: how fast held keys repeat and soft drop falls.

Each seat brings its own (a player's account setting); the engine repeats held keys
itself, so every seat's numbers are part of the game: ``Game(..., handling={2: h})``
writes a ``handling:…`` entry into the input log for every seat that does not use the
defaults, and a replay of the log sets them again.

    Handling(das=170, arr=50, soft_drop=20)      # RULES.md's numbers, the defaults
    Handling.parse("handling:120:0:40").arr      # 0: straight to the wall

``das``: milliseconds from pressing ← or → to the first repeated step (50–300);
``arr``: milliseconds between repeated steps (0–100; 0 goes to the wall at once);
``soft_drop``: rows per second at least while ↓ is held (20–60; RULES.md's 20× gravity
stays the rule when it is faster).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from games.core.protocol import InvalidOptions, OptionsMixin
from games.tetriwar.constants import (
    ARR_MS_DEFAULT,
    ARR_MS_RANGE,
    DAS_MS_DEFAULT,
    DAS_MS_RANGE,
    SOFT_DROP_SPEED_DEFAULT,
    SOFT_DROP_SPEED_RANGE,
)

HANDLING = "handling"  # how a seat's handling is written in the input log: handling:das:arr:soft_drop

_RANGES = {"das": DAS_MS_RANGE, "arr": ARR_MS_RANGE, "soft_drop": SOFT_DROP_SPEED_RANGE}
_UNITS = {"das": "milliseconds", "arr": "milliseconds", "soft_drop": "rows per second"}


@dataclass(frozen=True)
class Handling(OptionsMixin):
    das: int = DAS_MS_DEFAULT  # ms before a held ← / → repeats
    arr: int = ARR_MS_DEFAULT  # ms between repeats (0: at once to the wall)
    soft_drop: int = SOFT_DROP_SPEED_DEFAULT  # rows per second at least while ↓ is held

    KIND: ClassVar[str] = "handling"

    def __post_init__(self) -> None:
        for name, (low, high) in _RANGES.items():
            value = getattr(self, name)
            if type(value) is not int or not low <= value <= high:
                raise InvalidOptions(
                    name,
                    f"{name} must be a whole number of {_UNITS[name]} from {low} to {high}, not {value!r}",
                )

    # --- seconds, as the engine's clocks count ----------------------------------------------
    @property
    def das_seconds(self) -> float:
        return self.das / 1000

    @property
    def arr_seconds(self) -> float:
        return self.arr / 1000

    # --- text and JSON forms ------------------------------------------------------------------
    @property
    def text(self) -> str:
        """The input log's form: ``handling:170:50:20``."""
        return f"{HANDLING}:{self.das}:{self.arr}:{self.soft_drop}"

    @classmethod
    def parse(cls, text: str) -> Handling:
        """The inverse of ``text``; anything else raises :class:`InvalidOptions`."""
        name, *numbers = text.split(":") if isinstance(text, str) else ("",)
        if name != HANDLING or len(numbers) != 3 or not all(n.isascii() and n.isdigit() for n in numbers):
            raise InvalidOptions("handling", f"expected handling:das:arr:soft_drop, not {text!r}")
        das, arr, soft_drop = (int(n) for n in numbers)
        return cls(das, arr, soft_drop)

    @classmethod
    def from_dict(cls, data: dict | None) -> Handling:
        """From JSON (a live game's setup, an account's setting): missing keys take their
        defaults, unknown keys and bad values fail; None is the defaults."""
        return cls() if data is None else super().from_dict(data)


DEFAULT_HANDLING = Handling()
