"""Table options of a Te-Trix game, validated against RULES.md §5."""

from __future__ import annotations

from dataclasses import dataclass

from games.core.protocol import InvalidOptions, OptionsMixin
from games.tetrix import constants as C


@dataclass(frozen=True)
class Options(OptionsMixin):
    """Table options: the roller's clock to arrange the dice, every player's clock to
    write the shape (our choice, constants), and the solo variant (RULES.md §5)."""

    arrange_seconds: int = C.ARRANGE_SECONDS_DEFAULT
    write_seconds: int = C.WRITE_SECONDS_DEFAULT
    solo: bool = False

    def __post_init__(self) -> None:
        for name, (low, high) in (
            ("arrange_seconds", C.ARRANGE_SECONDS_RANGE),
            ("write_seconds", C.WRITE_SECONDS_RANGE),
        ):
            value = getattr(self, name)
            if type(value) is not int or not low <= value <= high:
                raise InvalidOptions(
                    name, f"{name} must be a whole number from {low} to {high}, not {value!r}"
                )
        if type(self.solo) is not bool:
            raise InvalidOptions("solo", f"solo must be true or false, not {self.solo!r}")
