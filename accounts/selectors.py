from __future__ import annotations

from django.db.models import Case, Count, F, Q, QuerySet, Sum, Value, When

from accounts.models import ChipTransaction, User
from accounts.names import username_skeleton


def lookalike_exists(name: str) -> bool:
    """Whether an account's name looks like ``name`` (the same name included, in
    any case): one lookup in the skeleton index."""
    return User.objects.filter(username_skeleton=username_skeleton(name)).exists()


def own_ledger(user: User) -> QuerySet[ChipTransaction]:
    """The player's ledger as they see it. An admin's note on an adjustment is for
    admins (it may say why a moderator acted): ``shown_note`` leaves it out, and
    the note itself and the admin's name are not even loaded."""
    return (
        ChipTransaction.objects.filter(user=user)
        .annotate(
            shown_note=Case(When(reason=ChipTransaction.Reason.ADMIN, then=Value("")), default=F("note"))
        )
        .only("created_at", "delta", "balance_after", "reason")
    )


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
