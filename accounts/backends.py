from __future__ import annotations

from django.contrib.auth.backends import ModelBackend

from accounts.caching import cached_user


class CachedModelBackend(ModelBackend):
    """Django's ModelBackend; the user of a session is read through the cache."""

    def get_user(self, user_id):
        return cached_user(user_id, super().get_user)
