"""Quick play in Chromium (issue 32): two players press Play now for the same game,
one waits on the waiting page, and both meet in a running game, on a desktop and on a
390 × 844 phone. Any console error fails the test (tests/browser/conftest.py)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_table_lifecycle import RUNNING, page_for

pytestmark = pytest.mark.browser
SIZES = [(1366, 768), (390, 844)]


def no_sideways_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("game, name", [("viertris", "Viertris"), ("tetriwar", "TetriWar")])
def test_two_players_press_play_now_and_meet_in_a_running_game(
    live_server_url, host, opponent, browser, size, game, name
):
    first = page_for(browser, live_server_url, "hostess", size)
    second = page_for(browser, live_server_url, "opponent", size)

    first.goto(f"{live_server_url}/lobby/")
    first.get_by_role("button", name=f"Play {name} now", exact=True).click()
    expect(first).to_have_url(re.compile(r"/lobby/queue/$"))
    expect(first.locator("h1")).to_have_text(f"Finding a game of {name}")
    expect(first.locator("#queue-count")).to_have_text(f"1 player is waiting for {name}.")
    expect(first.locator("#queue-waited")).to_have_text(re.compile(r"^0:0\d$"))
    assert no_sideways_scroll(first)

    second.goto(f"{live_server_url}/lobby/")
    second.get_by_role("button", name=f"Play {name} now", exact=True).click()

    # The second goes straight to the table; the first's waiting page follows within a poll.
    for page in (second, first):
        expect(page).to_have_url(re.compile(r"/lobby/table/\d+/$"))
    assert first.url == second.url
    for page in (first, second):
        expect(page.locator("#table-status")).to_contain_text(RUNNING)
    expect(first.locator("#game-area")).to_have_attribute("data-me", "1")
    expect(second.locator("#game-area")).to_have_attribute("data-me", "2")

    # Back from the table: there is no queue to return to.
    first.go_back()
    expect(first).not_to_have_url(re.compile(r"/lobby/queue/$"))


def test_leaving_the_queue_goes_back_to_the_lobby(live_server_url, host, browser):
    page = page_for(browser, live_server_url, "hostess")
    page.goto(f"{live_server_url}/lobby/")
    page.get_by_role("button", name="Play Te-Trix now", exact=True).click()
    expect(page.locator("#queue-count")).to_be_visible()
    page.get_by_role("button", name="Leave the queue").click()
    expect(page).to_have_url(re.compile(r"/lobby/$"))
    expect(page.locator("#messages")).to_contain_text("You left the queue.")


@pytest.fixture
def quick_offer(monkeypatch):
    """The page offers a bot after 1 s of waiting, not 20: set before the server forks."""
    from lobby import quickplay

    monkeypatch.setattr(quickplay, "OFFER_BOT_AFTER_SECONDS", 1)


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_play_a_bot_instead_starts_the_game(quick_offer, live_server_url, browser, size):
    """A newcomer in a fresh browser, with no name yet, waits for a game of Viertris and
    takes the bot offered instead: the game starts after its 3-2-1, nothing to press."""
    page = page_for(browser, live_server_url, None, size)
    page.goto(f"{live_server_url}/accounts/guest/?next=/lobby/")
    page.get_by_label("Guest name").fill("Newcomer")
    page.get_by_role("button", name="Play as this guest").click()
    page.get_by_role("button", name="Play Viertris now", exact=True).click()
    expect(page).to_have_url(re.compile(r"/lobby/queue/$"))
    page.get_by_role("button", name="Play a bot instead").click()
    expect(page).to_have_url(re.compile(r"/lobby/table/\d+/$"))
    expect(page.locator("#table-status")).to_contain_text(RUNNING)
    expect(page.locator("#clock")).to_contain_text(re.compile("to move"))
    expect(page.get_by_role("button", name="Start the game")).to_have_count(0)
    expect(page.locator("#game-area")).to_have_attribute("data-me", "1")
