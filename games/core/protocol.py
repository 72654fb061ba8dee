"""The protocol every game engine follows.

An engine is a state machine: ``apply(seat, intent, now)`` and ``advance(now)`` change
its state and return events. Illegal input raises :class:`IllegalIntent` and changes
nothing; a bad table option raises :class:`InvalidOptions`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
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


class OptionsMixin:
    """For a game's frozen ``Options`` dataclass: its JSON form, as stored on a table."""

    @classmethod
    def from_dict(cls, data: dict):
        """Options from JSON storage; missing keys take their defaults, unknown keys fail."""
        if not isinstance(data, dict):
            raise InvalidOptions("options", "options must be a JSON object")
        known = {f.name for f in fields(cls)}
        for key in data:
            if key not in known:
                raise InvalidOptions(str(key), f"unknown option {key!r}")
        return cls(**data)

    def to_dict(self) -> dict:
        return asdict(self)
