"""Every viewer's page stays in step with its table, whatever their role and whatever
the table's state, without a console error (issue 19).

Four people look at one table: the host and an opponent who sit, a signed-in
spectator and an anonymous visitor. Every push reaches all four pages, so each
live region must find its target on each of them; the ``browser`` fixture fails the
test on any console error or warning (htmx reports a region without a target as
``htmx:oobErrorNoTarget``)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_tetriwar_game import log_in
from tests.personas import ref

pytestmark = pytest.mark.browser
TIMEOUT = 15_000
OPTIONS = {"minutes": 2, "start_level": 1, "lines_per_level": 10, "bombs": "manual", "pairs": False}


@pytest.fixture
def table_url(live_server_url, host, opponent, outsider):
    # Data first: no ORM calls once Playwright's event loop runs (STACK.md, pitfall 4).
    from lobby import services

    table = services.table_create(player=ref(host), game="tetriwar", options=OPTIONS, seats_total=2)
    return f"{live_server_url}{table.get_absolute_url()}"


@pytest.fixture
def closed_table_url(live_server_url, host, outsider):
    from lobby import services

    table = services.table_create(player=ref(host), game="tetriwar", options=OPTIONS, seats_total=2, stake=10)
    services.table_close(table_id=table.pk, reason="Closed for the night.")
    return f"{live_server_url}{table.get_absolute_url()}"


def open_pages(browser, base, names):
    pages = {}
    for name in names:
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        page.set_default_timeout(TIMEOUT)
        if name != "anonymous":
            log_in(page, base, name)
        pages[name] = page
    return pages


def test_every_role_sees_every_state_of_a_table_without_a_console_error(live_server_url, table_url, browser):
    pages = open_pages(browser, live_server_url, ("hostess", "opponent", "outsider", "anonymous"))
    p1, p2 = pages["hostess"], pages["opponent"]
    for page in pages.values():
        page.goto(table_url)
        expect(page.locator("#table-status")).to_contain_text("Waiting for players")
    expect(pages["anonymous"].locator("#seat-panel")).to_contain_text("to take a seat. You are watching.")

    # Sitting down and marking ready: each click is answered, and pushed to every page.
    p2.locator("#seat-2").get_by_role("button", name="Sit here").click()
    expect(p2.locator("#ready-hint")).to_have_text("Press “I'm ready” when you want to play.")
    for page in pages.values():
        expect(page.locator("#seat-2")).to_contain_text("opponent")
    expect(pages["outsider"].locator("#seat-panel")).not_to_contain_text("Sit here")
    for page in (p1, p2):
        page.get_by_role("button", name="I'm ready").click()
        expect(page.locator(".seat.mine .ready-mark")).to_be_visible()
        expect(page.locator("#ready-hint")).to_have_count(0)
    p1.get_by_role("button", name="Start the game").click()
    for page in pages.values():
        expect(page.locator("#clock")).to_have_text(re.compile(r"^[12]:\d\d$"))
        expect(page.locator("#table-status")).to_contain_text("A game is being played.")
    expect(pages["anonymous"].locator("#seat-panel")).to_contain_text("to take a seat when this game is over")

    # A reload in the middle of the game brings back the whole game, on every page.
    p1.keyboard.press("ArrowLeft")
    for page in pages.values():
        page.reload()
    for page in pages.values():
        expect(page.locator("#board-1 .fr")).to_have_count(20)
        expect(page.locator("#board-2 .fr")).to_have_count(20)
        expect(page.locator("#piece-1")).to_have_attribute("style", re.compile(r"--x:-?\d+;"))
        expect(page.locator("#ghost-2")).to_have_class(re.compile(r"\bpc\b"))
    p1.keyboard.press("Space")
    expect(pages["anonymous"].locator("#score-1 dd").first).not_to_have_text("0")

    # The opponent leaves: the game is over, the table waits for the next one.
    p2.once("dialog", lambda dialog: dialog.accept())
    p2.get_by_role("button", name="Leave the game").click()
    for page in pages.values():
        expect(page.locator("#results-title")).to_have_text("Results")
        expect(page.locator("#table-status")).to_contain_text("Waiting for players")
        expect(page.locator("#results")).not_to_contain_text("ready")
    # The players are offered a rematch: one button, at the top of the results (issue 30).
    expect(p1.get_by_role("button", name="Rematch")).to_be_visible()
    expect(p1.locator("#results [data-rematch]")).to_be_in_viewport()
    expect(pages["outsider"].locator("#rematch-button")).to_have_count(0)
    expect(pages["outsider"].locator("#results [data-rematch]")).to_be_hidden()  # not theirs to ask

    # Reloaded after the game, every page shows the table waiting, under the results of
    # the game as they were (not a spinner saying the game will appear when it starts).
    for page in pages.values():
        page.reload()
        expect(page.locator("#results-title")).to_have_text("Results")
        expect(page.locator("#results tbody tr")).to_have_count(2)
        expect(page.locator("#table-status")).to_contain_text("Waiting for players")
        expect(page.locator("#game .spinner")).to_have_count(0)
    # The opponent, who left, gave the seat up: offered it again, and the rematch once seated.
    expect(p2.locator("#results [data-rematch]")).to_be_hidden()
    p2.locator("#sit-top").click()
    expect(p2.locator("#results [data-rematch]")).to_be_visible()
    expect(pages["outsider"].locator("#results [data-rematch]")).to_be_hidden()
    expect(pages["outsider"].locator("#rematch-button")).to_have_count(0)
    expect(pages["outsider"].locator("#table-status")).to_contain_text(
        "hostess starts the game when everybody is ready."
    )


def test_a_closed_table_says_so_to_everybody_and_offers_nothing(
    live_server_url, closed_table_url, browser, screenshot
):
    pages = open_pages(browser, live_server_url, ("hostess", "outsider", "anonymous"))
    for page in pages.values():
        page.goto(closed_table_url)
        status = page.locator("#table-status")
        expect(status).to_contain_text("This table is closed. Closed for the night.")
        expect(page.locator("#game")).to_contain_text("This table is closed: no more games here.")
        # The socket of a closed table says why it closes at once.
        expect(page.locator("#ws-error")).to_contain_text("There is no such table, or it is closed.")
        for words in ("ready", "Start the game", "Pot:", "will appear here"):
            expect(page.locator("main")).not_to_contain_text(words)
        expect(page.locator("#seat-panel form")).to_have_count(0)
        expect(page.locator("#seat-panel")).not_to_contain_text("take a seat")
    screenshot(pages["anonymous"], "table-closed-anonymous")


def test_the_site_icon_is_served_at_favicon_ico(live_server_url, browser):
    page = browser.new_context().new_page()
    response = page.goto(f"{live_server_url}/favicon.ico")
    assert response is not None and response.ok, response and response.status
    assert response.headers["content-type"].startswith("image/svg+xml")


def test_the_viertris_move_list_scrolls_and_shows_every_move_number(
    live_server_url, host, browser, screenshot
):
    page = browser.new_context(viewport={"width": 1200, "height": 900}).new_page()
    page.set_default_timeout(TIMEOUT)
    log_in(page, live_server_url, "hostess")
    page.goto(f"{live_server_url}/lobby/")
    page.get_by_role("button", name="Practise Viertris against a bot").click()
    page.get_by_role("button", name="Start the game").click()
    expect(page.locator("#clock")).to_contain_text("hostess to move")
    log = page.locator("#vt-log")
    height = log.evaluate("log => log.clientHeight")
    # A long game's list: far more lines than fit, with numbers of two and three digits.
    log.evaluate(
        "log => { for (let n = 0; n < 120; n++) log.insertAdjacentHTML('beforeend', '<li>hostess: column 1</li>'); }"
    )
    assert log.evaluate("log => log.clientHeight") == height > 0  # it keeps its height …
    assert log.evaluate("log => log.scrollHeight > log.clientHeight")  # … and scrolls
    assert log.evaluate("log => getComputedStyle(log).overflowY") == "auto"
    # Each number sits inside the list's box, where the scrolling box cannot clip it.
    assert log.locator("li").nth(99).evaluate("li => getComputedStyle(li).listStylePosition") == "inside"
    # A move's push scrolls the list to the newest line.
    page.get_by_role("button", name="Drop in column 1").click()
    expect(log.locator("li")).to_have_count(122)
    page.wait_for_function(
        "() => { const l = document.getElementById('vt-log'); return l.scrollHeight - l.scrollTop - l.clientHeight < 8; }"
    )
    screenshot(page, "viertris-long-move-list")


def test_the_lobby_follows_a_table_that_closes_while_people_watch_it(live_server_url, table_url, browser):
    pages = open_pages(browser, live_server_url, ("hostess", "outsider", "anonymous"))
    lobby = pages["anonymous"]
    lobby.goto(f"{live_server_url}/lobby/")
    expect(lobby.locator("#live-text")).to_have_text("Live.")
    row = lobby.locator("#table-list li.table-row")
    expect(row).to_have_count(1)
    for name in ("hostess", "outsider"):
        pages[name].goto(table_url)
    expect(row.locator(".spectators")).to_have_text("1")

    # The host, the last one seated, stands up: the table closes and leaves the lobby.
    pages["hostess"].get_by_role("button", name="Stand up").click()
    expect(pages["outsider"].locator("#table-status")).to_contain_text(
        "This table is closed. Everybody left."
    )
    expect(row).to_have_count(0)
    # Its last watchers leave afterwards: the lobby, which no longer lists it, hears nothing of it.
    pages["outsider"].close()
    pages["hostess"].goto(f"{live_server_url}/lobby/")
    expect(pages["hostess"].locator("#live-text")).to_have_text("Live.")
    lobby.wait_for_timeout(1000)  # what their leaving could send has arrived
    expect(row).to_have_count(0)
