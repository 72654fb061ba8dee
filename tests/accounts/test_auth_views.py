"""Sign-up, log-in, bans, passwords and guests, through the pages a player uses."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user
from django.core import mail
from django.urls import reverse

from accounts import services
from accounts.models import ChipTransaction, User

PASSWORD = "a-Long-pass-42"


@pytest.fixture
def banned_player(make_user, admin_user):
    player = make_user("cheater")
    services.user_ban(user=player, reason="cheating", by=admin_user)
    return player


def test_newcomer_signs_up_gets_1000_chips_and_is_logged_in(client, db):
    response = client.post(
        reverse("signup"),
        {"username": "newcomer", "email": "new@example.com", "password1": PASSWORD, "password2": PASSWORD},
        follow=True,
    )
    assert response.redirect_chain[-1][0] == reverse("lobby:index")
    user = User.objects.get(username="newcomer")
    assert user.chips == 1000
    assert ChipTransaction.objects.filter(user=user).count() == 1
    assert get_user(client).pk == user.pk
    assert "1000 chips" in response.content.decode()


def test_sign_up_returns_to_a_safe_next_page_only(client, db):
    response = client.post(
        reverse("signup"),
        {
            "username": "visitor",
            "email": "v@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
            "next": "https://evil.example.com/",
        },
    )
    assert response.status_code == 302
    assert response.url == reverse("lobby:index")


def test_sign_up_with_mismatched_passwords_shows_the_form_again(client, db):
    response = client.post(
        reverse("signup"),
        {
            "username": "newcomer",
            "email": "new@example.com",
            "password1": PASSWORD,
            "password2": "other-Pass-99",
        },
    )
    assert response.status_code == 400
    assert not User.objects.filter(username="newcomer").exists()
    assert 'class="errorlist' in response.content.decode()


def test_sign_up_page_explains_the_welcome_chips(client, db):
    response = client.get(reverse("signup"))
    assert response.status_code == 200
    assert "1000 chips" in response.content.decode()


def test_login_page_links_to_sign_up_reset_and_guest_and_keeps_next(client, db):
    response = client.get(reverse("login") + "?next=/lobby/table/7/")
    html = response.content.decode()
    assert response.status_code == 200
    for name in ("signup", "password_reset", "guest"):
        assert f'href="{reverse(name)}' in html
    assert 'name="next" value="/lobby/table/7/"' in html


def test_host_logs_in_and_lands_on_next(client, host):
    response = client.post(
        reverse("login"), {"username": "hostess", "password": PASSWORD, "next": "/accounts/profile/"}
    )
    assert response.status_code == 302
    assert response.url == "/accounts/profile/"
    assert get_user(client).pk == host.pk


def test_wrong_password_is_refused(client, host):
    response = client.post(reverse("login"), {"username": "hostess", "password": "wrong-Pass-1"})
    assert response.status_code == 200
    assert not get_user(client).is_authenticated
    assert "banned" not in response.content.decode()


def test_banned_player_cannot_log_in_and_is_told_so(client, banned_player):
    response = client.post(reverse("login"), {"username": "cheater", "password": PASSWORD})
    assert response.status_code == 200
    assert not get_user(client).is_authenticated
    assert "banned" in response.content.decode()


def test_banned_player_with_a_wrong_password_is_not_told_about_the_ban(client, banned_player):
    response = client.post(reverse("login"), {"username": "cheater", "password": "wrong-Pass-1"})
    assert "banned" not in response.content.decode()


def test_banned_players_open_session_stops_authenticating(client, make_user, admin_user):
    player = make_user("cheater")
    client.force_login(player)
    assert client.get(reverse("profile")).status_code == 200

    services.user_ban(user=player, reason="cheating", by=admin_user)

    assert not get_user(client).is_authenticated
    response = client.get(reverse("profile"))
    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))


def test_unbanned_player_can_log_in_again(client, banned_player, admin_user):
    services.user_unban(user=banned_player, by=admin_user)
    client.post(reverse("login"), {"username": "cheater", "password": PASSWORD})
    assert get_user(client).pk == banned_player.pk


def test_host_changes_password(client, host):
    client.force_login(host)
    response = client.post(
        reverse("password_change"),
        {
            "old_password": PASSWORD,
            "new_password1": "brand-New-pass-77",
            "new_password2": "brand-New-pass-77",
        },
        follow=True,
    )
    assert response.redirect_chain[-1][0] == reverse("password_change_done")
    assert "Password changed" in response.content.decode()
    host.refresh_from_db()
    assert host.check_password("brand-New-pass-77")
    assert get_user(client).is_authenticated  # the session survives the change


def test_password_change_with_wrong_old_password_is_refused(client, host):
    client.force_login(host)
    response = client.post(
        reverse("password_change"),
        {
            "old_password": "nope-Nope-1",
            "new_password1": "brand-New-pass-77",
            "new_password2": "brand-New-pass-77",
        },
    )
    assert response.status_code == 200
    host.refresh_from_db()
    assert host.check_password(PASSWORD)


def test_password_reset_mails_a_working_link(client, host):
    response = client.post(reverse("password_reset"), {"email": "hostess@example.com"}, follow=True)
    assert response.redirect_chain[-1][0] == reverse("password_reset_done")
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["hostess@example.com"]
    assert "TetriWar" in message.subject
    link = re.search(r"https?://testserver(/accounts/reset/[^/\s]+/[^/\s]+/)", message.body)
    assert link, message.body

    # Following the link lets the player choose a new password.
    response = client.get(link.group(1), follow=True)
    assert "Choose a new password" in response.content.decode()
    response = client.post(
        response.redirect_chain[-1][0],
        {"new_password1": "reset-Pass-123", "new_password2": "reset-Pass-123"},
        follow=True,
    )
    assert response.redirect_chain[-1][0] == reverse("password_reset_complete")
    host.refresh_from_db()
    assert host.check_password("reset-Pass-123")


def test_password_reset_for_an_unknown_address_sends_nothing_but_looks_the_same(client, db):
    response = client.post(reverse("password_reset"), {"email": "nobody@example.com"})
    assert response.status_code == 302
    assert response.url == reverse("password_reset_done")
    assert mail.outbox == []


def test_a_used_reset_link_says_it_no_longer_works(client, db):
    response = client.get(reverse("password_reset_confirm", args=["MQ", "bad-token"]))
    assert response.status_code == 200
    assert "no longer works" in response.content.decode()


def test_visitor_picks_a_guest_name_and_the_navbar_shows_it(client, db):
    response = client.post(reverse("guest"), {"name": "Blocky_42"}, follow=True)
    assert response.redirect_chain[-1][0] == reverse("lobby:index")
    assert "Playing as Blocky_42 (guest)" in response.content.decode()
    assert "Playing as Blocky_42 (guest)" in client.get(reverse("home")).content.decode()


def test_guest_page_explains_friendly_tables_and_the_sign_up_chips(client, db):
    html = client.get(reverse("guest")).content.decode()
    assert "friendly" in html.lower()
    assert "1000 chips" in html


@pytest.mark.parametrize("name", ["ab", "has space", "x" * 21, "émile", "<script>"])
def test_guest_name_that_is_invalid_is_refused(client, db, name):
    response = client.post(reverse("guest"), {"name": name})
    assert response.status_code == 400
    assert (
        "Use 3–20 letters, digits, - or _." in response.content.decode()
        or "at most 20" in response.content.decode()
    )
    assert "guest_name" not in client.session


def test_guest_cannot_take_a_registered_players_name(client, host):
    response = client.post(reverse("guest"), {"name": "HOSTESS"})
    assert response.status_code == 400
    assert "belongs to a registered player" in response.content.decode()
    assert "guest_name" not in client.session


def test_signed_in_player_is_sent_on_from_the_guest_page(client, host):
    client.force_login(host)
    response = client.get(reverse("guest"))
    assert response.status_code == 302
