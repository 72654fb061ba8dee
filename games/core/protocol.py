"""The protocol every game engine follows.

An engine is a state machine: ``apply(seat, intent, now)`` and ``advance(now)`` change
its state and return events. Illegal input raises :class:`IllegalIntent` and changes
nothing; a bad table option raises :class:`InvalidOptions`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import ClassVar


class IllegalIntent(ValueError):
    """An intent the engine refuses. ``code`` is short and stable (``"EMPTY_STORE"``)
    for programs; the message is a sentence for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"IllegalIntent({self.code!r}, {self.message!r})"


class InvalidOptions(ValueError):
    """A table option outside its allowed values; ``field`` names the option."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


@dataclass(frozen=True, slots=True)
class Event:
    """Something that changed. ``seat`` is the player concerned (0: the whole game);
    ``kind`` tells a server which screen region to render again."""

    seat: int
    kind: ClassVar[str] = "event"

    def to_dict(self) -> dict:
        return {"kind": self.kind, **asdict(self)}
