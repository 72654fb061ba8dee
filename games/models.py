from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games.words import player_name


class Game(models.Model):
    """One match played at a table: what was played, with which seed, and how it ended."""

    class Status(models.TextChoices):
        RUNNING = "running", _("Running")
        FINISHED = "finished", _("Finished")
        ABORTED = "aborted", _("Aborted")

    table = models.ForeignKey(
        "lobby.Table",
        verbose_name=pgettext_lazy("game table", "table"),
        on_delete=models.PROTECT,
        related_name="games",
    )
    kind = models.CharField(_("kind of game"), max_length=32)  # a slug of games.registry
    options = models.JSONField(_("options"), default=dict)
    seed = models.BigIntegerField(_("seed"))
    # The version of its kind's rules the game was played under (its live adapter's
    # RULES_VERSION when it was created): a replay and its check use that version's engine.
    rules_version = models.PositiveSmallIntegerField(
        _("rules version"),
        default=1,
        help_text=_("The version of its game's rules it was played under (its replay uses them)."),
    )
    stake = models.PositiveIntegerField(_("stake"), default=0)
    pot = models.PositiveIntegerField(
        pgettext_lazy("chips", "pot"), default=0, help_text=_("Chips taken from the seats at the start.")
    )
    status = models.CharField(_("status"), max_length=8, choices=Status.choices, default=Status.RUNNING)
    scored = models.BooleanField(_("scored"), default=False)
    unscored_reason = models.CharField(_("why it was not scored"), max_length=200, blank=True)
    abort_reason = models.CharField(_("why it was aborted"), max_length=200, blank=True)
    # why it ended (games.core.outcome.Termination), once it has
    termination = models.CharField(_("how it ended"), max_length=16, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)
    ended_at = models.DateTimeField(_("ended at"), null=True, blank=True)
    # Replays (games/replays.py): public like the game was, unless an admin hides one;
    # and checked (games/verify.py): does the game rebuilt from its log end as recorded?
    replay_hidden = models.BooleanField(
        _("replay hidden"), default=False, help_text=_("Hide this game's replay from everyone but admins.")
    )

    class ReplayCheck(models.TextChoices):
        UNCHECKED = "", _("not checked")
        OK = "ok", _("replays as recorded")
        MISMATCH = "mismatch", _("MISMATCH")
        NO_RECORD = "no_record", _("no log to replay")

    replay_check = models.CharField(
        _("replay check"), max_length=9, choices=ReplayCheck.choices, blank=True, default=""
    )
    replay_problem = models.TextField(
        _("replay problem"), blank=True, help_text=_("What the last check found different.")
    )
    replay_checked_at = models.DateTimeField(_("replay checked at"), null=True, blank=True)

    class Meta:
        verbose_name = _("game")
        verbose_name_plural = _("games")
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status"])]

    def __str__(self) -> str:
        return f"Game #{self.pk} ({self.kind}) at table #{self.table_id}"


class Participation(models.Model):
    """A seat's part in a game and its outcome."""

    game = models.ForeignKey(
        Game, verbose_name=_("game"), on_delete=models.CASCADE, related_name="participations"
    )
    seat = models.PositiveSmallIntegerField(_("seat"))
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("player"), null=True, blank=True, on_delete=models.SET_NULL,
        related_name="participations",
    )
    name = models.CharField(_("name"), max_length=150)
    is_guest = models.BooleanField(_("guest"), default=False)
    bot_level = models.CharField(_("bot level"), max_length=8, blank=True)
    ip = models.GenericIPAddressField(_("IP address"), null=True, blank=True)
    score = models.IntegerField(_("score"), default=0)
    lines = models.PositiveIntegerField(pgettext_lazy("cleared lines", "lines"), default=0)
    eliminations = models.PositiveIntegerField(_("eliminations"), default=0)
    place = models.PositiveSmallIntegerField(
        pgettext_lazy("finishing position", "place"), null=True, blank=True
    )
    forfeited = models.BooleanField(_("forfeited"), default=False)
    points = models.IntegerField(_("points"), default=0)
    chips_delta = models.IntegerField(_("chips won or lost"), default=0)
    # The player's shown rating before and after a scored game (games.ratings): the
    # results and the profile show the new value with its change. None: not rated.
    rating_before = models.IntegerField(_("rating before"), null=True, blank=True)
    rating_after = models.IntegerField(_("rating after"), null=True, blank=True)

    class Meta:
        verbose_name = _("participation")
        verbose_name_plural = _("participations")
        ordering = ["game", "seat"]
        constraints = [models.UniqueConstraint(fields=["game", "seat"], name="one_participation_per_seat")]

    def __str__(self) -> str:
        return f"{self.game} seat {self.seat}: {self.player_name}"

    @property
    def player_name(self) -> str:
        """The name as people read it; a bot's in the active language (``Ada (bot, greedy)``)."""
        return player_name(self.name, self.bot_level)

    @property
    def rating_change(self) -> int | None:
        if self.rating_after is None or self.rating_before is None:
            return None
        return self.rating_after - self.rating_before


class GameLog(models.Model):
    """Every intent of a game: ``entries`` as (seconds since start, seat, intent) to read,
    and ``data``, the same log packed with the engine's exact times and its clock at the
    start and the end (``games.core.log.InputLog.pack``), from which the game replays."""

    game = models.OneToOneField(Game, verbose_name=_("game"), on_delete=models.CASCADE, related_name="log")
    entries = models.JSONField(_("entries"), default=list)
    summary = models.JSONField(_("summary"), default=dict, blank=True)
    data = models.BinaryField(_("packed log"), default=b"", blank=True)


    class Meta:
        verbose_name = _("input log")
        verbose_name_plural = _("input logs")

    def __str__(self) -> str:
        return f"Log of {self.game}"


class JournalBatch(models.Model):
    """A running game's inputs as its host wrote them down, a batch at a time
    (games/journal.py): what a host that starts again rebuilds the game from. ``data``
    is the batch's entries packed as a finished game's log is (``InputLog.pack``), with
    the engine's clock when the batch was written; the batches go once the game ends."""

    game = models.ForeignKey(Game, verbose_name=_("game"), on_delete=models.CASCADE, related_name="journal")
    seq = models.PositiveIntegerField(_("batch number"))
    data = models.BinaryField(_("packed inputs"))
    written_at = models.DateTimeField(_("written at"), auto_now_add=True)

    class Meta:
        verbose_name = _("journal batch")
        verbose_name_plural = _("journal batches")
        constraints = [models.UniqueConstraint(fields=["game", "seq"], name="one_journal_batch_per_number")]

    def __str__(self) -> str:
        return f"batch {self.seq} of {self.game}"


class HostHeartbeat(models.Model):
    """The last sign of life of the process that hosts a shard of the tables, and its
    lease on the shard: only ``holder`` hosts the shard's tables while it beats
    (games/lease.py)."""

    shard = models.PositiveIntegerField(_("shard"), primary_key=True)
    beat_at = models.DateTimeField(_("last beat at"))
    pid = models.PositiveIntegerField(_("process id"), default=0)
    holder = models.CharField(_("held by"), max_length=100, blank=True)


    class Meta:
        verbose_name = _("host heartbeat")
        verbose_name_plural = _("host heartbeats")

    def __str__(self) -> str:
        return f"shard {self.shard} at {self.beat_at:%H:%M:%S}"


class Rating(models.Model):
    """A player's skill rating in one game (openskill's Plackett–Luce: ``games.core.rating``),
    beside RULES.md §6 points. Written by ``games.services.game_finish`` for scored
    games only; guests and bots have none."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("player"), on_delete=models.CASCADE, related_name="ratings"
    )
    kind = models.CharField(_("kind of game"), max_length=32)  # a slug of games.registry
    mu = models.FloatField(_("mu"))
    sigma = models.FloatField(_("sigma"))
    rated_games = models.PositiveIntegerField(_("rated games"), default=0)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("rating")
        verbose_name_plural = _("ratings")
        ordering = ["kind", "-mu"]
        constraints = [models.UniqueConstraint(fields=["user", "kind"], name="one_rating_per_user_and_kind")]

    def __str__(self) -> str:
        return f"{self.user} in {self.kind}: {self.mu:.1f} ± {self.sigma:.1f}"
