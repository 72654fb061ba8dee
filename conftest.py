"""Shared test fixtures: personas, and the rule for tests that need a service.

A test that needs Chromium, PostgreSQL or Redis skips with a clear reason when
the service is missing, except under CI=true, where it must run (and so fails).
"""

from __future__ import annotations

import os
import shutil
import socket

import pytest

CI = os.environ.get("CI", "").lower() == "true"
CHROMIUM = "/usr/bin/chromium"


def need(available: bool, reason: str) -> None:
    if available:
        return
    if CI:
        pytest.fail(f"CI=true but {reason}", pytrace=False)
    pytest.skip(reason)


def port_open(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def need_chromium() -> None:
    need(os.access(CHROMIUM, os.X_OK) or bool(shutil.which("chromium")),
         f"Chromium is not installed at {CHROMIUM} (apt-get install -y chromium)")


@pytest.fixture
def make_user(db):
    from accounts import services

    def make(username: str, *, chips: int | None = None, password: str = "a-Long-pass-42"):
        user = services.user_signup(username=username, email=f"{username}@example.com", password=password)
        if chips is not None and chips != user.chips:
            services.chips_change(user=user, delta=chips - user.chips, reason="admin", note="test setup")
        user.refresh_from_db()
        return user

    return make


@pytest.fixture
def host(make_user):
    return make_user("hostess")


@pytest.fixture
def opponent(make_user):
    return make_user("opponent")


@pytest.fixture
def outsider(make_user):
    return make_user("outsider")


@pytest.fixture
def admin_user(db):
    from accounts.models import User

    return User.objects.create_superuser("moderator", "mod@example.com", "a-Long-pass-42")


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    # PBKDF2's deliberate slowness is for attackers, not for test suites.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _empty_cache():
    # Each test starts as a fresh process does: no sessions or lobby rows cached
    # from an earlier test's database, which was rolled back.
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def make_table(db):
    """Open a TetriWar table hosted by ``player`` (a PlayerRef)."""
    from lobby import services
    from tests.personas import TETRIWAR_OPTIONS

    def make(player, *, seats: int = 2, stake: int = 0, options: dict | None = None):
        return services.table_create(
            player=player, game="tetriwar", options=options or dict(TETRIWAR_OPTIONS),
            seats_total=seats, stake=stake,
        )

    return make
