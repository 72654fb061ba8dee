"""The seats whose connection dropped, and how long each has to come back.

A seated player's last socket closing starts their 30 s (games/host.py,
``RECONNECT_SECONDS``): the others, players and spectators, see who dropped and the
seconds left, counted down by the page (static/js/reconnect.js) from the remaining
time the host sends. The same for every game: the region (``#reconnect``) stands on
the table page beside the game, not in it, and the host sends it when it changes, with
every full state, and empty when the game ends.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from django.template.loader import render_to_string

TEMPLATE = "games/reconnect.html"


@dataclass(frozen=True)
class Away:
    """A seat whose page is gone: its name as the table shows it, and the host's time
    by which it must be back."""

    seat: int
    name: str
    back_by: float


def render(away: Sequence[Away], now: float, *, resume_at: float | None = None, restarting: bool = False) -> str:
    """The region as it stands at ``now``, as a live update (empty when nobody is away).
    The server's own news goes first: ``resume_at``, the host's time at which a game
    rebuilt after a restart goes on (games/resume.py); ``restarting``, the server
    stopping for a restart (its games go on after it)."""
    entries = []
    for one in away:
        left = max(0.0, one.back_by - now)
        entries.append(
            {"seat": one.seat, "name": one.name, "ms": round(left * 1000), "seconds": math.ceil(left)}
        )
    resuming = None
    if resume_at is not None and now < resume_at:
        left = resume_at - now
        resuming = {"ms": round(left * 1000), "seconds": math.ceil(left)}
    context = {"away": entries, "resuming": resuming, "restarting": restarting, "oob": True}
    return render_to_string(TEMPLATE, context)
