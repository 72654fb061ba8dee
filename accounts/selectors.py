from __future__ import annotations

from django.db.models import Case, F, QuerySet, Value, When

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
