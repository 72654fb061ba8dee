from __future__ import annotations

from games.registry import GAMES


def games(request):
    return {"available_games": list(GAMES.values())}
