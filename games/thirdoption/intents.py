"""What a Third Option player can ask for: place a card, a small value with a text form.

    Intent(round=3, card=1, turns=2, mirrored=True, row=4, column=0)
    str(...) == "place:3,1,2,1,4,0"

``round``: the round the player means (a placement meant for a round that has ended is
refused, not applied to the next one). ``card``: 0 or 1, the two cards revealed this
round, left first; 2, the player's own card (their third option, or the free square).
The shape is mirrored left to right if ``mirrored``, then turned clockwise ``turns``
quarter turns (0–3), and placed with the top-left cell of its box at ``(row, column)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from games.core.protocol import IllegalIntent, require_known, split_intent
from games.thirdoption import constants as C

OWN_CARD = 2  # the card number of a player's own card (third option, free square)
MAX_ROUND = 10_000  # more than any deck allows (our choice: a bound for the text form)


def _bad(value: object) -> IllegalIntent:
    return IllegalIntent(
        "BAD_PLACEMENT",
        "A placement is place:round,card,turns,mirrored,row,column: card 0–2, turns 0–3, "
        f"mirrored 0 or 1, row and column 0–{C.SIZE - 1}; not {value!r}.",
    )


@dataclass(frozen=True, slots=True)
class Intent:
    round: int
    card: int
    turns: int = 0
    mirrored: bool = False
    row: int = 0
    column: int = 0
    name: str = "place"
    NAMES: ClassVar[tuple[str, ...]] = ("place",)

    def __post_init__(self) -> None:
        require_known(self.name, self.NAMES)
        checks = (
            (self.round, 1, MAX_ROUND),
            (self.card, 0, OWN_CARD),
            (self.turns, 0, 3),
            (self.row, 0, C.SIZE - 1),
            (self.column, 0, C.SIZE - 1),
        )
        for value, low, high in checks:
            if type(value) is not int or not low <= value <= high:
                raise _bad(self._fields_text())
        if type(self.mirrored) is not bool:
            raise _bad(self._fields_text())

    def _fields_text(self) -> str:
        return f"{self.round!r},{self.card!r},{self.turns!r},{self.mirrored!r},{self.row!r},{self.column!r}"

    @property
    def text(self) -> str:
        return (
            f"{self.name}:{self.round},{self.card},{self.turns},{int(self.mirrored)},{self.row},{self.column}"
        )

    def __str__(self) -> str:
        return self.text

    @classmethod
    def parse(cls, text: str) -> Intent:
        """The inverse of ``str()``: ``"place:3,1,2,1,4,0"``."""
        name, argument = split_intent(text)
        require_known(name, cls.NAMES)
        parts = (argument or "").split(",")
        if len(parts) != 6 or not all(p.isascii() and p.isdigit() and len(p) <= 5 for p in parts):
            raise _bad(argument)
        round_, card, turns, mirrored, row, column = map(int, parts)
        if mirrored not in (0, 1):
            raise _bad(argument)
        return cls(round_, card, turns, bool(mirrored), row, column, name)
