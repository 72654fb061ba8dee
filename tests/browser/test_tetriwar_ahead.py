"""TetriWar's own board played in the page ahead of the server (issue 31): behind a
proxy that delays every byte each way, a key moves the piece before the server can have
answered; when the server's board differs, the page takes the server's.

The ``browser`` fixture fails a test on any console error. Screenshots in tests/artifacts/."""

from __future__ import annotations

import re
import time
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from bench.latency import ProxyThread
from tests.browser.test_tetriwar_feel import open_page, start, table
from tests.browser.test_tetriwar_game import piece_x

pytestmark = pytest.mark.browser
ONE_WAY_MS = 150  # 300 ms round trip
OPTIONS = {"minutes": 2, "start_level": 1, "lines_per_level": 10, "bombs": "off", "pairs": False}



@pytest.fixture
def slow(live_server_url):
    """The live server behind a proxy that holds every byte ONE_WAY_MS each way."""
    address = urlsplit(live_server_url)
    proxy = ProxyThread((address.hostname, address.port), seed=31)
    proxy.set(ONE_WAY_MS, 0)
    yield f"http://127.0.0.1:{proxy.port}"
    proxy.close()


@pytest.fixture
def duel_path(live_server_url, host, opponent, outsider):
    # Data first: no ORM calls once Playwright's event loop runs (STACK.md, pitfall 4).
    return table(host, seats=2, bots=(2,), options=OPTIONS).get_absolute_url()


def piece_box(page) -> str:
    """The piece's kind, rotation and place, as drawn."""
    return page.evaluate('() => { const p = document.getElementById("piece-1"); return p.className + " " + p.getAttribute("style"); }')


def wait_for_own_board(page):
    """Until the page plays its own board (the server's first news of it came)."""
    page.wait_for_function("() => window.TetriWarPredict && window.TetriWarPredict.playing()", timeout=15_000)


def test_a_key_moves_the_piece_before_the_server_could_answer(slow, duel_path, browser, screenshot):
    page = open_page(browser, slow, "hostess", 1366, 768)
    start(page, slow + duel_path)
    wait_for_own_board(page)
    for key in ("ArrowLeft", "ArrowRight", "ArrowUp"):
        before = piece_box(page)
        started = time.monotonic()
        page.keyboard.press(key)
        # The keydown handler draws it: the piece has changed when press() returns.
        after = piece_box(page)
        elapsed = (time.monotonic() - started) * 1000
        assert after != before, key
        assert elapsed < 2 * ONE_WAY_MS, (key, elapsed)  # long before any answer could come
    screenshot(page, "tetriwar-ahead-300ms")
    # The server agrees: no correction, and the spectator's view (the server's) catches up.
    page.wait_for_timeout(3 * ONE_WAY_MS)
    assert page.evaluate("window.TetriWarPredict.corrections") == 0
    assert page.evaluate("window.TetriWarPredict.pending.length") == 0


def test_a_tap_is_a_tap_at_a_long_round_trip(slow, duel_path, browser):
    page = open_page(browser, slow, "hostess", 1366, 768)
    start(page, slow + duel_path)
    wait_for_own_board(page)
    x = piece_x(page, 1)
    page.keyboard.down("ArrowLeft")
    page.wait_for_timeout(70)  # well short of the 170 ms auto-repeat
    page.keyboard.up("ArrowLeft")
    assert piece_x(page, 1) == x - 1
    page.wait_for_timeout(4 * ONE_WAY_MS)  # the server's answer: no second step, no correction
    assert piece_x(page, 1) == x - 1
    assert page.evaluate("window.TetriWarPredict.corrections") == 0


@pytest.fixture
def server_ignores_left(monkeypatch):
    """The server refuses to move the piece left (silently): a key the page applied. Its
    live adapter drops the key, in Python: the engine's own classes may be compiled
    (``make engine``), and a compiled method calls another directly, past any patch of
    its class."""
    from games.tetriwar.live import TetriWarLive

    apply = TetriWarLive.apply

    def ignoring_left(self, seat, intent, now, at=None):
        if intent in ("left", "hold_left", "release_left"):
            return []
        return apply(self, seat, intent, now, at)

    monkeypatch.setattr(TetriWarLive, "apply", ignoring_left)


def test_the_page_snaps_back_when_the_server_disagrees(server_ignores_left, slow, duel_path, browser):
    page = open_page(browser, slow, "hostess", 1366, 768)
    start(page, slow + duel_path)
    wait_for_own_board(page)
    x = piece_x(page, 1)
    page.keyboard.press("ArrowLeft")
    assert piece_x(page, 1) == x - 1  # played at once
    # The server's answer says otherwise: the page takes its board, the piece goes back.
    expect(page.locator("#piece-1")).to_have_attribute("style", re.compile(rf"--x:{x};"), timeout=5_000)
    assert page.evaluate("window.TetriWarPredict.corrections") == 1


BOARD = """(seat) => ({
  rows: [...Array(20).keys()].map((r) => document.getElementById(`board-${seat}-row-${r}`).innerHTML),
  score: document.getElementById(`score-${seat}`).textContent,
  next: document.getElementById(`next-${seat}`).innerHTML,
  piece: document.getElementById(`piece-${seat}`).className,
})"""


@pytest.fixture
def watched_path(live_server_url, host, opponent, outsider):
    return table(host, seats=2, bots=(2,), options=OPTIONS).get_absolute_url()


def test_a_spectator_sees_the_board_the_player_draws(slow, watched_path, live_server_url, browser, screenshot):
    player = open_page(browser, slow, "hostess", 1366, 768)
    spectator = open_page(browser, live_server_url, "outsider", 1366, 768)
    spectator.goto(live_server_url + watched_path)
    start(player, slow + watched_path)
    wait_for_own_board(player)
    for keys in (("ArrowLeft", "ArrowLeft"), ("ArrowUp", "ArrowRight"), ("ArrowRight", "ArrowRight", "ArrowRight"), ()):
        for key in keys:
            player.keyboard.press(key)
        player.keyboard.press("Space")  # hard drop: the field changes, a new piece comes
    player.wait_for_timeout(6 * ONE_WAY_MS)  # every answer back, every fragment out
    mine, theirs = player.evaluate(BOARD, 1), spectator.evaluate(BOARD, 1)
    screenshot(player, "tetriwar-ahead-player")
    screenshot(spectator, "tetriwar-ahead-spectator")
    assert any("<i class=" in row for row in mine["rows"])  # four pieces lie in the field
    # The page drew its own board with the server's markup, and it is the server's board.
    assert mine == theirs
    assert player.evaluate("window.TetriWarPredict.corrections") == 0
