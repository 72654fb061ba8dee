"""Games in the admin: every result and input log, to read (RULES.md §6). Results,
points and chips are written only by games.services, so nothing here edits them.

Skill ratings (issue 32) are read here too: only games.services.game_finish writes them.

Replays are moderated here (issue #23): each game's replay check (games/verify.py) is a
column, a mismatch raises an alarm over the list, and moderators may check replays
again, or hide and show them."""

from __future__ import annotations

import json
from collections import Counter

from django.contrib import admin, messages
from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from config.admin_mixins import ReadOnlyMixin
from games import services
from games.models import Game, Participation, Rating
from games.ratings import shown_of
from games.verify import record_check, verdict


class ParticipationInline(ReadOnlyMixin, admin.TabularInline):
    model = Participation
    extra = 0
    fields = (
        "seat",
        "shown_name",
        "user",
        "ip",
        "score",
        "lines",
        "eliminations",
        "place",
        "forfeited",
        "points",
        "chips_delta",
        "rating_before",
        "rating_after",
    )
    readonly_fields = fields
    can_delete = False

    @admin.display(description=_("Name"))
    def shown_name(self, participation: Participation) -> str:
        """A bot's in the admin's language, as the table showed it."""
        return participation.player_name


def _entry_line(entry) -> str:
    """One log entry, [seconds since start, seat, intent], as a line of text."""
    if isinstance(entry, list | tuple) and len(entry) == 3:
        seconds, seat, intent = entry
        try:
            return gettext("%(seconds)9.3f s  seat %(seat)s  %(intent)s") % {
                "seconds": float(seconds), "seat": seat, "intent": intent,
            }
        except (TypeError, ValueError):
            pass
    return json.dumps(entry)


@admin.register(Game)
class GameAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = (
        "id",
        "table",
        "kind",
        "status",
        "scored",
        "stake",
        "pot",
        "ended_at",
        "replay_check_column",
        "replay_hidden",
    )
    list_filter = ("kind", "status", "scored", "replay_check", "replay_hidden")
    list_select_related = ("table",)
    search_fields = ("=id", "=table__id", "participations__name")
    date_hierarchy = "created_at"
    fieldsets = (
        (None, {"fields": ("table", "kind", "rules_version", "status", "options", "seed", "stake", "pot")}),
        (
            _("Result"),
            {"fields": ("scored", "unscored_reason", "abort_reason", "created_at", "started_at", "ended_at")},
        ),
        (
            _("Replay"),
            {
                "fields": (
                    "replay_link",
                    "replay_hidden",
                    "replay_check",
                    "replay_problem",
                    "replay_checked_at",
                )
            },
        ),
        (_("Input log"), {"fields": ("log_summary", "log_entries")}),
    )
    readonly_fields = (
        "table",
        "kind",
        "rules_version",
        "status",
        "options",
        "seed",
        "stake",
        "pot",
        "scored",
        "unscored_reason",
        "abort_reason",
        "created_at",
        "started_at",
        "ended_at",
        "log_summary",
        "log_entries",
        "replay_link",
        "replay_hidden",
        "replay_check",
        "replay_problem",
        "replay_checked_at",
    )
    inlines = [ParticipationInline]
    actions = ["check_replays", "hide_replays", "show_replays"]

    def get_queryset(self, request: HttpRequest):
        return super().get_queryset(request).select_related("log")

    @admin.display(description=_("Summary"))
    def log_summary(self, obj: Game) -> str:
        log = getattr(obj, "log", None)
        if log is None or not log.summary:
            return "–"
        return format_html('<pre class="game-log-summary">{}</pre>', json.dumps(log.summary, indent=2))

    @admin.display(description=_("Entries"))
    def log_entries(self, obj: Game) -> str:
        log = getattr(obj, "log", None)
        if log is None or not log.entries:
            return gettext("No input recorded.")
        text = "\n".join(_entry_line(entry) for entry in log.entries)
        summary = ngettext(
            "%(count)s entry: seconds since the start, seat, intent.",
            "%(count)s entries: seconds since the start, seat, intent.",
            len(log.entries),
        ) % {"count": len(log.entries)}
        return format_html('<p>{}</p><pre class="game-log">{}</pre>', summary, text)

    # --- replays (games/verify.py) ------------------------------------------------------
    @admin.display(description=_("Replay check"), ordering="replay_check")
    def replay_check_column(self, obj: Game) -> str:
        if obj.replay_check == Game.ReplayCheck.OK:
            return "✓"
        if obj.replay_check == Game.ReplayCheck.MISMATCH:
            return format_html(
                '<strong class="replay-mismatch" style="color: var(--error-fg)" title="{}">⚠ {}</strong>',
                obj.replay_problem,
                gettext("MISMATCH"),
            )
        if obj.replay_check == Game.ReplayCheck.NO_RECORD:
            return gettext("no log")
        return "—"

    @admin.display(description=_("Replay"))
    def replay_link(self, obj: Game) -> str:
        if obj.status != Game.Status.FINISHED:
            return "–"
        try:
            url = reverse("games:replay", args=[obj.pk])
        except NoReverseMatch:  # the replay page is not in this deployment's URLs
            return "–"
        return format_html('<a href="{}">{}</a>', url, gettext("View replay"))

    def changelist_view(self, request: HttpRequest, extra_context=None):
        # An alarm above the list: a game that does not replay as recorded means a
        # bug in an engine, or a record changed after the game. On GET only, so an
        # action's redirect does not show it twice.
        if request.method == "GET":
            count = Game.objects.filter(
                status=Game.Status.FINISHED, replay_check=Game.ReplayCheck.MISMATCH
            ).count()
            if count:
                url = (
                    reverse("admin:games_game_changelist")
                    + "?replay_check__exact="
                    + Game.ReplayCheck.MISMATCH
                )
                text = ngettext(
                    "%(count)d game does not replay to its recorded result",
                    "%(count)d games do not replay to their recorded result",
                    count,
                ) % {"count": count}
                messages.error(request, format_html('{}: <a href="{}">{}</a>.', text, url, gettext("see them")))
        return super().changelist_view(request, extra_context)

    def has_moderate_permission(self, request: HttpRequest) -> bool:
        # Results stay read-only for everyone (ReadOnlyMixin); checking and hiding
        # replays is for the staff who hold the change permission on games.
        return request.user.has_perm("games.change_game")

    @admin.action(description=_("Check replays now"), permissions=["moderate"])
    def check_replays(self, request: HttpRequest, queryset) -> None:
        finished = (
            queryset.filter(status=Game.Status.FINISHED)
            .select_related("log")
            .prefetch_related("participations")
        )
        counts: Counter[str] = Counter(
            verdict(record_check(game)) for game in finished.iterator(chunk_size=100)
        )
        mismatches = counts[Game.ReplayCheck.MISMATCH]
        self.message_user(
            request,
            gettext(
                "Checked %(count)d finished game(s): %(ok)d replay as recorded, %(mismatches)d mismatch(es), "
                "%(missing)d without a log."
            ) % {
                "count": counts.total(), "ok": counts[Game.ReplayCheck.OK], "mismatches": mismatches,
                "missing": counts[Game.ReplayCheck.NO_RECORD],
            },
            messages.ERROR if mismatches else messages.SUCCESS,
        )

    @admin.action(description=_("Hide replays"), permissions=["moderate"])
    def hide_replays(self, request: HttpRequest, queryset) -> None:
        count = services.replays_hide(
            game_ids=list(queryset.values_list("pk", flat=True)), hidden=True, by=request.user
        )
        self.message_user(
            request,
            gettext("Hid the replays of %(count)d game(s).") % {"count": count},
            messages.SUCCESS,
        )

    @admin.action(description=_("Show replays"), permissions=["moderate"])
    def show_replays(self, request: HttpRequest, queryset) -> None:
        count = services.replays_hide(
            game_ids=list(queryset.values_list("pk", flat=True)), hidden=False, by=request.user
        )
        self.message_user(
            request,
            gettext("Showed the replays of %(count)d game(s).") % {"count": count},
            messages.SUCCESS,
        )


@admin.register(Rating)
class RatingAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("user", "kind", "shown", "provisional", "mu", "sigma", "rated_games", "updated_at")
    list_filter = ("kind",)
    search_fields = ("user__username",)
    list_select_related = ("user",)
    ordering = ("kind", "-mu")

    @admin.display(description=_("shown rating"))
    def shown(self, rating: Rating) -> int:
        return shown_of(rating).value

    @admin.display(description=_("provisional"), boolean=True)
    def provisional(self, rating: Rating) -> bool:
        return shown_of(rating).provisional
