"""Tables that survive real players (issue 30), in Chromium: Back from the lobby to a
running game, a player who closes the page mid-game, a leaver's own page, the host
freeing an absent player's seat, a key during the countdown, and the one place near
the board where a refusal shows and goes."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games.registry import GAMES
from tests.browser.test_tetriwar_game import log_in
from tests.personas import ref

pytestmark = pytest.mark.browser
TIMEOUT = 15_000
RUNNING = "A game is being played."


def page_for(browser, base: str, name: str | None, size=(1366, 768)):
    touch = size[0] < 1024
    page = browser.new_context(
        viewport={"width": size[0], "height": size[1]}, has_touch=touch, is_mobile=touch
    ).new_page()
    page.set_default_timeout(TIMEOUT)
    if name:
        log_in(page, base, name)
    return page


def seated_table(game: str, users, *, seats: int | None = None, options: dict | None = None):
    """A table of ``game`` hosted by the first of ``users``, the others seated in order,
    a bot in each seat left (friendly), everybody ready."""
    from lobby import services

    spec = GAMES[game]
    total = seats or max(len(users), spec.min_seats)
    table = services.table_create(
        player=ref(users[0]), game=game, options=options or spec.options_form.defaults(), seats_total=total
    )
    for number, user in enumerate(users[1:], start=2):
        services.seat_take(table_id=table.pk, player=ref(user), number=number)
    for number in range(len(users) + 1, total + 1):
        services.bot_add(table_id=table.pk, player=ref(users[0]), number=number, level=spec.bot_levels[0])
    for user in users:
        services.seat_ready(table_id=table.pk, player=ref(user), ready=True)
    return table


# Tables are made before the browser opens (an ORM call beside Playwright's loop fails).
@pytest.fixture
def two_at(live_server_url, host, opponent, game):
    return seated_table(game, (host, opponent))


@pytest.fixture
def viertris_two(live_server_url, host, opponent):
    return seated_table("viertris", (host, opponent))


@pytest.fixture
def tetriwar_two(live_server_url, host, opponent):
    return seated_table("tetriwar", (host, opponent))


@pytest.fixture
def viertris_three(live_server_url, host, opponent, third):
    options = {"move_seconds": 60, "target_score": None, "move_limit": 8}
    return seated_table("viertris", (host, opponent, third), options=options)


@pytest.fixture
def thirdoption_three(live_server_url, host, opponent, third):
    return seated_table("thirdoption", (host, opponent, third))


def start(host_page, *pages) -> None:
    host_page.get_by_role("button", name="Start the game").click()
    for page in (host_page, *pages):
        expect(page.locator("#table-status")).to_contain_text(RUNNING)


@pytest.mark.parametrize(
    "game, size",
    [*((game, (1366, 768)) for game in GAMES), ("tetriwar", (390, 844)), ("viertris", (390, 844))],
    ids=[*GAMES, "tetriwar-phone", "viertris-phone"],
)
def test_back_from_the_lobby_brings_a_player_back_into_their_running_game(
    live_server_url, two_at, browser, game, size
):
    url = live_server_url + two_at.get_absolute_url()
    p1 = page_for(browser, live_server_url, "hostess", size)
    p2 = page_for(browser, live_server_url, "opponent", size)
    for page in (p1, p2):
        page.goto(url)
    start(p1, p2)
    expect(p2.locator("#game-area")).to_have_attribute("data-me", "2")

    p2.locator(".nav-links").get_by_role("link", name="Lobby").click()
    expect(p2).to_have_url(re.compile(r"/lobby/$"))
    p2.go_back()
    expect(p2).to_have_url(url)
    # The seat is the player's, the game theirs to play and to leave: as it is, not as it was.
    expect(p2.locator("#seat-2")).to_contain_text("(you)")
    expect(p2.locator("#seat-2")).not_to_contain_text("Empty")
    expect(p2.locator("#forfeit-button")).to_be_visible()
    expect(p2.locator("#game-area")).to_have_attribute("data-me", "2")
    expect(p2.locator("#clock")).to_be_visible()


def test_the_table_page_is_never_served_from_the_browser_s_store(live_server_url, viertris_two, browser):
    page = page_for(browser, live_server_url, "hostess")
    response = page.goto(live_server_url + viertris_two.get_absolute_url())
    assert "no-store" in response.headers["cache-control"]


@pytest.fixture
def quick_reconnect(monkeypatch):
    """A page gone for 3 s, not 30, forfeits: set before the test server forks."""
    from games import host as game_host

    monkeypatch.setattr(game_host, "RECONNECT_SECONDS", 3.0)


PHONE = (390, 844)


@pytest.mark.parametrize(
    "how, size",
    [
        ("closes the page", (1366, 768)),
        ("presses Leave and stays", (1366, 768)),
        ("presses Leave and stays", PHONE),
    ],
    ids=["closes-desktop", "leaves-desktop", "leaves-phone"],
)
def test_a_player_who_leaves_mid_game_does_not_hold_up_the_rematch(
    quick_reconnect, live_server_url, viertris_three, browser, how, size
):
    url = live_server_url + viertris_three.get_absolute_url()
    p1, p2, p3 = (
        page_for(browser, live_server_url, name, size) for name in ("hostess", "opponent", "thirdwheel")
    )
    for page in (p1, p2, p3):
        page.goto(url)
    start(p1, p2, p3)
    if how == "closes the page":
        p3.context.close()  # and does not come back
    else:
        p3.once("dialog", lambda dialog: dialog.accept())
        p3.get_by_role("button", name="Leave the game").click()
        expect(p3.locator("#left-note")).to_contain_text("Your seat is given up when it ends")
        expect(p3.locator(".vt-columns")).to_be_hidden()  # no columns to drop in any more
        expect(p1.locator(".vt-columns")).to_be_visible()
    hint = p1.locator(".vt-hint")
    words = "Tap ▼ over a column to drop your disc there" if size == PHONE else "Click a column, or ← → then Enter"
    expect(hint).to_have_text(words, use_inner_text=True)  # as shown: the words for a finger, or a mouse
    for page in (p1, p2):
        expect(page.locator("#seat-3")).to_contain_text("Left the game")
    # The two others play the game to its end (eight moves), then both ask for a rematch.
    for move in range(8):
        page = p1 if move % 2 == 0 else p2
        page.get_by_role("button", name=f"Drop in column {1 + move % 7}").click()
        expect(p1.locator("#vt-log li")).to_have_count(move + 1)
    watching = (p1, p2) if how == "closes the page" else (p1, p2, p3)
    for page in watching:
        expect(page.locator("#results-title")).to_have_text("Results")
        expect(page.locator("#seat-3")).to_contain_text("Empty")  # the seat of the one who left is free
        expect(page.locator(".vt-columns")).to_be_hidden()  # Game over: nothing to drop
        expect(page.locator(".vt-hint")).to_be_hidden()
    if how != "closes the page":  # the leaver may sit down again; here they do not
        expect(p3.locator("#seat-3").get_by_role("button", name="Sit here")).to_be_visible()
    p1.locator("[data-rematch]").click()
    expect(p1.locator("[data-rematch-wait]")).to_contain_text("Waiting for opponent")
    p2.locator("[data-rematch]").click()
    for page in watching:
        expect(page.locator("#table-status")).to_contain_text(RUNNING)
        expect(page.locator("#clock")).to_contain_text("hostess to move")


def test_a_leaver_s_page_offers_no_more_of_the_game(live_server_url, thirdoption_three, browser):
    url = live_server_url + thirdoption_three.get_absolute_url()
    p1, p2, p3 = (page_for(browser, live_server_url, name) for name in ("hostess", "opponent", "thirdwheel"))
    for page in (p1, p2, p3):
        page.goto(url)
    start(p1, p2, p3)
    expect(p3.locator("#game-area")).to_have_attribute("data-me", "3")
    p3.once("dialog", lambda dialog: dialog.accept())
    p3.get_by_role("button", name="Leave the game").click()
    expect(p3.locator("#left-note")).to_be_visible()
    expect(p3.locator("#forfeit-button")).to_have_count(0)
    expect(p3.locator("#game-area")).to_have_attribute("data-me", "0")  # watches: no keys, no tools
    expect(p3.locator(".to-tools")).to_be_hidden()
    expect(p1.locator(".to-tools")).to_be_visible()
    expect(p1.locator("#seat-3")).to_contain_text("Left the game")
    expect(p1.locator("#forfeit-button")).to_be_visible()  # the others still play


def test_the_host_frees_the_seat_of_a_player_who_is_away(live_server_url, viertris_two, browser):
    url = live_server_url + viertris_two.get_absolute_url()
    p1 = page_for(browser, live_server_url, "hostess")
    p2 = page_for(browser, live_server_url, "opponent")
    p1.goto(url)
    expect(p1.locator("#seat-2 .away-mark")).to_be_visible()  # seated, but never came
    p2.goto(url)
    expect(p1.locator("#seat-2 .away-mark")).to_have_count(0)
    expect(p1.locator("#seat-2").get_by_role("button", name="Free the seat of opponent, who is away")).to_have_count(0)
    p2.context.close()
    expect(p1.locator("#seat-2 .away-mark")).to_be_visible()
    p1.locator("#seat-2").get_by_role("button", name="Free the seat of opponent, who is away").click()
    expect(p1.locator("#seat-2")).to_contain_text("Empty")


@pytest.fixture
def short_grace(monkeypatch):
    """A player at the table who is not ready may have their seat freed after 4 s, not
    20: set before the test server forks."""
    import datetime as dt

    from lobby import selectors

    monkeypatch.setattr(selectors, "FREE_SEAT_GRACE", dt.timedelta(seconds=4))


@pytest.fixture
def viertris_host_alone(live_server_url, host, opponent):
    from lobby import services

    return services.table_create(
        player=ref(host), game="viertris", options=GAMES["viertris"].options_form.defaults(), seats_total=2
    )


@pytest.mark.parametrize("size", [(1366, 768), PHONE], ids=["desktop", "phone"])
def test_the_host_frees_the_seat_of_a_player_who_does_not_get_ready(
    short_grace, live_server_url, viertris_host_alone, browser, size
):
    url = live_server_url + viertris_host_alone.get_absolute_url()
    p1 = page_for(browser, live_server_url, "hostess", size)
    p2 = page_for(browser, live_server_url, "opponent", size)
    for page in (p1, p2):
        page.goto(url)
    p2.locator("#seat-2").get_by_role("button", name="Sit here").click()
    free = p1.locator("#seat-2").get_by_role("button", name="Free the seat of opponent, who is not ready")
    expect(p1.locator("#seat-2")).to_contain_text("Not ready")
    expect(free).to_be_hidden()  # they have a moment to get ready
    expect(free).to_be_visible(timeout=4000 + TIMEOUT)  # then it is offered, without a reload
    free.click()
    for page in (p1, p2):
        expect(page.locator("#seat-2")).to_contain_text("Empty")
    expect(p2.locator("#seat-2").get_by_role("button", name="Sit here")).to_be_visible()  # they may sit again


def test_a_key_during_the_countdown_leaves_no_message(live_server_url, tetriwar_two, browser):
    url = live_server_url + tetriwar_two.get_absolute_url()
    p1 = page_for(browser, live_server_url, "hostess")
    p2 = page_for(browser, live_server_url, "opponent")
    for page in (p1, p2):
        page.goto(url)
    p1.get_by_role("button", name="Start the game").click()
    expect(p1.locator(".countdown")).to_be_visible()
    for key in ("ArrowLeft", "ArrowUp", "Space"):
        p1.keyboard.press(key)
    expect(p1.locator(".countdown")).to_have_count(0)
    expect(p1.locator("#clock")).to_have_text(re.compile(r"^\d+:\d\d$"))
    p1.wait_for_timeout(500)
    expect(p1.locator("#ws-error")).to_have_text("")


@pytest.mark.parametrize("size", [(1366, 768), (390, 844)], ids=["desktop", "phone"])
def test_a_refusal_shows_near_the_board_and_goes(live_server_url, viertris_two, browser, size):
    url = live_server_url + viertris_two.get_absolute_url()
    p1 = page_for(browser, live_server_url, "hostess", size)
    p2 = page_for(browser, live_server_url, "opponent", size)
    for page in (p1, p2):
        page.goto(url)
    start(p1, p2)
    expect(p2.locator("#clock")).to_contain_text("hostess to move")
    p2.get_by_role("button", name="Drop in column 3").click()  # not their turn
    notice = p2.locator("#ws-error")
    expect(notice).to_contain_text("hostess")  # whose turn it is, in words
    expect(notice).to_be_in_viewport()
    board = p2.locator("#vt-board").bounding_box()
    box = notice.bounding_box()
    assert box["y"] < board["y"] + board["height"], "the message is not near the board"
    expect(notice).to_have_text("", timeout=10_000)  # it goes by itself
