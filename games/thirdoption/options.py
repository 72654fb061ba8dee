"""Table options of a Third Option game, validated against RULES.md §3."""

from __future__ import annotations

from dataclasses import dataclass

from games.core.protocol import InvalidOptions, OptionsMixin
from games.thirdoption import constants as C


@dataclass(frozen=True)
class Options(OptionsMixin):
    """Table options (RULES.md §3): the round clock, and the deck of tetrominoes only."""

    round_seconds: int = C.ROUND_SECONDS_DEFAULT
    tetrominoes_only: bool = False

    def __post_init__(self) -> None:
        low, high = C.ROUND_SECONDS_RANGE
        if type(self.round_seconds) is not int or not low <= self.round_seconds <= high:
            raise InvalidOptions(
                "round_seconds",
                f"round_seconds must be a whole number from {low} to {high}, not {self.round_seconds!r}",
            )
        if type(self.tetrominoes_only) is not bool:
            raise InvalidOptions(
                "tetrominoes_only", f"tetrominoes_only must be true or false, not {self.tetrominoes_only!r}"
            )

    def deck_counts(self) -> dict[str, int]:
        """The cards of the deck and how many of each (RULES.md §3)."""
        return dict(C.TETROMINO_DECK_COUNTS if self.tetrominoes_only else C.DECK_COUNTS)
