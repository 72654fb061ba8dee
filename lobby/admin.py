from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import F, Q
from django.http import HttpRequest, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext, ngettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from accounts.admin import PlayerAdmin
from accounts.models import ModerationAction, User
from games.core import arena as arena_rules
from games.registry import GAMES, get_game
from lobby import arenas, chat, services
from lobby.models import Arena, ArenaPlayer, ArenaSchedule, ChatMessage, ChatReport, Seat, Table


class BanForm(forms.Form):
    reason = forms.CharField(label=_("Reason"), max_length=200)


# How long a moderator mutes for: a few lengths rather than a free date, so that no
# typo mutes for a year (forever is what a ban is for).
MUTE_LENGTHS = {
    "1h": (timedelta(hours=1), _("1 hour")),
    "1d": (timedelta(days=1), _("1 day")),
    "7d": (timedelta(days=7), _("7 days")),
}


class MuteForm(forms.Form):
    length = forms.ChoiceField(
        label=_("Muted for"), choices=[(key, label) for key, (_length, label) in MUTE_LENGTHS.items()], initial="1d"
    )
    # lobby.chat.mute logs the reason with the end of the mute in 200 characters.
    reason = forms.CharField(
        label=_("Reason"), max_length=150,
        help_text=_("Seen by admins only, in the moderation log; the player sees until when they are muted."),
    )

    def until(self):
        return timezone.now() + MUTE_LENGTHS[self.cleaned_data["length"]][0]


class SetOrNotFilter(admin.SimpleListFilter):
    """Yes or no on a moment that may not have come (``field`` is null until it does);
    ``later`` counts only the moments still ahead (a mute that has run out is none)."""

    field = ""
    later = False

    def lookups(self, request, model_admin):
        return [("yes", _("Yes")), ("no", _("No"))]

    def queryset(self, request, queryset):
        is_set = Q(**{f"{self.field}__isnull": False})
        if self.later:
            is_set &= Q(**{f"{self.field}__gt": timezone.now()})
        if self.value() == "yes":
            return queryset.filter(is_set)
        if self.value() == "no":
            return queryset.exclude(is_set)
        return queryset


class MutedFilter(SetOrNotFilter):
    title = _("muted in the chat")
    parameter_name = "muted"
    field = "muted_until"
    later = True


class ResolvedFilter(SetOrNotFilter):
    title = _("resolved")
    parameter_name = "resolved"
    field = "resolved_at"


class DeletedFilter(SetOrNotFilter):
    title = _("deleted")
    parameter_name = "deleted"
    field = "deleted_at"


def mute_step(model_admin, request: HttpRequest, *, action: str, selected: Iterable[int], authors, no_account: int = 0):
    """The mute actions: first how long and why, then each author muted (``lobby.chat.mute``:
    logged, and every page of theirs shows until when). ``no_account`` selected rows have
    nobody to mute (a guest's message: guests have no account)."""
    # Admins never mute themselves by accident.
    targets = list(authors.exclude(pk=request.user.pk).distinct().order_by("username"))
    form = MuteForm(request.POST if "apply" in request.POST else None)
    if form.is_valid():
        until = form.until()
        for user in targets:
            chat.mute(user=user, until=until, reason=form.cleaned_data["reason"], by=request.user)
        model_admin.message_user(
            request,
            ngettext(
                "Muted %(count)d player in the chat until %(until)s UTC.",
                "Muted %(count)d players in the chat until %(until)s UTC.",
                len(targets),
            ) % {"count": len(targets), "until": f"{until:%Y-%m-%d %H:%M}"},
            messages.SUCCESS if targets else messages.WARNING,
        )
        if no_account:
            model_admin.message_user(request, guests_skipped(no_account), messages.WARNING)
        return None
    return render(
        request,
        "admin/lobby/mute.html",
        {**model_admin.admin_site.each_context(request), "form": form, "users": targets, "action": action,
         "selected": list(selected), "no_account": guests_skipped(no_account) if no_account else "",
         "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME, "opts": model_admin.model._meta,
         "title": gettext("Mute in the chat")},
    )


def guests_skipped(count: int) -> str:
    return ngettext(
        "%(count)d of the selected was written by a guest, who has no account to mute: left out.",
        "%(count)d of the selected were written by guests, who have no account to mute: left out.",
        count,
    ) % {"count": count}


def may_mute(request: HttpRequest) -> bool:
    """Muting changes the player's account: the players' admin's permission."""
    opts = User._meta
    return request.user.has_perm(f"{opts.app_label}.change_{opts.model_name}")


@admin.register(User)
class ModeratedPlayerAdmin(PlayerAdmin):
    """The players, with the ban: the account, its seats, its running games and its
    sockets in one transaction (``lobby.services.player_ban``); and the chat's mute
    (``lobby.chat.mute``), which every page of the player's hears at once."""

    actions = ["ban_users", *PlayerAdmin.actions, "mute_users", "unmute_users"]
    list_display = (*PlayerAdmin.list_display, "chat_muted_until")
    list_filter = (*PlayerAdmin.list_filter, MutedFilter)
    readonly_fields = (*PlayerAdmin.readonly_fields, "muted_until", "shown_mute_reason")
    fieldsets = (*PlayerAdmin.fieldsets, (_("Chat"), {"fields": ("muted_until", "shown_mute_reason")}))
    change_form_template = "admin/lobby/user_change_form.html"

    @admin.display(description=_("Muted in the chat until"), ordering="muted_until")
    def chat_muted_until(self, user: User):
        return chat.muted_until(user)

    @admin.display(description=_("reason for the mute"))
    def shown_mute_reason(self, user: User) -> str:
        """The automatic mute's reason in the admin's language (stored in English)."""
        return user.mute_reason_words

    def render_change_form(self, request: HttpRequest, context, *args, obj=None, **kwargs):
        context["chat_muted_until"] = chat.muted_until(obj) if obj is not None else None
        return super().render_change_form(request, context, *args, obj=obj, **kwargs)

    def get_urls(self):
        return [
            path("<int:user_id>/mute/", self.admin_site.admin_view(self.mute_view), name="accounts_user_mute"),
            path("<int:user_id>/unmute/", self.admin_site.admin_view(self.unmute_view), name="accounts_user_unmute"),
            *super().get_urls(),
        ]

    def mute_view(self, request: HttpRequest, user_id: int):
        user = get_object_or_404(User, pk=user_id)
        if not self.has_change_permission(request, user):
            raise PermissionDenied
        form = MuteForm(request.POST if request.method == "POST" else None)
        if form.is_valid():
            until = form.until()
            chat.mute(user=user, until=until, reason=form.cleaned_data["reason"], by=request.user)
            self.message_user(
                request,
                gettext("%(name)s is muted in the chat until %(until)s UTC.")
                % {"name": user.username, "until": f"{until:%Y-%m-%d %H:%M}"},
                messages.SUCCESS,
            )
            return HttpResponseRedirect(reverse("admin:accounts_user_change", args=[user.pk]))
        return render(
            request,
            "admin/lobby/mute.html",
            {**self.admin_site.each_context(request), "form": form, "users": [user], "opts": self.model._meta,
             "original": user, "title": gettext("Mute %(name)s in the chat") % {"name": user.username}},
        )

    def unmute_view(self, request: HttpRequest, user_id: int):
        user = get_object_or_404(User, pk=user_id)
        if not self.has_change_permission(request, user):
            raise PermissionDenied
        if request.method == "POST":
            chat.unmute(user=user, by=request.user)
            self.message_user(
                request, gettext("%(name)s may write in the chat again.") % {"name": user.username}, messages.SUCCESS
            )
            return HttpResponseRedirect(reverse("admin:accounts_user_change", args=[user.pk]))
        # A GET only asks: what changes a player is a POST, as Django's own delete.
        return render(
            request,
            "admin/lobby/unmute.html",
            {**self.admin_site.each_context(request), "target": user, "muted_until": chat.muted_until(user),
             "opts": self.model._meta, "original": user,
             "title": gettext("Unmute %(name)s in the chat") % {"name": user.username}},
        )

    @admin.action(description=_("Mute the selected players in the chat"), permissions=["change"])
    def mute_users(self, request: HttpRequest, queryset):
        return mute_step(
            self, request, action="mute_users", selected=queryset.values_list("pk", flat=True), authors=queryset
        )

    @admin.action(description=_("Unmute the selected players in the chat"), permissions=["change"])
    def unmute_users(self, request: HttpRequest, queryset):
        # Only those muted now: an unmute of nobody would log a moderation that did nothing.
        targets = list(queryset.filter(muted_until__gt=timezone.now()))
        for user in targets:
            chat.unmute(user=user, by=request.user)
        self.message_user(
            request,
            ngettext("Unmuted %(count)d player.", "Unmuted %(count)d players.", len(targets)) % {"count": len(targets)},
            messages.SUCCESS,
        )

    @admin.action(description=_("Ban the selected players"))
    def ban_users(self, request: HttpRequest, queryset):
        if "apply" in request.POST:
            form = BanForm(request.POST)
            if form.is_valid():
                # Admins never ban themselves by accident.
                targets = list(queryset.exclude(pk=request.user.pk))
                for user in targets:
                    services.player_ban(user=user, reason=form.cleaned_data["reason"], by=request.user)
                self.message_user(
                    request,
                    ngettext("Banned %(count)d player.", "Banned %(count)d players.", len(targets))
                    % {"count": len(targets)},
                    messages.SUCCESS,
                )
                return None
        else:
            form = BanForm()
        return render(
            request,
            "admin/accounts/user/ban.html",
            {**self.admin_site.each_context(request), "form": form, "users": queryset,
             "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME, "title": gettext("Ban players")},
        )


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ("number", "seat_name", "user", "ready", "ip", "joined_at")
    readonly_fields = fields
    can_delete = False

    @admin.display(description=_("Name"))
    def seat_name(self, seat: Seat) -> str:
        """A bot's in the admin's language, as the table shows it."""
        return seat.display_name

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ("id", "table_name", "game", "status", "stake", "seats_total", "host", "created_at")
    list_filter = ("game", "status")
    search_fields = ("name", "named_for", "host_name")
    readonly_fields = (
        "game", "table_name", "name", "name_kind", "named_for", "options", "seats_total", "stake", "status", "host_user",
        "host_guest_token", "host_name", "shown_closed_reason", "created_at", "updated_at",
    )
    inlines = [SeatInline]
    actions = ["close_tables"]

    def has_add_permission(self, request):
        return False

    @admin.display(description=_("Name"), ordering="name")
    def table_name(self, table: Table) -> str:
        """A default name worded in the admin's language; a typed one as typed."""
        return table.title

    @admin.display(description=_("Host"), ordering="host_name")
    def host(self, table: Table) -> str:
        """A guest host marked so in the admin's language."""
        return table.host_display_name

    @admin.display(description=_("why it closed"))
    def shown_closed_reason(self, table: Table) -> str:
        """Why it closed in the admin's language (the site's reasons are stored in English)."""
        return table.closed_reason_words

    @admin.action(description=_("Close the selected tables"))
    def close_tables(self, request, queryset):
        for table in queryset:
            services.table_close(
                table_id=table.pk, reason=f"Closed by the moderator {request.user.get_username()}.", by=request.user
            )
        count = queryset.count()
        self.message_user(
            request, ngettext("Closed %(count)d table.", "Closed %(count)d tables.", count) % {"count": count}, messages.SUCCESS
        )


# --- the chat (issue 33) --------------------------------------------------------------
class ChatRecordAdmin(admin.ModelAdmin):
    """Chat rows are the record of what was said and reported: moderators act on them
    through the actions (which call lobby/chat.py, and log), never edit or remove them.
    A deleted message stays, marked."""

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        # The list's actions need it; a row's own page is for reading.
        return obj is None and super().has_change_permission(request)

    def has_mute_permission(self, request: HttpRequest) -> bool:
        return may_mute(request)


@admin.register(ChatReport)
class ChatReportAdmin(ChatRecordAdmin):
    """Players' reports, the open ones first. A report keeps the text as it was reported:
    the message itself may since have left its room's history."""

    list_display = ("reporter", "author_name", "text", "room", "table", "created_at", "resolved")
    list_filter = (ResolvedFilter, "room")
    list_select_related = ("reporter",)
    search_fields = ("author_name", "text", "reporter__username")
    fields = ("message", "reporter", "author", "author_name", "text", "room", "table_id", "created_at",
              "resolved_at", "resolved_by")
    readonly_fields = fields
    date_hierarchy = "created_at"
    actions = ["delete_messages", "mute_authors", "dismiss_reports"]

    def get_ordering(self, request: HttpRequest):
        # The open ones first, whatever the database does with nulls.
        return [F("resolved_at").asc(nulls_first=True), "-created_at", "-id"]

    @admin.display(description=_("Table"), ordering="table_id")
    def table(self, report: ChatReport):
        return report.table_id

    @admin.display(boolean=True, description=_("Resolved"), ordering="resolved_at")
    def resolved(self, report: ChatReport) -> bool:
        return report.resolved_at is not None

    @admin.action(description=_("Delete the reported messages"), permissions=["change"])
    def delete_messages(self, request: HttpRequest, queryset):
        found = {r.message_id: r.message for r in queryset.select_related("message") if r.message is not None}
        deleted = sum(chat.delete(message=message, by=request.user) for message in found.values())
        self.message_user(
            request,
            ngettext("Deleted %(count)d message.", "Deleted %(count)d messages.", deleted) % {"count": deleted},
            messages.SUCCESS,
        )
        gone = queryset.filter(message__isnull=True, resolved_at__isnull=True).count()
        if gone:
            self.message_user(
                request,
                ngettext(
                    "%(count)d reported message is no longer kept (each room keeps its last ones): nothing to delete. "
                    "Dismiss its report, or mute its author.",
                    "%(count)d reported messages are no longer kept (each room keeps its last ones): nothing to "
                    "delete. Dismiss their reports, or mute their authors.",
                    gone,
                ) % {"count": gone},
                messages.WARNING,
            )

    @admin.action(description=_("Mute the authors in the chat…"), permissions=["mute"])
    def mute_authors(self, request: HttpRequest, queryset):
        return mute_step(
            self, request, action="mute_authors", selected=queryset.values_list("pk", flat=True),
            authors=User.objects.filter(chat_reported__in=queryset),
            no_account=queryset.filter(author__isnull=True).count(),
        )

    @admin.action(description=_("Dismiss the reports (leave the messages be)"), permissions=["change"])
    def dismiss_reports(self, request: HttpRequest, queryset):
        dismissed = sum(chat.dismiss(chat_report=r, by=request.user) for r in queryset.select_related("reporter"))
        self.message_user(
            request,
            ngettext("Dismissed %(count)d report.", "Dismissed %(count)d reports.", dismissed) % {"count": dismissed},
            messages.SUCCESS,
        )


@admin.register(ChatMessage)
class ChatMessageAdmin(ChatRecordAdmin):
    """Every room's kept messages (the last ones of each, and the deleted ones)."""

    list_display = ("created_at", "room", "table", "author_name", "text", "deleted")
    list_filter = ("room", DeletedFilter)
    list_select_related = ("table",)
    search_fields = ("author_name", "author__username", "text")
    # Not the author's key: a guest's is their session's secret (lobby/models.py).
    fields = ("room", "table", "author", "author_name", "text", "created_at", "deleted_at", "deleted_by")
    readonly_fields = fields
    date_hierarchy = "created_at"
    actions = ["delete_messages", "mute_authors"]

    @admin.display(boolean=True, description=_("Deleted"), ordering="deleted_at")
    def deleted(self, message: ChatMessage) -> bool:
        return message.deleted_at is not None

    @admin.action(description=_("Delete the selected messages"), permissions=["change"])
    def delete_messages(self, request: HttpRequest, queryset):
        deleted = sum(chat.delete(message=message, by=request.user) for message in queryset)
        self.message_user(
            request,
            ngettext("Deleted %(count)d message.", "Deleted %(count)d messages.", deleted) % {"count": deleted},
            messages.SUCCESS,
        )

    @admin.action(description=_("Mute the authors in the chat…"), permissions=["mute"])
    def mute_authors(self, request: HttpRequest, queryset):
        return mute_step(
            self, request, action="mute_authors", selected=queryset.values_list("pk", flat=True),
            authors=User.objects.filter(chat_messages__in=queryset),
            no_account=queryset.filter(author__isnull=True).count(),
        )


# --- arenas (issue 51) ----------------------------------------------------------------
def _game_choices():
    return [(slug, spec.name) for slug, spec in GAMES.items()]


class ArenaRulesForm(forms.ModelForm):
    """An arena's or a weekly arena's game, options, seats and length, checked by the
    arenas' own rules (lobby/arenas.py): what the admin may save, a player could not
    break."""

    game = forms.ChoiceField(label=_("kind of game"), choices=_game_choices)
    seats = forms.IntegerField(
        label=_("players per game"), required=False, min_value=1,
        help_text=_("Empty: as quick play seats the game (two; three for Block-Killer)."),
    )

    def clean(self):
        data = super().clean()
        spec = get_game(data.get("game") or "")
        if spec is None:
            return data
        try:
            data["options"] = arenas.clean_options(spec, data.get("options") or {})
            seats = data.get("seats")
            if seats is not None or isinstance(self.instance, Arena):
                data["seats"] = arenas.table_size(spec, seats)
            minutes = data.get("minutes")
            if minutes is not None and not arena_rules.MIN_MINUTES <= minutes <= arena_rules.MAX_MINUTES:
                raise arenas.ArenaError(
                    "BAD_LENGTH",
                    gettext("An arena lasts %(low)s to %(high)s minutes.")
                    % {"low": arena_rules.MIN_MINUTES, "high": arena_rules.MAX_MINUTES},
                )
        except arenas.ArenaError as err:
            raise forms.ValidationError(err.message, code=err.code) from None
        return data


class ArenaPlayerInline(admin.TabularInline):
    model = ArenaPlayer
    extra = 0
    can_delete = False
    fields = ("name", "status", "points", "games", "on_fire", "fee_paid", "rank", "prize")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


class ArenaTableInline(admin.TabularInline):
    """The arena's games: each table the pairing made."""

    model = Table
    fk_name = "arena"
    extra = 0
    can_delete = False
    fields = ("table_link", "status", "created_at")
    readonly_fields = fields
    verbose_name = _("arena game")
    verbose_name_plural = _("arena games")

    def has_add_permission(self, request, obj=None):
        return False

    @admin.display(description=pgettext_lazy("game table", "table"))
    def table_link(self, table: Table) -> str:
        url = reverse("admin:lobby_table_change", args=[table.pk])
        return format_html('<a href="{}">#{} {}</a>', url, table.pk, table.title)


@admin.register(Arena)
class ArenaAdmin(admin.ModelAdmin):
    form = ArenaRulesForm
    list_display = ("id", "title", "game", "status", "starts_at", "minutes", "fee", "pool", "player_count")
    list_filter = ("game", "status")
    search_fields = ("title",)
    fields = ("title", "game", "options", "seats", "starts_at", "minutes", "fee", "status", "pool", "schedule",
              "created_by", "cancelled_reason", "finished_at")
    inlines = [ArenaPlayerInline, ArenaTableInline]
    actions = ["cancel_arenas"]

    def get_readonly_fields(self, request, obj=None):
        always = ("status", "pool", "schedule", "created_by", "cancelled_reason", "finished_at")
        if obj is not None and (obj.status != Arena.Status.SCHEDULED or obj.starts_at <= timezone.now()):
            return self.fields  # started, over or cancelled: as it was
        return always

    @admin.display(description=_("players"))
    def player_count(self, arena: Arena) -> int:
        return arena.players.count()

    def save_model(self, request, obj, form, change):
        data = form.cleaned_data
        if not change:
            made = arenas.arena_create(
                by=request.user, title=data["title"], game=data["game"], starts_at=data["starts_at"],
                minutes=data["minutes"], fee=data["fee"], options=data["options"], seats=data["seats"],
            )
            obj.pk = made.pk
            obj.refresh_from_db()
            return
        if not form.changed_data:
            return
        try:
            with transaction.atomic():
                arenas.arena_edited(arena=Arena.objects.select_for_update().get(pk=obj.pk), by=request.user)
                super().save_model(request, obj, form, change)
        except arenas.ArenaError as err:
            self.message_user(request, err.message, messages.ERROR)

    @admin.action(description=_("Cancel the selected arenas (entry fees returned)"))
    def cancel_arenas(self, request, queryset):
        done = 0
        for arena in queryset:
            try:
                arenas.arena_cancel(
                    arena_id=arena.pk, by=request.user,
                    reason=f"Cancelled by the moderator {request.user.get_username()}.",
                )
                done += 1
            except arenas.ArenaError as err:
                self.message_user(request, f"#{arena.pk}: {err.message}", messages.WARNING)
        self.message_user(
            request, ngettext("Cancelled %(count)d arena.", "Cancelled %(count)d arenas.", done) % {"count": done},
            messages.SUCCESS,
        )


@admin.register(ArenaSchedule)
class ArenaScheduleAdmin(admin.ModelAdmin):
    form = ArenaRulesForm
    list_display = ("title", "game", "weekday", "time_utc", "minutes", "fee", "active")
    list_filter = ("game", "active")
    fields = ("title", "game", "options", "seats", "weekday", "time_utc", "minutes", "fee", "active")

    def save_model(self, request, obj, form, change):
        with transaction.atomic():
            super().save_model(request, obj, form, change)
            ModerationAction.objects.create(
                admin=request.user, action=ModerationAction.Action.SCHEDULE_ARENA,
                reason=f"{obj} ({'changed' if change else 'added'})"[:200],
            )
        arenas.arenas_scheduled()
