"""Te-Trix's page as newcomers found it at 1366×768 and, by touch, at 390×844 (issue #30):
the sheet holds still between a tap that shows where the shape would go and the tap
that writes it; the own sheet is whole on a 768 px high screen; a shape hanging over
the edge is shown whole; no preview is left over from the round before; the area
tallies stay in their cards; the solo bar's word is in the page's language.

The game's seed is fixed (``test_tetrix_game.fixed_seed``): seat 1 rolls first, ○ ○ ✕ □.
The other seats are bots. Where a test needs sheets with large areas, every sheet
starts as :data:`BIG_AREAS` (``Sheet.for_seat`` changed before the server forks)."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from games.tetrix.sheet import Sheet
from tests.browser.conftest import ARTIFACTS
from tests.browser.test_tetrix_game import (
    arrange,
    cell,
    fits_sideways,
    fixed_seed,
    handle,
    log_in,
    point,
    write_at,
)
from tests.personas import ref

__all__ = ["fixed_seed"]  # a fixture, used by name

pytestmark = pytest.mark.browser
TIMEOUT = 15_000
OPTIONS = {"arrange_seconds": 300, "write_seconds": 300, "solo": False}
DESKTOP, PHONE = (1366, 768), (390, 844)
SIZES = [DESKTOP, PHONE]
IDS = ["desktop", "phone"]
# ○ 2 areas of 11 cells, □ 1 of 17, ✕ 2 of 13 (RULES.md's worked example: 65 points);
# the bottom row and one cell above it are empty, so every shape can still be written.
BIG_AREAS = ("oooooss", "sssssss", "sssssss", "sxxxxxx", "oooooox", "xxxxxx.", ".......")

# Every layout shift of the page from its start (a PerformanceObserver, buffered).
WATCH_SHIFTS = """
window.__shifts = [];
new PerformanceObserver((found) => {
  for (const e of found.getEntries()) window.__shifts.push({at: e.startTime, value: e.value, input: e.hadRecentInput});
}).observe({type: "layout-shift", buffered: true});
"""
SHIFTS_SINCE = "(since) => window.__shifts.filter((s) => s.at >= since)"

# How much of an element is hidden by the boxes around it that clip it (overflow other
# than visible) and by the screen: 0 when it is whole in view.
HIDDEN_PART = """(el) => {
  const r = el.getBoundingClientRect();
  if (!el.isConnected || !r.width) return "gone";
  let left = Math.max(r.left, 0), top = Math.max(r.top, 0);
  let right = Math.min(r.right, innerWidth), bottom = Math.min(r.bottom, innerHeight);
  for (let up = el.parentElement; up; up = up.parentElement) {
    const style = getComputedStyle(up);
    const box = up.getBoundingClientRect();
    if (style.overflowX !== "visible") { left = Math.max(left, box.left); right = Math.min(right, box.right); }
    if (style.overflowY !== "visible") { top = Math.max(top, box.top); bottom = Math.min(bottom, box.bottom); }
  }
  const seen = Math.max(0, right - left) * Math.max(0, bottom - top);
  return 1 - seen / (r.width * r.height);
}"""


def bot_table(live_server_url, host, seats: int, **options) -> str:
    """A table of ``seats``: the host at seat 1, bots at the others."""
    from lobby import services

    table = services.table_create(
        player=ref(host), game="tetrix", options={**OPTIONS, **options}, seats_total=seats
    )
    for number in range(2, seats + 1):
        services.bot_add(table_id=table.pk, player=ref(host), number=number, level="greedy")
    return f"{live_server_url}{table.get_absolute_url()}"


@pytest.fixture
def with_a_bot(fixed_seed, live_server_url, host) -> str:
    return bot_table(live_server_url, host, 2)


@pytest.fixture
def tables(fixed_seed, live_server_url, host) -> dict[int, str]:
    """A table of one (solo), two and four seats (made before Playwright runs)."""
    return {
        1: bot_table(live_server_url, host, 1, solo=True),
        2: bot_table(live_server_url, host, 2),
        4: bot_table(live_server_url, host, 4),
    }


@pytest.fixture
def big_areas(monkeypatch):
    """Every new sheet starts as BIG_AREAS (before the server forks)."""
    monkeypatch.setattr(
        Sheet, "for_seat", classmethod(lambda cls, seat, solo=False: Sheet.from_rows(BIG_AREAS))
    )


@pytest.fixture
def four_with_big_areas(big_areas, fixed_seed, live_server_url, host) -> str:
    return bot_table(live_server_url, host, 4)


def open_page(browser, live_server_url, url: str, size: tuple[int, int]):
    touch = size[0] < 600
    browser_context = browser.new_context(
        viewport={"width": size[0], "height": size[1]}, has_touch=touch, is_mobile=touch
    )
    browser_context.add_init_script(WATCH_SHIFTS)
    page = browser_context.new_page()
    page.set_default_timeout(TIMEOUT)
    log_in(page, live_server_url, "hostess")
    page.goto(url)
    return page


def start(page) -> None:
    page.get_by_role("button", name="I'm ready").click()
    expect(page.locator(".seat.mine .ready-mark")).to_be_visible()
    page.get_by_role("button", name="Start the game").click()
    expect(page.locator(".tx-countdown")).to_have_count(0)
    expect(page.locator("#tx-turn")).to_have_attribute("data-phase", "arrange")


def settled(page) -> None:
    """Two frames drawn: what was changed has been laid out and its shifts reported."""
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")


def box(page, selector: str) -> dict:
    return page.locator(selector).bounding_box()


def seen(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def wrapped(text: str) -> list[str]:
    """A sheet's ``data-sheet`` (49 cells) as its 7 rows."""
    return [text[row * 7 : row * 7 + 7] for row in range(7)]


def sheet_on_the_page(page) -> list[float]:
    """Where the own sheet is on the page (not on the screen: scrolling does not move it)."""
    return page.locator("#tx-sheet-1").evaluate(
        "(el) => { const r = el.getBoundingClientRect(); return [r.left + scrollX, r.top + scrollY]; }"
    )


def no_preview(page) -> None:
    expect(page.locator("#tx-sheet-1 .c.pv-ok, #tx-sheet-1 .c.pv-bad")).to_have_count(0)
    expect(page.locator(".tx-hang")).to_have_count(0)


def test_a_phone_writes_by_a_tap_and_a_tap_again_and_the_sheet_holds_still(
    with_a_bot, live_server_url, browser, screenshot
):
    page = open_page(browser, live_server_url, with_a_bot, PHONE)
    start(page)
    settled(page)
    where = sheet_on_the_page(page)
    # Arranging by taps: a shape, two cells swapped and swapped back, Arrange; the sheet
    # stays where it is on the page all along, and when the writing begins.
    page.locator('.tx-pick[data-shape="T"]').tap()
    expect(page.locator("#tx-build .tx-cell")).to_have_count(4)
    for index in (0, 3, 3, 0):
        page.locator(f'#tx-build .tx-cell[data-index="{index}"]').tap()
    assert sheet_on_the_page(page) == where
    page.get_by_role("button", name="Arrange", exact=True).tap()  # ○ ○ ✕ □: the nose ○, then ○ ✕ □
    expect(page.locator("#tx-status-1")).to_have_attribute("data-state", "write")
    settled(page)
    assert sheet_on_the_page(page) == where
    page.locator("#tx-sheet-1").scroll_into_view_if_needed()
    settled(page)
    since = page.evaluate("performance.now()")
    before = box(page, "#tx-sheet-1")

    # The T unturned, its box's top-left at (-1, 0): the nose hangs over the top edge.
    hr, hc = handle("T", 0)
    x, y = point(page, 1, -1 + hr, hc)
    page.touchscreen.tap(x, y)  # shows where it would go, and the hint under the tools
    expect(page.locator("#tx-sheet-1 .c.pv-ok")).to_have_count(3)
    expect(page.locator("#tx-hint")).to_have_text("1 hanging over the edge")
    settled(page)
    assert box(page, "#tx-sheet-1") == before  # not a pixel
    shifts = page.evaluate(SHIFTS_SINCE, since)
    assert sum(s["value"] for s in shifts if not s["input"]) == 0, shifts
    assert sum(s["value"] for s in shifts if s["input"]) == 0, shifts
    seen(page, "tetrix-phone-first-tap")  # as on the screen (a full-page shot would move it)
    page.touchscreen.tap(x, y)  # the same spot again: writes it there
    expect(page.locator("#tx-status-1")).to_have_attribute("data-state", "wrote")
    expect(page.locator("#tx-sheet-1")).to_have_attribute(
        "data-sheet", "oxs...." + "......." * 2 + "...o..." + "......." * 3
    )
    settled(page)
    assert sheet_on_the_page(page) == where  # the tools, hidden once written, keep their room

    # Round 2: the bot rolls and arranges; the sheet moves up, by the roller's tools'
    # room, which the page keeps for the roller alone (test_tetrix_waiting.py), and no
    # preview is left at the last tap (it would be red there: those cells are written).
    expect(page.locator("#tx-turn")).to_have_attribute("data-round", "2")
    expect(page.locator("#tx-turn")).to_have_attribute("data-phase", "write")
    expect(page.locator("#tx-status-1")).to_have_attribute("data-state", "write")
    settled(page)
    no_preview(page)
    assert sheet_on_the_page(page)[0] == where[0] and sheet_on_the_page(page)[1] < where[1]
    page.locator("#tx-sheet-1").scroll_into_view_if_needed()
    settled(page)
    before = box(page, "#tx-sheet-1")
    since = page.evaluate("performance.now()")
    hr, hc = 5, 5
    x, y = point(page, 1, hr, hc)
    page.touchscreen.tap(x, y)
    expect(page.locator("#tx-sheet-1 .c.pv-ok").first).to_be_visible()
    settled(page)
    assert box(page, "#tx-sheet-1") == before
    shifts = page.evaluate(SHIFTS_SINCE, since)
    assert sum(s["value"] for s in shifts) == 0, shifts
    page.touchscreen.tap(x, y)
    expect(page.locator("#tx-status-1")).to_have_attribute("data-state", "wrote")
    assert page.locator("#tx-sheet-1").get_attribute("data-sheet")[5 * 7 + 5] != "."  # where it was tapped
    fits_sideways(page, PHONE[0])


@pytest.mark.parametrize("seats", [1, 2, 4], ids=["solo", "two", "four"])
@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_the_own_sheet_is_whole_on_the_screen(tables, live_server_url, browser, screenshot, size, seats):
    """At 1366×768 the whole own sheet, its last row too, is on screen with the page at
    its top, while arranging and while writing; on a phone, once scrolled to it."""
    page = open_page(browser, live_server_url, tables[seats], size)
    start(page)
    for phase in ("arrange", "write"):
        if phase == "write":
            if page.locator("#tx-status-1").get_attribute("data-state") == "arrange":
                arrange(page, "T", touch=size is PHONE)
            expect(page.locator("#tx-status-1")).to_have_attribute("data-state", "write")
        if size is DESKTOP:
            page.evaluate("window.scrollTo(0, 0)")
        else:
            page.locator("#tx-sheet-1").evaluate("(el) => el.scrollIntoView({block: 'center'})")
        settled(page)
        sheet = box(page, "#tx-sheet-1")
        last = cell(page, 1, 6, 6).bounding_box()
        assert sheet["y"] >= 0 and sheet["y"] + sheet["height"] <= size[1], (phase, sheet)
        assert last["y"] + last["height"] <= size[1] and sheet["x"] + sheet["width"] <= size[0], (phase, last)
        smallest = 40 if size is DESKTOP else 30  # not shrunk to fit
        assert cell(page, 1, 0, 0).bounding_box()["width"] >= smallest
        page.evaluate("window.scrollTo(0, 0)")
        screenshot(page, f"tetrix-{seats}-{phase}-{size[0]}")


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_a_shape_hanging_over_the_edge_is_shown_whole(with_a_bot, live_server_url, browser, screenshot, size):
    """The I held by its second cell, pointed at in the margin beyond the sheet's edge
    (or moved there with the arrows): two or three cells hang over, and are shown whole."""
    touch = size is PHONE
    page = open_page(browser, live_server_url, with_a_bot, size)
    start(page)
    arrange(page, "I", touch)
    expect(page.locator("#tx-status-1")).to_have_attribute("data-state", "write")
    page.locator("#tx-sheet-1").evaluate("(el) => el.scrollIntoView({block: 'center'})")

    def ghosts(hanging: int) -> None:
        """The preview: 4 - ``hanging`` cells on the sheet, ``hanging`` over, none of them hidden."""
        expect(page.locator("#tx-sheet-1 .c.pv-ok")).to_have_count(4 - hanging)
        expect(page.locator(".tx-hang.pv-ok")).to_have_count(hanging)
        # in one step in the page: a push may redraw the preview between finding it and scrolling
        page.evaluate("() => document.querySelector('.tx-hang').scrollIntoView({block: 'nearest', inline: 'nearest'})")
        settled(page)
        hidden = page.evaluate(f"() => [...document.querySelectorAll('.tx-hang')].map({HIDDEN_PART})")
        assert hidden == [0] * hanging, hidden

    def pointed(row: int, column: int) -> None:
        x, y = point(page, 1, row, column)
        page.touchscreen.tap(x, y) if touch else page.mouse.move(x, y)

    turn = page.get_by_role("button", name="⟳ Turn")
    turn.click()  # upright, held by its second cell from the top
    assert handle("I", 1) == (1, 0)
    pointed(-1, 0)  # a cell above row 0: rows -2 and -1 hang over the top edge
    ghosts(2)
    screenshot(page, f"tetrix-hanging-over-the-top-{size[0]}")
    page.keyboard.press("ArrowUp")  # rows -3 to -1
    ghosts(3)

    for _ in range(3):
        turn.click()  # lying, held by its second cell from the left
    assert handle("I", 0) == (0, 1)
    page.locator("#tx-sheet-1").evaluate("(el) => el.scrollIntoView({block: 'center'})")
    pointed(6, 7)  # a cell right of column 6: columns 7 to 9 hang over the right edge
    expect(page.locator(".tx-hang.pv-ok")).to_have_count(3)
    fits_sideways(page, size[0])  # the page does not widen under it
    if size is DESKTOP:  # a phone has no room beside the sheet for three cells more
        ghosts(3)
        pointed(0, -1)  # a cell left of column 0: columns -2 and -1 hang over the left edge
        ghosts(2)
        page.keyboard.press("ArrowLeft")
        ghosts(3)
    screenshot(page, f"tetrix-hanging-sideways-{size[0]}")


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_the_area_tallies_stay_in_their_cards(
    four_with_big_areas, live_server_url, browser, screenshot, size
):
    page = open_page(browser, live_server_url, four_with_big_areas, size)
    start(page)
    expect(page.locator(".tx-seat")).to_have_count(4)
    expect(page.locator("#tx-status-4 .tx-sum.o")).to_contain_text("2×11")
    for seat in (1, 2, 3, 4):
        card = box(page, f"#tx-seat-{seat}")
        for tally in page.locator(f"#tx-seat-{seat} .tx-sum").all():
            t = tally.bounding_box()
            assert card["x"] <= t["x"] and t["x"] + t["width"] <= card["x"] + card["width"], (seat, card, t)
            assert t["y"] + t["height"] <= card["y"] + card["height"], (seat, card, t)
    fits_sideways(page, size[0])
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, f"tetrix-tallies-{size[0]}")


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_the_solo_bar_is_named_in_the_pages_language(tables, live_server_url, browser, screenshot, size):
    page = open_page(browser, live_server_url, tables[1], size)
    page.locator("#language-select").select_option("de")  # the page's script sends the form
    expect(page.locator("html")).to_have_attribute("lang", "de")
    page.get_by_role("button", name="Ich bin bereit").click()
    page.get_by_role("button", name="Spiel starten").click()
    expect(page.locator("#tx-status-1 .tx-bar i")).to_have_count(8)
    expect(page.locator("#tx-status-1 .tx-bar")).to_contain_text("Leiste")
    assert "Bar" not in page.locator("#tx-status-1 .tx-bar").inner_text()
    before = page.evaluate("getComputedStyle(document.querySelector('.tx-bar'), '::before').content")
    assert before in ("none", "normal"), before  # no word from the stylesheet
    screenshot(page, f"tetrix-solo-bar-de-{size[0]}")


@pytest.fixture
def three_with_big_areas(big_areas, fixed_seed, live_server_url, host) -> str:
    return bot_table(live_server_url, host, 3)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_a_game_of_three_plays_to_its_end(three_with_big_areas, live_server_url, browser, screenshot, size):
    """The player and two bots, on sheets with eight cells left (BIG_AREAS): the player
    arranges a shape that fits their sheet when they roll, and writes every shape where
    the clock would (by touch on a phone, by the keys on a desktop), to the end, which
    says whose sheet had no room."""
    touch = size is PHONE
    page = open_page(browser, live_server_url, three_with_big_areas, size)
    start(page)
    status, results = page.locator("#tx-status-1"), page.locator("#results-title")
    deadline = time.monotonic() + 120
    while not results.is_visible():
        assert time.monotonic() < deadline, "the game did not end"
        state = status.get_attribute("data-state")
        mine = Sheet.from_rows(wrapped(page.locator("#tx-sheet-1").get_attribute("data-sheet")))
        if state == "arrange":
            arrange(page, next((name for name in "IOTSZJL" if mine.fits(name)), "I"), touch)
            expect(status).not_to_have_attribute("data-state", "arrange")
        elif state == "write":
            turn = page.locator("#tx-turn")
            shape = turn.get_attribute("data-shape")
            spot = mine.first_spot(shape)
            page.locator("#tx-sheet-1").evaluate("(el) => el.scrollIntoView({block: 'center'})")
            write_at(
                page,
                1,
                shape,
                spot.turns,
                spot.row,
                spot.column,
                touch,
                hanging=spot.hanging,
                keyboard=not touch,
            )
            expect(status).not_to_have_attribute("data-state", "write")
        else:
            page.wait_for_timeout(200)
    expect(results).to_have_text("Results")
    expect(page.locator("#results .termination")).not_to_contain_text("The board is full.")  # but what happened
    expect(page.locator("#results .termination")).to_contain_text(
        re.compile(r"had no room for the [IOTSZJL]\.|filled")
    )
    expect(page.locator("#results tbody tr")).to_have_count(3)
    fits_sideways(page, size[0])
    screenshot(page, f"tetrix-three-to-the-end-{size[0]}")
