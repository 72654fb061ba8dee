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

import uuid
from collections.abc import Callable
from typing import Any

from django.core.cache import cache
from django.db import transaction

USER_SECONDS = 300


def _version_key(user_id: Any) -> str:
    return f"user-version:{user_id}"


def _bump(user_id: Any) -> None:
    cache.set(_version_key(user_id), uuid.uuid4().hex, None)


def user_changed(user_id: Any) -> None:
    _bump(user_id)
    transaction.on_commit(lambda: _bump(user_id))


def cached_user(user_id: Any, load: Callable[[Any], Any]) -> Any:
    """``load(user_id)`` (None for nobody, or nobody who may log in), cached per version."""
    version = cache.get_or_set(_version_key(user_id), lambda: uuid.uuid4().hex, None)
    key = f"user:{user_id}:{version}"
    user = cache.get(key)
    if user is None:
        user = load(user_id)
        if user is not None:
            cache.set(key, user, USER_SECONDS)
    return user
