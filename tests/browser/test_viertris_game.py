from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_tetriwar_game import log_in
from tests.personas import ref

pytestmark = pytest.mark.browser
TIMEOUT = 15_000
OPTIONS = {"move_seconds": 60, "target_score": None, "move_limit": 8}


# Counts the writes to the 3-2-1's text (static/js/live.js) from now on: one a second, not
# one each tick of its ten a second (a live region said again, the page laid out anew).
COUNT_COUNTDOWN_WRITES = """() => {
  window.__countdownWrites = 0;
  new MutationObserver((records) => {
    window.__countdownWrites += records.filter((r) => r.type === "childList"
      && r.target.classList && r.target.classList.contains("countdown")).length;
  }).observe(document.body, {subtree: true, childList: true});
}"""


@pytest.fixture
def viertris_url(live_server_url, host, opponent, outsider):
    from lobby import services

    table = services.table_create(player=ref(host), game="viertris", options=OPTIONS, seats_total=2)
    return f"{live_server_url}{table.get_absolute_url()}"


def test_a_short_game_between_two_players_with_a_spectator(
    live_server_url, viertris_url, browser, screenshot
):
    pages = {}
    for name in ("hostess", "opponent", "outsider"):
        page = browser.new_context(viewport={"width": 1200, "height": 900}).new_page()
        page.set_default_timeout(TIMEOUT)
        log_in(page, live_server_url, name)
        page.goto(viertris_url)
        pages[name] = page
    p1, p2, watcher = pages["hostess"], pages["opponent"], pages["outsider"]
    p2.locator("#seat-2").get_by_role("button", name="Sit here").click()
    for page in (p1, p2):
        page.get_by_role("button", name="I'm ready").click()
        expect(page.locator(".seat.mine .ready-mark")).to_be_visible()
    watcher.evaluate(COUNT_COUNTDOWN_WRITES)
    p1.get_by_role("button", name="Start the game").click()
    for page in (p1, p2, watcher):
        expect(page.locator("#clock")).to_contain_text("hostess to move")
    assert 1 <= watcher.evaluate("window.__countdownWrites") <= 4  # 3, 2, 1 (or what was left of them)
    # The columns and their hint are the players': the spectator has none.
    expect(p1.locator(".vt-columns")).to_be_visible()
    expect(watcher.locator(".vt-columns")).to_be_hidden()
    expect(watcher.locator(".vt-hint")).to_be_hidden()

    # Eight moves: the host with the mouse, the opponent with the keyboard.
    for move in range(8):
        mover = p1 if move % 2 == 0 else p2
        # The mover's own page has the last move (the spectator's may have had it first):
        # a page plays only on its turn as it knows it.
        expect(mover.locator("#vt-log li")).to_have_count(move)
        if move % 2 == 0:
            p1.get_by_role("button", name=f"Drop in column {1 + move // 2}").click()
        else:
            p2.keyboard.press("ArrowLeft")
            p2.keyboard.press("Enter")
        expect(watcher.locator("#vt-log li")).to_have_count(move + 1)
    expect(watcher.locator("#vt-board .vt-final .vc.p1")).to_have_count(4)
    expect(watcher.locator("#vt-board .vt-final .vc.p2")).to_have_count(4)
    for page in (p1, p2, watcher):
        expect(page.locator("#results-title")).to_have_text("Results")
    expect(watcher.locator("#results")).to_contain_text(re.compile("hostess"))
    expect(watcher.locator("#clock")).to_have_text("Game over")
    screenshot(watcher, "viertris-finished-spectator")
