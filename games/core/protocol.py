"""The protocol every game engine follows.

An engine is a state machine: ``apply(seat, intent, now)`` and ``advance(now)`` change
its state and return events. Illegal input raises :class:`IllegalIntent` and changes
nothing; a bad table option raises :class:`InvalidOptions`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import ClassVar

from games.core.errors import IllegalIntent, InvalidOptions, Refusal

__all__ = ["Event", "IllegalIntent", "InvalidOptions", "OptionsMixin", "Refusal"]


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
