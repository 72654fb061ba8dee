"""A spectator's phone at the end of a game (issue 49, point 21): one who watches a
TetriWar game, not seated, has scrolled down to read the seats; when the game ends the
results come into view by themselves, below the top bar, as they do for a player."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_layouts import SOCKET_OPEN
from tests.browser.test_tetriwar_endings import IN_VIEW, IN_VIEW_NOW
from tests.browser.test_tetriwar_game import OPTIONS, TIMEOUT, log_in
from tests.personas import ref

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def ready_table_url(live_server_url, host, opponent, outsider):
    """A TetriWar table with two players, both ready; ``outsider`` will watch."""
    from lobby import services

    table = services.table_create(player=ref(host), game="tetriwar", options=OPTIONS, seats_total=2)
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    for player in (host, opponent):
        services.seat_ready(table_id=table.pk, player=ref(player), ready=True)
    return f"{live_server_url}{table.get_absolute_url()}"


def test_a_spectator_s_phone_brings_the_results_into_view_when_the_game_ends(
    live_server_url, ready_table_url, browser, screenshot
):
    pages = {}
    for name in ("hostess", "opponent", "outsider"):
        phone = name == "outsider"
        context = browser.new_context(
            viewport=PHONE if phone else {"width": 1366, "height": 768}, has_touch=phone, is_mobile=phone
        )
        page = context.new_page()
        page.set_default_timeout(TIMEOUT)
        log_in(page, live_server_url, name)
        page.goto(ready_table_url)
        page.wait_for_function(SOCKET_OPEN)
        pages[name] = page
    p1, p2, watcher = pages["hostess"], pages["opponent"], pages["outsider"]
    p1.bring_to_front()
    p1.get_by_role("button", name="Start the game").click()
    for page in pages.values():
        expect(page.locator("#clock")).to_have_text(re.compile(r"^[12]:\d\d$"), timeout=TIMEOUT)

    # The spectator reads the seats, under the boards and the chat on a phone.
    watcher.bring_to_front()
    expect(watcher.locator("#game-area")).to_have_attribute("data-me", "0")
    watcher.evaluate("() => document.getElementById('seat-panel').scrollIntoView({block: 'start'})")
    assert watcher.evaluate("scrollY") > 0
    assert watcher.evaluate(IN_VIEW, "#game") != "", "the boards were in view: the test shows nothing"

    # A player leaves: the game ends at once, for everybody.
    p2.bring_to_front()
    p2.once("dialog", lambda dialog: dialog.accept())
    p2.get_by_role("button", name="Leave the game").click()
    watcher.bring_to_front()
    expect(watcher.locator("#results-title")).to_have_text("Results")
    expect(watcher.locator("#rematch-button")).to_have_count(0)  # nothing to do next but watch
    try:
        watcher.wait_for_function(IN_VIEW_NOW, arg="#results-title")
    finally:
        screenshot(watcher, "spectator-results-390x844")
    assert watcher.evaluate(IN_VIEW, "#results-title") == ""
