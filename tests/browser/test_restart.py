"""A restart loses no game (issue 50, point 7), as a player sees it: the server is killed
(SIGKILL) in the middle of a TetriWar practice game and started again on the same port.
The page reconnects by itself, says that the server restarted and counts down, then the
player plays on: keys land on the board the server rebuilt. On a desktop and a phone.

While the server is down, each failed attempt of the page's socket to reconnect is
reported on the console, by Chromium (the connection refused) and by htmx's socket
extension (its error event, ``htmx:wsError``); those reports, and only those, are
expected here."""

from __future__ import annotations

import re
import sqlite3

import pytest
from django.db import connection
from playwright.sync_api import expect

from games.journal import stored
from tests.browser.conftest import ARTIFACTS
from tests.browser.test_layouts import COUNTDOWNS, SOCKET_OPEN
from tests.browser.test_tetriwar_game import log_in
from tests.live.test_restart_killed import site  # noqa: F401  (the fixture: a server to kill)
from tests.personas import ref

pytestmark = pytest.mark.browser
TIMEOUT = 15_000
SIZES = {
    "desktop": {"viewport": {"width": 1366, "height": 768}},
    "phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
}
OWN_CELLS = "#board-1 .fr i[class]"
# A socket that could not connect (the server was down), in Chromium's words and as
# htmx's socket extension logs its error event.
SOCKET_REFUSED = re.compile(
    r"console error on [^ ]+: (WebSocket connection to 'ws://[^']+' failed"
    r"|\[object Event\] \(http://[^ ]+/static/django_htmx/htmx-2\.min\.js:0\))"
)


@pytest.fixture
def practice(site, host):  # noqa: F811
    """Data first (no ORM calls once Playwright's event loop runs): a practice table, the
    host against a bot, and the database file the server writes to."""
    from lobby import services

    table = services.practice_create(player=ref(host), game="tetriwar")
    return {"url": f"{site.url}{table.get_absolute_url()}", "table": table.pk, "db": connection.settings_dict["NAME"]}


def host_inputs(db: str, table: int) -> list[str]:
    """What the host's seat pressed, as the server wrote it down (games/journal.py)."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "select b.data from games_journalbatch b join games_game g on g.id = b.game_id"
            " where g.table_id = ? order by b.seq", (table,),
        ).fetchall()
    return [text for _, seat, text in stored([bytes(data) for (data,) in rows])[0] if seat == 1]


def until(page, condition, what: str, timeout_ms: int = TIMEOUT) -> None:
    waited = 0
    while not condition():
        assert waited < timeout_ms, what
        page.wait_for_timeout(50)  # between two looks at the database
        waited += 50


@pytest.mark.parametrize("size", SIZES)
def test_a_player_sees_the_restart_counted_down_and_plays_on(site, practice, browser, page_problems, size):  # noqa: F811
    page = browser.new_context(**SIZES[size]).new_page()
    page.set_default_timeout(TIMEOUT)
    log_in(page, site.url, "hostess")
    page.goto(practice["url"])
    page.wait_for_function(SOCKET_OPEN)
    # The page's socket tries again on the site's schedule (static/js/socket_retry.js).
    assert page.evaluate("htmx.config.wsReconnectDelay(2, () => 1)") == 500
    assert page.evaluate("htmx.config.wsReconnectDelay(21, () => 1)") == 1000
    page.get_by_role("button", name="Start the game").click()
    expect(page.locator(COUNTDOWNS)).to_have_count(0)
    expect(page.locator("#clock")).to_have_text(re.compile(r"^\d+:\d\d$"))
    page.keyboard.press("Space")  # a hard drop: four cells on the board
    expect(page.locator(OWN_CELLS)).to_have_count(4)
    until(page, lambda: "hard_drop" in host_inputs(practice["db"], practice["table"]), "the drop was never written")

    site.kill()
    site.start()  # the same port: the page's socket finds it again by itself

    notice = page.locator("#reconnect .reconnect-server")
    expect(notice).to_contain_text("The server restarted: the game goes on in")
    expect(page.locator(".countdown")).to_be_visible()  # 3, 2, 1 over the boards
    page.screenshot(path=str(ARTIFACTS / f"restart-countdown-{size}.png"))
    # The board as the server rebuilt it: the drop made before the restart is on it.
    expect(page.locator(OWN_CELLS)).to_have_count(4)
    expect(notice).to_have_count(0)  # the countdown is over: the game goes on
    expect(page.locator(COUNTDOWNS)).to_have_count(0)
    page.keyboard.press("Space")
    expect(page.locator(OWN_CELLS)).to_have_count(8)
    until(
        page, lambda: host_inputs(practice["db"], practice["table"]).count("hard_drop") == 2,
        "the drop after the restart never reached the server",
    )
    # The browser's reports of the socket refused while the server was down: expected.
    page_problems[:] = [problem for problem in page_problems if not SOCKET_REFUSED.search(problem)]
