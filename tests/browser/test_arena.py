"""An arena in Chromium (issue 51): three players join a TetriWar arena (one-minute
games of three) from its page, are taken to their table, play two rounds (the second
paired as the first ends), while a visitor on the arena page sees the standings change
over the lobby's socket and, at the end, the podium and its prizes; on a desktop and
on a 390 × 844 phone. The server's clock is moved on (tests/browser/conftest.py
``ServerClock``: the games' and the arena's), so a minute passes in a moment. Any
console error fails the test."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_table_lifecycle import page_for
from tests.browser.test_tetriwar_game import log_in

pytestmark = pytest.mark.browser
SIZES = [(1366, 768), (390, 844)]
TIMEOUT = 20_000
NAMES = ("hostess", "opponent", "thirdwheel")


@pytest.fixture
def own_addresses(settings):
    """Each player comes from an address of their own (a proxy in front says which,
    ``X-Forwarded-For``), as people at home do: games between players of one address
    count for nobody (RULES.md §6). Set before the server forks."""
    settings.TRUSTED_PROXIES = ["127.0.0.1/32", "::1/128"]


def player_page(browser, base, name, size, number):
    touch = size[0] < 1024
    context = browser.new_context(
        viewport={"width": size[0], "height": size[1]}, has_touch=touch, is_mobile=touch,
        extra_http_headers={"X-Forwarded-For": f"198.51.100.{number}"},
    )
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    log_in(page, base, name)
    return page


@pytest.fixture
def arena_url(live_server_url, admin_user, host, opponent, third):
    from django.utils import timezone

    from lobby import arenas

    arena = arenas.arena_create(
        by=admin_user, title="Blitz arena", game="tetriwar", options={"minutes": 1, "bombs": "off"}, seats=3,
        starts_at=timezone.now() - dt.timedelta(seconds=1), minutes=10, fee=10,
    )
    return f"{live_server_url}{arena.get_absolute_url()}"


def standings(page) -> list[tuple[str, str]]:
    rows = page.locator("#arena-standings tbody tr")
    return [(rows.nth(n).locator("td.player").inner_text().strip(), rows.nth(n).locator("td").nth(2).inner_text())
            for n in range(rows.count())]


def play_round(players, drops, server_clock, advance):
    """Each player on their table (the same one), each hard-dropping their number of
    pieces (a piece placed scores 1), then the server's clock moved on ``advance`` s."""
    urls = set()
    for page in players:
        expect(page).to_have_url(re.compile(r"/lobby/table/\d+/$"), timeout=TIMEOUT)
        expect(page.locator("#arena-banner")).to_contain_text("Blitz arena")
        urls.add(page.url)
    assert len(urls) == 1  # three players, tables of three: all at one
    for page in players:
        expect(page.locator("#clock")).to_have_text(re.compile(r"^[01]:\d\d$"), timeout=TIMEOUT)
    seats = []
    for page, count in zip(players, drops, strict=True):
        seat = page.locator("#game-area").get_attribute("data-me")
        seats.append(seat)
        for n in range(count):
            page.keyboard.press("Space")
            expect(page.locator(f"#score-{seat} dd").first).to_have_text(str(n + 1))
    # A page draws its own score as it plays; the server has them all once another
    # page shows them (its fragments are the server's) and only then may its clock jump.
    for i, (seat, count) in enumerate(zip(seats, drops, strict=True)):
        other = players[(i + 1) % len(players)]
        expect(other.locator(f"#score-{seat} dd").first).to_have_text(str(count), timeout=TIMEOUT)
    server_clock.advance(advance)
    for page in players:
        expect(page.locator("#results-title")).to_have_text("Results", timeout=TIMEOUT)
    return urls.pop()


@pytest.mark.parametrize("size", SIZES, ids=["desktop", "phone"])
def test_three_players_play_two_rounds_and_see_the_standings_and_the_podium(
    own_addresses, live_server_url, arena_url, browser, server_clock, size
):
    watcher = page_for(browser, live_server_url, None, size)
    watcher.goto(arena_url)
    expect(watcher.locator("#arena-title")).to_have_text("Blitz arena")
    expect(watcher.locator("#arena-join")).to_have_count(0)  # a visitor sees no Join
    players = []
    for number, name in enumerate(NAMES, start=1):
        page = player_page(browser, live_server_url, name, size, number)
        page.goto(arena_url)
        players.append(page)
    # Joined within a moment of each other (a table of three waits 6 s for its third,
    # lobby/arenas.py FULL_TABLE_PATIENCE, then seats two).
    for page in players:
        page.locator("#arena-join").click()
    # Each page shows Pause until the pairing takes it to its table (as soon as the
    # third has joined: the board's three rows below, and then the table's URL).
    # The watcher's board shows the three as they join, without a reload.
    expect(watcher.locator("#arena-standings tbody tr")).to_have_count(3)

    first = play_round(players, (3, 1, 0), server_clock, 60)
    # The standings change on the watcher's page: 2, 1 and 0 points by place.
    expect(watcher.locator("#arena-standings tbody tr").first).to_contain_text("hostess")
    expect(watcher.locator("#arena-standings tbody tr").first.locator("td").nth(2)).to_have_text("2")
    assert [points for _, points in standings(watcher)] == ["2", "1", "0"]

    # Paired again at once: each page goes on to the next table by itself.
    for page in players:
        expect(page).not_to_have_url(first, timeout=TIMEOUT)
    # The second round runs past the arena's end: it counts, and then the arena is over.
    play_round(players, (2, 1, 0), server_clock, 570)
    expect(watcher.locator("#arena-podium")).to_be_visible(timeout=TIMEOUT)
    expect(watcher.locator("#arena-status")).to_have_text("Finished", timeout=TIMEOUT)
    assert [points for _, points in standings(watcher)] == ["4", "2", "0"]
    podium = watcher.locator("#arena-podium li")
    expect(podium).to_have_count(3)
    expect(podium.nth(0)).to_contain_text("hostess")
    expect(podium.nth(0)).to_contain_text("15 chips")  # the pool of 30: 50/30/20
    expect(podium.nth(1)).to_contain_text("9 chips")
    expect(podium.nth(2)).to_contain_text("6 chips")
    assert watcher.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

    # The arena is on each player's profile.
    players[0].goto(f"{live_server_url}/accounts/profile/")
    expect(players[0].locator("#arena-history")).to_contain_text("Blitz arena")
