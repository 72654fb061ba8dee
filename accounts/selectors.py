from __future__ import annotations

from django.db.models import QuerySet

from accounts.models import ChipTransaction, User


def ledger(user: User) -> QuerySet[ChipTransaction]:
    return ChipTransaction.objects.filter(user=user).select_related("created_by")


def game_history(user: User) -> list:
    """The player's finished games, newest first (none until games are recorded)."""
    return []
