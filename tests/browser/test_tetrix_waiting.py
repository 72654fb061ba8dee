"""Te-Trix while another player rolls (issue 49, point 20): the arrange tools are the
roller's alone, and take no room on the other players' pages, so a phone shows the own
sheet (it had its top three rows on screen, under the arrange tools' empty room); the
sheet then holds still when the shape comes to be written.

The game's seed is fixed (``test_tetrix_game.fixed_seed``): seat 1 (hostess) rolls first;
the page looked at is seat 2's (opponent)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_layouts import SOCKET_OPEN
from tests.browser.test_tetrix_game import arrange, fixed_seed, log_in, seated_url

__all__ = ["fixed_seed", "seated_url"]  # fixtures, used by name

pytestmark = pytest.mark.browser
TIMEOUT = 15_000
DESKTOP, PHONE = (1366, 768), (390, 844)

# How much of an element is on the screen, from 0 to 1.
ON_SCREEN = """(el) => {
  const r = el.getBoundingClientRect();
  const seen = Math.max(0, Math.min(r.bottom, innerHeight) - Math.max(r.top, 0));
  return seen / r.height;
}"""


def where(page, selector: str) -> float:
    """The element's top on the page (scrolling does not move it)."""
    return page.locator(selector).evaluate("(el) => el.getBoundingClientRect().top + scrollY")


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_own_sheet_is_in_view_while_another_player_rolls(seated_url, live_server_url, browser, screenshot, size):
    touch = size is PHONE
    pages = {}
    for name in ("hostess", "opponent"):
        context = browser.new_context(viewport={"width": size[0], "height": size[1]}, has_touch=touch, is_mobile=touch)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT)
        log_in(page, live_server_url, name)
        page.goto(seated_url)
        page.wait_for_function(SOCKET_OPEN)
        pages[name] = page
    for page in pages.values():
        page.bring_to_front()
        page.get_by_role("button", name="I'm ready").click()
        expect(page.locator(".seat.mine .ready-mark")).to_be_visible()
    roller, waiter = pages["hostess"], pages["opponent"]
    roller.bring_to_front()
    roller.get_by_role("button", name="Start the game").click()

    waiter.bring_to_front()
    expect(waiter.locator("#tx-turn")).to_have_attribute("data-roller", "1")
    expect(waiter.locator("#tx-status-2")).to_have_attribute("data-state", "wait")
    expect(waiter.locator(".tx-countdown")).to_have_count(0)
    expect(waiter.locator("#tx-turn .tx-words")).to_have_text("hostess arranges the dice into a shape.")
    # The roller's tools take no room here: the panel holds the round and the room of
    # the write tools, which come next, and nothing more.
    expect(waiter.locator(".tx-arrange")).to_be_hidden()
    assert waiter.locator(".tx-arrange").bounding_box() is None
    tools = waiter.locator(".tx-tools").bounding_box()["height"]
    assert tools == waiter.locator(".tx-write").bounding_box()["height"]
    waiter.evaluate("window.scrollTo(0, 0)")
    sheet_in_view = waiter.locator("#tx-sheet-2").evaluate(ON_SCREEN)
    screenshot(waiter, f"tetrix-waiting-for-the-roller-{size[0]}")
    if touch:  # the page at its top: most of the sheet, under the table's heading
        assert sheet_in_view > 0.6, sheet_in_view
    else:  # the whole of it
        assert sheet_in_view == 1, sheet_in_view
    on_the_page = where(waiter, "#tx-sheet-2")

    # The roller arranges: the shape comes to be written, into the room kept for it.
    roller.bring_to_front()
    arrange(roller, "T", touch)
    waiter.bring_to_front()
    expect(waiter.locator("#tx-status-2")).to_have_attribute("data-state", "write")
    expect(waiter.locator(".tx-write")).to_be_visible()
    assert where(waiter, "#tx-sheet-2") == on_the_page
    # The roller keeps the room of their tools to the round's end (their sheet stays put).
    expect(roller.locator(".tx-arrange")).to_be_hidden()
    assert roller.locator(".tx-tools").bounding_box()["height"] > tools
