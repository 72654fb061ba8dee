from __future__ import annotations

import re

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.contrib.auth.models import UserManager as DjangoUserManager
from django.db import models
from django.utils.translation import gettext, gettext_noop, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from accounts.caching import user_changed
from accounts.names import username_skeleton

# TetriWar's keys (RULES.md §1), as KeyboardEvent.key values. A player may remap
# them; the stored bindings are merged over these defaults.
DEFAULT_KEY_BINDINGS: dict[str, str] = {
    "left": "ArrowLeft",
    "right": "ArrowRight",
    "rotate": "ArrowUp",
    "soft_drop": "ArrowDown",
    "hard_drop": "Control",
    "bomb": "Enter",
    "bomb_1": "1",
    "bomb_2": "2",
    "bomb_3": "3",
    "bomb_4": "4",
}
KEY_ACTION_LABELS: dict[str, str] = {  # lazy: translated where shown
    "left": _("Move left"),
    "right": _("Move right"),
    "rotate": _("Rotate clockwise"),
    "soft_drop": _("Soft drop"),
    "hard_drop": _("Hard drop (Space always works too)"),
    "bomb": _("Drop a bomb (automatic target)"),
    "bomb_1": _("Bomb on player 1 (yourself)"),
    "bomb_2": _("Bomb on player 2"),
    "bomb_3": _("Bomb on player 3"),
    "bomb_4": _("Bomb on player 4"),
}


# The reason of the mute the site gives by itself, for writing too fast in the chat
# (lobby.chat.mute_for_flood). Stored in English, as every such mute before it was, and
# translated where shown (``reason_words``); moderators' reasons are kept as typed.
FLOOD_MUTE_REASON = gettext_noop("Writing too fast in the chat (automatic).")
SITE_REASONS = frozenset({FLOOD_MUTE_REASON})
# How lobby.chat.mute logs a mute's reason with its end.
_MUTE_UNTIL = re.compile(r"(?P<reason>.*) \(until (?P<until>\d{4}-\d\d-\d\d \d\d:\d\d) UTC\)", re.DOTALL)


def reason_words(reason: str) -> str:
    """A stored reason in the active language: one the site writes is translated, any
    other (a moderator's) is shown as typed."""
    return gettext(reason) if reason in SITE_REASONS else reason


class UserQuerySet(models.QuerySet):
    def update(self, **kwargs):
        """Every bulk change of users also retires their cached copies (accounts/caching.py)."""
        ids = list(self.values_list("pk", flat=True))
        count = super().update(**kwargs)
        for pk in ids:
            user_changed(pk)
        return count


class UserManager(DjangoUserManager.from_queryset(UserQuerySet)):
    pass


class User(AbstractUser):
    """A player account. ``chips`` is a cache of the ledger's running balance."""

    objects = UserManager()

    chips = models.PositiveIntegerField(_("chips"), default=0)
    key_bindings = models.JSONField(_("key bindings"), default=dict, blank=True)
    # How held keys repeat and soft drop falls in TetriWar ({"das": 120, "arr": 0,
    # "soft_drop": 40}); validated by the game (games/tetriwar/forms.py HandlingForm),
    # the game's defaults where empty.
    handling = models.JSONField(_("key handling"), default=dict, blank=True)
    last_refill = models.DateField(_("last daily refill"), null=True, blank=True)
    # The language chosen in the header's menu (a code of settings.LANGUAGES); blank:
    # the browser's (accounts/middleware.py).
    language = models.CharField(
        _("language"), max_length=10, blank=True, choices=settings.LANGUAGES, default=""
    )
    banned_at = models.DateTimeField(_("banned at"), null=True, blank=True)
    ban_reason = models.CharField(_("reason for the ban"), max_length=200, blank=True)
    # Muted: may read the chat, not write in it, until then (lobby/chat.py).
    muted_until = models.DateTimeField(_("muted in the chat until"), null=True, blank=True)
    # As the moderator typed it, or FLOOD_MUTE_REASON in English (read: mute_reason_words).
    mute_reason = models.CharField(_("reason for the mute"), max_length=200, blank=True)
    # What the name looks like (accounts/names.py): a new name whose skeleton an
    # account already has is a lookalike and is refused. A lookalike may expand
    # ("m" → "rn"), hence the length.
    username_skeleton = models.CharField(
        _("name's skeleton"), max_length=600, db_index=True, editable=False, default=""
    )

    class Meta:
        verbose_name = _("player")
        verbose_name_plural = _("players")
        constraints = [
            models.CheckConstraint(condition=models.Q(chips__gte=0), name="chips_never_negative"),
        ]

    def save(self, *args, **kwargs) -> None:
        # A derived lookup key, like a slug: it must follow the name through every
        # write, the admin's forms and createsuperuser included, not only sign-ups.
        self.username_skeleton = username_skeleton(self.username)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "username" in update_fields:
            kwargs["update_fields"] = {*update_fields, "username_skeleton"}
        super().save(*args, **kwargs)

    @property
    def is_banned(self) -> bool:
        return self.banned_at is not None

    def bindings(self) -> dict[str, str]:
        return {**DEFAULT_KEY_BINDINGS, **(self.key_bindings or {})}

    @property
    def mute_reason_words(self) -> str:
        """Why the player is muted, in the active language (a moderator's own words as typed)."""
        return reason_words(self.mute_reason)


class ChipTransaction(models.Model):
    """One row per change of a player's chips: the ledger."""

    class Reason(models.TextChoices):
        SIGNUP = "signup", _("Welcome chips")
        REFILL = "refill", _("Daily refill")
        STAKE = "stake", _("Stake")
        POT = "pot", _("Pot won")
        REFUND = "refund", _("Stake returned")
        ADMIN = "admin", _("Admin adjustment")
        ARENA_FEE = "arena_fee", _("Arena entry fee")
        ARENA_PRIZE = "arena_prize", _("Arena prize")
        ARENA_REFUND = "arena_refund", _("Arena fee returned")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chip_transactions",
        verbose_name=_("player"),
    )
    delta = models.IntegerField(pgettext_lazy("chips won or lost", "change"))
    balance_after = models.PositiveIntegerField(_("balance after"))
    reason = models.CharField(_("reason"), max_length=16, choices=Reason.choices)
    note = models.CharField(_("note"), max_length=200, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("made by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text=_("The admin who made an adjustment."),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("chip transaction")
        verbose_name_plural = _("chip transactions")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(balance_after__gte=0), name="ledger_balance_never_negative"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.delta:+d} ({self.get_reason_display()})"


class ModerationAction(models.Model):
    """What an admin did, to whom, and why: every moderation leaves one."""

    class Action(models.TextChoices):
        BAN = "ban", _("Ban")
        UNBAN = "unban", _("Unban")
        CLOSE_TABLE = "close_table", _("Close table")
        ADJUST_CHIPS = "adjust_chips", _("Adjust chips")
        HIDE_REPLAY = "hide_replay", _("Hide replay")
        SHOW_REPLAY = "show_replay", _("Show replay")
        MUTE = "mute", _("Mute in chat")
        UNMUTE = "unmute", _("Unmute in chat")
        DELETE_MESSAGE = "delete_message", _("Delete chat message")
        DISMISS_REPORT = "dismiss_report", _("Dismiss chat report")
        CREATE_ARENA = "create_arena", _("Create arena")
        EDIT_ARENA = "edit_arena", _("Edit arena")
        CANCEL_ARENA = "cancel_arena", _("Cancel arena")
        SCHEDULE_ARENA = "schedule_arena", _("Schedule weekly arena")

    admin = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="moderation_done",
        verbose_name=_("moderator"),
    )
    action = models.CharField(pgettext_lazy("moderation", "action"), max_length=16, choices=Action.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="moderation_received", verbose_name=_("player"),
    )
    table_id = models.PositiveIntegerField(_("table number"), null=True, blank=True)
    game_id = models.PositiveIntegerField(_("game number"), null=True, blank=True)
    chat_message_id = models.PositiveIntegerField(_("chat message number"), null=True, blank=True)
    arena_id = models.PositiveIntegerField(_("arena number"), null=True, blank=True)
    # English where the site wrote it (read: reason_words), as typed where a moderator did.
    reason = models.CharField(_("reason"), max_length=200, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("moderation action")
        verbose_name_plural = _("moderation actions")
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        target = self.user or (
            f"game #{self.game_id}" if self.game_id
            else f"table #{self.table_id}" if self.table_id
            else f"arena #{self.arena_id}" if self.arena_id
            else ""
        )
        return f"{self.admin} {self.get_action_display().lower()} {target}"

    @property
    def reason_words(self) -> str:
        """The reason in the active language: a mute's end (``lobby.chat.mute`` adds it in
        English) and the automatic mute's reason translated, a moderator's words as typed."""
        if self.action == self.Action.MUTE and (match := _MUTE_UNTIL.fullmatch(self.reason)):
            return gettext("%(reason)s (until %(until)s UTC)") % {
                "reason": reason_words(match["reason"]), "until": match["until"],
            }
        return reason_words(self.reason)


class TokenBucket(models.Model):
    """A rate limit per key, after Healthchecks' TokenBucket: a bucket holds up to
    one token; each action takes 1/capacity of it, and it refills in ``per``.

    Rows, not the cache: a cache may evict a bucket (and forgive its owner) when
    it fills up, which anybody can make it do (accounts/services.py spends them).
    """

    key = models.CharField(_("key"), max_length=100, unique=True)
    tokens = models.FloatField(_("tokens"), default=1.0)
    updated_at = models.DateTimeField(_("updated at"))

    class Meta:
        verbose_name = _("rate limit")
        verbose_name_plural = _("rate limits")

    def __str__(self) -> str:
        return f"{self.key}: {self.tokens:.2f}"
