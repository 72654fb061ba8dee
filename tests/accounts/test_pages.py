"""Home, help and error pages: they render, carry the navbar and state the rules' numbers."""

from __future__ import annotations

import pytest
from django.test import Client, override_settings
from django.urls import reverse

from games.registry import GAMES

NAVBAR = 'class="topbar"'


def test_home_explains_the_site_and_links_every_game(client, db):
    response = client.get(reverse("home"))
    html = response.content.decode()
    assert response.status_code == 200
    assert "TetriWar" in html
    assert reverse("lobby:index") in html
    assert reverse("signup") in html
    for slug in GAMES:
        assert reverse("games:how_to_play", args=[slug]) in html
        assert reverse("lobby:create", args=[slug]) in html


def test_home_offers_no_sign_up_button_in_the_page_body_to_a_signed_in_player(client, host):
    client.force_login(host)
    html = client.get(reverse("home")).content.decode()
    assert "Sign up for 1000 chips" not in html


def test_games_index_links_every_how_to_page(client, db):
    response = client.get(reverse("games:index"))
    assert response.status_code == 200
    for slug, spec in GAMES.items():
        assert reverse("games:how_to_play", args=[slug]) in response.content.decode()
        assert spec.name in response.content.decode()


# fmt: off
RULE_FACTS = [
    "10 columns", "20 rows", "7-bag", "next 3 pieces",
    "1.000", "0.793", "0.618", "0.473", "0.355", "0.262", "0.190", "0.135", "0.094", "0.064",
    "0.5 s", "15 times", "50 ms", "170 ms",
    "10 × level", "25 × level", "40 × level", "60 × level", "1 × level",
    "40 × 6 = <strong>240</strong>", "Level 10", "1 to 9", "4 to 10",
    "3-second countdown", "30 seconds", "at most <strong>12</strong>",
    "Add line", "Earthquake", "Remove bombs", "Drill", "Lack of control", "Gravity", "Remove line", "Demolition",
    "5 seconds", "10 random blocks", "bottom four rows", "three times as likely",
    "1 to 15 minutes, 3 by default", "only with 4 players",
    "+10", "−5", "+15", "−10", "+20", "+5", "−20", "same IP address", "1000 chips",
]
# fmt: on


@pytest.mark.parametrize("fact", RULE_FACTS)
def test_tetriwar_how_to_play_states_the_rules_numbers(client, db, fact):
    response = client.get(reverse("games:how_to_play", args=["tetriwar"]))
    assert response.status_code == 200
    assert fact in response.content.decode()


def test_tetriwar_how_to_play_colours_five_red_and_three_green_bombs(client, db):
    html = client.get(reverse("games:how_to_play", args=["tetriwar"])).content.decode()
    assert html.count('<li class="bomb-red">') == 5
    assert html.count('<li class="bomb-green">') == 3


def test_tetriwar_how_to_play_lists_the_controls(client, db):
    html = client.get(reverse("games:how_to_play", args=["tetriwar"])).content.decode()
    assert '<dl class="keys">' in html
    for key in ("←", "→", "↑", "↓", "Ctrl", "⌘", "Space", "Enter", "1", "4"):
        assert f"<kbd>{key}</kbd>" in html


def test_unknown_games_how_to_is_a_friendly_404(client, db):
    response = client.get(reverse("games:how_to_play", args=["pong"]))
    assert response.status_code == 404
    html = response.content.decode()
    assert "No such game." in html
    assert NAVBAR in html
    assert reverse("lobby:index") in html


def test_unknown_address_is_a_friendly_404(client, db):
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    assert "find that page" in response.content.decode()


@pytest.mark.parametrize(
    "url_name",
    [
        "home",
        "games:index",
        "login",
        "signup",
        "guest",
        "password_reset",
        "password_reset_done",
        "password_reset_complete",
    ],
)
def test_every_public_page_has_the_navbar(client, db, url_name):
    response = client.get(reverse(url_name))
    assert response.status_code == 200
    assert NAVBAR in response.content.decode()


@pytest.mark.parametrize("url_name", ["profile", "key_bindings", "password_change", "password_change_done"])
def test_every_signed_in_page_has_the_navbar_with_the_players_chips(client, host, url_name):
    client.force_login(host)
    response = client.get(reverse(url_name))
    assert response.status_code == 200
    html = response.content.decode()
    assert NAVBAR in html
    assert '<span id="nav-chips">1000</span>' in html


def test_tetriwar_how_to_play_has_the_navbar(client, db):
    assert NAVBAR in client.get(reverse("games:how_to_play", args=["tetriwar"])).content.decode()


def test_forbidden_page_shows_the_reason_and_the_way_back(rf, db):
    from django.contrib.auth.models import AnonymousUser
    from django.core.exceptions import PermissionDenied
    from django.views.defaults import permission_denied

    request = rf.get("/somewhere/")
    request.user = AnonymousUser()
    request.session = {}
    response = permission_denied(request, PermissionDenied("Only the host may start the game."))
    html = response.content.decode()
    assert response.status_code == 403
    assert "Only the host may start the game." in html
    assert NAVBAR in html
    assert reverse("lobby:index") in html


def test_server_error_page_renders_without_any_context(db):
    from django.test import RequestFactory
    from django.views.defaults import server_error

    response = server_error(RequestFactory().get("/"))
    assert response.status_code == 500
    assert "Something went wrong" in response.content.decode()


@override_settings(ROOT_URLCONF="tests.accounts.urls_boom")
def test_a_crashing_view_shows_the_static_500_page(client, db):
    client.raise_request_exception = False
    response = client.get("/boom/")
    assert response.status_code == 500
    assert "Something went wrong" in response.content.decode()


def test_expired_form_gets_the_csrf_page(db):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    response = strict.post(reverse("guest"), {"name": "Blocky"})
    assert response.status_code == 403
    assert "That form has expired" in response.content.decode()


def test_healthz_answers_without_touching_the_database(db, client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/healthz")
    assert response.status_code == 200 and response.content == b"ok\n"
    assert client.post("/healthz").status_code == 405


def test_home_says_what_is_playable_today_and_what_is_coming(client, db):
    html = client.get(reverse("home")).content.decode()
    assert "Playable today: TetriWar, Viertris, Third Option, Block-Killer and Te-Trix." in html
    assert "On their way" not in html  # the whole family is playable


def test_the_favicon_is_the_sites_icon_not_a_404(client, db):
    from django.contrib.staticfiles import finders

    response = client.get("/favicon.ico")
    assert response.status_code == 302
    assert response.url.endswith("img/favicon.svg")
    assert finders.find("img/favicon.svg")  # a file of the site's static files
    assert "max-age=86400" in response["Cache-Control"]
    assert client.post("/favicon.ico").status_code == 405


def test_every_page_names_the_sites_icon(client, db, rf):
    from django.views.defaults import server_error

    icon = 'rel="icon" href="/static/img/favicon.svg"'
    assert icon in client.get(reverse("home")).content.decode()
    assert icon in client.get("/no/such/page/").content.decode()  # the 404 page has the site's head
    assert icon in server_error(rf.get("/")).content.decode()  # the 500 page stands alone
    expired = Client(enforce_csrf_checks=True).post(reverse("guest"), {"name": "Blocky"})
    assert icon in expired.content.decode()


def test_error_pages_are_styled(client, db, rf):
    from django.views.defaults import server_error

    assert 'href="/static/css/pages.css"' in client.get("/no/such/page/").content.decode()  # .error-page
    assert 'href="/static/css/error.css"' in server_error(rf.get("/")).content.decode()
