from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.personas import ref

pytestmark = pytest.mark.browser
TIMEOUT = 15_000
OPTIONS = {"minutes": 2, "start_level": 1, "lines_per_level": 10, "bombs": "manual", "pairs": False}


def log_in(page, base, username):
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill("a-Long-pass-42")
    page.get_by_role("button", name="Log in").click()
    expect(page.locator(".nav-account")).to_contain_text(username)


def piece_x(page, seat):
    style = page.locator(f"#piece-{seat}").get_attribute("style") or ""
    match = re.search(r"--x:(-?\d+)", style)
    return int(match.group(1)) if match else None


@pytest.fixture
def table_url(live_server_url, host, opponent, outsider):
    # Data first: no ORM calls once Playwright's event loop runs (STACK.md, pitfall 4).
    from lobby import services

    table = services.table_create(player=ref(host), game="tetriwar", options=OPTIONS, seats_total=2)
    return f"{live_server_url}{table.get_absolute_url()}"


def test_two_players_play_and_a_spectator_watches(live_server_url, table_url, browser, screenshot):
    url = table_url

    pages = {}
    for name, size in (("hostess", (1280, 900)), ("opponent", (1280, 900)), ("outsider", (1280, 900))):
        page = browser.new_context(viewport={"width": size[0], "height": size[1]}).new_page()
        page.set_default_timeout(TIMEOUT)
        log_in(page, live_server_url, name)
        pages[name] = page
    p1, p2, watcher = pages["hostess"], pages["opponent"], pages["outsider"]

    for page in (p1, p2, watcher):
        page.goto(url)
    p2.locator("#seat-2").get_by_role("button", name="Sit here").click()
    expect(p1.locator("#seat-2")).to_contain_text("opponent")
    expect(watcher.locator("#spectator-count")).to_have_text("1")
    for page in (p1, p2):
        page.get_by_role("button", name="I'm ready").click()
        expect(page.locator(".seat.mine .ready-mark")).to_be_visible()
    p1.get_by_role("button", name="Start the game").click()

    # 3-2-1, then every board appears on every screen.
    expect(p2.locator(".countdown")).to_be_visible()
    for page in (p1, p2, watcher):
        expect(page.locator("#clock")).to_have_text(re.compile(r"^[12]:\d\d$"), timeout=TIMEOUT)
        expect(page.locator("#board-1 .fr")).to_have_count(20)
        expect(page.locator("#board-2 .fr")).to_have_count(20)
        expect(page.locator("#piece-1")).to_have_class(re.compile(r"\bpc\b"))

    # Player 1 moves left: their own board answers.
    before = piece_x(p1, 1)
    p1.keyboard.press("ArrowLeft")
    expect(p1.locator("#piece-1")).to_have_attribute("style", re.compile(rf"--x:{before - 1};"))
    assert p1.evaluate("window.scrollY") == 0  # game keys never scroll the page
    # The spectator sees the same move.
    expect(watcher.locator("#piece-1")).to_have_attribute("style", re.compile(rf"--x:{before - 1};"))

    # Player 2 hard-drops with Space: player 1 and the spectator see the block land.
    p2.keyboard.press("Space")
    landed = re.compile(r"\b[IOJLSZT]\b")
    for page in (p1, watcher):
        expect(page.locator("#board-2-row-19 i[class]").first).to_have_class(landed)
        expect(page.locator("#score-2 dd").first).to_have_text("1")
    screenshot(p1, "tetriwar-running-player")
    screenshot(watcher, "tetriwar-running-spectator")

    # Each player's own board is the large one; the spectator's are all alike.
    expect(p2.locator("#game-area")).to_have_attribute("data-me", "2")
    expect(p1.locator("#game-area")).to_have_attribute("data-me", "1")
    expect(watcher.locator("#game-area")).to_have_attribute("data-me", "0")

    # A spectator's key presses do nothing to the game.
    watcher.keyboard.press("ArrowLeft")
    expect(p1.locator("#piece-1")).to_have_attribute("style", re.compile(rf"--x:{before - 1};"))

    # Player 2 leaves, after confirming: everybody sees the board stop.
    p2.once("dialog", lambda dialog: dialog.accept())
    p2.get_by_role("button", name="Leave the game").click()
    for page in (p1, watcher):
        expect(page.locator("#status-2")).to_have_text("Left the game")


def test_practice_against_a_bot_in_two_clicks(live_server_url, host, browser, screenshot):
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.set_default_timeout(TIMEOUT)
    log_in(page, live_server_url, "hostess")
    page.goto(f"{live_server_url}/lobby/")
    page.get_by_role("button", name="Practise TetriWar against a bot").click()  # one
    expect(page.locator("#seat-2")).to_contain_text("Alan (bot, medium)")
    page.get_by_role("button", name="Start the game").click()  # two
    expect(page.locator("#clock")).to_have_text(re.compile(r"^[23]:\d\d$"), timeout=TIMEOUT)
    # The bot plays by itself: blocks pile up on its board.
    expect(page.locator("#board-2 .fr i[class]").first).to_be_visible(timeout=TIMEOUT)
    screenshot(page, "tetriwar-practice")
