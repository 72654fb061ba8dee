"""Shared test fixtures: personas. The rule for tests that need a service lives in
tests/needs.py, a module of the tests package (a test imports it from there: a
module imported as ``conftest`` clashes with tests/unit/conftest.py)."""

from __future__ import annotations

import pytest

# What the run cost: each test directory's time and the coverage, printed at its end.
pytest_plugins = ["tests.report"]


@pytest.fixture(autouse=True)
def _site_language():
    """Each test starts and ends in the site's language. A request through the test
    client leaves the language it chose active in the test's thread (Django's
    LocaleMiddleware activates it and nothing deactivates it), and anything worded when
    read afterwards (a replay's captions) would be in that language in the next test."""
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()


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
def third(make_user):
    return make_user("thirdwheel")


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

    from lobby import arenas

    cache.clear()
    arenas.forget_pairings()
    yield
    cache.clear()
    arenas.forget_pairings()


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


@pytest.fixture(autouse=True)
def _presence_timers_end_with_their_test():
    """A table page closed in a test may leave a timer to look at its table once the
    abandoned grace is over (lobby/presence.py): called off as the test ends, so that it
    never fires in a later test's time, nor while the event loop closes (a worker once
    hung there, its look's broadcast waiting for a loop that was shutting down)."""
    yield
    from lobby import presence

    presence.cancel_timers()
