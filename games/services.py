"""The one place where games are created, finished and aborted.

Finishing writes the results, the participations and the full input log in one
transaction, and only once: the game row is locked and must still be running.
Ranking points and chips (RULES.md §6) hook in here too.
"""

from __future__ import annotations

import random
from typing import Any

from django.db import transaction
from django.utils import timezone

from games.models import Game, GameLog, Participation
from lobby import broadcast
from lobby.models import Seat, Table


def game_create(*, table: Table, seats: list[Seat]) -> Game:
    """Called inside the table-start transaction; the host is told after commit."""
    game = Game.objects.create(
        table=table,
        kind=table.game,
        options=table.options,
        seed=random.SystemRandom().randrange(1, 2**62),
        stake=table.stake,
        started_at=timezone.now(),
    )
    Participation.objects.bulk_create(
        Participation(
            game=game, seat=s.number, user_id=s.user_id, name=s.name, is_guest=s.is_guest, ip=s.ip
        )
        for s in seats
    )
    GameLog.objects.create(game=game)
    transaction.on_commit(lambda: _tell_host({"type": "host.start", "game_id": game.pk}))
    return game


def _tell_host(message: dict[str, Any]) -> None:
    from asgiref.sync import async_to_sync
    from channels.layers import get_channel_layer

    from games.host import HOST_CHANNEL

    async_to_sync(get_channel_layer().send)(HOST_CHANNEL, message)


def game_setup(*, game_id: int) -> dict[str, Any] | None:
    """What a host needs to run a game; None unless the game is running."""
    game = Game.objects.filter(pk=game_id, status=Game.Status.RUNNING).first()
    if game is None:
        return None
    return {
        "game_id": game.pk,
        "table_id": game.table_id,
        "kind": game.kind,
        "options": game.options,
        "seed": game.seed,
        "players": [
            {"seat": p.seat, "name": p.name, "is_guest": p.is_guest, "user_id": p.user_id}
            for p in game.participations.all()
        ],
    }


def _reopen_table(table_id: int) -> None:
    Table.objects.filter(pk=table_id, status=Table.Status.RUNNING).update(status=Table.Status.OPEN)
    Seat.objects.filter(table_id=table_id).update(ready=False)
    broadcast.table_changed(table_id)


@transaction.atomic
def game_finish(*, game_id: int, outcome: dict[str, Any]) -> Game | None:
    """Record a game's end; returns the game, or None if it was already ended."""
    game = Game.objects.select_for_update().filter(pk=game_id, status=Game.Status.RUNNING).first()
    if game is None:
        return None
    by_seat = {p.seat: p for p in game.participations.all()}
    for standing in outcome["standings"]:
        for seat in standing["seats"]:
            p = by_seat[seat]
            stats = outcome["players"][str(seat)]
            p.score = stats["score"]
            p.lines = stats["lines"]
            p.eliminations = stats["eliminations"]
            p.place = standing["place"]
            p.forfeited = standing["forfeited"]
    Participation.objects.bulk_update(
        by_seat.values(), ["score", "lines", "eliminations", "place", "forfeited"]
    )
    GameLog.objects.filter(game=game).update(
        entries=outcome["log"], summary={"standings": outcome["standings"], "end": outcome.get("end")}
    )
    game.status = Game.Status.FINISHED
    game.ended_at = timezone.now()
    game.save(update_fields=["status", "ended_at"])
    _reopen_table(game.table_id)
    # Results are rendered from async code next: load everything they show now.
    return Game.objects.prefetch_related("participations").get(pk=game.pk)


@transaction.atomic
def game_abort(*, game_id: int, reason: str) -> Game | None:
    game = Game.objects.select_for_update().filter(pk=game_id, status=Game.Status.RUNNING).first()
    if game is None:
        return None
    game.status = Game.Status.ABORTED
    game.abort_reason = reason[:200]
    game.ended_at = timezone.now()
    game.save(update_fields=["status", "abort_reason", "ended_at"])
    _reopen_table(game.table_id)
    return game


def running_game_id(table_id: int) -> int | None:
    return (
        Game.objects.filter(table_id=table_id, status=Game.Status.RUNNING)
        .values_list("pk", flat=True)
        .first()
    )


def game_abort_running(*, table_id: int, reason: str) -> None:
    """Abort the table's running game, if any, and stop its host after commit."""
    game_id = running_game_id(table_id)
    if game_id is None:
        return
    game_abort(game_id=game_id, reason=reason)
    transaction.on_commit(
        lambda: _tell_host({"type": "host.abort", "table_id": table_id, "reason": reason})
    )
