from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import path, reverse
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from accounts import services
from accounts.models import ChipTransaction, ModerationAction, User
from config.admin_mixins import ReadOnlyMixin


class AdjustChipsForm(forms.Form):
    delta = forms.IntegerField(label=_("Delta"), help_text=_("Positive to give chips, negative to take them."))
    reason = forms.CharField(
        label=_("Reason"),
        max_length=200,
        help_text=_("Seen by admins only; the player sees an admin adjustment and its amount."),
    )

    def clean_delta(self) -> int:
        if self.cleaned_data["delta"] == 0:
            raise forms.ValidationError(gettext("An adjustment must not be zero."))
        return self.cleaned_data["delta"]


class PlayerAdmin(UserAdmin):
    """The players in the admin. Registered by the lobby's admin (lobby/admin.py),
    which adds the ban: banning frees a player's seats and forfeits their games,
    which the lobby owns."""

    list_display = ("username", "email", "chips", "is_banned_display", "is_staff", "date_joined")
    list_filter = ("is_staff", "is_active", ("banned_at", admin.EmptyFieldListFilter))
    readonly_fields = ("chips", "banned_at", "ban_reason", "last_refill")
    fieldsets = (
        *UserAdmin.fieldsets,
        ("TetriWar", {"fields": ("chips", "last_refill", "banned_at", "ban_reason", "key_bindings", "language")}),
    )
    actions = ["unban_users"]
    change_form_template = "admin/accounts/user/change_form.html"

    @admin.display(boolean=True, description=_("Banned"))
    def is_banned_display(self, obj: User) -> bool:
        return obj.is_banned

    @admin.action(description=_("Unban the selected players"))
    def unban_users(self, request: HttpRequest, queryset):
        for user in queryset:
            services.user_unban(user=user, by=request.user)
        count = queryset.count()
        self.message_user(
            request,
            ngettext("Unbanned %(count)d player.", "Unbanned %(count)d players.", count) % {"count": count},
            messages.SUCCESS,
        )

    def get_urls(self):
        return [
            path(
                "<int:user_id>/adjust-chips/",
                self.admin_site.admin_view(self.adjust_chips_view),
                name="accounts_user_adjust_chips",
            ),
            *super().get_urls(),
        ]

    def adjust_chips_view(self, request: HttpRequest, user_id: int):
        if not self.has_change_permission(request):
            raise PermissionDenied
        user = get_object_or_404(User, pk=user_id)
        form = AdjustChipsForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                services.chips_adjust(
                    user=user, delta=form.cleaned_data["delta"], note=form.cleaned_data["reason"], by=request.user
                )
            except services.ChipsError as err:
                form.add_error("delta", str(err))
            else:
                self.message_user(
                    request,
                    gettext("%(name)s now holds %(chips)s chips.") % {"name": user.username, "chips": user.chips},
                    messages.SUCCESS,
                )
                return HttpResponseRedirect(reverse("admin:accounts_user_change", args=[user.pk]))
        return render(
            request,
            "admin/accounts/user/adjust_chips.html",
            {**self.admin_site.each_context(request), "form": form, "target": user,
             "opts": self.model._meta, "title": gettext("Adjust chips of %(name)s") % {"name": user.username}},
        )


@admin.register(ChipTransaction)
class ChipTransactionAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """The ledger: written only by services."""

    list_display = ("created_at", "user", "delta", "balance_after", "reason", "note", "created_by")
    list_filter = ("reason",)
    search_fields = ("user__username", "note")
    date_hierarchy = "created_at"


@admin.register(ModerationAction)
class ModerationActionAdmin(ReadOnlyMixin, admin.ModelAdmin):
    """Moderation, as the services recorded it."""

    list_display = ("created_at", "admin", "action", "user", "table_id", "game_id", "shown_reason")
    list_filter = ("action",)
    list_select_related = ("admin", "user")
    search_fields = ("admin__username", "user__username", "reason")
    date_hierarchy = "created_at"
    fields = ("created_at", "admin", "action", "user", "table_id", "game_id", "chat_message_id", "shown_reason")
    readonly_fields = fields

    @admin.display(description=_("reason"), ordering="reason")
    def shown_reason(self, action: ModerationAction) -> str:
        """The automatic mute's reason in the admin's language (stored in English)."""
        return action.reason_words
