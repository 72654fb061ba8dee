"""Games in the admin: every result and input log, to read (RULES.md §6). Results,
points and chips are written only by games.services, so nothing here edits them."""

from __future__ import annotations

import json

from django.contrib import admin
from django.http import HttpRequest
from django.utils.html import format_html
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from config.admin_mixins import ReadOnlyMixin
from games.models import Game, Participation


class ParticipationInline(ReadOnlyMixin, admin.TabularInline):
    model = Participation
    extra = 0
    fields = (
        "seat",
        "name",
        "user",
        "ip",
        "score",
        "lines",
        "eliminations",
        "place",
        "forfeited",
        "points",
        "chips_delta",
    )
    readonly_fields = fields
    can_delete = False


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
    list_display = ("id", "table", "kind", "status", "scored", "stake", "pot", "ended_at")
    list_filter = ("kind", "status", "scored")
    list_select_related = ("table",)
    search_fields = ("=id", "=table__id", "participations__name")
    date_hierarchy = "created_at"
    fieldsets = (
        (None, {"fields": ("table", "kind", "status", "options", "seed", "stake", "pot")}),
        (
            _("Result"),
            {"fields": ("scored", "unscored_reason", "abort_reason", "created_at", "started_at", "ended_at")},
        ),
        (_("Input log"), {"fields": ("log_summary", "log_entries")}),
    )
    readonly_fields = (
        "table",
        "kind",
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
    )
    inlines = [ParticipationInline]

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
