"""Finished games, rebuilt from their records: the seed, the options, the seats and the
input log (``GameLog.data``: exact times, the engine's clock at the start and the end).

    record = recorded(game)          # None for a game with no packed log (older games)
    live = rebuilt(record)           # its live adapter, the engine played to the end

Every engine is deterministic (games/core/protocol.py, ``Replayable``), so a rebuilt
game is the game that was played: the replay page shows it (games/views.py) and
``manage.py verify_games`` checks it against what was recorded (games/verify.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games.core.log import InputLog
from games.live import LiveGame, live_game_for
from games.models import Game
from games.services import setup_of


@dataclass(frozen=True)
class Recorded:
    """What a finished game's replay is made of."""

    game: Game
    setup: dict[str, Any]
    log: InputLog
    start: float
    end: float


def recorded(game: Game) -> Recorded | None:
    """The game's record, or None if it has none to replay (not finished, or recorded
    before logs were packed)."""
    if game.status != Game.Status.FINISHED:
        return None
    data = getattr(getattr(game, "log", None), "data", b"")
    if not data:
        return None
    log, start, end = InputLog.unpack(bytes(data))
    setup = setup_of(game)
    for player in setup["players"]:
        player["handling"] = None  # a replay takes each seat's handling from its log
    return Recorded(game=game, setup=setup, log=log, start=start, end=end)


def rebuilt(record: Recorded) -> LiveGame:
    """The game's live adapter with its engine played through the whole log to the end."""
    live: Any = live_game_for(record.setup)
    live.start = record.start
    live.game = live.Game.replay(live.options, live.seed, live.seats, record.start, record.log, record.end)
    return live
