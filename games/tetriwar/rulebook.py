"""Which engine plays a TetriWar game recorded under each version of the rules.

    RULES_VERSION                 # the current rules: 4
    PLAYED_VERSION                # the version games/tetriwar/engine.py plays: new games record it
    game_class(2)                 # the frozen engine (games/tetriwar/legacy)
    game_class(RULES_VERSION)     # games.tetriwar.engine.Game
    seconds(3, 1500)              # 1.5: an engine time of that version in seconds

Versions: 1, before commit 36be8e9 (the old lock-delay resets: a move counted only on
the ground); 2, float seconds as they were until rules version 3; 3, integer milliseconds
on the game's clock, per-board clocks and bombs that land at the next piece (issue #31);
4, a bomb's dice drawn at its drop and sent with it (games/tetriwar/dice.py, issue 49),
version 3 played by the same engine drawing them at the landing (``engine.GameV3``).
A recorded game carries its version (``games.models.Game.rules_version``): its replay
and its check (games/replays.py, games/verify.py) use the engine of that version.
"""

from __future__ import annotations

from games.core.rules import Rules, UnknownRules
from games.tetriwar import constants, engine
from games.tetriwar.legacy import engine as legacy_engine

RULES_VERSION = 4  # the current rules (games/tetriwar/engine.py); constants.RULES_VERSION agrees
# What games/tetriwar/engine.py plays. Version 3's engine says so in its constants; an
# engine that does not is the float-seconds one, version 2, and a game it plays must be
# recorded as such, or its replay would read its seconds as milliseconds.
PLAYED_VERSION: int = getattr(constants, "RULES_VERSION", 2)

_RULES = {
    1: Rules(1, legacy_engine.GameV1),
    2: Rules(2, legacy_engine.Game),
    3: Rules(3, engine.GameV3, per_second=1000),
    4: Rules(4, engine.Game, per_second=1000),
}


def rules(version: int) -> Rules:
    """The rules of ``version``; ``UnknownRules`` (a ValueError) for one this code lacks."""
    try:
        return _RULES[version]
    except (KeyError, TypeError):
        raise UnknownRules(version) from None


def game_class(version: int) -> type:
    """The engine that plays games recorded under ``version`` (ValueError if unknown)."""
    return rules(version).game


def seconds(version: int, t: float) -> float:
    """An engine time (or span) of ``version`` in seconds: versions 1 and 2 count seconds,
    3 milliseconds."""
    return rules(version).seconds(t)
