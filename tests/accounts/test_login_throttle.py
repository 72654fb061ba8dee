"""Log-in throttling (issue 17): django-axes locks a user name, or a client address,
after too many failed log-ins, each on its own."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user
from django.urls import reverse

PASSWORD = "a-Long-pass-42"
LIMIT = 3


@pytest.fixture(autouse=True)
def _small_limit(settings):
    settings.AXES_FAILURE_LIMIT = LIMIT


def _log_in(client, username: str, password: str, address: str):
    return client.post(reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address)


def test_guessing_one_accounts_password_from_many_addresses_locks_the_account(client, host):
    for n in range(LIMIT):
        response = _log_in(client, "hostess", "wrong-Pass-1", f"198.51.100.{n + 1}")
    assert response.status_code == 429

    # The right password from yet another address: the account is locked, not the address.
    response = _log_in(client, "hostess", PASSWORD, "203.0.113.50")
    assert response.status_code == 429
    assert not get_user(client).is_authenticated


def test_one_address_guessing_many_accounts_is_locked_out_of_all_of_them(client, host, opponent):
    for n in range(LIMIT):
        response = _log_in(client, f"nobody{n}", "wrong-Pass-1", "192.0.2.7")
    assert response.status_code == 429

    # From that address even a right password for an untouched account is refused...
    response = _log_in(client, "opponent", PASSWORD, "192.0.2.7")
    assert response.status_code == 429
    assert not get_user(client).is_authenticated
    # ...while the same account logs in from another address.
    response = _log_in(client, "opponent", PASSWORD, "192.0.2.8")
    assert response.status_code == 302
    assert get_user(client).pk == opponent.pk


def test_a_locked_out_player_sees_a_plain_page_that_says_why(client, host):
    for _ in range(LIMIT):
        response = _log_in(client, "hostess", "wrong-Pass-1", "198.51.100.1")
    html = response.content.decode()
    assert response.status_code == 429
    assert "Log-in paused" in html
    assert "Too many failed log-ins" in html
    assert "15 minutes" in html  # LOGIN_COOLOFF_MINUTES' default
    assert reverse("password_reset") in html
    assert "Traceback" not in html


def test_failures_below_the_limit_do_not_lock(client, host):
    for _ in range(LIMIT - 1):
        assert _log_in(client, "hostess", "wrong-Pass-1", "198.51.100.1").status_code == 200
    response = _log_in(client, "hostess", PASSWORD, "198.51.100.1")
    assert response.status_code == 302
    assert get_user(client).pk == host.pk


def test_a_locked_banned_account_is_not_told_it_is_banned(client, host, admin_user):
    from accounts import services

    services.user_ban(user=host, reason="cheating", by=admin_user)
    for _ in range(LIMIT):
        _log_in(client, "hostess", "wrong-Pass-1", "198.51.100.1")
    # Locked: the password is not even checked, so the ban says nothing about it.
    response = _log_in(client, "hostess", PASSWORD, "198.51.100.2")
    assert response.status_code == 429
    assert "banned" not in response.content.decode()
