from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.http import HttpRequest
from django.shortcuts import render
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from accounts.admin import PlayerAdmin
from accounts.models import User
from lobby import services
from lobby.models import Seat, Table


class BanForm(forms.Form):
    reason = forms.CharField(label=_("Reason"), max_length=200)


@admin.register(User)
class ModeratedPlayerAdmin(PlayerAdmin):
    """The players, with the ban: the account, its seats, its running games and its
    sockets in one transaction (``lobby.services.player_ban``)."""

    actions = ["ban_users", *PlayerAdmin.actions]

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
    list_display = ("id", "table_name", "game", "status", "stake", "seats_total", "host_name", "created_at")
    list_filter = ("game", "status")
    search_fields = ("name", "named_for", "host_name")
    readonly_fields = (
        "game", "table_name", "name", "name_kind", "named_for", "options", "seats_total", "stake", "status", "host_user",
        "host_guest_token", "host_name", "closed_reason", "created_at", "updated_at",
    )
    inlines = [SeatInline]
    actions = ["close_tables"]

    def has_add_permission(self, request):
        return False

    @admin.display(description=_("Name"), ordering="name")
    def table_name(self, table: Table) -> str:
        """A default name worded in the admin's language; a typed one as typed."""
        return table.title

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
