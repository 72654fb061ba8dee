"""A received bomb lands with the piece, in the page, in the same frame (issue 49, point
4): the server announces the bomb at the drop with its own dice's seed (rules version
4), so the receiving page, which plays its board ahead of the server, lands add line
itself when its next piece enters, at least 500 ms later, behind a 300 ms round trip,
and the server's word afterwards corrects nothing.

The ``browser`` fixture fails a test on any console error."""

from __future__ import annotations

import time

import pytest

from tests.browser.test_tetriwar_ahead import ONE_WAY_MS, slow, wait_for_own_board  # noqa: F401 (a fixture)
from tests.browser.test_tetriwar_feel import open_page, start, table
from tests.personas import ref

pytestmark = pytest.mark.browser
OPTIONS = {"minutes": 2, "start_level": 1, "lines_per_level": 10, "bombs": "manual", "pairs": False}
GARBAGE_CELL = '<i class="G"></i>'  # as the browser writes the markup back


@pytest.fixture
def opponent_holds_an_add_line(monkeypatch):
    """In the server: seat 2 starts the game with an add line in its store."""
    from games.tetriwar import constants as C
    from games.tetriwar import engine

    init = engine.Game.__init__

    def with_a_bomb(self, *args, **kwargs):
        init(self, *args, **kwargs)
        if self.options.bombs == "manual" and 2 in self.players:
            self.players[2].store = [C.ADD_LINE]

    monkeypatch.setattr(engine.Game, "__init__", with_a_bomb)


@pytest.fixture
def duel_path(live_server_url, host, opponent):
    from lobby import services

    t = table(host, seats=2, options=OPTIONS)
    services.seat_take(table_id=t.pk, player=ref(opponent), number=2)
    services.seat_ready(table_id=t.pk, player=ref(opponent), ready=True)
    return t.get_absolute_url()


BOTTOM_ROW = "() => document.getElementById('board-1-row-19').innerHTML"
PREDICTED = "() => { const p = window.TetriWarPredict; return {corrections: p.corrections, resets: p.resets}; }"


@pytest.mark.parametrize("size", [(1366, 768), (390, 844)], ids=["desktop", "phone"])
def test_a_received_add_line_lands_with_the_next_piece_in_the_page(
    opponent_holds_an_add_line, slow, duel_path, browser, screenshot, size  # noqa: F811 (slow: a fixture)
):
    # (the bomb first: the server forks with ``slow``'s live server)
    receiver = open_page(browser, slow, "hostess", *size)
    sender = open_page(browser, slow, "opponent", 1366, 768)
    sender.goto(slow + duel_path)
    receiver.bring_to_front()
    start(receiver, slow + duel_path)
    wait_for_own_board(receiver)
    sender.bring_to_front()
    sender.wait_for_function("() => window.TetriWarPredict && window.TetriWarPredict.playing()")
    sender.keyboard.press("2")
    receiver.bring_to_front()
    # The announcement reaches the receiving page with its dice's seed ...
    receiver.wait_for_function(
        "() => { const b = window.TetriWarPredict.board; return b && b.incoming.length === 1"
        " && b.incoming[0][1] === 'add_line' && typeof b.incoming[0][3] === 'number'; }"
    )
    # ... and the page waits for its clock to pass the landing time (500 ms from the drop)
    receiver.wait_for_function(
        "() => { const p = window.TetriWarPredict; return p.clock() >= p.board.incoming[0][0]; }"
    )
    assert GARBAGE_CELL not in receiver.evaluate(BOTTOM_ROW)
    before = receiver.evaluate(PREDICTED)
    started = time.monotonic()
    receiver.keyboard.press("Space")  # the piece locks, the next enters: the bomb lands first
    bottom = receiver.evaluate(BOTTOM_ROW)
    elapsed = (time.monotonic() - started) * 1000
    # drawn by the page itself, long before the server could have said anything
    assert bottom.count(GARBAGE_CELL) == 9, bottom
    assert elapsed < 2 * ONE_WAY_MS, elapsed
    assert receiver.evaluate("() => window.TetriWarPredict.board.incoming.length") == 0
    screenshot(receiver, f"tetriwar-bomb-dice-{size[0]}x{size[1]}")
    # the server's answer to the key (its whole board, a new piece came) agrees: no
    # correction, no reset
    receiver.wait_for_function("() => window.TetriWarPredict.pending.length === 0")
    assert receiver.evaluate(PREDICTED) == before
    assert receiver.evaluate(BOTTOM_ROW).count(GARBAGE_CELL) == 9
