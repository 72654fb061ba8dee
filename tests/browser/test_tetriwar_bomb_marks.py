"""A received bomb's mark as a browser shows it (issue 30 point 12): under a board,
the sender's board label; on one's own board, the key one presses for the sender.
The markup is the live adapter's own (tests/games/test_tetriwar_bomb_marks.py), styled
by the site's own stylesheets, with and without the fitting script's ``.mine``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from games.tetriwar import constants as C
from tests.games.test_tetriwar_bomb_marks import drop, four_players

ROOT = Path(__file__).resolve().parents[2]
STYLES = "".join((ROOT / "static/css" / name).read_text() for name in ("site.css", "tetriwar.css"))


@pytest.fixture
def boards():
    live = four_players()
    drop(live, C.ADD_LINE, by=3, on=2)
    drop(live, C.DRILL, by=3, on=4)
    return live.render_full(2.0, 0.0)


def show(browser, boards: str, me: int, size: dict):
    page = browser.new_page(viewport=size)
    page.set_content(
        f"<!doctype html><html><head><style>{STYLES}</style></head><body>"
        f'<section class="game-area" id="game-area" data-me="{me}">{boards}</section></body></html>'
    )
    return page


@pytest.mark.parametrize("size", [{"width": 1366, "height": 768}, {"width": 390, "height": 844}], ids=["desktop", "phone"])
def test_seat_2_reads_its_key_for_seat_3_on_its_own_board_and_seat_3_under_the_others(browser, boards, size):
    page = show(browser, boards, me=2, size=size)
    own, other = page.locator("#feed-2 .bomb"), page.locator("#feed-4 .bomb")
    # without the fitting script: the page's data-me says whose board is one's own
    expect(own.locator("b.key")).to_have_text("2")
    expect(own.locator("b.key")).to_be_visible()
    expect(own.locator("b.from")).to_be_hidden()
    expect(other.locator("b.from")).to_have_text("3")
    expect(other.locator("b.from")).to_be_visible()
    expect(other.locator("b.key")).to_be_hidden()
    # with it: .mine
    page.evaluate("""() => { document.querySelector('#game-area').dataset.me = '0';
                            document.querySelector('#player-2').classList.add('mine'); }""")
    expect(own.locator("b.key")).to_be_visible()
    expect(own.locator("b.from")).to_be_hidden()
    expect(other.locator("b.from")).to_be_visible()
    assert "from Cleo, player 3" in own.get_attribute("title")
    # heard as well as seen: a screen reader reads the sender's name, seat and key
    expect(page.get_by_role("img", name=re.compile(r"^Add line .* from Cleo, player 3 \(key 2 on this board\)"))).to_have_count(1)
    page.screenshot(path=f"/tmp/wt-names-bombs-{size['width']}.png")


def test_a_spectator_reads_every_senders_board_label(browser, boards):
    page = show(browser, boards, me=0, size={"width": 1366, "height": 768})
    for feed in ("#feed-2", "#feed-4"):
        expect(page.locator(f"{feed} .bomb b.from")).to_have_text("3")
        expect(page.locator(f"{feed} .bomb b.from")).to_be_visible()
        expect(page.locator(f"{feed} .bomb b.key")).to_be_hidden()
