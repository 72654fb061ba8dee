"""Every page that answers GET answers HEAD alike (uptime monitors, link checkers and
``curl -I`` ask HEAD): the same status and headers, no body. Views say so with
``require_safe`` (GET and HEAD), never ``require_GET`` (GET alone)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.urls import reverse

from games.registry import GAMES
from tests.games.test_replays import recorded_bots_game

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def pages(table_id: int, game_id: int) -> list[str]:
    return [
        "/",
        "/healthz",
        "/favicon.ico",
        "/jsi18n/de.js",
        reverse("games:index"),
        reverse("games:tetriwar_pieces_css"),
        reverse("games:leaderboard_index"),
        "/leaderboard/",
        *(reverse("games:how_to_play", args=[slug]) for slug in GAMES),
        *(reverse("games:leaderboard", args=[slug]) for slug in GAMES),
        reverse("games:replay", args=[game_id]),
        reverse("lobby:index"),
        *(reverse("lobby:create", args=[slug]) for slug in GAMES),
        reverse("lobby:table", args=[table_id]),
        reverse("lobby:queue"),
        reverse("signup"),
        reverse("login"),
        reverse("guest"),
        reverse("profile"),
        reverse("key_bindings"),
        reverse("player", args=["hostess"]),
        reverse("password_change"),
        reverse("password_reset"),
        "/admin/login/",
    ]


@pytest.mark.parametrize("signed_in", [False, True], ids=["visitor", "player"])
def test_every_page_answers_head_as_it_answers_get(client, host, signed_in):
    game = recorded_bots_game(host, "viertris", seed=3)
    if signed_in:
        client.force_login(host)
    wrong = []
    for url in pages(game.table_id, game.pk):
        got, head = client.get(url), client.head(url)
        if got.status_code == 405 or head.status_code != got.status_code or head.content:
            wrong.append(
                f"{url}: GET {got.status_code}, HEAD {head.status_code} with {len(head.content)} bytes"
            )
        elif head.get("Content-Type") != got.get("Content-Type"):
            wrong.append(f"{url}: HEAD says {head.get('Content-Type')}, GET {got.get('Content-Type')}")
    assert not wrong, "\n".join(wrong)


def test_no_view_allows_get_without_head():
    """A view that takes GET takes HEAD too: ``require_safe``, or HEAD in its list."""
    found = []
    for path in (ROOT / name for name in ("accounts", "config", "games", "lobby")):
        for source in path.rglob("*.py"):
            text = source.read_text()
            found += [
                f"{source.relative_to(ROOT)}: require_GET" for _ in re.finditer(r"\brequire_GET\b", text)
            ]
            for methods in re.findall(r"require_http_methods\(\[([^\]]*)\]\)", text):
                if '"GET"' in methods and '"HEAD"' not in methods:
                    found.append(f"{source.relative_to(ROOT)}: require_http_methods([{methods}])")
    assert not found, found
