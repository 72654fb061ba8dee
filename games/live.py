"""What the table host needs from a game to run it live.

The host is generic: it knows about clocks, connections, versions and saving, and
asks the game's ``LiveGame`` for everything else: how to turn a browser frame into
an engine intent, and which HTML fragments show what changed.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any, Protocol


class LiveGame(Protocol):
    seats: list[int]
    bot_seats: list[int]
    finished: bool

    def begin(self, now: float) -> None: ...
    def apply(self, seat: int, frame: dict[str, Any], now: float) -> list[Any]: ...
    def advance(self, now: float) -> list[Any]: ...
    def forfeit(self, seat: int, now: float) -> list[Any]: ...
    def bot_act(self, seat: int, now: float) -> tuple[list[Any], float]: ...
    def has_left(self, seat: int) -> bool: ...
    def next_deadline(self) -> float | None: ...
    def outcome(self) -> dict[str, Any]: ...
    def render_full(self, now: float, start_at: float) -> str: ...
    def render_events(self, events: list[Any]) -> str: ...
    def render_results(self, game: Any) -> str: ...
    @classmethod
    def render_aborted(cls, reason: str) -> str: ...


LIVE_GAMES = {
    "tetriwar": "games.tetriwar.live:TetriWarLive",
    "viertris": "games.viertris.live:ViertrisLive",
}


def live_game_class(kind: str) -> type[LiveGame]:
    module, _, cls = LIVE_GAMES[kind].partition(":")
    return getattr(import_module(module), cls)


def live_game_for(setup: dict[str, Any]) -> LiveGame:
    return live_game_class(setup["kind"])(setup)
