"""Table options of a Viertris game, validated against RULES.md §2."""

from __future__ import annotations

from dataclasses import dataclass

from games.core.protocol import InvalidOptions, OptionsMixin
from games.viertris import constants as C


def _check_int(name: str, value: object, bounds: tuple[int, int], optional: bool = False) -> None:
    if optional and value is None:
        return
    low, high = bounds
    if type(value) is not int or not low <= value <= high:
        off = " or none (off)" if optional else ""
        raise InvalidOptions(name, f"{name} must be a whole number from {low} to {high}{off}, not {value!r}")


@dataclass(frozen=True)
class Options(OptionsMixin):
    """Table options (RULES.md §2); ``None`` turns the target score or move limit off."""

    move_seconds: int = C.MOVE_SECONDS_DEFAULT
    target_score: int | None = None
    move_limit: int | None = None

    def __post_init__(self) -> None:
        _check_int("move_seconds", self.move_seconds, C.MOVE_SECONDS_RANGE)
        _check_int("target_score", self.target_score, C.TARGET_SCORE_RANGE, optional=True)
        _check_int("move_limit", self.move_limit, C.MOVE_LIMIT_RANGE, optional=True)
