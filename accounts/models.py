from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.contrib.auth.models import UserManager as DjangoUserManager
from django.db import models
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

    chips = models.PositiveIntegerField(default=0)
    key_bindings = models.JSONField(default=dict, blank=True)
    # How held keys repeat and soft drop falls in TetriWar ({"das": 120, "arr": 0,
    # "soft_drop": 40}); validated by the game (games/tetriwar/forms.py HandlingForm),
    # the game's defaults where empty.
    handling = models.JSONField(default=dict, blank=True)
    last_refill = models.DateField(null=True, blank=True)
    # The language chosen in the header's menu (a code of settings.LANGUAGES); blank:
    # the browser's (accounts/middleware.py).
    language = models.CharField(_("language"), max_length=10, blank=True, choices=settings.LANGUAGES, default="")
    banned_at = models.DateTimeField(null=True, blank=True)
    ban_reason = models.CharField(max_length=200, blank=True)
    # Muted: may read the chat, not write in it, until then (lobby/chat.py).
    muted_until = models.DateTimeField(null=True, blank=True)
    mute_reason = models.CharField(max_length=200, blank=True)
    # What the name looks like (accounts/names.py): a new name whose skeleton an
    # account already has is a lookalike and is refused. A lookalike may expand
    # ("m" → "rn"), hence the length.
    username_skeleton = models.CharField(max_length=600, db_index=True, editable=False, default="")

    class Meta:
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


class ChipTransaction(models.Model):
    """One row per change of a player's chips: the ledger."""

    class Reason(models.TextChoices):
        SIGNUP = "signup", _("Welcome chips")
        REFILL = "refill", _("Daily refill")
        STAKE = "stake", _("Stake")
        POT = "pot", _("Pot won")
        REFUND = "refund", _("Stake returned")
        ADMIN = "admin", _("Admin adjustment")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chip_transactions"
    )
    delta = models.IntegerField()
    balance_after = models.PositiveIntegerField()
    reason = models.CharField(max_length=16, choices=Reason.choices)
    note = models.CharField(max_length=200, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text=_("The admin who made an adjustment."),
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
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

    admin = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="moderation_done"
    )
    action = models.CharField(max_length=16, choices=Action.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="moderation_received"
    )
    table_id = models.PositiveIntegerField(null=True, blank=True)
    game_id = models.PositiveIntegerField(null=True, blank=True)
    chat_message_id = models.PositiveIntegerField(null=True, blank=True)
    reason = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        target = self.user or (
            f"game #{self.game_id}" if self.game_id else f"table #{self.table_id}" if self.table_id else ""
        )
        return f"{self.admin} {self.get_action_display().lower()} {target}"


class TokenBucket(models.Model):
    """A rate limit per key, after Healthchecks' TokenBucket: a bucket holds up to
    one token; each action takes 1/capacity of it, and it refills in ``per``.

    Rows, not the cache: a cache may evict a bucket (and forgive its owner) when
    it fills up, which anybody can make it do (accounts/services.py spends them).
    """

    key = models.CharField(max_length=100, unique=True)
    tokens = models.FloatField(default=1.0)
    updated_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.key}: {self.tokens:.2f}"
