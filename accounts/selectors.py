from __future__ import annotations

from django.db.models import Count, Q, QuerySet, Sum

from accounts.models import ChipTransaction, User


def ledger(user: User) -> QuerySet[ChipTransaction]:
    return ChipTransaction.objects.filter(user=user).select_related("created_by")


def game_history(user: User, limit: int = 50) -> list:
    """The player's ended games, newest first, each with ``game_name`` for display."""
    from games.models import Game, Participation
    from games.registry import GAMES

    rows = list(
        Participation.objects.filter(
            user=user, game__status__in=[Game.Status.FINISHED, Game.Status.ABORTED]
        )
        .select_related("game")
        .order_by("-game__ended_at", "-game_id")[:limit]
    )
    for row in rows:
        spec = GAMES.get(row.game.kind)
        row.game_name = spec.name if spec else row.game.kind
    return rows


def player_totals(user: User) -> dict:
    """The player's totals over finished games: games played and won, leaderboard
    points (only scored games carry any) and the chips their games won or lost."""
    from games.models import Game, Participation

    return Participation.objects.filter(user=user, game__status=Game.Status.FINISHED).aggregate(
        games=Count("id"),
        wins=Count("id", filter=Q(place=1)),
        scored_games=Count("id", filter=Q(game__scored=True)),
        points=Sum("points", filter=Q(game__scored=True), default=0),
        chips=Sum("chips_delta", default=0),
    )
