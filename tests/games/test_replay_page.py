"""The replay page in the site's frame (templates/base.html, templates/games/replay.html):
the header's menu marks the part of the site a page belongs to, and a replay belongs to
none of its entries."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.games.test_replays import recorded_bots_game

pytestmark = pytest.mark.django_db

CURRENT = re.compile(r'<a href="[^"]*" aria-current="page">([^<]+)</a>')


def marked_in_the_menu(html: str) -> list[str]:
    nav = html.split('<nav class="nav"', 1)[1].split("</nav>", 1)[0]
    return CURRENT.findall(nav)


def test_the_menu_marks_nothing_on_a_replay_page(client, host):
    game = recorded_bots_game(host, "thirdoption", seed=41)
    html = client.get(reverse("games:replay", args=[game.pk])).content.decode()
    assert 'id="replay-seek"' in html
    assert marked_in_the_menu(html) == []


@pytest.mark.parametrize(
    ("path", "marked"),
    [
        ("/games/", ["How to play"]),
        ("/games/thirdoption/how-to-play/", ["How to play"]),
        ("/games/leaderboard/thirdoption/", ["Leaderboard"]),
        ("/lobby/", ["Lobby"]),
    ],
)
def test_the_menu_still_marks_the_pages_of_its_entries(client, path, marked):
    html = client.get(path).content.decode()
    assert marked_in_the_menu(html) == marked
