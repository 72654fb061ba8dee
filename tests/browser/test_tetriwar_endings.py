"""The end of a TetriWar game in a browser (issue 19): one of two players leaves, the
game ends at once for everybody with its results, and the two ask for a rematch that
starts the next game at the same table."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_layouts import SOCKET_OPEN
from tests.browser.test_tetriwar_game import OPTIONS, TIMEOUT, log_in
from tests.personas import ref

pytestmark = pytest.mark.browser


NEXT_FRAME = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
# Why the element is not wholly on the screen below the top bar (sticky), or "".
IN_VIEW = """(selector) => {
  const el = document.querySelector(selector);
  if (!el) return `${selector} is not there`;
  const bar = document.querySelector(".topbar");
  const covered = bar && getComputedStyle(bar).position === "sticky" ? bar.getBoundingClientRect().bottom : 0;
  const box = el.getBoundingClientRect();
  if (box.top < covered - 0.5) return `${selector}'s top at ${Math.round(box.top)}, under the bar to ${Math.round(covered)}`;
  if (box.bottom > innerHeight + 0.5) return `${selector}'s bottom at ${Math.round(box.bottom)}, below ${innerHeight}`;
  return "";
}"""
IN_VIEW_NOW = f"(selector) => ({IN_VIEW})(selector) === ''"


@pytest.fixture
def seated_table_url(live_server_url, host, opponent, outsider):
    from lobby import services

    table = services.table_create(player=ref(host), game="tetriwar", options=OPTIONS, seats_total=2)
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    return f"{live_server_url}{table.get_absolute_url()}"


@pytest.mark.parametrize("size", [(1366, 768), (390, 844)], ids=["desktop", "phone"])
def test_a_player_leaves_the_game_ends_and_both_play_again(
    live_server_url, seated_table_url, browser, screenshot, size
):
    pages = {}
    for name in ("hostess", "opponent", "outsider"):
        page = browser.new_context(viewport={"width": size[0], "height": size[1]}).new_page()
        page.set_default_timeout(TIMEOUT)
        log_in(page, live_server_url, name)
        page.goto(seated_table_url)
        pages[name] = page
    p1, p2, watcher = pages["hostess"], pages["opponent"], pages["outsider"]
    for page in (p1, p2):
        page.get_by_role("button", name="I'm ready").click()
        expect(page.locator(".seat.mine .ready-mark")).to_be_visible()
    p1.get_by_role("button", name="Start the game").click()
    for page in (p1, p2, watcher):
        expect(page.locator("#clock")).to_have_text(re.compile(r"^[12]:\d\d$"), timeout=TIMEOUT)

    # Player 2 leaves: only one side remains, so the game ends at once, for everybody.
    p2.once("dialog", lambda dialog: dialog.accept())
    p2.get_by_role("button", name="Leave the game").click()
    for page in (p1, p2, watcher):
        expect(page.locator("#results-title")).to_have_text("Results")
        expect(page.locator("#results")).to_contain_text("opponent (left)")
        expect(page.locator("#clock")).to_have_text("Game over")  # the time did not run out
    screenshot(p1, f"tetriwar-ended-{size[0]}")
    # Keys after the end do nothing, and say nothing (the page fails on any console error),
    # and scroll nothing: Space or ↓ pressed as the game ends (mid-drop) would carry the
    # results and Rematch away under the top bar.
    assert p1.evaluate("document.documentElement.scrollHeight > innerHeight")  # it could scroll
    shown_at = p1.evaluate("scrollY")
    for key in ("ArrowLeft", "Space", "ArrowDown", "ArrowDown", "Space", "ArrowUp"):
        p1.keyboard.press(key)
    p1.evaluate(NEXT_FRAME)
    assert p1.evaluate("scrollY") == shown_at
    assert p1.evaluate(IN_VIEW, "#results-title") == ""
    expect(p1.locator(".ws-error")).to_have_count(0)

    # The one who left gave the seat up: they sit down again, and both ask for a rematch;
    # the spectator is not offered one.
    expect(watcher.locator("#rematch-button")).to_have_count(0)
    expect(p1.locator("#seat-2")).to_contain_text("Empty")
    p2.locator("#seat-2").get_by_role("button", name="Sit here").click()
    expect(p1.locator("#seat-2")).to_contain_text("opponent")
    p1.get_by_role("button", name="Rematch").click()
    expect(p2.locator("#seat-1 .ready-mark")).to_be_visible()
    expect(p1.locator("#rematch-hint")).to_contain_text("Waiting for opponent")
    p2.get_by_role("button", name="Rematch").click()
    for page in (p1, p2, watcher):  # the next game, same players, same seats
        expect(page.locator("#clock")).to_have_text(re.compile(r"^[12]:\d\d$"), timeout=TIMEOUT)
        expect(page.locator("#results-title")).to_have_count(0)
    expect(p1.locator("#game-area")).to_have_attribute("data-me", "1")
    expect(p2.locator("#game-area")).to_have_attribute("data-me", "2")
    for page, seat in ((p1, 1), (p2, 2)):  # the results were in view: now each one's own board
        page.wait_for_function(IN_VIEW_NOW, arg=f"#player-{seat}")
    before = p1.locator("#piece-1").get_attribute("style")
    p1.keyboard.press("ArrowLeft")
    expect(p1.locator("#piece-1")).not_to_have_attribute("style", before)


@pytest.fixture
def one_minute_table_url(live_server_url, host, opponent):
    from lobby import services

    table = services.table_create(
        player=ref(host), game="tetriwar", options={**OPTIONS, "minutes": 1}, seats_total=2
    )
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    for player in (host, opponent):
        services.seat_ready(table_id=table.pk, player=ref(player), ready=True)
    return f"{live_server_url}{table.get_absolute_url()}"


def test_at_time_out_every_board_is_over_and_keys_do_nothing(
    live_server_url, one_minute_table_url, browser, screenshot, server_clock
):
    """The end of a one-minute game on time. The server's game clock is moved on by 55 s
    once the game runs: the engine catches up through every gravity step of those 55 s,
    as a server does after a stall, and the game ends on time within seconds."""
    pages = []
    for name in ("hostess", "opponent", None):  # two players and an anonymous spectator
        page = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
        page.set_default_timeout(TIMEOUT)
        if name:
            log_in(page, live_server_url, name)
        page.goto(one_minute_table_url)
        pages.append(page)
    p1, p2, watcher = pages
    p1.get_by_role("button", name="Start the game").click()
    for page in pages:
        expect(page.locator("#clock")).to_have_text(re.compile(r"^[01]:\d\d$"), timeout=TIMEOUT)
    server_clock.advance(55)
    for page in pages:
        expect(page.locator("#clock")).to_have_text("Time!", timeout=TIMEOUT)
        expect(page.locator("#results-title")).to_have_text("Results")
        for seat in (1, 2):
            expect(page.locator(f"#status-{seat}")).to_have_text("Game over")
            expect(page.locator(f"#piece-{seat}")).to_have_class(re.compile(r"\bnone\b"))
    screenshot(watcher, "tetriwar-time-out-spectator")
    for key in ("ArrowLeft", "ArrowUp", "Space", "Enter"):  # nothing happens, nothing is said
        p1.keyboard.press(key)
    p1.wait_for_timeout(300)
    expect(p1.locator(".ws-error")).to_have_count(0)


@pytest.fixture
def four_seat_competitive_url(live_server_url, host, opponent, third, outsider):
    from lobby import services

    table = services.table_create(player=ref(host), game="tetriwar", options=OPTIONS, seats_total=4, stake=10)
    for number, user in enumerate((opponent, third, outsider), start=2):
        services.seat_take(table_id=table.pk, player=ref(user), number=number)
    for user in (host, opponent, third, outsider):
        services.seat_ready(table_id=table.pk, player=ref(user), ready=True)
    return f"{live_server_url}{table.get_absolute_url()}"


@pytest.mark.parametrize("size", [(1366, 768), (390, 844)], ids=["desktop", "phone"])
def test_as_the_game_starts_the_host_s_own_board_comes_into_view(
    live_server_url, four_seat_competitive_url, browser, size
):
    """At a four-seat table with a stake the host has scrolled down (to the chat, or to
    Start below the fold) and presses Start: the game then shows their board whole, name
    and clock too, below the top bar (at 1366×768 it stayed under the bar before)."""
    touch = size[0] < 1024
    page = browser.new_context(
        viewport={"width": size[0], "height": size[1]}, has_touch=touch, is_mobile=touch
    ).new_page()
    page.set_default_timeout(TIMEOUT)
    log_in(page, live_server_url, "hostess")
    page.goto(four_seat_competitive_url)
    page.wait_for_function(SOCKET_OPEN)  # the socket's first push has replaced the panels
    # The host has read the chat at the page's foot, and presses Start where it is.
    page.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight)")
    assert page.evaluate("scrollY") > 0
    page.get_by_role("button", name="Start the game").click()
    expect(page.locator("#clock")).to_have_text(re.compile(r"^[12]:\d\d$"), timeout=TIMEOUT)
    page.wait_for_function(IN_VIEW_NOW, arg="#player-1")
    assert page.evaluate(IN_VIEW, "#player-1") == ""
