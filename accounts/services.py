"""Writes about accounts and chips. Every change of chips goes through here."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from accounts.models import ChipTransaction, ModerationAction, User

Reason = ChipTransaction.Reason


class ChipsError(ValueError):
    """A change of chips that would break a rule; nothing was written."""


@transaction.atomic
def chips_change(
    *,
    user: User,
    delta: int,
    reason: str,
    note: str = "",
    by: User | None = None,
) -> ChipTransaction:
    """Add ``delta`` (may be negative) to the user's chips and write the ledger row.

    The row is locked first so that concurrent changes serialise; a change that
    would take the balance below zero is refused.
    """
    if delta == 0:
        raise ChipsError("A chips change must not be zero.")
    locked = User.objects.select_for_update().only("id", "chips").get(pk=user.pk)
    balance = locked.chips + delta
    if balance < 0:
        raise ChipsError(f"{user.username} holds {locked.chips} chips; cannot take {-delta}.")
    User.objects.filter(pk=user.pk).update(chips=F("chips") + delta)
    user.chips = balance
    return ChipTransaction.objects.create(
        user=user, delta=delta, balance_after=balance, reason=reason, note=note, created_by=by
    )


@transaction.atomic
def user_signup(*, username: str, email: str, password: str) -> User:
    user = User.objects.create_user(username=username, email=email, password=password)
    chips_change(user=user, delta=settings.SITE_RULES["SIGNUP_CHIPS"], reason=Reason.SIGNUP)
    return user


def refill_available(user: User, today: dt.date | None = None) -> bool:
    today = today or timezone.localdate()
    return user.chips < settings.SITE_RULES["REFILL_BELOW"] and user.last_refill != today


@transaction.atomic
def chips_refill(*, user: User, today: dt.date | None = None) -> ChipTransaction:
    """Top an account below the refill line up to it, once a day (RULES.md §6)."""
    today = today or timezone.localdate()
    locked = User.objects.select_for_update().get(pk=user.pk)
    if not refill_available(locked, today):
        if locked.last_refill == today:
            raise ChipsError("You have already claimed today's refill.")
        raise ChipsError(
            f"Refills are for accounts below {settings.SITE_RULES['REFILL_BELOW']} chips."
        )
    User.objects.filter(pk=user.pk).update(last_refill=today)
    user.last_refill = today
    return chips_change(
        user=user, delta=settings.SITE_RULES["REFILL_BELOW"] - locked.chips, reason=Reason.REFILL
    )


@transaction.atomic
def chips_adjust(*, user: User, delta: int, note: str, by: User) -> ChipTransaction:
    """An admin's adjustment: always with a reason, always naming the admin."""
    if not note.strip():
        raise ChipsError("An adjustment needs a reason.")
    row = chips_change(user=user, delta=delta, reason=Reason.ADMIN, note=note.strip(), by=by)
    ModerationAction.objects.create(
        admin=by, action=ModerationAction.Action.ADJUST_CHIPS, user=user, reason=f"{delta:+d}: {note.strip()}"[:200]
    )
    return row


@transaction.atomic
def user_ban(*, user: User, reason: str, by: User) -> None:
    """The account's part of a ban: it can no longer log in, and its sessions stop
    authenticating. Moderators ban through ``lobby.services.player_ban``, which adds
    the seats, running games and open sockets in the same transaction."""
    User.objects.filter(pk=user.pk).update(
        is_active=False, banned_at=timezone.now(), ban_reason=reason[:200]
    )
    ModerationAction.objects.create(admin=by, action=ModerationAction.Action.BAN, user=user, reason=reason[:200])


@transaction.atomic
def user_unban(*, user: User, by: User) -> None:
    User.objects.filter(pk=user.pk).update(is_active=True, banned_at=None, ban_reason="")
    ModerationAction.objects.create(admin=by, action=ModerationAction.Action.UNBAN, user=user)


def key_bindings_set(*, user: User, bindings: dict[str, str]) -> None:
    user.key_bindings = bindings
    user.save(update_fields=["key_bindings"])
