"""Values cached per version: the pattern behind the lobby's, the tables' and the
signed-in users' caches.

A version is a random token stored under a key of its own; a value is cached under
its key plus the current version. A write replaces the version (``new_version``), so
every later read misses and loads afresh. Random tokens, not counters: a version
evicted from the cache can never bring back a value cached under an earlier one.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from django.core.cache import cache


def new_version(version_key: str) -> None:
    cache.set(version_key, uuid.uuid4().hex, None)


def current_version(version_key: str) -> str:
    return cache.get_or_set(version_key, lambda: uuid.uuid4().hex, None)


def cached_per_version(
    version_key: str, key: str, compute: Callable[[], Any], seconds: int, *, version: str | None = None
) -> Any:
    """``compute()``, cached for ``seconds`` under the current version, or under
    ``version`` when the caller has read it already (None is never cached)."""
    key = f"{key}:{version or current_version(version_key)}"
    value = cache.get(key)
    if value is None:
        value = compute()
        if value is not None:
            cache.set(key, value, seconds)
    return value
