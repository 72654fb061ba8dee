"""What a Te-Trix player can ask for: small values with a text form.

    arrange:T:oxso      the roller arranges the dice into a T: the four symbols in the
                        order of the shape's cells as drawn (constants.TETROMINOES),
                        row by row from the top (``o`` circle, ``s`` square, ``x`` cross)
    write:1:-2:3        write the arranged shape turned 1 quarter turn clockwise (0–3),
                        the top-left cell of its box at row −2, column 3 (−3 to 6: a
                        box may lie partly off the sheet; cells off it are not written)
    stop                the solo player ends the game (solo only)

``Intent.parse(text)`` reads the text form; ``intent.text`` (or ``str``) writes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from games.core.protocol import IllegalIntent, require_known, split_intent
from games.tetrix import constants as C

ARRANGE, WRITE, STOP = "arrange", "write", "stop"


def _bad_arrange(value: object) -> IllegalIntent:
    return IllegalIntent(
        "BAD_ARRANGE",
        f"An arrangement is arrange:<shape>:<symbols>: a shape of {''.join(C.TETROMINOES)} and "
        f"four symbols of o (circle), s (square), x (cross); not {value!r}.",
    )


def _bad_write(value: object) -> IllegalIntent:
    low, high = C.POSITION_RANGE
    return IllegalIntent(
        "BAD_WRITE",
        f"A write is write:<turns>:<row>:<column>: turns 0–{C.TURNS - 1}, row and column "
        f"{low} to {high}; not {value!r}.",
    )


def _number(text: str) -> int | None:
    digits = text[1:] if text.startswith("-") else text
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 2:
        return None
    return int(text)


@dataclass(frozen=True, slots=True)
class Intent:
    """``name`` and its arguments: ``shape`` and ``symbols`` (arrange), ``turns``,
    ``row`` and ``column`` (write). Build them with :meth:`arrange`, :meth:`write`,
    :meth:`stop`, or :meth:`parse`."""

    name: str
    shape: str = ""
    symbols: str = ""
    turns: int = 0
    row: int = 0
    column: int = 0
    NAMES: ClassVar[tuple[str, ...]] = (ARRANGE, WRITE, STOP)

    def __post_init__(self) -> None:
        require_known(self.name, self.NAMES)
        if self.name == ARRANGE:
            if (
                not isinstance(self.shape, str)
                or self.shape not in C.TETROMINOES
                or not isinstance(self.symbols, str)
                or len(self.symbols) != C.DICE
                or any(symbol not in C.SYMBOLS for symbol in self.symbols)
            ):
                raise _bad_arrange(f"{self.shape}:{self.symbols}")
        elif self.shape or self.symbols:
            raise IllegalIntent("BAD_ARGUMENT", f"{self.name} names no shape.")
        if self.name == WRITE:
            low, high = C.POSITION_RANGE
            checks = ((self.turns, 0, C.TURNS - 1), (self.row, low, high), (self.column, low, high))
            if any(type(value) is not int or not a <= value <= b for value, a, b in checks):
                raise _bad_write(f"{self.turns!r}:{self.row!r}:{self.column!r}")
        elif (self.turns, self.row, self.column) != (0, 0, 0):
            raise IllegalIntent("BAD_ARGUMENT", f"{self.name} takes no position.")

    @classmethod
    def arrange(cls, shape: str, symbols: str) -> Intent:
        return cls(ARRANGE, shape=shape, symbols=symbols)

    @classmethod
    def write(cls, turns: int, row: int, column: int) -> Intent:
        return cls(WRITE, turns=turns, row=row, column=column)

    @classmethod
    def stop(cls) -> Intent:
        return cls(STOP)

    @property
    def text(self) -> str:
        if self.name == ARRANGE:
            return f"{ARRANGE}:{self.shape}:{self.symbols}"
        if self.name == WRITE:
            return f"{WRITE}:{self.turns}:{self.row}:{self.column}"
        return self.name

    def __str__(self) -> str:
        return self.text

    @classmethod
    def parse(cls, text: str) -> Intent:
        """The inverse of ``str()``: ``"arrange:T:oxso"``, ``"write:1:-2:3"``, ``"stop"``."""
        name, argument = split_intent(text)
        require_known(name, cls.NAMES)
        if name == STOP:
            if argument is not None:
                raise IllegalIntent("BAD_ARGUMENT", "stop takes no argument.")
            return cls.stop()
        parts = (argument or "").split(":")
        if name == ARRANGE:
            if len(parts) != 2:
                raise _bad_arrange(argument)
            return cls.arrange(*parts)
        numbers = [_number(part) for part in parts]
        if len(numbers) != 3 or None in numbers:
            raise _bad_write(argument)
        turns, row, column = numbers
        return cls.write(turns, row, column)
