"""The signed-in user, read through the cache: one query less on every page.

Django's auth middleware loads the user from the database on every request. Here
it is cached under a version of that user, a random token that every write to the
user replaces (``user_changed``): a ``save()`` or ``delete()`` through the model's
signals, any ``update()`` of users through ``UserQuerySet``. The version is replaced
at once and again when the transaction commits, so that nobody can cache the old
row between the two. A ban (``is_active`` cleared) or a change of chips is therefore
seen by the very next request, as without the cache.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import transaction

from config.versioned import cached_per_version, new_version

USER_SECONDS = 300


def user_changed(user_id: Any) -> None:
    new_version(f"user-version:{user_id}")
    transaction.on_commit(lambda: new_version(f"user-version:{user_id}"))


def cached_user(user_id: Any, load: Callable[[Any], Any]) -> Any:
    """``load(user_id)`` (None for nobody, or nobody who may log in), cached per version."""
    return cached_per_version(f"user-version:{user_id}", f"user:{user_id}", lambda: load(user_id), USER_SECONDS)
