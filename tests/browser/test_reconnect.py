"""A player closes their page in the middle of a game (issue 30, point 6): the other
player and a spectator see at once who lost the connection and the seconds they have
left to come back, counted down by the page, and a mark on their seat; it goes when
the player opens the table again. In every game, on a desktop (1366×768) and on a
phone (390×844). Screenshots: tests/artifacts/reconnect-<game>-<who>.png."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games.registry import GAMES
from tests.browser.conftest import ARTIFACTS
from tests.browser.test_layouts import COUNTDOWNS, RUNNING, SOCKET_OPEN, layout_problems
from tests.browser.test_tetriwar_game import log_in
from tests.live.test_blockkiller_table import OPTIONS as BLOCKKILLER
from tests.live.test_tetriwar_table import OPTIONS as TETRIWAR
from tests.live.test_tetrix_table import OPTIONS as TETRIX
from tests.live.test_thirdoption_table import OPTIONS as THIRDOPTION
from tests.live.test_viertris_table import OPTIONS as VIERTRIS
from tests.personas import ref

pytestmark = pytest.mark.browser
TIMEOUT = 15_000
DESKTOP = {"viewport": {"width": 1366, "height": 768}}
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
OPTIONS = {
    "tetriwar": {**TETRIWAR, "minutes": 3},
    "viertris": {**VIERTRIS, "move_seconds": 60},
    "thirdoption": THIRDOPTION,
    "blockkiller": BLOCKKILLER,
    "tetrix": TETRIX,
}
AWAY = "#reconnect .reconnect-seat"
SECONDS = "#reconnect .reconnect-clock .reconnect-secs"


@pytest.fixture
def kind() -> str:
    return "viertris"


@pytest.fixture
def table_url(kind, live_server_url, host, opponent, outsider) -> str:
    """Data first (no ORM calls once Playwright's event loop runs): a table of ``kind``,
    the host and the opponent seated and ready (and a bot in the third seat of
    Block-Killer, which needs three)."""
    from lobby import services

    players = 3 if kind == "blockkiller" else 2
    table = services.table_create(player=ref(host), game=kind, options=OPTIONS[kind], seats_total=players)
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    if players == 3:
        services.bot_add(table_id=table.pk, player=ref(host), number=3, level=GAMES[kind].bot_levels[0])
    for user in (host, opponent):
        services.seat_ready(table_id=table.pk, player=ref(user), ready=True)
    return f"{live_server_url}{table.get_absolute_url()}"


def page_of(browser, base, name, size):
    page = browser.new_context(**size).new_page()
    page.set_default_timeout(TIMEOUT)
    if name:
        log_in(page, base, name)
    return page


def started(browser, base, url, kind):
    """The host and the opponent on desktops, a spectator on a phone, the game running."""
    p1, p2 = (page_of(browser, base, name, DESKTOP) for name in ("hostess", "opponent"))
    watcher = page_of(browser, base, "outsider", PHONE)
    playing((p1, p2, watcher), url, kind)
    return p1, p2, watcher


def playing(pages, url, kind) -> tuple[str, int]:
    """The pages open the table, the host's (the first) starts the game, and every page
    shows it running; what shows it, and how many of it."""
    for page in pages:
        page.goto(url)
        page.wait_for_function(SOCKET_OPEN)  # live, as a person sees it before pressing Start
    pages[0].bring_to_front()
    pages[0].get_by_role("button", name="Start the game").click()
    (shows, count), _ = RUNNING[kind]
    for page in pages:
        expect(page.locator(shows)).to_have_count(count)
        expect(page.locator(COUNTDOWNS)).to_have_count(0)
    return shows, count


def seconds_shown(page) -> int:
    return int(page.locator(SECONDS).inner_text())


def test_the_others_see_a_dropped_player_counted_down_until_they_come_back(
    live_server_url, table_url, browser, screenshot
):
    p1, p2, watcher = started(browser, live_server_url, table_url, "viertris")
    expect(p1.locator(AWAY)).to_have_count(0)

    p2.close()  # the opponent's page goes: their socket with it
    for page in (p1, watcher):
        expect(page.locator(AWAY)).to_have_count(1)
        expect(page.locator(AWAY)).to_contain_text(
            re.compile(r"opponent lost the connection — \d+ s to come back")
        )
        expect(page.locator(AWAY)).to_be_in_viewport()
        expect(page.locator("#seat-2")).to_have_attribute("data-away", "Connection lost")
        expect(page.locator("#seat-1")).not_to_have_attribute("data-away", re.compile(".*"))
    first = seconds_shown(p1)
    assert 25 <= first <= 30
    # The page counts the seconds down by itself: nothing more comes from the server.
    expect(p1.locator(SECONDS)).to_have_text(str(first - 2), timeout=4_000)
    assert seconds_shown(watcher) in (first - 3, first - 2, first - 1)
    screenshot(p1, "reconnect-viertris-countdown")

    # The opponent opens the table again: the line and the mark go, on every page.
    back = p2.context.new_page()
    back.goto(table_url)
    for page in (p1, watcher, back):
        expect(page.locator(AWAY)).to_have_count(0)
        expect(page.locator("#seat-2")).not_to_have_attribute("data-away", re.compile(".*"))
    # And the game goes on: the host moves, the opponent sees it.
    p1.get_by_role("button", name="Drop in column 1").click()
    expect(back.locator("#vt-log li")).to_have_count(1)


@pytest.mark.parametrize("kind", list(GAMES))
def test_every_game_shows_a_drop_to_a_player_and_a_spectator_at_both_sizes(
    kind, live_server_url, table_url, browser, screenshot
):
    p1, p2, watcher = started(browser, live_server_url, table_url, kind)
    # The host on a phone as well (a second device of theirs), the game running there too.
    on_phone = page_of(browser, live_server_url, "hostess", PHONE)
    on_phone.goto(table_url)
    expect(on_phone.locator(RUNNING[kind][0][0])).to_have_count(RUNNING[kind][0][1])
    p2.close()
    for page, who in ((p1, "player-1366x768"), (on_phone, "player-390x844"), (watcher, "spectator-390x844")):
        line = page.locator(AWAY)
        expect(line).to_contain_text("opponent lost the connection")
        expect(line).to_be_in_viewport()
        box = line.bounding_box()
        width = page.viewport_size["width"]
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, f"{who}: the line sticks out: {box}"
        # The game keeps its layout under the line: nothing sideways, the board on screen.
        assert layout_problems(page, width, f"{kind}, {who}", "#game-area", RUNNING[kind][1]) == []
        # What the screen shows first: a whole page's screenshot resizes the window for a moment.
        page.screenshot(path=str(ARTIFACTS / f"reconnect-{kind}-{who}-screen.png"))
        screenshot(page, f"reconnect-{kind}-{who}")


@pytest.mark.parametrize(("kind", "size"), [("tetriwar", DESKTOP), ("tetriwar", PHONE), ("viertris", PHONE)],
                         ids=["tetriwar-desktop", "tetriwar-phone", "viertris-phone"])
def test_a_page_away_while_its_game_ends_shows_the_results_when_its_socket_comes_back(
    live_server_url, table_url, browser, kind, size, screenshot
):
    """The opponent's page hears nothing for a while (a tunnel, a sleeping tab) and the
    game ends meanwhile; then its socket is cut and comes back. The page shows the
    results in place of the boards it still showed, with the rematch offered, and
    nothing of the game that is over goes on (no clock; keys pressed then do nothing)."""
    deaf = {"now": False}
    routes: list = []

    def through(route) -> None:  # the page's table socket, which the test can silence and cut
        server = route.connect_to_server()
        route.on_message(server.send)
        server.on_message(lambda message: None if deaf["now"] else route.send(message))
        routes.append(route)

    p1 = page_of(browser, live_server_url, "hostess", DESKTOP)
    p2 = page_of(browser, live_server_url, "opponent", size)
    p2.route_web_socket(re.compile(r"/ws/table/"), through)
    shows, count = playing((p1, p2), table_url, kind)

    deaf["now"] = True  # the opponent's page hears nothing more ...
    p1.once("dialog", lambda dialog: dialog.accept())
    p1.get_by_role("button", name="Leave the game").click()  # ... while the game ends
    expect(p1.locator("#results-title")).to_have_text("Results")
    p2.wait_for_timeout(500)
    expect(p2.locator("#results-title")).to_have_count(0)  # it heard nothing of it
    expect(p2.locator(shows)).to_have_count(count)  # and still shows the game

    deaf["now"] = False
    routes[-1].close(code=1012, reason="restarting")  # its socket is cut; the page connects again
    expect(p2.locator("#results-title")).to_have_text("Results", timeout=30_000)
    expect(p2.locator("#results tbody tr")).to_have_count(2)
    expect(p2.locator("#clock")).to_have_count(0)
    expect(p2.locator(shows)).to_have_count(0)  # the boards of the game that is over are gone
    expect(p2.locator("[data-rematch]")).to_be_visible()
    for key in ("ArrowLeft", "ArrowUp", "Space", "Enter"):  # keys now are nobody's move
        p2.keyboard.press(key)
    screenshot(p2, f"reconnect-after-the-end-{kind}-{size['viewport']['width']}")
    # The host left the game, so gave the seat up: back in it first (else the opponent's
    # Rematch would start a game of one, TetriWar's least), then both ask.
    p1.bring_to_front()  # a tab in the background draws no frames: nothing there settles to be clicked
    p1.locator("#sit-top").click()
    expect(p2.locator("#seat-1")).to_contain_text("hostess")
    p2.locator("[data-rematch]").click()
    p1.locator("[data-rematch]").click()
    for page in (p1, p2):
        expect(page.locator(shows)).to_have_count(count)  # the rematch runs on both pages


class HeldSocket:
    """A page's table socket routed through the test: what the server sends can be held
    back (and let through later, in order), and the socket cut. ``heard`` counts the
    server's messages of each connection, passed or held."""

    def __init__(self, page) -> None:
        self.routes: list = []
        self.heard: list[int] = []
        self.held: list | None = None
        page.route_web_socket(re.compile(r"/ws/table/"), self.through)

    def through(self, route) -> None:
        server = route.connect_to_server()
        route.on_message(server.send)
        number = len(self.routes)
        self.routes.append(route)
        self.heard.append(0)

        def arrived(message) -> None:
            self.heard[number] += 1
            if self.held is None:
                route.send(message)
            else:
                self.held.append((route, message))

        server.on_message(arrived)

    def hold(self) -> None:
        self.held = []

    def release(self) -> None:
        held, self.held = self.held or [], None
        for route, message in held:
            route.send(message)

    def connected_again(self, page, connections: int) -> None:
        """Wait until the page's socket has connected ``connections`` times and the last
        connection has heard from the server (its panels, and the results if any)."""
        for _ in range(300):
            if len(self.routes) >= connections and self.heard[connections - 1]:
                return
            page.wait_for_timeout(50)
        raise AssertionError(
            f"the page's socket did not connect a {connections}th time and hear from the server"
        )


@pytest.mark.parametrize(("kind", "size"), [("tetriwar", DESKTOP), ("viertris", PHONE)],
                         ids=["tetriwar-desktop", "viertris-phone"])
def test_a_page_that_shows_the_results_keeps_them_when_its_socket_comes_back_or_it_reloads(
    live_server_url, table_url, browser, kind, size, screenshot
):
    """The results a page shows are not shown again when its socket comes back (they
    would replace the final boards under them, and flash the Rematch button out of
    sight): not after the end seen live, nor on a reload."""
    p1 = page_of(browser, live_server_url, "hostess", size)
    p2 = page_of(browser, live_server_url, "opponent", DESKTOP)
    socket = HeldSocket(p1)
    shows, count = playing((p1, p2), table_url, kind)
    p2.once("dialog", lambda dialog: dialog.accept())
    p2.get_by_role("button", name="Leave the game").click()
    expect(p1.locator("#results-title")).to_have_text("Results")
    expect(p1.locator("[data-rematch]")).to_be_visible()

    # The end seen live: the results over the final boards. The socket is cut and back.
    p1.evaluate("document.getElementById('results').dataset.kept = 'yes'")
    socket.routes[-1].close(code=1012, reason="restarting")
    socket.connected_again(p1, 2)
    p1.wait_for_timeout(500)
    expect(p1.locator("#results[data-kept=yes]")).to_have_count(1)
    expect(p1.locator(shows)).to_have_count(count)  # the final boards stay under them
    expect(p1.locator("[data-rematch]")).to_be_visible()

    # Reloaded: the page comes with the results; its socket's news waits until the page
    # is marked, then comes.
    socket.hold()
    p1.reload()
    expect(p1.locator("#results-title")).to_have_text("Results")
    socket.connected_again(p1, 3)
    p1.evaluate("document.getElementById('results').dataset.kept = 'yes'")
    socket.release()
    p1.wait_for_timeout(500)
    expect(p1.locator("#results[data-kept=yes]")).to_have_count(1)
    expect(p1.locator("[data-rematch]")).to_be_visible()
    screenshot(p1, f"reconnect-results-kept-{kind}-{size['viewport']['width']}")

    p2.bring_to_front()  # a tab in the background draws no frames: nothing there settles to be clicked
    p2.locator("#sit-top").click()  # who left gave the seat up: sits down again, then both ask
    expect(p1.locator("#seat-2")).to_contain_text("opponent")
    p1.locator("[data-rematch]").click()
    p2.locator("[data-rematch]").click()
    for page in (p1, p2):
        expect(page.locator(shows)).to_have_count(count)  # the rematch runs on both pages
