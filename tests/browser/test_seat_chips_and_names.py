"""The players' cards of a running game, on a phone and a desktop (issue 49, point 22):
Block-Killer's chips (▣ 4 ▤ 4/12 ⇢ 0) are said in words on the page, not only in
tooltips, which a phone never shows; and a bot's name shows whole ("Grace (bot, g…"
was cut) on the cards of every game that has them: Block-Killer's seats, Te-Trix's and
Third Option's sheets (TetriWar's boards wrap already; Viertris's score list never cut).

Each table has the host in seat 1 and bots in the others; the longest bot names
("Barbara (bot, greedy)" in seat 5) are at the tables that have that many seats."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_layouts import COUNTDOWNS, SOCKET_OPEN
from tests.browser.test_tetriwar_game import log_in
from tests.personas import ref

pytestmark = pytest.mark.browser
TIMEOUT = 15_000
SIZES = [(1366, 768), (390, 844)]
IDS = ["desktop", "phone"]
# game: (seats, the name elements of its cards)
CARDS = {"blockkiller": (5, ".bk-status .bk-name"), "tetrix": (4, ".tx-status .tx-name"),
         "thirdoption": (5, ".to-status .to-name")}
# What of a name is not shown: cut sideways (an ellipsis) or below (a line clamp).
CUT = """els => els.filter(e => e.scrollWidth > e.clientWidth || e.scrollHeight > e.clientHeight + 1
  || getComputedStyle(e).textOverflow === "ellipsis" && getComputedStyle(e).whiteSpace === "nowrap")
  .map(e => e.textContent.trim())"""


def bot_table(live_server_url, host, game: str) -> str:
    from games.registry import GAMES
    from lobby import services

    spec = GAMES[game]
    seats = CARDS[game][0]
    table = services.table_create(player=ref(host), game=game, options=spec.options_form.defaults(), seats_total=seats)
    for number in range(2, seats + 1):
        services.bot_add(table_id=table.pk, player=ref(host), number=number, level=spec.bot_levels[0])
    return f"{live_server_url}{table.get_absolute_url()}"


@pytest.fixture
def table_url(live_server_url, host, game) -> str:
    """Made before Playwright runs (its loop would refuse the database calls)."""
    return bot_table(live_server_url, host, game)


def started(browser, live_server_url, url: str, game: str, size: tuple[int, int]):
    touch = size[0] < 600
    page = browser.new_context(
        viewport={"width": size[0], "height": size[1]}, has_touch=touch, is_mobile=touch
    ).new_page()
    page.set_default_timeout(TIMEOUT)
    log_in(page, live_server_url, "hostess")
    page.goto(url)
    page.bring_to_front()
    page.wait_for_function(SOCKET_OPEN)
    page.get_by_role("button", name="I'm ready").click()
    expect(page.locator(".seat.mine .ready-mark")).to_be_visible()
    page.get_by_role("button", name="Start the game").click()
    expect(page.locator("#table-status")).to_contain_text("A game is being played.")
    expect(page.locator(CARDS[game][1])).to_have_count(CARDS[game][0])  # the game, its countdown with it
    expect(page.locator(COUNTDOWNS)).to_have_count(0)
    expect(page.locator("#clock")).not_to_have_text(re.compile(r"^\s*(Get ready…)?\s*$"))
    return page


@pytest.mark.parametrize("size", SIZES, ids=IDS)
@pytest.mark.parametrize("game", list(CARDS))
def test_bot_names_show_whole_on_the_cards(table_url, live_server_url, browser, screenshot, game, size):
    page = started(browser, live_server_url, table_url, game, size)
    seats, selector = CARDS[game]
    names = page.locator(selector)
    expect(names).to_have_count(seats)
    expect(names.filter(has_text="Barbara (bot, greedy)" if seats >= 5 else "Edsger (bot, greedy)")).to_be_visible()
    assert names.evaluate_all(CUT) == []
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, f"names-{game}-{size[0]}")


@pytest.mark.parametrize("size", SIZES, ids=IDS)
@pytest.mark.parametrize("game", ["blockkiller"])
def test_block_killers_chips_are_said_in_words(table_url, live_server_url, browser, screenshot, game, size):
    page = started(browser, live_server_url, table_url, game, size)
    expect(page.locator(".bk-status")).to_have_count(5)
    legend = page.locator(".bk-legend")
    expect(legend).to_be_visible()  # on the page, not in a title
    for words in ("▣ Block cards in hand", "▤ Garbage cards in hand (out above 12)", "⇢ Garbage cards sent"):
        expect(legend).to_contain_text(words)
    seen = legend.evaluate("(el) => { const r = el.getBoundingClientRect(); return [r.left, r.right]; }")
    assert 0 <= seen[0] and seen[1] <= size[0], seen
    # each chip says it to a screen reader, the signs hidden from it; no tooltip is needed
    chip = page.locator("#bk-status-1 .bk-counts")
    expect(chip.locator(".sr-only")).to_have_text(
        ["Block cards in hand:", "Garbage cards in hand (out above 12):", "Garbage cards sent:"]
    )
    assert chip.locator("[title]").count() == 0
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, f"blockkiller-chips-{size[0]}")
