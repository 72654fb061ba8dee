from __future__ import annotations

from accounts.identity import player_from_request


def player(request):
    return {"player": player_from_request(request)}
