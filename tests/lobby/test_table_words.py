"""Every state of a table has its own words, for every viewer (issue 19): nobody is
asked to get ready at a closed table, or to take a seat while a game runs."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.test import Client

from games.live import live_game_class
from lobby import services
from lobby.models import Table
from tests.personas import ref

ROLES = ("anonymous", "viewer", "player", "host")
READY_HINT = "Press “I'm ready” when you want to play."


@pytest.fixture
def table(host, opponent, make_table):
    table = make_table(ref(host), stake=10)
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    return table


@pytest.fixture
def page_for(host, opponent, outsider, table):
    users = {"anonymous": None, "viewer": outsider, "player": opponent, "host": host}

    def page(role: str) -> str:
        client = Client()
        if users[role] is not None:
            client.force_login(users[role])
        response = client.get(table.get_absolute_url())
        assert response.status_code == 200
        html = response.content.decode()
        # The table's own words: the panels and the game area, not the site's menus.
        return html[html.index('<div class="table-layout"') : html.index("</main>")]

    return page


def words(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def start(table, host, opponent) -> None:
    for player in (host, opponent):
        services.seat_ready(table_id=table.pk, player=ref(player), ready=True)
    services.table_start(table_id=table.pk, player=ref(host))


@pytest.mark.parametrize("role", ROLES)
def test_an_open_table_says_who_starts_and_asks_the_seated_to_get_ready(page_for, role):
    html = page_for(role)
    text = words(html)
    assert "Waiting for players" in text
    assert "The game will appear here when the host starts it." in text
    assert "Pot: 20 chips" in text
    assert (READY_HINT in html) == (role in ("player", "host"))
    assert ("Start the game" in text) == (role == "host")
    if role != "host":
        assert (
            "Waiting for hostess, opponent to be ready. hostess starts the game when everybody is ready."
            in text
        )
    assert ("to take a seat. You are watching." in text) == (role == "anonymous")
    assert "is closed" not in text and "A game is being played." not in text


@pytest.mark.parametrize("role", ROLES)
def test_a_running_table_says_a_game_is_played_and_offers_no_seat(page_for, table, host, opponent, role):
    start(table, host, opponent)
    html = page_for(role)
    text = words(html)
    assert "Playing" in text and "A game is being played." in text
    assert "Loading the game…" in text
    assert ("Leave the game" in text) == (role in ("player", "host"))
    assert ("to take a seat when this game is over. You are watching." in text) == (role == "anonymous")
    for wrong in (READY_HINT, "Start the game", "Sit here", "Stand up", "will appear here", "is closed"):
        assert wrong not in html


@pytest.mark.parametrize("role", ROLES)
def test_a_closed_table_says_so_and_nothing_else(page_for, table, admin_user, role):
    services.table_close(table_id=table.pk, reason="Closed for the night.", by=admin_user)
    html = page_for(role)
    text = words(html)
    assert "Closed" in text and "This table is closed. Closed for the night." in text
    assert "This table is closed: no more games here." in text
    for wrong in (
        "ready",
        "Ready",
        "Start the game",
        "Sit here",
        "take a seat",
        "Pot:",
        "will appear here",
        "Loading the game",
        "A game is being played",
        "<form",
    ):
        assert wrong not in html, wrong


def test_a_table_left_idle_says_why_it_closed(page_for, table):
    Table.objects.filter(pk=table.pk).update(updated_at=table.updated_at.replace(year=2000))
    table.seats.update(joined_at=table.updated_at.replace(year=2000))
    assert services.tables_close_idle() == [table.pk]
    assert f"Nobody was at the table for {settings.TABLE_IDLE_MINUTES} minutes." in words(page_for("viewer"))


@pytest.mark.parametrize("game", ["tetriwar", "viertris"])
def test_a_game_aborted_by_closing_its_table_does_not_ask_anyone_to_get_ready(game):
    html = live_game_class(game).render_aborted("The table was closed: by a moderator")
    assert "Game aborted" in html and "The table was closed" in html
    assert "ready" not in html.lower()
