"""TetriWar fits the screen, plays by touch, explains itself and is heard (issue 19,
points 3 and 4).

Each test drives a live game in Chromium at the size it names; the ``browser``
fixture fails it on any console error or warning, uncaught exception or
Content-Security-Policy violation. Screenshots go to tests/artifacts/."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_tetriwar_game import log_in, piece_x
from tests.personas import ref

pytestmark = pytest.mark.browser
TIMEOUT = 15_000
OPTIONS = {"minutes": 2, "start_level": 1, "lines_per_level": 10, "bombs": "manual", "pairs": False}
RUNNING = re.compile(r"^[12]:\d\d$")

# The box of each element, and whether it lies wholly inside the screen (no scrolling).
BOXES = """(ids) => Object.fromEntries(ids.map((id) => {
  const r = document.getElementById(id).getBoundingClientRect();
  const inside = r.width > 0 && r.height > 0 && r.left >= 0 && r.top >= 0
    && r.right <= innerWidth && r.bottom <= innerHeight;
  return [id, {x: r.x, y: r.y, width: r.width, height: r.height, bottom: r.bottom, inside: inside}];
}))"""
# How far the leftmost cell of seat 1's falling piece is from the board's left wall.
FROM_LEFT_WALL = """() => {
  const board = document.getElementById("board-1").querySelector(".field").getBoundingClientRect();
  const cells = [...document.querySelectorAll("#piece-1 i")].map((i) => i.getBoundingClientRect().left);
  return cells.length ? Math.round(Math.min(...cells) - board.left) : null;
}"""


def table(host, *, seats=1, bots=(), options=None):
    """A friendly table hosted (and sat at, ready) by ``host``; bots in ``bots``' seats."""
    from lobby import services

    t = services.table_create(
        player=ref(host), game="tetriwar", options=options or OPTIONS, seats_total=seats
    )
    for number in bots:
        services.bot_add(table_id=t.pk, player=ref(host), number=number, level="easy")
    services.seat_ready(table_id=t.pk, player=ref(host), ready=True)
    return t


def open_page(browser, base, username, width, height, **context):
    page = browser.new_context(viewport={"width": width, "height": height}, **context).new_page()
    page.set_default_timeout(TIMEOUT)
    log_in(page, base, username)
    return page


def start(page, url):
    page.goto(url)
    page.get_by_role("button", name="Start the game").click()
    expect(page.locator("#clock")).to_have_text(RUNNING, timeout=TIMEOUT)
    expect(page.locator("#piece-1")).to_have_attribute("style", re.compile(r"--x:"))


def boxes(page, ids):
    return page.evaluate(BOXES, ids)


# --- It fits every screen ------------------------------------------------------------------


@pytest.fixture
def duel_url(live_server_url, host, opponent, outsider):
    # Data first: no ORM calls once Playwright's event loop runs (STACK.md, pitfall 4).
    return f"{live_server_url}{table(host, seats=2, bots=(2,)).get_absolute_url()}"


def test_own_board_preview_score_and_bomb_row_fit_a_1366x768_screen(
    live_server_url, duel_url, browser, screenshot
):
    page = open_page(browser, live_server_url, "hostess", 1366, 768)
    start(page, duel_url)
    found = boxes(page, ["board-1", "next-1", "score-1", "bombs-1", "board-2"])
    screenshot(page, "tetriwar-feel-1366x768")
    for region in ("board-1", "next-1", "score-1", "bombs-1"):
        assert found[region]["inside"], (region, found[region])
    assert page.evaluate("window.scrollY") == 0
    # One's own board is the large one, and larger than before (it was 28 px a row, cut off).
    assert found["board-1"]["height"] >= 440, found["board-1"]
    assert found["board-1"]["height"] > found["board-2"]["height"]
    # The bomb row has room for a full store, twelve bombs, on one line.
    store = page.evaluate("""() => {
      const s = document.getElementById("bombs-1"), style = getComputedStyle(s);
      return {wrap: style.flexWrap, width: s.getBoundingClientRect().width,
              chip: parseFloat(getComputedStyle(s.closest(".player")).getPropertyValue("--chip")) || 0,
              room: s.closest(".side").getBoundingClientRect().right};
    }""")
    assert store["wrap"] == "nowrap", store
    assert store["width"] >= 12 * 16 + 11 * 2, store
    assert store["room"] <= 1366, store


def test_help_panel_opens_from_the_keyboard_and_explains_the_eight_bombs(live_server_url, duel_url, browser):
    page = open_page(browser, live_server_url, "hostess", 1366, 768)
    start(page, duel_url)
    summary = page.locator("#tw-help > summary")
    summary.focus()
    page.keyboard.press("Enter")  # a game key elsewhere; on the help it opens the help
    expect(page.locator("#tw-help")).to_have_attribute("open", "")
    legend = page.locator("#tw-help .tw-legend > div")
    expect(legend).to_have_count(8)
    for name in (
        "Add line",
        "Earthquake",
        "Remove bombs",
        "Drill",
        "Lack of control",
        "Gravity",
        "Remove line",
        "Demolition",
    ):
        expect(page.locator("#tw-help .tw-legend dt", has_text=name)).to_be_visible()
    expect(page.locator("#tw-help .tw-legend > div.red")).to_have_count(5)
    expect(page.locator("#tw-help .tw-legend > div.green")).to_have_count(3)
    assert boxes(page, ["tw-help"])["tw-help"]["inside"]
    page.keyboard.press("Escape")
    page.keyboard.press("Enter")  # Enter on the open help's summary closes it again
    expect(page.locator("#tw-help")).not_to_have_attribute("open", "")
    # Playing goes on: the help took Enter, the arrows still move the piece.
    before = piece_x(page, 1)
    page.keyboard.press("ArrowRight")
    expect(page.locator("#piece-1")).to_have_attribute("style", re.compile(rf"--x:{before + 1};"))


@pytest.fixture
def four_url(live_server_url, host, opponent, outsider):
    return f"{live_server_url}{table(host, seats=4, bots=(2, 3, 4)).get_absolute_url()}"


def test_a_spectator_sees_four_large_boards_on_a_wide_screen(live_server_url, four_url, browser, screenshot):
    watcher = open_page(browser, live_server_url, "outsider", 1920, 1080)
    watcher.goto(four_url)
    player = open_page(browser, live_server_url, "hostess", 1366, 768)
    start(player, four_url)
    expect(watcher.locator("#clock")).to_have_text(RUNNING)
    expect(watcher.locator("#game.tw-game .player")).to_have_count(4)
    found = boxes(watcher, [f"board-{seat}" for seat in (1, 2, 3, 4)])
    screenshot(watcher, "tetriwar-feel-spectator-1920x1080")
    for seat in (1, 2, 3, 4):
        board = found[f"board-{seat}"]
        assert board["inside"], (seat, board)  # all four on screen at once
        assert board["height"] >= 300, (seat, board)
    assert len({round(b["y"]) for b in found.values()}) == 1  # side by side, in one row
    assert len({round(b["height"]) for b in found.values()}) == 1  # and all alike


# --- Touch ----------------------------------------------------------------------------------


@pytest.fixture
def solo_url(live_server_url, host, outsider):
    return f"{live_server_url}{table(host).get_absolute_url()}"


PHONE = {"has_touch": True, "is_mobile": True, "device_scale_factor": 2}


def test_a_short_game_played_by_touch_on_a_phone(live_server_url, solo_url, browser, screenshot):
    page = open_page(browser, live_server_url, "hostess", 390, 844, **PHONE)
    start(page, solo_url)
    pad = page.locator(".tw-touch")
    expect(pad).to_be_visible()
    # One's own board is wholly on screen, above the pad.
    found = boxes(page, ["board-1", "score-1", "next-1"])
    assert found["board-1"]["inside"], found["board-1"]
    assert found["board-1"]["bottom"] <= pad.bounding_box()["y"], (found["board-1"], pad.bounding_box())
    assert page.evaluate("getComputedStyle(document.querySelector('.tw-touch')).touchAction") == "none"
    screenshot(page, "tetriwar-feel-phone-390x844")

    # Every button has a name and room for a finger.
    names = [
        "Move left",
        "Move right",
        "Soft drop",
        "Rotate",
        "Hard drop",
        "Drop the oldest bomb, automatic target (Enter)",
        "Drop the oldest bomb on player 1, hostess",
    ]
    for name in names:
        button = pad.get_by_role("button", name=name, exact=True)
        expect(button).to_be_visible()
        box = button.bounding_box()
        assert box["width"] >= 44 and box["height"] >= 44, (name, box)

    scrolled = page.evaluate("window.scrollY")
    # Taps move, turn and drop the piece.
    x = piece_x(page, 1)
    page.tap(".tw-touch [data-hold=left]")
    expect(page.locator("#piece-1")).to_have_attribute("style", re.compile(rf"--x:{x - 1};"))
    page.tap(".tw-touch [data-press=rotate]")
    expect(page.locator("#piece-1")).to_have_class(re.compile(r"\br1\b"))
    page.tap(".tw-touch [data-press=hard_drop]")
    expect(page.locator("#board-1-row-19 i[class]").first).to_have_class(re.compile(r"\b[IOJLSZT]\b"))
    expect(page.locator("#score-1 dd").first).to_have_text("1")

    # A finger held on ▶ repeats (the server's auto-repeat) until it lifts: the next piece
    # goes to the right wall.
    expect(page.locator("#score-1 dd").first).to_have_text("1")
    right = page.locator(".tw-touch [data-hold=right]")
    right.dispatch_event(
        "pointerdown", {"pointerId": 7, "pointerType": "touch", "isPrimary": True, "button": 0}
    )
    page.wait_for_timeout(900)
    right.dispatch_event(
        "pointerup", {"pointerId": 7, "pointerType": "touch", "isPrimary": True, "button": 0}
    )
    at_right = page.evaluate("""() => {
      const board = document.getElementById("board-1").querySelector(".field").getBoundingClientRect();
      return Math.round(board.right - Math.max(...[...document.querySelectorAll("#piece-1 i")]
        .map((i) => i.getBoundingClientRect().right)));
    }""")
    assert at_right == 0, at_right
    page.tap(".tw-touch [data-hold=soft_drop]")
    page.tap(".tw-touch [data-press=hard_drop]")
    expect(page.locator("#score-1 dd").first).to_have_text("2")

    # A finger that slides off ◀ lets the key up: one step, no auto-repeat to the wall.
    x = piece_x(page, 1)
    page.evaluate("""() => {
      const button = document.querySelector(".tw-touch [data-hold=left]");
      const finger = {pointerId: 8, pointerType: "touch", isPrimary: true, button: 0, cancelable: true};
      button.dispatchEvent(new PointerEvent("pointerdown", {...finger, bubbles: true}));
      button.dispatchEvent(new PointerEvent("pointerleave", finger));
    }""")
    expect(page.locator("#piece-1")).to_have_attribute("style", re.compile(rf"--x:{x - 1};"))
    page.wait_for_timeout(600)  # more than the auto-repeat's 170 ms start and a few 50 ms steps
    assert piece_x(page, 1) == x - 1
    page.tap(".tw-touch [data-press=hard_drop]")
    expect(page.locator("#score-1 dd").first).to_have_text("3")
    assert page.evaluate("window.scrollY") == scrolled  # the taps never scrolled the page


# --- Handling -------------------------------------------------------------------------------


@pytest.fixture
def quick_hands_url(live_server_url, host, outsider):
    host.handling = {"das": 100, "arr": 0, "soft_drop": 20}
    host.save(update_fields=["handling"])
    return f"{live_server_url}{table(host).get_absolute_url()}"


def test_a_held_key_repeats_at_the_players_own_pace(live_server_url, quick_hands_url, browser):
    page = open_page(browser, live_server_url, "hostess", 1366, 768)
    start(page, quick_hands_url)
    assert page.evaluate(FROM_LEFT_WALL) > 0
    page.keyboard.down("ArrowLeft")
    page.wait_for_timeout(300)  # auto-repeat after 100 ms, then straight to the wall (arr 0)
    page.keyboard.up("ArrowLeft")
    page.wait_for_function(f"({FROM_LEFT_WALL})() === 0", timeout=5_000)
    # The key is up: the next piece stays where it spawns.
    page.keyboard.press("Space")
    expect(page.locator("#score-1 dd").first).to_have_text("1")
    spawned = piece_x(page, 1)
    page.wait_for_timeout(300)
    assert piece_x(page, 1) == spawned


# --- It feels alive ---------------------------------------------------------------------------


def test_the_mute_switch_is_remembered_across_a_reload(live_server_url, solo_url, browser):
    page = open_page(browser, live_server_url, "hostess", 1366, 768)
    start(page, solo_url)
    mute = page.get_by_role("button", name="Mute")
    expect(mute).to_have_attribute("aria-pressed", "false")
    mute.click()
    expect(mute).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("Space")  # clicked, the switch gives the keys back to the game
    expect(page.locator("#score-1 dd").first).to_have_text("1")
    expect(mute).to_have_attribute("aria-pressed", "true")

    page.reload()
    expect(page.locator("#clock")).to_have_text(RUNNING)
    mute = page.get_by_role("button", name="Mute")
    expect(mute).to_have_attribute("aria-pressed", "true")
    # From the keyboard: reachable, and Space on it works the switch, not the game.
    mute.focus()
    page.keyboard.press("Space")
    expect(mute).to_have_attribute("aria-pressed", "false")
    expect(page.locator("#score-1 dd").first).to_have_text("1")
    page.reload()
    expect(page.locator("#clock")).to_have_text(RUNNING)
    expect(page.get_by_role("button", name="Mute")).to_have_attribute("aria-pressed", "false")


# A score update as the server sends it, with ``lines`` more lines than the board shows.
SCORE_UPDATE = """(lines) => {
  const old = document.getElementById("score-1");
  const fresh = old.cloneNode(true);
  const dd = fresh.querySelectorAll("dd")[2];
  dd.textContent = String(Number(dd.textContent) + lines);
  fresh.setAttribute("hx-swap-oob", "true");
  htmx.swap(old, fresh.outerHTML, {swapStyle: "none"});
}"""
BOARD_EFFECT = """() => {
  const board = document.getElementById("board-1");
  return {classes: board.className, text: board.dataset.fx || "",
          animation: getComputedStyle(board, "::after").animationName};
}"""


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_a_line_clear_flashes_the_board_without_motion_when_asked(live_server_url, solo_url, browser, motion):
    page = open_page(browser, live_server_url, "hostess", 1366, 768, reduced_motion=motion)
    start(page, solo_url)
    page.evaluate(SCORE_UPDATE, 2)
    effect = page.evaluate(BOARD_EFFECT)
    assert "fx-clear" in effect["classes"] and effect["text"] == "+2 lines", effect
    assert effect["animation"] == ("none" if motion == "reduce" else "tw-sweep"), effect
    expect(page.locator("#board-1")).not_to_have_class(re.compile(r"fx-clear"))  # gone after a moment
    # The player's own score is drawn by the page, which plays its board ahead (issue 31):
    # a pushed fragment of it is read for its effect, and not swapped in over the page's.
    page.wait_for_function("() => window.TetriWarPredict && window.TetriWarPredict.playing()")
    lines = page.evaluate("window.TetriWarPredict.board.lines")
    expect(page.locator("#score-1 dd").nth(2)).to_have_text(str(lines))
