from __future__ import annotations

from django.contrib import admin, messages

from lobby import services
from lobby.models import Seat, Table


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ("number", "name", "user", "ready", "ip", "joined_at")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "game", "status", "stake", "seats_total", "host_name", "created_at")
    list_filter = ("game", "status")
    search_fields = ("name", "host_name")
    readonly_fields = (
        "game", "name", "options", "seats_total", "stake", "status", "host_user",
        "host_guest_token", "host_name", "closed_reason", "created_at", "updated_at",
    )
    inlines = [SeatInline]
    actions = ["close_tables"]

    def has_add_permission(self, request):
        return False

    @admin.action(description="Close the selected tables")
    def close_tables(self, request, queryset):
        for table in queryset:
            services.table_close(
                table_id=table.pk, reason=f"Closed by the moderator {request.user.get_username()}.", by=request.user
            )
        self.message_user(request, f"Closed {queryset.count()} table(s).", messages.SUCCESS)
