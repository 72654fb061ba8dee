"""Third Option in a browser: a short game of three players with a spectator, by mouse,
keyboard and touch, at a desktop size and a phone's; and a table of twelve at both.

Where to place is worked out here from what the page shows (the player's grid, the card
chosen) with the engine's own shapes, then done the way a person does it: turn and
mirror the card, point at the square the shape's handle must cover, click (or tap
twice, or move there with the arrows and press Enter)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games.thirdoption.board import FULL, Shape, mask_of, oriented
from games.thirdoption.constants import SIZE
from tests.browser.test_tetriwar_game import log_in
from tests.personas import ref

pytestmark = pytest.mark.browser
TIMEOUT = 15_000
OPTIONS = {"round_seconds": 120, "tetrominoes_only": False}
SIZES = [(1366, 768), (390, 844)]


@pytest.fixture
def seated_url(live_server_url, host, opponent, outsider, make_user):
    from lobby import services

    third = make_user("thirdwheel")
    table = services.table_create(player=ref(host), game="thirdoption", options=OPTIONS, seats_total=3)
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    services.seat_take(table_id=table.pk, player=ref(third), number=3)
    return f"{live_server_url}{table.get_absolute_url()}"


def handle(cells) -> tuple[int, int]:
    """The square the pointer holds (thirdoption.js): the cell nearest the box's middle."""
    h, w = max(r for r, _ in cells), max(c for _, c in cells)
    return min(cells, key=lambda cell: (cell[0] - h / 2) ** 2 + (cell[1] - w / 2) ** 2)


def plan(page, seat: int) -> tuple[int, bool, tuple[int, int], int]:
    """For the card the page has chosen: (turns, mirrored, the square to point at, its size)."""
    grid = page.locator(f"#to-board-{seat}").get_attribute("data-grid")
    picture = page.locator(".to-card.sel").first.get_attribute("data-shape")
    filled = mask_of([divmod(i, SIZE) for i, char in enumerate(grid) if char != "."])
    shape = Shape("card", picture)
    orientation, row, column = shape.first_placement(filled & FULL)
    hr, hc = handle(oriented(shape.cells, orientation.turns, orientation.mirrored))
    return orientation.turns, orientation.mirrored, (row + hr, column + hc), shape.size


def square(page, seat: int, cell: tuple[int, int]):
    return page.locator(f"#to-board-{seat} .tc").nth(cell[0] * SIZE + cell[1])


def orient(page, turns: int, mirrored: bool, *, buttons: bool = False) -> None:
    if mirrored:
        page.get_by_role("button", name="⇋ Mirror").click() if buttons else page.keyboard.press("m")
    for _ in range(turns):
        page.get_by_role("button", name="⟳ Turn").click() if buttons else page.keyboard.press("r")


def place_with_the_mouse(page, seat: int, *, buttons: bool = False) -> None:
    expect(page.locator(".to-card.sel")).to_have_count(1)
    turns, mirrored, cell, size = plan(page, seat)
    orient(page, turns, mirrored, buttons=buttons)
    target = square(page, seat, cell)
    target.hover()
    expect(page.locator(f"#to-board-{seat} .tc.pv-ok")).to_have_count(size)  # the preview: it fits
    target.click()


def place_with_the_keyboard(page, seat: int) -> None:
    expect(page.locator(".to-card.sel")).to_have_count(1)
    turns, mirrored, (row, column), size = plan(page, seat)
    orient(page, turns, mirrored)
    page.keyboard.press("ArrowUp")  # the shape appears at the middle square, one up
    page.keyboard.press("ArrowDown")
    for key, steps in (
        ("ArrowUp", 4 - row),
        ("ArrowDown", row - 4),
        ("ArrowLeft", 4 - column),
        ("ArrowRight", column - 4),
    ):
        for _ in range(max(0, steps)):
            page.keyboard.press(key)
    expect(page.locator(f"#to-board-{seat} .tc.pv-ok")).to_have_count(size)
    page.keyboard.press("Enter")


def place_by_touch(page, seat: int) -> None:
    expect(page.locator(".to-card.sel")).to_have_count(1)
    turns, mirrored, cell, size = plan(page, seat)
    orient(page, turns, mirrored, buttons=True)
    target = square(page, seat, cell)
    target.tap()  # the first tap shows where it would go ...
    expect(page.locator(f"#to-board-{seat} .tc.pv-ok")).to_have_count(size)
    target.tap()  # ... the second places it


@pytest.mark.parametrize("size", SIZES, ids=["desktop", "phone"])
def test_a_short_game_of_three_players_with_a_spectator(
    live_server_url, seated_url, browser, screenshot, size
):
    phone = size[0] < 600
    pages = {}
    for name in ("hostess", "opponent", "thirdwheel", "outsider"):
        context = browser.new_context(
            viewport={"width": size[0], "height": size[1]}, has_touch=phone, is_mobile=phone
        )
        page = context.new_page()
        page.set_default_timeout(TIMEOUT)
        log_in(page, live_server_url, name)
        page.goto(seated_url)
        pages[name] = page
    p1, p2, p3, watcher = pages["hostess"], pages["opponent"], pages["thirdwheel"], pages["outsider"]
    for page in (p1, p2, p3):
        page.get_by_role("button", name="I'm ready").click()
        expect(page.locator(".seat.mine .ready-mark")).to_be_visible()
    p1.get_by_role("button", name="Start the game").click()
    for page in pages.values():
        expect(page.locator("#clock")).to_contain_text("Round 1")
        expect(page.locator("#to-round .to-card")).to_have_count(2)
        expect(page.locator(".to-board")).to_have_count(3)  # everyone's grid, on every page
    # Your own grid is the big one; the spectator sees all three alike.
    own, other = p1.locator("#to-board-1").bounding_box(), p1.locator("#to-board-2").bounding_box()
    assert own["width"] > 2 * other["width"] and own["x"] + own["width"] <= size[0]
    watched = [watcher.locator(f"#to-board-{seat}").bounding_box()["width"] for seat in (1, 2, 3)]
    assert len(set(watched)) == 1
    # The card's tools are a player's: the spectator has none.
    expect(p1.locator(".to-tools")).to_be_visible()
    expect(watcher.locator(".to-tools")).to_be_hidden()
    expect(watcher.locator(".to-keys")).to_be_hidden()
    # Pointing where the shape cannot go shows it in red: over the starting shape.
    p1.locator(".to-card.sel").first.wait_for()
    square(p1, 1, (4, 4)).hover()
    expect(p1.locator("#to-board-1 .tc.pv-bad").first).to_be_visible()
    expect(p1.locator("#to-board-1.pv-illegal")).to_have_count(1)

    # Round 1: by mouse (or touch), by keyboard, and the third player.
    (place_by_touch if phone else place_with_the_mouse)(p1, 1)
    expect(watcher.locator("#to-status-1")).to_have_attribute("data-state", "placed")
    expect(watcher.locator("#to-status-1")).to_contain_text("placed ✓")
    place_with_the_keyboard(p2, 2)
    expect(watcher.locator("#to-status-2")).to_have_attribute("data-state", "placed")
    expect(watcher.locator("#to-status-3")).to_have_attribute("data-state", "place")
    (place_by_touch if phone else place_with_the_mouse)(p3, 3)
    for page in pages.values():  # everyone has placed: the next round, at once
        expect(page.locator("#clock")).to_contain_text("Round 2")
    empties = [int(watcher.locator(f"#to-status-{seat} .to-empty strong").inner_text()) for seat in (1, 2, 3)]
    assert all(empty < 73 for empty in empties)  # each grid holds its first card

    # Round 2: the second card this time, turned and mirrored with the buttons.
    p1.locator("#to-round .to-card[data-card='1']").click()
    expect(p1.locator("#to-round .to-card[data-card='1']")).to_have_class(re.compile(r"\bsel\b"))
    place_with_the_mouse(p1, 1, buttons=True) if not phone else place_by_touch(p1, 1)
    expect(watcher.locator("#to-status-1")).to_have_attribute("data-state", "placed")
    screenshot(watcher, f"thirdoption-round-2-spectator-{size[0]}")
    screenshot(p1, f"thirdoption-round-2-player-{size[0]}")

    # Two of the three leave: the game ends at once for everybody.
    for page in (p2, p3):
        page.once("dialog", lambda dialog: dialog.accept())
        page.get_by_role("button", name="Leave the game").click()
    for page in pages.values():
        expect(page.locator("#results-title")).to_have_text("Results")
        expect(page.locator("#results")).to_contain_text("The game ended when players left it.")
        expect(page.locator("#clock")).to_have_text("Game over")
        expect(page.locator(".to-tools")).to_be_hidden()  # nothing left to turn or place
    expect(watcher.locator("#results tbody tr").first).to_contain_text("hostess")
    screenshot(watcher, f"thirdoption-finished-{size[0]}")


@pytest.fixture
def twelve_url(live_server_url, host):
    """A table of twelve: the host and eleven bots, ready to start."""
    from lobby import services

    table = services.table_create(player=ref(host), game="thirdoption", options=OPTIONS, seats_total=12)
    for number in range(2, 13):
        services.bot_add(table_id=table.pk, player=ref(host), number=number, level="greedy")
    services.seat_ready(table_id=table.pk, player=ref(host), ready=True)
    return f"{live_server_url}{table.get_absolute_url()}"


@pytest.mark.parametrize("size", SIZES, ids=["desktop", "phone"])
def test_twelve_grids_fit_on_a_desktop_and_a_phone(live_server_url, twelve_url, browser, screenshot, size):
    page = browser.new_context(viewport={"width": size[0], "height": size[1]}).new_page()
    page.set_default_timeout(TIMEOUT)
    log_in(page, live_server_url, "hostess")
    page.goto(twelve_url)
    page.get_by_role("button", name="Start the game").click()
    expect(page.locator("#clock")).to_contain_text("Round 1")
    expect(page.locator(".to-board")).to_have_count(12)
    # The bots place as the round goes on; the host's own grid stays the big one.
    expect(page.locator('.to-status[data-state="placed"]')).to_have_count(11, timeout=TIMEOUT)
    place_with_the_mouse(page, 1)
    expect(page.locator("#clock")).to_contain_text("Round 2")
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0]  # nothing sticks out sideways
    for seat in range(1, 13):
        box = page.locator(f"#to-board-{seat}").bounding_box()
        assert box["width"] > 0 and box["x"] >= 0 and box["x"] + box["width"] <= size[0]
    screenshot(page, f"thirdoption-twelve-{size[0]}")
