"""Te-Trix in a browser, at a desktop size and a phone's (by touch there): a round of two
players with a spectator, the roller arranging the dice and both writing the shape, one
of them hanging it over the edge, then leaving ends the game; and a solo game from the
lobby's "Play Te-Trix solo" to its verdict.

The game's seed is fixed (``games.services.new_seed``, set before the test server
forks), so the dice are known: seat 1 rolls first, and the dice show ○ ○ ✕ □. Where to
point is worked out here as the page's script does it: the shape turned, and the cell
of it nearest the middle of its box held under the pointer."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from games import services as game_services
from games.tetrix.sheet import shape_cells, turned
from tests.browser.test_tetriwar_game import log_in
from tests.personas import ref

pytestmark = pytest.mark.browser
TIMEOUT = 15_000
OPTIONS = {"arrange_seconds": 300, "write_seconds": 300, "solo": False}
SIZES = [(1366, 768), (390, 844)]
SEED = 106  # seat 1 rolls first: ○ ○ ✕ □ (and the solo game rolls the same)
DICE = "ooxs"
# seat 1's sheet after its T (□ ○ ✕ ○), unturned at the top left; ○ is its preprinted centre
FIRST_SHEET = (".s.....", "oxo....", ".......", "...o...", ".......", ".......", ".......")


@pytest.fixture
def fixed_seed(monkeypatch):
    """Requested before ``live_server_url``: the server process is forked with it."""
    monkeypatch.setattr(game_services, "new_seed", lambda: SEED)


@pytest.fixture
def seated_url(fixed_seed, live_server_url, host, opponent, outsider):
    from lobby import services

    table = services.table_create(player=ref(host), game="tetrix", options=OPTIONS, seats_total=2)
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    return f"{live_server_url}{table.get_absolute_url()}"


def handle(shape: str, turns: int) -> tuple[int, int]:
    """The cell the pointer holds (tetrix.js): the turned shape's cell nearest its box's middle."""
    cells = turned(shape_cells(shape), turns)
    h, w = max(r for r, _ in cells), max(c for _, c in cells)
    return min(cells, key=lambda cell: (cell[0] - h / 2) ** 2 + (cell[1] - w / 2) ** 2)


def cell(page, seat: int, row: int, column: int):
    return page.locator(f"#tx-sheet-{seat} > i").nth(row * 7 + column)


def point(page, seat: int, row: int, column: int) -> tuple[float, float]:
    """The screen point of a sheet cell, off the sheet too (counted from cell (0, 0))."""
    first = cell(page, seat, 0, 0).bounding_box()
    pitch = cell(page, seat, 0, 1).bounding_box()["x"] - first["x"]
    return first["x"] + first["width"] / 2 + column * pitch, first["y"] + first["height"] / 2 + row * pitch


def press(page, locator, touch: bool) -> None:
    locator.tap() if touch else locator.click()


def write_at(page, seat: int, shape: str, turns: int, top: int, left: int, touch: bool, *, hanging: int = 0,
             keyboard: bool = False, shot=None) -> None:
    """Turn the shape, point where its box's top-left lands at (top, left), check the
    preview (its cells on the sheet, and those hanging over), and write it."""
    for _ in range(turns):
        page.keyboard.press("r") if keyboard else press(page, page.get_by_role("button", name="⟳ Turn"), touch)
    hr, hc = handle(shape, turns)
    row, column = top + hr, left + hc
    on_sheet = 4 - hanging
    if keyboard:  # the shape starts at the middle cell, (3, 3)
        page.keyboard.press("ArrowUp")
        page.keyboard.press("ArrowDown")
        for key, steps in (("ArrowUp", 3 - row), ("ArrowDown", row - 3), ("ArrowLeft", 3 - column),
                           ("ArrowRight", column - 3)):
            for _ in range(max(0, steps)):
                page.keyboard.press(key)
    elif touch:
        page.touchscreen.tap(*point(page, seat, row, column))  # the first tap shows where it would go
    else:
        page.mouse.move(*point(page, seat, row, column))
    expect(page.locator(f"#tx-sheet-{seat} .c.pv-ok")).to_have_count(on_sheet)
    expect(page.locator(".tx-hang.pv-ok")).to_have_count(hanging)
    if hanging:
        expect(page.locator("#tx-hint")).to_have_text(f"{hanging} hanging over the edge")
    if shot:
        shot()
    if keyboard:
        page.keyboard.press("Enter")
    elif touch:
        page.touchscreen.tap(*point(page, seat, row, column))  # the second writes it
    else:
        page.mouse.click(*point(page, seat, row, column))


def arrange(page, shape: str, touch: bool, swap: tuple[int, int] | None = None) -> None:
    """Pick the shape, swap two of its cells' symbols, and hand it to everyone."""
    if touch:
        page.locator(f'.tx-pick[data-shape="{shape}"]').tap()
    else:
        page.keyboard.press(shape.lower())
    expect(page.locator(f'.tx-pick[data-shape="{shape}"]')).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#tx-build .tx-cell")).to_have_count(4)
    if swap:
        for index in swap:
            press(page, page.locator(f'#tx-build .tx-cell[data-index="{index}"]'), touch)
    press(page, page.get_by_role("button", name="Arrange", exact=True), touch)


def fits_sideways(page, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width  # nothing sticks out sideways


@pytest.mark.parametrize("size", SIZES, ids=["desktop", "phone"])
def test_a_round_of_two_players_with_a_spectator(seated_url, live_server_url, browser, screenshot, size):
    touch = size[0] < 600
    pages = {}
    for name in ("hostess", "opponent", "outsider"):
        context = browser.new_context(viewport={"width": size[0], "height": size[1]}, has_touch=touch, is_mobile=touch)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT)
        log_in(page, live_server_url, name)
        page.goto(seated_url)
        pages[name] = page
    p1, p2, watcher = pages["hostess"], pages["opponent"], pages["outsider"]
    for page in (p1, p2):
        page.get_by_role("button", name="I'm ready").click()
        expect(page.locator(".seat.mine .ready-mark")).to_be_visible()
    p1.get_by_role("button", name="Start the game").click()
    for page in pages.values():
        expect(page.locator("#tx-turn")).to_have_attribute("data-phase", "arrange")
        expect(page.locator("#tx-turn")).to_have_attribute("data-dice", DICE)
        expect(page.locator(".tx-sheet")).to_have_count(2)  # everyone's sheet, on every page
        expect(page.locator("#tx-turn .tx-die")).to_have_count(4)
    # Only the roller arranges; the others wait and see the dice.
    expect(p1.locator(".tx-arrange")).to_be_visible()
    expect(p2.locator(".tx-arrange")).to_be_hidden()
    expect(watcher.locator(".tx-arrange")).to_be_hidden()
    own, other = p1.locator("#tx-sheet-1").bounding_box(), p1.locator("#tx-sheet-2").bounding_box()
    assert own["width"] > 1.5 * other["width"] and own["x"] + own["width"] <= size[0]
    screenshot(p1, f"tetrix-arranging-{size[0]}")

    # The roller arranges a T and swaps its nose with its last cell: ○ ○ ✕ □ becomes □ ○ ✕ ○.
    arrange(p1, "T", touch, swap=(0, 3))
    for page in pages.values():
        expect(page.locator("#tx-turn")).to_have_attribute("data-phase", "write")
        expect(page.locator("#tx-turn")).to_have_attribute("data-symbols", "soxo")
        expect(page.locator("#tx-turn .tx-shape i.s")).to_have_count(1)
    expect(p1.locator(".tx-write")).to_be_visible()
    expect(watcher.locator(".tx-write")).to_be_hidden()

    # Seat 1 writes it unturned in the top-left corner; seat 2 turns it once and hangs
    # its long side over the left edge: only the nose is written.
    write_at(p1, 1, "T", 0, 0, 0, touch)
    expect(watcher.locator("#tx-status-1")).to_have_attribute("data-state", "wrote")
    expect(watcher.locator("#tx-sheet-1")).to_have_attribute("data-sheet", "".join(FIRST_SHEET))
    write_at(p2, 2, "T", 1, 0, -1, touch, hanging=3, keyboard=not touch)
    screenshot(p2, f"tetrix-written-player-{size[0]}")
    for page in pages.values():  # both have written: the next round, seat 2 rolls
        expect(page.locator("#tx-turn")).to_have_attribute("data-round", "2")
        expect(page.locator("#tx-turn")).to_have_attribute("data-roller", "2")
    expect(watcher.locator("#tx-sheet-2 .c.new")).to_have_count(1)
    expect(watcher.locator("#tx-log")).to_contain_text("opponent wrote it, 3 hanging over")
    expect(p2.locator(".tx-arrange")).to_be_visible()
    expect(p1.locator(".tx-arrange")).to_be_hidden()
    for page in pages.values():
        fits_sideways(page, size[0])
    screenshot(watcher, f"tetrix-round-2-spectator-{size[0]}")

    # The second player leaves: the game ends for everybody.
    p2.once("dialog", lambda dialog: dialog.accept())
    p2.get_by_role("button", name="Leave the game").click()
    for page in pages.values():
        expect(page.locator("#results-title")).to_have_text("Results")
        expect(page.locator("#clock")).to_have_text("Game over")
    expect(watcher.locator("#results tbody tr").first).to_contain_text("hostess")
    expect(watcher.locator("#tx-status-2")).to_have_attribute("data-state", "left")
    fits_sideways(watcher, size[0])
    screenshot(watcher, f"tetrix-finished-{size[0]}")


@pytest.mark.parametrize("size", SIZES, ids=["desktop", "phone"])
def test_a_solo_game_from_the_lobby_to_its_verdict(fixed_seed, live_server_url, host, browser, screenshot, size):
    touch = size[0] < 600
    page = browser.new_context(viewport={"width": size[0], "height": size[1]}, has_touch=touch,
                               is_mobile=touch).new_page()
    page.set_default_timeout(TIMEOUT)
    log_in(page, live_server_url, "hostess")
    page.goto(live_server_url + reverse("lobby:index"))
    page.get_by_role("button", name="Play Te-Trix solo").click()  # two clicks from the lobby: a table of one ...
    page.get_by_role("button", name="Start the game").click()  # ... and its start
    expect(page.locator("#tx-turn")).to_have_attribute("data-phase", "arrange")
    expect(page.locator("#tx-status-1 .tx-bar i")).to_have_count(8)
    expect(page.locator(".tx-stop")).to_be_visible()

    # An O, two of its symbols hanging over the top edge: two boxes of the bar crossed.
    arrange(page, "O", touch)
    expect(page.locator("#tx-turn")).to_have_attribute("data-phase", "write")
    write_at(page, 1, "O", 0, -1, 2, touch, hanging=2, shot=lambda: screenshot(page, f"tetrix-solo-preview-{size[0]}"))
    expect(page.locator("#tx-turn")).to_have_attribute("data-round", "2")
    expect(page.locator("#tx-status-1 .tx-bar i.x")).to_have_count(2)
    expect(page.locator("#tx-status-1 .tx-score strong")).to_have_text("6")
    fits_sideways(page, size[0])
    screenshot(page, f"tetrix-solo-{size[0]}")

    # Stop: the game ends, with the score and its verdict.
    page.once("dialog", lambda dialog: dialog.accept())
    press(page, page.get_by_role("button", name="Stop"), touch)
    expect(page.locator("#results-title")).to_have_text("Results")
    expect(page.locator("#results")).to_contain_text("You stopped the game. 6 points: keep practising")
    expect(page.locator("#tx-status-1 .tx-verdict")).to_have_text("keep practising")
    fits_sideways(page, size[0])
    screenshot(page, f"tetrix-solo-verdict-{size[0]}")
