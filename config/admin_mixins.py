"""What the admin pages of every app share."""

from __future__ import annotations

from django.http import HttpRequest


class ReadOnlyMixin:
    """A model the services write (ledger rows, moderation, results): the admin reads it."""

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False
