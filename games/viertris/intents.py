"""What a Viertris player can ask for: a small value with a text form (``drop:3``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from games.core.protocol import IllegalIntent, require_known, split_intent
from games.viertris import constants as C


def _bad_column(column: object) -> IllegalIntent:
    return IllegalIntent("BAD_COLUMN", f"A column is a number from 0 to {C.COLUMNS - 1}, not {column!r}.")


@dataclass(frozen=True, slots=True)
class Intent:
    """The one thing a player can do: drop a piece into ``column`` (0–7). Text: ``drop:3``."""

    name: str
    column: int | None = None
    NAMES: ClassVar[tuple[str, ...]] = ("drop",)

    def __post_init__(self) -> None:
        require_known(self.name, self.NAMES)
        if type(self.column) is not int or not 0 <= self.column < C.COLUMNS:
            raise _bad_column(self.column)

    @property
    def text(self) -> str:
        return f"{self.name}:{self.column}"

    def __str__(self) -> str:
        return self.text

    @classmethod
    def parse(cls, text: str) -> Intent:
        """The inverse of ``str()``: ``"drop:3"``."""
        name, column = split_intent(text)
        return cls(name, _column(column))


def _column(value: object) -> object:
    """A column from text: digits become an int; anything else is left for Intent to refuse."""
    if isinstance(value, str) and value.isascii() and value.isdigit():
        return int(value)
    return value
