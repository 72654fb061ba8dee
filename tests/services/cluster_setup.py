"""Prepares a scale-out test database; run by tests/services/test_scale_out.py with
DATABASE_URL and REDIS_URL set. Prints one JSON line.

    python tests/services/cluster_setup.py table NAME STAKE MINUTES
"""

from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY  # noqa: E402
from django.contrib.sessions.backends.db import SessionStore  # noqa: E402

from accounts.identity import PlayerRef  # noqa: E402
from accounts.services import user_signup  # noqa: E402
from lobby import services  # noqa: E402


def cookie_for(user) -> str:
    store = SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = settings.SESSION_AUTH_BACKEND
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    return f"{settings.SESSION_COOKIE_NAME}={store.session_key}"


def table(name: str, stake: int, minutes: int) -> dict:
    users = [
        user_signup(username=f"{name}_{role}", email=f"{name}_{role}@example.com", password="a-Long-pass-42")
        for role in ("a", "b", "watcher")
    ]
    refs = [PlayerRef(user_id=u.pk, guest_token="", name=u.username) for u in users]
    options = {"minutes": minutes, "start_level": 1, "lines_per_level": 10, "bombs": "manual", "pairs": False}
    t = services.table_create(player=refs[0], game="tetriwar", options=options, seats_total=2, stake=stake, ip="10.0.0.1")
    services.seat_take(table_id=t.pk, player=refs[1], number=2, ip="10.0.0.2")
    for r in refs[:2]:
        services.seat_ready(table_id=t.pk, player=r, ready=True)
    return {"table": t.pk, "cookies": [cookie_for(u) for u in users], "users": [u.pk for u in users]}


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "table":
        print(json.dumps(table(args[0], int(args[1]), int(args[2]))))
