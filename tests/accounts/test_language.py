"""The header's language menu (issue 24): the browser's Accept-Language on a first
visit, the menu on every page, remembered by a cookie for guests and on the account
of a signed-in player, whose choice wins everywhere; the same URLs in every language."""

from __future__ import annotations

import datetime as dt

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import translation

from accounts.models import User
from lobby.broadcast import chips_fragment

LANGUAGE_URL = "/accounts/language/"


def page_language(response) -> str:
    """The language a page is in, as the page and its headers say it."""
    html = response.content.decode()
    declared = html.split('<html lang="', 1)[1].split('"', 1)[0]
    assert response["Content-Language"] == declared
    return declared


def selected_in_menu(response) -> str:
    html = response.content.decode()
    menu = html.split('id="language-select"', 1)[1].split("</select>", 1)[0]
    return menu.split(" selected", 1)[0].rsplit('<option value="', 1)[1].split('"', 1)[0]


def test_the_url_is_the_one_the_menu_posts_to(db):
    assert reverse("language") == LANGUAGE_URL


def test_a_first_visit_is_in_english_when_the_browser_asks_for_nothing_we_speak(client, db):
    response = client.get(reverse("home"), headers={"accept-language": "fr-FR,fr;q=0.9"})
    assert page_language(response) == "en"
    assert selected_in_menu(response) == "en"


def test_a_first_visit_follows_the_browsers_accept_language(client, db):
    response = client.get(reverse("home"), headers={"accept-language": "de-DE,de;q=0.9,en;q=0.8"})
    assert settings.LANGUAGE_COOKIE_NAME not in client.cookies
    assert page_language(response) == "de"
    assert selected_in_menu(response) == "de"
    assert "Accept-Language" in response["Vary"]


def test_chinese_browsers_get_simplified_chinese(client, db):
    response = client.get(reverse("home"), headers={"accept-language": "zh-CN,zh;q=0.9"})
    assert page_language(response) == "zh-hans"


def test_every_page_has_the_menu_with_every_language_in_its_own_name(client, db):
    html = client.get(reverse("lobby:index")).content.decode()
    assert f'action="{LANGUAGE_URL}"' in html
    for code, name in settings.LANGUAGES:
        assert f'<option value="{code}" lang="{code}"' in html
        assert name in html
    assert 'name="next" value="/lobby/"' in html
    assert "js/language.js" in html


def test_a_guest_switches_to_german_and_back_remembered_by_the_cookie(client, db):
    response = client.post(LANGUAGE_URL, {"language": "de", "next": "/lobby/"})
    assert response.status_code == 302
    assert response["Location"] == "/lobby/"
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "de"
    # The same URL, now in German, whatever the browser asks for.
    response = client.get("/lobby/", headers={"accept-language": "en"})
    assert page_language(response) == "de"
    assert selected_in_menu(response) == "de"

    client.post(LANGUAGE_URL, {"language": "en", "next": "/lobby/"})
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "en"
    response = client.get("/lobby/", headers={"accept-language": "de"})
    assert page_language(response) == "en"


def test_a_signed_in_player_switches_and_the_account_keeps_it(client, host):
    client.force_login(host)
    client.post(LANGUAGE_URL, {"language": "de", "next": "/accounts/profile/"})
    host.refresh_from_db()
    assert host.language == "de"
    assert page_language(client.get("/accounts/profile/")) == "de"

    client.post(LANGUAGE_URL, {"language": "en", "next": "/accounts/profile/"})
    host.refresh_from_db()
    assert host.language == "en"
    assert page_language(client.get("/accounts/profile/")) == "en"


def test_the_accounts_language_wins_over_the_browser_and_the_cookie_on_another_device(host):
    host.language = "es"
    host.save(update_fields=["language"])
    other_device = Client()
    other_device.cookies[settings.LANGUAGE_COOKIE_NAME] = "de"
    other_device.force_login(host)
    response = other_device.get(reverse("home"), headers={"accept-language": "de"})
    assert page_language(response) == "es"
    assert selected_in_menu(response) == "es"


def test_an_account_that_never_chose_follows_the_browser(client, host):
    assert host.language == ""
    client.force_login(host)
    assert page_language(client.get(reverse("home"), headers={"accept-language": "de"})) == "de"


def test_a_guests_choice_is_not_written_anywhere_but_the_cookie(client, host):
    client.post(LANGUAGE_URL, {"language": "de", "next": "/"})
    host.refresh_from_db()
    assert host.language == ""


@pytest.mark.parametrize(
    "unsafe", ["https://evil.example/", "//evil.example/", "http://evil.example/lobby/", "javascript:alert(1)"]
)
def test_an_unsafe_next_is_refused(client, db, unsafe):
    response = client.post(LANGUAGE_URL, {"language": "de", "next": unsafe})
    assert response.status_code == 302
    assert response["Location"] == reverse("home")
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "de"


def test_without_next_it_goes_back_to_the_page_it_came_from(client, db):
    response = client.post(LANGUAGE_URL, {"language": "es"}, headers={"referer": "http://testserver/lobby/"})
    assert response["Location"] == "http://testserver/lobby/"


def test_an_unknown_language_changes_nothing(client, host):
    client.force_login(host)
    response = client.post(LANGUAGE_URL, {"language": "xx", "next": "/"})
    assert response.status_code == 400
    assert settings.LANGUAGE_COOKIE_NAME not in client.cookies
    host.refresh_from_db()
    assert host.language == ""


def test_the_menu_takes_only_posts_with_a_csrf_token(db):
    browser = Client(enforce_csrf_checks=True)
    assert browser.get(LANGUAGE_URL).status_code == 405
    assert browser.post(LANGUAGE_URL, {"language": "de", "next": "/"}).status_code == 403
    assert settings.LANGUAGE_COOKIE_NAME not in browser.cookies


def test_urls_carry_no_language_prefix(client, db):
    client.post(LANGUAGE_URL, {"language": "de", "next": "/"})
    assert client.get("/de/lobby/").status_code == 404
    assert client.get("/lobby/").status_code == 200


@pytest.mark.parametrize(
    ("language", "shown"),
    # config/formats: one date format per language (issue 49, point 23)
    [("en", "Nov 25, 2026"), ("de", "25.11.2026"), ("es", "25/11/2026"), ("zh-hans", "2026年11月25日")],
)
def test_dates_are_written_the_readers_way(client, make_user, language, shown):
    player = make_user("datedplayer")
    User.objects.filter(pk=player.pk).update(date_joined=dt.datetime(2026, 11, 25, 9, 30, tzinfo=dt.UTC))
    client.force_login(player)
    client.cookies["django_language"] = language
    assert shown in client.get(reverse("profile")).content.decode()


@pytest.mark.parametrize(
    ("language", "big", "small"),
    # Django's own locale data: Spanish groups with a no-break space, Chinese does not group
    [("en", "12,345", "1000"), ("de", "12.345", "1000"), ("es", "12\u00a0345", "1000"), ("zh-hans", "12345", "1000")],
)
def test_chips_are_written_the_readers_way(client, make_user, language, big, small):
    rich = make_user("richplayer", chips=12345)
    client.force_login(rich)
    client.cookies["django_language"] = language
    assert f'<span id="nav-chips">{big}</span>' in client.get(reverse("profile")).content.decode()
    User.objects.filter(pk=rich.pk).update(chips=1000)  # four digits stay whole, in every language
    assert f'<span id="nav-chips">{small}</span>' in client.get(reverse("profile")).content.decode()


def test_the_pushed_count_of_chips_is_written_the_readers_way():
    with translation.override("de"):
        assert chips_fragment(12345) == '<span id="nav-chips" hx-swap-oob="true">12.345</span>'
    with translation.override("en"):
        assert chips_fragment(12345) == '<span id="nav-chips" hx-swap-oob="true">12,345</span>'
