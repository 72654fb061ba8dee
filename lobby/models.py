from __future__ import annotations

import datetime as dt
import re

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext, gettext_noop, ngettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from games.words import guest_mark, player_name

# Why a table closed is stored in English (lobby/services.py, games/services.py mark the
# fixed sentences with gettext_noop) and translated where shown: these two carry a number
# or a name, and are matched to be translated whole.
_IDLE_REASON = re.compile(r"Nobody was at the table for (\d+) minutes\.")
_MODERATOR_REASON = re.compile(r"Closed by the moderator (.+)\.")


# A table's default name (``Table.NameKind``), worded where shown.
DEFAULT_NAMES = {
    "table": gettext_noop("%(name)s's table"),
    "practice": gettext_noop("%(name)s practice"),
    "solo": gettext_noop("%(name)s solo"),
}


class Table(models.Model):
    """A place with seats and options where games of one kind are played."""

    class Status(models.TextChoices):
        OPEN = "open", _("Waiting for players")
        RUNNING = "running", _("Playing")
        CLOSED = "closed", _("Closed")

    class NameKind(models.TextChoices):
        """A table's name: the one its host typed, or a default worded for each reader
        (issue 30: a default stored in its creator's language read so to everyone)."""

        TYPED = "", _("as its host typed it")
        TABLE = "table", _("a host's table")
        PRACTICE = "practice", _("a practice")
        SOLO = "solo", _("a solo game")

    game = models.CharField(_("kind of game"), max_length=32)  # a slug of games.registry
    name = models.CharField(_("typed name"), max_length=60, blank=True)  # as typed; empty for a default name
    name_kind = models.CharField(
        _("kind of name"), max_length=8, choices=NameKind.choices, blank=True, default=NameKind.TYPED
    )
    # a default name's player: its creator
    named_for = models.CharField(_("named for"), max_length=150, blank=True)
    options = models.JSONField(_("options"), default=dict)
    seats_total = models.PositiveSmallIntegerField(_("seats"))
    stake = models.PositiveIntegerField(_("stake"), default=0, help_text=_("Chips per seat; 0 is friendly."))
    status = models.CharField(_("status"), max_length=8, choices=Status.choices, default=Status.OPEN)
    host_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("host's account"), null=True, blank=True,
        on_delete=models.SET_NULL, related_name="+",
    )
    host_guest_token = models.CharField(_("host's guest token"), max_length=32, blank=True)
    host_name = models.CharField(_("host's name"), max_length=150)
    closed_reason = models.CharField(_("why it closed"), max_length=200, blank=True)
    # an arena's game (issue 51): made by its pairing, closed when the game ends
    arena = models.ForeignKey(
        "Arena", verbose_name=_("arena"), null=True, blank=True, on_delete=models.SET_NULL, related_name="tables"
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = pgettext_lazy("game table", "table")
        verbose_name_plural = pgettext_lazy("game table", "tables")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(seats_total__gte=1) & models.Q(seats_total__lte=12),
                name="table_seats_1_to_12",
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.title}"

    def get_absolute_url(self) -> str:
        return reverse("lobby:table", args=[self.pk])

    @property
    def title(self) -> str:
        """The table's name in the active language: as typed, or its default worded."""
        words = DEFAULT_NAMES.get(self.name_kind)
        if words is None:
            return self.name
        return gettext(words) % {"name": self.named_for}

    @property
    def is_competitive(self) -> bool:
        return self.stake > 0

    @property
    def host_display_name(self) -> str:
        """The host's name as the pages show it: a guest's marked so in the active
        language. ``host_name`` holds the name alone (migration 0008 took the English
        mark off the tables recorded with it)."""
        if self.host_user_id is None and self.host_guest_token:
            return guest_mark(self.host_name)
        return self.host_name

    @property
    def group_name(self) -> str:
        return f"table-{self.pk}"

    @property
    def closed_reason_words(self) -> str:
        """Why the table closed, in the active language (a moderator's own words as typed)."""
        reason = self.closed_reason
        if match := _IDLE_REASON.fullmatch(reason):
            minutes = int(match[1])
            return ngettext(
                "Nobody was at the table for %(minutes)d minute.",
                "Nobody was at the table for %(minutes)d minutes.",
                minutes,
            ) % {"minutes": minutes}
        if match := _MODERATOR_REASON.fullmatch(reason):
            return gettext("Closed by the moderator %(name)s.") % {"name": match[1]}
        return gettext(reason) if reason else ""


class Seat(models.Model):
    """A taken seat. Seats that nobody holds have no row."""

    table = models.ForeignKey(
        Table,
        verbose_name=pgettext_lazy("game table", "table"),
        on_delete=models.CASCADE,
        related_name="seats",
    )
    number = models.PositiveSmallIntegerField(_("seat number"))
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("player"), null=True, blank=True, on_delete=models.CASCADE,
        related_name="seats",
    )
    guest_token = models.CharField(_("guest token"), max_length=32, blank=True)
    bot_level = models.CharField(
        _("bot level"), max_length=8, blank=True, help_text=_("Set for a computer player.")
    )
    name = models.CharField(_("name"), max_length=150)
    ready = models.BooleanField(pgettext_lazy("a player", "ready"), default=False)
    # The player left the running game (Leave, a ban, 30 s gone): they watch the rest of
    # it, and their seat is freed at its end unless they are still at the table.
    left_game = models.BooleanField(_("left the game"), default=False)
    ip = models.GenericIPAddressField(_("IP address"), null=True, blank=True)
    joined_at = models.DateTimeField(_("joined at"), auto_now_add=True)

    class Meta:
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="one_player_per_seat"),
            models.UniqueConstraint(
                fields=["table", "user"],
                condition=models.Q(user__isnull=False),
                name="one_seat_per_user_per_table",
            ),
            models.UniqueConstraint(
                fields=["table", "guest_token"],
                condition=~models.Q(guest_token=""),
                name="one_seat_per_guest_per_table",
            ),
            models.CheckConstraint(
                condition=models.Q(user__isnull=False) | ~models.Q(guest_token="") | ~models.Q(bot_level=""),
                name="seat_has_a_player",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table} seat {self.number}: {self.name}"

    @property
    def is_bot(self) -> bool:
        return bool(self.bot_level)

    @property
    def is_guest(self) -> bool:
        return self.user_id is None and not self.bot_level

    @property
    def display_name(self) -> str:
        """The name the table shows; a bot's in the active language (``Ada (bot, greedy)``)."""
        if self.is_bot:
            return player_name(self.name, self.bot_level)
        return guest_mark(self.name) if self.is_guest else self.name


class Watcher(models.Model):
    """An open table page (one WebSocket). Spectators are watchers without a seat."""

    table = models.ForeignKey(
        Table,
        verbose_name=pgettext_lazy("game table", "table"),
        on_delete=models.CASCADE,
        related_name="watchers",
    )
    channel_name = models.CharField(_("channel name"), max_length=200, unique=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("player"), null=True, blank=True, on_delete=models.CASCADE,
        related_name="+",
    )
    guest_token = models.CharField(_("guest token"), max_length=32, blank=True)
    # The Daphne process holding the socket (lobby.presence.SERVER_ID): when that
    # process is gone, so is the page, whatever row it left behind.
    server = models.CharField(_("server"), max_length=80, blank=True, db_index=True)
    connected_at = models.DateTimeField(_("connected at"), auto_now_add=True)

    class Meta:
        verbose_name = _("watcher")
        verbose_name_plural = _("watchers")

    def __str__(self) -> str:
        return f"{self.table} watched by {self.user or self.guest_token or 'anonymous'}"


class ServerBeat(models.Model):
    """A Daphne process of a scale-out site, alive while it beats (lobby.presence)."""

    server = models.CharField(_("server"), max_length=80, unique=True)
    beat_at = models.DateTimeField(_("last beat at"))

    class Meta:
        verbose_name = _("server heartbeat")
        verbose_name_plural = _("server heartbeats")

    def __str__(self) -> str:
        return f"{self.server} at {self.beat_at:%H:%M:%S}"


class QueueEntry(models.Model):
    """A person waiting for a quick-play game (issue 32), one row per person: in the
    database, so that every server process sees, claims and changes the same queue
    (lobby/quickplay.py). Once matched the row names its table, until its page follows
    the player there."""

    # lobby.broadcast.identity_key: "u<user id>" or "g<guest token>"; one row per person.
    player_key = models.CharField(_("player key"), max_length=40, unique=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("player"), null=True, blank=True, on_delete=models.CASCADE,
        related_name="+",
    )
    guest_token = models.CharField(_("guest token"), max_length=32, blank=True)
    name = models.CharField(_("name"), max_length=150)
    ip = models.GenericIPAddressField(_("IP address"), null=True, blank=True)
    game = models.CharField(_("kind of game"), max_length=32)  # a slug of games.registry
    stake = models.PositiveIntegerField(_("stake"), default=0, help_text=_("Chips per seat; 0 is friendly."))
    rating = models.FloatField(_("rating"))  # games.ratings.matching_rating as the player joined
    joined_at = models.DateTimeField(_("joined at"))
    seen_at = models.DateTimeField(_("last seen at"))  # the last look of the waiting page
    keep_waiting = models.BooleanField(_("keeps waiting"), default=False)  # declined the offer of a bot
    table = models.ForeignKey(
        Table,
        verbose_name=pgettext_lazy("game table", "table"),
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
    )
    matched_at = models.DateTimeField(_("matched at"), null=True, blank=True)

    class Meta:
        verbose_name = _("quick-play queue entry")
        verbose_name_plural = _("quick-play queue entries")
        ordering = ["joined_at", "id"]
        indexes = [models.Index(fields=["game", "stake", "joined_at"], name="queue_waiting_order")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(stake=0) | models.Q(user__isnull=False),
                name="queue_competitive_for_accounts",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} waiting for {self.game}" + (f" at {self.stake}" if self.stake else "")

    @property
    def is_competitive(self) -> bool:
        return self.stake > 0


class ChatMessage(models.Model):
    """One line of chat (issue 33): in the lobby's room, a table's, or a table's
    spectators' room (written by its spectators while a game runs, read by whoever
    is not seated). Each room keeps its last ``settings.CHAT_HISTORY`` (lobby/chat.py);
    what a moderator deletes stays, marked, for the record."""

    class Room(models.TextChoices):
        LOBBY = "lobby", _("Lobby")
        TABLE = "table", _("Table")
        SPECTATORS = "spectators", _("Spectators")
        ARENA = "arena", _("Arena")

    room = models.CharField(pgettext_lazy("chat", "room"), max_length=10, choices=Room.choices)
    table = models.ForeignKey(
        Table,
        verbose_name=pgettext_lazy("game table", "table"),
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="chat_messages",
    )
    arena = models.ForeignKey(
        "Arena", verbose_name=_("arena"), null=True, blank=True, on_delete=models.CASCADE,
        related_name="chat_messages",
    )
    # lobby.broadcast.identity_key of the writer ("u<user id>", "g<guest token>"): never shown.
    author_key = models.CharField(_("author's key"), max_length=40)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("author"), null=True, blank=True, on_delete=models.SET_NULL,
        related_name="chat_messages",
    )
    author_name = models.CharField(_("author's name"), max_length=150)
    text = models.TextField(_("text"))  # at most settings.CHAT_MAX_LENGTH characters, cleaned (lobby/chat.py)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    deleted_at = models.DateTimeField(_("deleted at"), null=True, blank=True)
    deleted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("deleted by"), null=True, blank=True,
        on_delete=models.SET_NULL, related_name="+",
    )

    class Meta:
        verbose_name = _("chat message")
        verbose_name_plural = _("chat messages")
        ordering = ["-id"]
        indexes = [models.Index(fields=["table", "room", "-id"], name="chat_room_newest")]
        constraints = [
            models.CheckConstraint(
                condition=(models.Q(room="lobby") & models.Q(table__isnull=True) & models.Q(arena__isnull=True))
                | (models.Q(room="arena") & models.Q(table__isnull=True) & models.Q(arena__isnull=False))
                | (models.Q(room__in=["table", "spectators"]) & models.Q(table__isnull=False)
                   & models.Q(arena__isnull=True)),
                name="chat_room_matches_place",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.author_name}: {self.text[:60]}"

    @property
    def is_guest(self) -> bool:
        return self.author_key.startswith("g")


class ChatReport(models.Model):
    """A player's report of a message, for the moderators (the admin). It keeps what
    was reported as it was: the message itself may be trimmed away or deleted."""

    message = models.ForeignKey(
        ChatMessage,
        verbose_name=_("message"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="reports",
    )
    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("reported by"),
        on_delete=models.CASCADE,
        related_name="chat_reports",
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("author"), null=True, blank=True, on_delete=models.SET_NULL,
        related_name="chat_reported",
    )
    author_name = models.CharField(_("author's name"), max_length=150)
    text = models.TextField(_("text"))
    room = models.CharField(pgettext_lazy("chat", "room"), max_length=10, choices=ChatMessage.Room.choices)
    table_id = models.PositiveIntegerField(_("table number"), null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    resolved_at = models.DateTimeField(_("resolved at"), null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("resolved by"), null=True, blank=True,
        on_delete=models.SET_NULL, related_name="+",
    )

    class Meta:
        verbose_name = _("chat report")
        verbose_name_plural = _("chat reports")
        ordering = ["resolved_at", "-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["message", "reporter"], name="chat_report_once"),
        ]

    def __str__(self) -> str:
        return f"{self.reporter} reported {self.author_name}: {self.text[:60]}"


class ChatIgnore(models.Model):
    """A player hides another's messages, for themselves only."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("ignored by"),
        on_delete=models.CASCADE,
        related_name="chat_ignores",
    )
    author_key = models.CharField(_("author's key"), max_length=40)  # as ChatMessage.author_key
    author_name = models.CharField(_("author's name"), max_length=150)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("ignored chat author")
        verbose_name_plural = _("ignored chat authors")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "author_key"], name="chat_ignore_once"),
        ]

    def __str__(self) -> str:
        return f"{self.owner} ignores {self.author_name}"


class ArenaSchedule(models.Model):
    """An arena held every week at the same hour (issue 51), made by staff in the admin:
    each coming one is created a week ahead (lobby/arenas.py ``arenas_scheduled``)."""

    class Weekday(models.IntegerChoices):
        MONDAY = 0, _("Monday")
        TUESDAY = 1, _("Tuesday")
        WEDNESDAY = 2, _("Wednesday")
        THURSDAY = 3, _("Thursday")
        FRIDAY = 4, _("Friday")
        SATURDAY = 5, _("Saturday")
        SUNDAY = 6, _("Sunday")

    title = models.CharField(_("title"), max_length=80)
    game = models.CharField(_("kind of game"), max_length=32)  # a slug of games.registry
    options = models.JSONField(_("options"), default=dict, blank=True)
    seats = models.PositiveSmallIntegerField(
        _("players per game"), null=True, blank=True, help_text=_("Empty: as quick play seats the game.")
    )
    weekday = models.PositiveSmallIntegerField(_("weekday"), choices=Weekday.choices)
    time_utc = models.TimeField(_("time (UTC)"))
    minutes = models.PositiveSmallIntegerField(_("length in minutes"))
    fee = models.PositiveIntegerField(_("entry fee"), default=0, help_text=_("Chips; 0 is friendly."))
    active = models.BooleanField(_("active"), default=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("weekly arena")
        verbose_name_plural = _("weekly arenas")
        ordering = ["weekday", "time_utc", "id"]

    def __str__(self) -> str:
        return f"{self.title} ({self.get_weekday_display()} {self.time_utc:%H:%M} UTC)"


class Arena(models.Model):
    """A tournament of one game (issue 51): players join, are paired as their games end,
    and score by place (games/core/arena.py) until its time is up."""

    class Status(models.TextChoices):
        SCHEDULED = "scheduled", _("Starts soon")
        RUNNING = "running", _("Running")
        FINISHED = "finished", _("Finished")
        CANCELLED = "cancelled", _("Cancelled")

    title = models.CharField(_("title"), max_length=80)
    game = models.CharField(_("kind of game"), max_length=32)  # a slug of games.registry
    options = models.JSONField(_("options"), default=dict, blank=True)
    # players at each of its tables (the rest, when fewer wait, at a smaller one)
    seats = models.PositiveSmallIntegerField(_("players per game"), default=2)
    starts_at = models.DateTimeField(_("starts at"))
    minutes = models.PositiveSmallIntegerField(_("length in minutes"))
    fee = models.PositiveIntegerField(_("entry fee"), default=0, help_text=_("Chips; 0 is friendly."))
    pool = models.PositiveIntegerField(_("prize pool"), default=0)  # the fees paid in and not refunded
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.SCHEDULED)
    schedule = models.ForeignKey(
        ArenaSchedule, verbose_name=_("weekly arena"), null=True, blank=True, on_delete=models.SET_NULL,
        related_name="arenas",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("created by"), null=True, blank=True,
        on_delete=models.SET_NULL, related_name="+",
    )
    cancelled_reason = models.CharField(_("why it was cancelled"), max_length=200, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        verbose_name = _("arena")
        verbose_name_plural = _("arenas")
        ordering = ["starts_at", "id"]
        indexes = [models.Index(fields=["status", "starts_at"], name="arena_status_start")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(minutes__gte=10) & models.Q(minutes__lte=120), name="arena_10_to_120_minutes"
            ),
            models.UniqueConstraint(fields=["schedule", "starts_at"], name="arena_once_per_schedule_slot"),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.title}"

    def get_absolute_url(self) -> str:
        return reverse("lobby:arena", args=[self.pk])

    @property
    def ends_at(self) -> dt.datetime:
        return self.starts_at + dt.timedelta(minutes=self.minutes)

    @property
    def is_competitive(self) -> bool:
        return self.fee > 0


class ArenaPlayer(models.Model):
    """A player of an arena: their score, streak and whether they want another game."""

    class Status(models.TextChoices):
        ACTIVE = "active", _("Playing")
        PAUSED = "paused", _("Paused")
        LEFT = "left", pgettext_lazy("arena player status", "Left")

    arena = models.ForeignKey(Arena, verbose_name=_("arena"), on_delete=models.CASCADE, related_name="players")
    # lobby.broadcast.identity_key: "u<user id>" or "g<guest token>"
    player_key = models.CharField(_("player key"), max_length=40)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("player"), null=True, blank=True, on_delete=models.CASCADE,
        related_name="arena_entries",
    )
    guest_token = models.CharField(_("guest token"), max_length=32, blank=True)
    name = models.CharField(_("name"), max_length=150)
    ip = models.GenericIPAddressField(_("IP address"), null=True, blank=True)
    rating = models.FloatField(_("rating"))  # games.ratings.matching_rating as the player joined
    status = models.CharField(_("status"), max_length=8, choices=Status.choices, default=Status.ACTIVE)
    points = models.PositiveIntegerField(_("points"), default=0)
    games = models.PositiveIntegerField(_("games"), default=0)
    firsts = models.PositiveSmallIntegerField(_("firsts in a row"), default=0)
    on_fire = models.BooleanField(_("on fire"), default=False)
    fee_paid = models.PositiveIntegerField(_("fee paid"), default=0)
    prize = models.PositiveIntegerField(_("prize"), default=0)
    rank = models.PositiveIntegerField(_("final rank"), null=True, blank=True)
    # the keys of the last game's opponents (never the same again while others wait)
    last_opponents = models.JSONField(_("last opponents"), default=list, blank=True)
    waiting_since = models.DateTimeField(_("waiting since"), null=True, blank=True)  # None: not waiting
    table = models.ForeignKey(
        Table, verbose_name=pgettext_lazy("game table", "table"), null=True, blank=True,
        on_delete=models.SET_NULL, related_name="+",
    )  # the arena game they are at, if any
    joined_at = models.DateTimeField(_("joined at"), auto_now_add=True)

    class Meta:
        verbose_name = _("arena player")
        verbose_name_plural = _("arena players")
        ordering = ["-points", "games", "-rating", "id"]
        constraints = [
            models.UniqueConstraint(fields=["arena", "player_key"], name="arena_player_once"),
            models.CheckConstraint(
                condition=models.Q(fee_paid=0) | models.Q(user__isnull=False), name="arena_fee_from_accounts"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} in {self.arena}"

    @property
    def joined(self) -> int:  # games.core.arena's order of joining
        return self.pk or 0

    @property
    def display_name(self) -> str:
        return guest_mark(self.name) if self.user_id is None else self.name
