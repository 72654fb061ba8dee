"""Writes about accounts and chips. Every change of chips goes through here."""

from __future__ import annotations

import datetime as dt
import ipaddress

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext

from accounts.models import ChipTransaction, ModerationAction, TokenBucket, User

Reason = ChipTransaction.Reason


class ChipsError(ValueError):
    """A change of chips that would break a rule; nothing was written."""


class SignupLimitError(ValueError):
    """Too many sign-ups from one address; nothing was written."""


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
        raise ChipsError(
            gettext("%(name)s holds %(chips)s chips; cannot take %(delta)s.")
            % {"name": user.username, "chips": locked.chips, "delta": -delta}
        )
    User.objects.filter(pk=user.pk).update(chips=F("chips") + delta)
    user.chips = balance
    return ChipTransaction.objects.create(
        user=user, delta=delta, balance_after=balance, reason=reason, note=note, created_by=by
    )


@transaction.atomic
def token_take(*, key: str, capacity: int, per: dt.timedelta) -> bool:
    """Take one of ``capacity`` tokens that refill over ``per``; False when none is
    left (and nothing is taken). The bucket's row is locked, so two processes never
    spend the same token."""
    now = timezone.now()
    TokenBucket.objects.get_or_create(key=key, defaults={"updated_at": now})
    bucket = TokenBucket.objects.select_for_update().get(key=key)
    tokens = min(1.0, bucket.tokens + (now - bucket.updated_at) / per) - 1.0 / capacity
    if tokens < -1e-9:  # the float sum of 1/capacity may fall a hair short of 1
        return False
    TokenBucket.objects.filter(pk=bucket.pk).update(tokens=tokens, updated_at=now)
    return True


def _address_key(address: str) -> str:
    """One IPv6 host usually holds a whole /64: limit the network, not each of its
    2^64 addresses. IPv4 addresses count one by one."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address[:60]
    if ip.version == 4:
        return str(ip)
    if ip.ipv4_mapped is not None:  # ::ffff:192.0.2.1 is an IPv4 client
        return str(ip.ipv4_mapped)
    return str(ipaddress.ip_network(f"{ip}/64", strict=False))


@transaction.atomic
def user_signup(*, username: str, email: str, password: str, address: str | None = None) -> User:
    """A new account with its welcome chips. ``address``: the client's, for a sign-up
    over the web, which may come SIGNUPS_PER_ADDRESS_PER_HOUR times an hour from one
    address; accounts made otherwise (tests, scripts) pass none and are not limited."""
    if address is not None and not token_take(
        key=f"signup:{_address_key(address)}",
        capacity=settings.SIGNUPS_PER_ADDRESS_PER_HOUR,
        per=dt.timedelta(hours=1),
    ):
        raise SignupLimitError(
            gettext("Too many accounts were made from your network in the last hour. Please try again later.")
        )
    user = User.objects.create_user(username=username, email=email, password=password)
    chips_change(user=user, delta=settings.SITE_RULES["SIGNUP_CHIPS"], reason=Reason.SIGNUP)
    return user


def refill_available(user: User, today: dt.date | None = None, *, chips_in_pots: int) -> bool:
    """Whether ``user`` may claim today's refill. The chips they have in the pots of
    running games (``chips_in_pots``, games.selectors) count as theirs: a player
    whose chips are on the table is not broke. Stakes reserved at tables that have
    not started are still in the balance."""
    today = today or timezone.localdate()
    return user.chips + chips_in_pots < settings.SITE_RULES["REFILL_BELOW"] and user.last_refill != today


@transaction.atomic
def chips_refill(*, user: User, chips_in_pots: int, today: dt.date | None = None) -> ChipTransaction:
    """Top an account below the refill line up to it, once a day (RULES.md §6),
    counting ``chips_in_pots`` as held. Players claim it through
    ``games.services.chips_refill``, which counts their pots under the same lock."""
    today = today or timezone.localdate()
    locked = User.objects.select_for_update().get(pk=user.pk)
    below = settings.SITE_RULES["REFILL_BELOW"]
    if not refill_available(locked, today, chips_in_pots=chips_in_pots):
        if locked.last_refill == today:
            raise ChipsError(gettext("You have already claimed today's refill."))
        if chips_in_pots:
            raise ChipsError(
                gettext(
                    "Refills are for accounts below %(below)s chips; you hold %(chips)s, "
                    "and %(in_pots)s more are in the pots of games you are playing."
                )
                % {"below": below, "chips": locked.chips, "in_pots": chips_in_pots}
            )
        raise ChipsError(gettext("Refills are for accounts below %(below)s chips.") % {"below": below})
    User.objects.filter(pk=user.pk).update(last_refill=today)
    user.last_refill = today
    return chips_change(user=user, delta=below - locked.chips - chips_in_pots, reason=Reason.REFILL)


@transaction.atomic
def chips_adjust(*, user: User, delta: int, note: str, by: User) -> ChipTransaction:
    """An admin's adjustment: always with a reason, always naming the admin."""
    if not note.strip():
        raise ChipsError(gettext("An adjustment needs a reason."))
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


def key_bindings_set(*, user: User, bindings: dict[str, str], handling: dict[str, int] | None = None) -> None:
    """The player's keys, and how held keys repeat (None: as they were)."""
    user.key_bindings = bindings
    fields = ["key_bindings"]
    if handling is not None:
        user.handling = handling
        fields.append("handling")
    user.save(update_fields=fields)


def user_language_set(*, user: User, language: str) -> None:
    """The language the player chose in the header's menu ("" : the browser's)."""
    user.language = language
    user.save(update_fields=["language"])
