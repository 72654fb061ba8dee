"""What a TetriWar player can ask for: small values with a text form (``bomb:3``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from games.core.protocol import IllegalIntent, require_known, split_intent
from games.tetriwar.constants import MAX_PLAYERS

# One step each: ←, →, ↑, hard drop, soft drop on and off (held ↓), a bomb.
STEPS = ("left", "right", "rotate", "soft_drop_on", "soft_drop_off", "hard_drop", "bomb")
# A key going down and coming up: the engine repeats held ← and → itself (DAS, then
# ARR: games/tetriwar/handling.py) and soft-drops while ↓ is held. ``hold_down`` and
# ``release_down`` are ``soft_drop_on`` and ``soft_drop_off`` by their key's name.
HOLDS = ("hold_left", "release_left", "hold_right", "release_right", "hold_down", "release_down")
NAMES = STEPS + HOLDS


@dataclass(frozen=True, slots=True)
class Intent:
    """``name`` is one of ``NAMES``; ``target`` (1–4, bombs only) is the key pressed:
    1 is oneself, 2–4 the others in seat order after oneself. No target: Enter."""

    name: str
    target: int | None = None
    text: str = field(init=False, repr=False, compare=False)  # str(intent), kept for speed

    def __post_init__(self) -> None:
        require_known(self.name, NAMES)
        if self.target is not None:
            if self.name != "bomb":
                raise IllegalIntent("BAD_TARGET", f"Only a bomb takes a target, not {self.name!r}.")
            if type(self.target) is not int or not 1 <= self.target <= MAX_PLAYERS:
                raise IllegalIntent(
                    "BAD_TARGET",
                    f"A bomb target is a player number from 1 to {MAX_PLAYERS}, not {self.target!r}.",
                )
        text = self.name if self.target is None else f"{self.name}:{self.target}"
        object.__setattr__(self, "text", text)

    def __str__(self) -> str:
        return self.text

    @classmethod
    def parse(cls, text: str) -> Intent:
        """The inverse of ``str()``: ``"left"``, ``"bomb"``, ``"bomb:3"``."""
        name, target = split_intent(text)
        if target is None:
            return cls(name)
        if not (target.isascii() and target.isdigit()):
            raise IllegalIntent(
                "BAD_TARGET", f"A bomb target is a player number from 1 to {MAX_PLAYERS}, not {target!r}."
            )
        return cls(name, int(target))


_CACHE = {text: Intent.parse(text) for text in NAMES}
for _number in range(1, MAX_PLAYERS + 1):
    _CACHE[f"bomb:{_number}"] = Intent("bomb", _number)


def intent(text: str) -> Intent:
    """A shared instance for a known text form (faster than ``Intent.parse`` in replays)."""
    found = _CACHE.get(text)
    return found if found is not None else Intent.parse(text)
