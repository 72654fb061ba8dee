"""Sign-ups are limited per client address (issue 17): a token bucket per address."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse

from accounts.models import TokenBucket, User

PASSWORD = "a-Long-pass-42"


@pytest.fixture(autouse=True)
def _two_an_hour(settings):
    settings.SIGNUPS_PER_ADDRESS_PER_HOUR = 2


def _sign_up(client, username: str, address: str):
    client.logout()
    return client.post(
        reverse("signup"),
        {
            "username": username,
            "email": f"{username}@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
        REMOTE_ADDR=address,
    )


def test_an_address_that_signs_up_too_often_is_told_to_wait(client, db):
    assert _sign_up(client, "first", "198.51.100.4").status_code == 302
    assert _sign_up(client, "second", "198.51.100.4").status_code == 302

    response = _sign_up(client, "third", "198.51.100.4")

    assert response.status_code == 429
    assert "Too many accounts were made from your network" in response.content.decode()
    assert 'class="errorlist' in response.content.decode()
    assert not User.objects.filter(username="third").exists()


def test_other_addresses_sign_up_meanwhile(client, db):
    for name in ("first", "second", "third"):
        _sign_up(client, name, "198.51.100.4")
    assert _sign_up(client, "neighbour", "198.51.100.5").status_code == 302
    assert User.objects.filter(username="neighbour").exists()


def test_one_ipv6_network_is_one_address(client, db):
    assert _sign_up(client, "first", "2001:db8:1:2::10").status_code == 302
    assert _sign_up(client, "second", "2001:db8:1:2::11").status_code == 302
    assert _sign_up(client, "third", "2001:db8:1:2:ffff::1").status_code == 429


def test_the_allowance_comes_back_within_the_hour(client, db):
    for name in ("first", "second"):
        _sign_up(client, name, "198.51.100.4")
    assert _sign_up(client, "third", "198.51.100.4").status_code == 429

    TokenBucket.objects.update(updated_at=dt.datetime.now(dt.UTC) - dt.timedelta(minutes=31))
    assert _sign_up(client, "third", "198.51.100.4").status_code == 302


def test_a_form_with_mistakes_spends_nothing(client, db):
    for _ in range(3):
        response = client.post(
            reverse("signup"),
            {
                "username": "typo",
                "email": "t@example.com",
                "password1": PASSWORD,
                "password2": "other-Pass-9",
            },
            REMOTE_ADDR="198.51.100.4",
        )
        assert response.status_code == 400
    assert _sign_up(client, "careful", "198.51.100.4").status_code == 302
