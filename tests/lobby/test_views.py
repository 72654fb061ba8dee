from __future__ import annotations

import pytest
from django.urls import reverse

from lobby.models import Table
from tests.personas import ref

HTMX = {"HTTP_HX_REQUEST": "true"}


def test_the_lobby_list_is_rendered_once_per_change(
    client, host, opponent, make_table, django_assert_num_queries, django_capture_on_commit_callbacks
):
    from lobby import services

    table = make_table(ref(host))
    client.get(reverse("lobby:index"))  # renders and caches the list
    with django_assert_num_queries(0):
        from lobby.selectors import lobby_rows

        cached = lobby_rows()
    assert len(cached) == 1 and "1/2" in cached[0]

    with django_capture_on_commit_callbacks(execute=True):
        services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    assert "2/2" in client.get(reverse("lobby:index")).content.decode()

    services.table_close(table_id=table.pk, reason="Moderation")  # not committed yet: seen at once too
    assert "hostess&#x27;s table" not in client.get(reverse("lobby:index")).content.decode()


def test_a_table_page_is_read_once_per_change_of_its_table(
    client, host, opponent, outsider, make_table, django_assert_num_queries
):
    from lobby import services
    from lobby.selectors import table_for_page

    table = make_table(ref(host))
    client.force_login(outsider)
    url = reverse("lobby:table", args=[table.pk])
    assert "Sit here" in client.get(url).content.decode()
    with django_assert_num_queries(0):
        table_for_page(table.pk)

    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    page = client.get(url).content.decode()
    assert "opponent" in page and "Sit here" not in page
    services.watcher_add(table_id=table.pk, channel_name="specific.x", player=None)
    assert 'id="spectator-count">1<' in client.get(url).content.decode().replace('" hx-swap-oob="true"', '"')


def create_post(**overrides):
    data = {
        "name": "Friday blocks",
        "stake": "0",
        "opt-seats": "2",
        "opt-minutes": "3",
        "opt-start_level": "1",
        "opt-lines_per_level": "10",
        "opt-bombs": "manual",
    }
    data.update(overrides)
    return data


def test_the_lobby_lists_open_tables_with_their_options(client, host, make_table):
    make_table(ref(host), stake=25)
    page = client.get(reverse("lobby:index")).content.decode()
    assert "hostess&#x27;s table" in page
    assert "3 min · level 1 · 10 lines/level · manual bombs" in page
    assert "1/2" in page
    assert "badge-competitive" in page
    assert 'ws-connect="/ws/lobby/"' in page


def test_the_lobby_filters_by_game(client, host, make_table):
    make_table(ref(host))
    page = client.get(reverse("lobby:index") + "?game=tetriwar").content.decode()
    assert 'ws-connect="/ws/lobby/?game=tetriwar"' in page
    assert "hostess&#x27;s table" in page


def test_a_player_creates_a_table_and_lands_on_it(client, host):
    client.force_login(host)
    response = client.post(reverse("lobby:create", args=["tetriwar"]), create_post())
    table = Table.objects.get()
    assert response.status_code == 302 and response.url == table.get_absolute_url()
    assert table.options == {
        "minutes": 3,
        "start_level": 1,
        "lines_per_level": 10,
        "bombs": "manual",
        "pairs": False,
    }
    assert table.name == "Friday blocks"


@pytest.mark.parametrize(
    "field,value,message",
    [
        ("opt-minutes", "16", "less than or equal to 15"),
        ("opt-minutes", "0", "greater than or equal to 1"),
        ("opt-start_level", "10", "less than or equal to 9"),
        ("opt-lines_per_level", "3", "greater than or equal to 4"),
        ("opt-lines_per_level", "11", "less than or equal to 10"),
        ("opt-bombs", "nuclear", "Select a valid choice"),
        ("opt-seats", "5", "Select a valid choice"),
        ("stake", "-5", "greater than or equal to 0"),
    ],
)
def test_options_out_of_range_get_a_clear_message_and_create_nothing(client, host, field, value, message):
    client.force_login(host)
    response = client.post(reverse("lobby:create", args=["tetriwar"]), create_post(**{field: value}))
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Table.objects.exists()


def test_pairs_without_four_players_are_refused(client, host):
    client.force_login(host)
    response = client.post(reverse("lobby:create", args=["tetriwar"]), create_post(**{"opt-pairs": "on"}))
    assert response.status_code == 400
    assert "Pairs need exactly 4 players." in response.content.decode()


def test_a_guest_cannot_open_a_competitive_table_through_the_form(client, db):
    client.post(reverse("guest"), {"name": "visitor"})
    response = client.post(reverse("lobby:create", args=["tetriwar"]), create_post(stake="10"))
    assert response.status_code == 400
    assert "Guests can only open friendly tables" in response.content.decode()
    assert not Table.objects.exists()


def test_nobody_is_sent_to_choose_a_name_before_opening_a_table(client, db):
    response = client.get(reverse("lobby:create", args=["tetriwar"]))
    assert response.status_code == 302 and response.url.startswith(reverse("guest"))


def test_an_unknown_game_is_a_404(client, host):
    client.force_login(host)
    assert client.get(reverse("lobby:create", args=["chess"])).status_code == 404


def test_a_forged_table_id_is_a_friendly_404(client, db):
    response = client.get("/lobby/table/999999/")
    assert response.status_code == 404
    assert "There is no such table." in response.content.decode()
    assert client.post("/lobby/table/999999/sit/", {"seat": "1"}, **HTMX).status_code == 404


def test_sitting_through_htmx_returns_the_fresh_seat_panel(client, host, opponent, make_table):
    table = make_table(ref(host))
    client.force_login(opponent)
    response = client.post(reverse("lobby:sit", args=[table.pk]), {"seat": "2"}, **HTMX)
    page = response.content.decode()
    assert response.status_code == 200
    assert 'id="seat-panel"' in page and "opponent" in page and "(you)" in page
    assert table.seats.count() == 2


@pytest.mark.parametrize("seat", ["0", "7", "abc", ""])
def test_a_bad_seat_number_gets_a_message_and_changes_nothing(client, host, opponent, make_table, seat):
    table = make_table(ref(host))
    client.force_login(opponent)
    response = client.post(reverse("lobby:sit", args=[table.pk]), {"seat": seat}, **HTMX)
    assert response.status_code == 200
    assert 'class="message error"' in response.content.decode()
    assert table.seats.count() == 1


def test_a_repeated_join_without_htmx_redirects_with_a_message(client, host, make_table):
    table = make_table(ref(host))
    client.force_login(host)
    response = client.post(reverse("lobby:sit", args=[table.pk]), {"seat": "2"}, follow=True)
    assert "You already have a seat at this table." in response.content.decode()
    assert table.seats.count() == 1


def test_the_start_button_is_refused_to_a_non_host(client, host, opponent, make_table):
    table = make_table(ref(host))
    client.force_login(opponent)
    client.post(reverse("lobby:sit", args=[table.pk]), {"seat": "2"}, **HTMX)
    client.post(reverse("lobby:ready", args=[table.pk]), {"ready": "1"}, **HTMX)
    response = client.post(reverse("lobby:start", args=[table.pk]), **HTMX)
    assert "Only the table&#x27;s host can start the game." in response.content.decode()
    table.refresh_from_db()
    assert table.status == Table.Status.OPEN


def test_actions_need_post(client, host, make_table):
    table = make_table(ref(host))
    client.force_login(host)
    assert client.get(reverse("lobby:start", args=[table.pk])).status_code == 405


def test_the_table_page_shows_seats_and_the_game_area(client, host, make_table):
    table = make_table(ref(host), seats=3)
    page = client.get(table.get_absolute_url()).content.decode()
    assert page.count('class="seat') >= 3
    assert 'id="game-area"' in page
    assert f'ws-connect="/ws/table/{table.pk}/"' in page
    assert "choose a guest name" in page  # an anonymous visitor is watching


def test_a_table_pages_panels_are_rendered_once_per_version_and_role(
    client, host, opponent, outsider, make_table, monkeypatch
):
    from django.test import Client

    from lobby import selectors, services

    renders = []
    render = selectors.render_to_string
    monkeypatch.setattr(
        selectors, "render_to_string", lambda name, *a, **k: renders.append(name) or render(name, *a, **k)
    )
    table = make_table(ref(host))
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    url = reverse("lobby:table", args=[table.pk])
    visitors = {"anonymous": Client()}
    for name, user in (("host", host), ("seated", opponent), ("viewer", outsider)):
        visitors[name] = Client()
        visitors[name].force_login(user)

    pages = {name: c.get(url).content.decode() for name, c in visitors.items()}
    assert len(renders) == 2 * 4  # seat panel and status, once for each of the four roles
    assert {name: c.get(url).content.decode().count("Sit here") for name, c in visitors.items()} == {
        name: page.count("Sit here") for name, page in pages.items()
    }
    assert len(renders) == 2 * 4  # the second visits rendered nothing

    assert "Start the game" in pages["host"] and "Start the game" not in pages["viewer"]
    assert "(you)" in pages["seated"] and "I'm ready" in pages["seated"] and "(you)" not in pages["viewer"]
    assert "Sit here" not in pages["seated"] and "Sit here" not in pages["anonymous"]
    assert "choose a guest name" in pages["anonymous"] and "choose a guest name" not in pages["viewer"]
    assert 'data-me="2"' in pages["seated"] and 'data-me="0"' in pages["viewer"]

    services.seat_ready(table_id=table.pk, player=ref(opponent), ready=True)
    assert (
        "Not ready</button>" in visitors["seated"].get(url).content.decode()
    )  # a new version: rendered again
    assert len(renders) == 2 * 5


def test_the_forms_of_a_cached_seat_panel_carry_this_responses_csrf_token(host, outsider, make_table):
    import re

    from django.test import Client

    from lobby.selectors import PANEL_CSRF

    table = make_table(ref(host))
    url = reverse("lobby:table", args=[table.pk])
    Client().get(url)  # cached for another visitor first
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(outsider)
    page = browser.get(url).content.decode()
    assert PANEL_CSRF not in page
    form = re.search(r'<form hx-post="([^"]+)".*?name="csrfmiddlewaretoken" value="([^"]+)"', page, re.S)
    assert form and form.group(1) == reverse("lobby:sit", args=[table.pk])
    assert browser.post(form.group(1), {"seat": 2}).status_code == 403  # without the token: refused
    response = browser.post(form.group(1), {"seat": 2, "csrfmiddlewaretoken": form.group(2)})
    assert response.status_code == 302
    assert list(table.seats.values_list("number", flat=True)) == [1, 2]


def test_cached_lobby_rows_and_table_panels_are_kept_per_language(client, host, make_table, monkeypatch):
    """A page cached for a German reader is never served to an English one: the
    lobby's rows and a table's panels are rendered once per version, role and language."""
    from django.conf import settings
    from django.test import Client

    from lobby import selectors

    renders = []
    render = selectors.render_to_string
    monkeypatch.setattr(
        selectors, "render_to_string", lambda name, *a, **k: renders.append(name) or render(name, *a, **k)
    )
    table = make_table(ref(host))
    german = Client()
    german.cookies[settings.LANGUAGE_COOKIE_NAME] = "de"
    for url in (reverse("lobby:index"), reverse("lobby:table", args=[table.pk])):
        before = len(renders)
        assert '<html lang="en">' in client.get(url).content.decode()
        assert '<html lang="de">' in german.get(url).content.decode()
        english_again = client.get(url).content.decode()
        assert '<html lang="en">' in english_again
        assert len(renders) - before == 2 * (1 if url == reverse("lobby:index") else 2)  # once per language
