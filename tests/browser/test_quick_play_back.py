"""Back from quick play's wait page (issue 49, point 16), in Chromium at 1366 × 768 and
on a 390 × 844 phone: the lobby says the player is still in the queue and keeps their
place (longer than a wait page gone quiet would), offers the way back to the wait page,
and says so once the place is gone (here: left from another tab)."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from tests.browser.test_quick_play import SIZES, no_sideways_scroll
from tests.browser.test_table_lifecycle import page_for

pytestmark = pytest.mark.browser
WAITING = "You are in the queue for Te-Trix: your place is kept while this page is open."
GONE = "You are no longer in the quick-play queue."
STALE = 2  # seconds after which a place nobody's page asks for is dropped (10 on the site)


@pytest.fixture
def quick_stale(monkeypatch):
    """A place nobody asks for goes after 2 s, not 10: set before the server forks."""
    from lobby import quickplay

    monkeypatch.setattr(quickplay, "STALE_SECONDS", STALE)


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_back_from_the_wait_page_the_lobby_keeps_the_place_and_says_when_it_is_gone(
    quick_stale, live_server_url, host, browser, size
):
    page = page_for(browser, live_server_url, "hostess", size)
    page.goto(f"{live_server_url}/lobby/")
    page.get_by_role("button", name="Play Te-Trix now", exact=True).click()
    expect(page).to_have_url(re.compile(r"/lobby/queue/$"))
    expect(page.locator("#queue-count")).to_be_visible()

    page.go_back()
    expect(page).to_have_url(re.compile(r"/lobby/$"))
    banner = page.locator("#queue-banner")
    expect(banner).to_contain_text(WAITING)
    expect(banner.get_by_role("link", name="Back to the wait page")).to_be_visible()
    expect(banner.get_by_role("button", name="Leave the queue")).to_be_visible()
    assert no_sideways_scroll(page)

    time.sleep(2 * STALE + 1)  # a wait page gone quiet would have lost the place by now
    expect(banner).to_contain_text(WAITING)
    banner.get_by_role("link", name="Back to the wait page").click()
    expect(page).to_have_url(re.compile(r"/lobby/queue/$"))
    expect(page.locator("#queue-count")).to_have_text("1 player is waiting for Te-Trix.")
    page.go_back()
    expect(page.locator("#queue-banner")).to_contain_text(WAITING)

    other = page.context.new_page()  # another tab of the same player leaves the queue
    other.goto(f"{live_server_url}/lobby/queue/")
    other.get_by_role("button", name="Leave the queue").click()
    expect(other.locator("#messages")).to_contain_text("You left the queue.")
    other.close()
    page.bring_to_front()
    expect(page.locator("#queue-banner")).to_contain_text(GONE)
    expect(page.locator("#queue-banner")).not_to_contain_text(WAITING)
    assert no_sideways_scroll(page)
