"""The chat as people see and use it (issue 33, points 2, 3 and 6), in Chromium, on a
desktop (1366×768) and a phone (390×844).

Typing in the chat box never moves a piece or fires a bomb, whatever keys the text is
made of, and a key held as the box takes the focus lets go; the game's keys work again
once the box lets go of the focus. What a player writes shows as text for the others
(no markup, no script, no link); a refused message comes back into the box with its
reason under it. A page whose socket was down gets what was written meanwhile as it
reconnects, and a reload shows the last messages. On a phone the chat is folded under
the game and counts what comes while it is folded. The lobby's chat is live.

Screenshots: tests/artifacts/chat-<what>-<desktop|phone>.png (and on a phone, the screen
scrolled to the chat: chat-<what>-phone-screen.png)."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import ARTIFACTS
from tests.browser.test_layouts import layout_problems
from tests.browser.test_tetriwar_game import log_in, piece_x
from tests.personas import ref

pytestmark = pytest.mark.browser
TIMEOUT = 15_000
DESKTOP = {"viewport": {"width": 1366, "height": 768}}
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
SIZES = {"desktop": DESKTOP, "phone": PHONE}
# Ten minutes and level 1: the piece falls a row a second, so it is still falling
# (its column and turn unchanged unless a key moves it) while a line is typed.
OPTIONS = {"minutes": 10, "start_level": 1, "lines_per_level": 10, "bombs": "manual", "pairs": False}
# Every key TetriWar plays by default (accounts/models.py DEFAULT_KEY_BINDINGS) pressed in
# the box: arrows (move, turn, soft drop), Control and Space (hard drop), 1-4 (a bomb on
# a player); then a line of text, and Enter (a bomb, in the game) sends it.
GAME_KEYS = [
    "ArrowLeft",
    "ArrowLeft",
    "ArrowRight",
    "ArrowUp",
    "ArrowDown",
    "Control",
    "Space",
    "1",
    "2",
    "3",
    "4",
]
TYPED = " left rotate drop wasd x z c 1 2 3 4 "
SENT = "1234 left rotate drop wasd x z c 1 2 3 4"  # the arrows move the box's cursor; trimmed
INJECTION = "<script>alert(1)</script><b>x</b> http://evil.example"


@pytest.fixture
def table_url(live_server_url, host, opponent, outsider) -> str:
    """Data first (no ORM calls once Playwright's event loop runs): a TetriWar table, the
    host and the opponent seated and ready."""
    from lobby import services

    table = services.table_create(player=ref(host), game="tetriwar", options=OPTIONS, seats_total=2)
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    for user in (host, opponent):
        services.seat_ready(table_id=table.pk, player=ref(user), ready=True)
    return f"{live_server_url}{table.get_absolute_url()}"


def page_of(browser, base, name, size):
    page = browser.new_context(**size).new_page()
    page.set_default_timeout(TIMEOUT)
    if name:
        log_in(page, base, name)
    return page


def frames_sent(page) -> list[dict]:
    """Every frame the page sends over its sockets, decoded, as it sends them."""
    sent: list[dict] = []

    def on_socket(socket) -> None:
        socket.on("framesent", lambda payload: sent.append(json.loads(payload)))

    page.on("websocket", on_socket)
    return sent


def say(page, text: str) -> None:
    page.locator("#chat-input").fill(text)
    page.locator("#chat-input").press("Enter")


def messages(page):
    return page.locator("#chat-log .chat-msg")


def last_text(page):
    return messages(page).last.locator(".chat-text")


def start_the_game(p1, p2) -> None:
    p1.get_by_role("button", name="Start the game").click()
    for page in (p1, p2):
        expect(page.locator("#clock")).to_have_text(re.compile(r"^(9|10):\d\d$"))
        expect(page.locator("#board-1 .fr")).to_have_count(20)
        expect(page.locator("#piece-1")).to_have_class(re.compile(r"\bpc\b"))
        expect(page.locator(".countdown")).to_have_count(0)


def turn_of(page, seat: int) -> str:
    """The piece's kind and rotation (``pc T r1``): what a key other than a move changes."""
    return " ".join(
        c
        for c in (page.locator(f"#piece-{seat}").get_attribute("class") or "").split()
        if c != "pc" and not c.startswith("drop")
    )


def blocks_on(page, seat: int) -> int:
    return page.locator(f"#board-{seat} .fr i[class]").count()


def shot(screenshot, page, name: str) -> None:
    """The whole page from its top (the header, which sticks to the top of the screen,
    would be drawn over the middle of a page scrolled to its chat); on a phone also the
    screen as its reader sees it, scrolled to the chat (<name>-screen.png)."""
    if page.viewport_size["width"] < 900:
        page.locator("#chat").scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / f"{name}-screen.png"))
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, name)


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_typing_in_the_chat_moves_no_piece_and_fires_no_bomb(
    live_server_url, table_url, browser, screenshot, size
):
    p1 = page_of(browser, live_server_url, "hostess", SIZES[size])
    p2 = page_of(browser, live_server_url, "opponent", DESKTOP)
    sent = frames_sent(p1)
    for page in (p1, p2):
        page.goto(table_url)
    start_the_game(p1, p2)
    chat, game = p1.locator("#chat"), p1.locator("#game-area")

    if size == "phone":
        # Folded under the game; a message that comes meanwhile is counted on it.
        expect(chat).not_to_have_attribute("open", "")
        assert chat.bounding_box()["y"] >= game.bounding_box()["y"] + game.bounding_box()["height"]
        say(p2, "hi from the other phone")
        expect(p1.locator("#chat .chat-unread [aria-hidden]")).to_have_text("1")
        expect(p1.locator("#chat .chat-unread .sr-only")).to_have_text("1 unread message")
        shot(screenshot, p1, "chat-folded-phone")
        p1.locator("#chat > summary").tap()
        expect(chat).to_have_attribute("open", "")
        expect(p1.locator("#chat .chat-unread")).to_be_hidden()
        expect(last_text(p1)).to_have_text("hi from the other phone")
    else:
        # In the left column, under the seats and the table's status, beside the game.
        expect(chat).to_have_attribute("open", "")
        panels = p1.locator("#table-panels").bounding_box()
        box = chat.bounding_box()
        assert box["x"] + box["width"] <= game.bounding_box()["x"]
        assert box["y"] >= panels["y"] + panels["height"]
    assert (
        layout_problems(
            p1, SIZES[size]["viewport"]["width"], f"the chat at a running table ({size})", "#chat"
        )
        == []
    )

    # A key held on the game lets go as the box takes the focus: the piece stops sliding.
    x, turn = piece_x(p1, 1), turn_of(p1, 1)
    p1.keyboard.down("ArrowLeft")
    expect(p1.locator("#piece-1")).not_to_have_attribute("style", re.compile(rf"--x:{x};"))
    p1.locator("#chat-input").click()

    def last_left() -> list[str]:
        return [f["intent"] for f in sent if f["intent"].endswith("_left")][-1:]

    for _ in range(20):  # the page's frames reach this process a moment after it sends them
        if last_left() == ["release_left"]:
            break
        p1.wait_for_timeout(50)
    assert last_left() == ["release_left"]  # before the key came up
    p1.keyboard.up("ArrowLeft")
    p1.wait_for_timeout(300)  # whatever was still on its way has arrived
    x = piece_x(p1, 1)
    expect(p2.locator("#piece-1")).to_have_attribute("style", re.compile(rf"--x:{x};"))
    blocks, score = blocks_on(p2, 1), p2.locator("#score-1 dd").first.inner_text()
    typed_from = len(sent)

    # Game keys typed into the box, then Enter sends the line.
    for key in GAME_KEYS:
        p1.keyboard.press(key)
    p1.keyboard.type(TYPED, delay=20)
    p1.keyboard.press("Enter")
    expect(last_text(p2)).to_have_text(SENT)
    expect(p1.locator("#chat-input")).to_have_value("")
    # The keys reach the Send button (Tab): Space and Enter there are the button's.
    p1.keyboard.press("Tab")
    assert p1.evaluate("document.activeElement.type") == "submit"
    p1.keyboard.press("Space")
    p1.keyboard.press("Enter")
    p1.keyboard.press("Shift+Tab")

    # Nothing went to the game: one frame, the message; the piece where it was, on this
    # page and as the server has it (the other player's page); no block dropped.
    assert [f["intent"] for f in sent[typed_from:]] == ["say"]
    for page in (p1, p2):
        expect(page.locator("#piece-1")).to_have_attribute("style", re.compile(rf"--x:{x};"))
        assert turn_of(page, 1) == turn
    assert blocks_on(p2, 1) == blocks
    assert p2.locator("#score-1 dd").first.inner_text() == score
    shot(screenshot, p1, f"chat-running-{size}")

    # The box lets go (Escape on a desktop, a tap on the game on a phone): the arrows play
    # again (to the right: the held key took the piece to the left wall, or near it).
    if size == "phone":
        p1.locator("#clock").tap()
    else:
        p1.keyboard.press("Escape")
    assert p1.evaluate("document.activeElement && document.activeElement.id") != "chat-input"
    p1.keyboard.press("ArrowRight")
    for page in (p1, p2):
        expect(page.locator("#piece-1")).to_have_attribute("style", re.compile(rf"--x:{x + 1};"))


def test_a_spectator_writes_to_the_spectators_while_the_game_runs(
    live_server_url, table_url, browser, screenshot
):
    p1 = page_of(browser, live_server_url, "hostess", DESKTOP)
    p2 = page_of(browser, live_server_url, "opponent", DESKTOP)
    watcher = page_of(browser, live_server_url, "outsider", DESKTOP)
    for page in (p1, p2, watcher):
        page.goto(table_url)
    expect(watcher.locator("#chat-input")).to_have_attribute("placeholder", "Message the table")
    start_the_game(p1, p2)
    expect(watcher.locator("#chat-input")).to_have_attribute(
        "placeholder", "Message the spectators (the players do not see it)"
    )
    expect(watcher.locator("#chat [data-chat-to]")).to_be_visible()  # the placeholder is cut short
    expect(p1.locator("#chat-input")).to_have_attribute("placeholder", "Message the table")
    expect(p1.locator("#chat [data-chat-to]")).to_be_hidden()

    say(watcher, "what a stack")
    expect(last_text(watcher)).to_have_text("what a stack")
    expect(messages(watcher).last).to_have_class(re.compile(r"\bchat-spectators\b.*\bmine\b"))
    expect(messages(watcher).last.locator(".chat-room")).to_have_text("to spectators")
    say(p1, "good luck")
    for page in (p2, watcher):
        expect(last_text(page)).to_have_text("good luck")
    # The players' logs hold the table's message and not the spectators'.
    for page in (p1, p2):
        expect(messages(page)).to_have_count(1)
    shot(screenshot, watcher, "chat-spectator-desktop")


def test_markup_in_a_message_shows_as_text_and_a_refusal_gives_the_text_back(
    live_server_url, table_url, browser, screenshot
):
    p1 = page_of(browser, live_server_url, "hostess", DESKTOP)
    p2 = page_of(browser, live_server_url, "opponent", DESKTOP)
    dialogs: list[str] = []
    for page in (p1, p2):
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        page.goto(table_url)
    expect(p1.locator("#chat .chat-empty")).to_be_visible()

    say(p1, INJECTION)
    for page in (p1, p2):
        expect(last_text(page)).to_have_text(INJECTION)
        expect(page.locator("#chat-log :is(b, script, a, img, iframe)")).to_have_count(0)
        expect(page.locator("#chat .chat-empty")).to_be_hidden()  # "no messages yet" has gone
    assert dialogs == []
    # One's own message is marked and has nothing to report or hide; the others' have both.
    expect(messages(p1).last).to_have_class(re.compile(r"\bmine\b"))
    expect(messages(p1).last.locator(".chat-actions")).to_be_hidden()
    messages(p2).last.hover()
    expect(
        messages(p2).last.get_by_role("button", name="Report this message of hostess to the moderators")
    ).to_be_visible()

    # Too fast: the message that is refused comes back into the box, its reason under it
    # (and not over the game).
    for n in range(1, 12):
        text = f"message number {n}"
        say(p1, text)
        expect(last_text(p1).filter(has_text=text).or_(p1.locator("#chat-said.error"))).to_be_visible()
        if p1.locator("#chat-said.error").is_visible():
            break
    else:
        pytest.fail("eleven messages in a row were all written: no budget")
    expect(p1.locator("#chat-said")).to_contain_text("too fast")
    expect(p1.locator("#chat-input")).to_have_value(text)
    expect(p1.locator("#ws-error")).to_have_text("")
    assert p2.locator("#chat-log .chat-text", has_text=text).count() == 0
    shot(screenshot, p2, "chat-text-only-desktop")
    shot(screenshot, p1, "chat-refused-desktop")


# The page's socket, as htmx's ws extension keeps it (``htmx-internal-data``): closed
# here with a code htmx does not reconnect after by itself, and opened again as htmx
# reconnects (the wrapper's ``init``).
SOCKET = "document.getElementById('table-socket')['htmx-internal-data'].webSocket.socket"
DROP = SOCKET + ".close(4000)"
RECONNECT = "document.getElementById('table-socket')['htmx-internal-data'].webSocket.init()"


def test_what_was_written_while_a_socket_was_down_is_there_when_it_reconnects(
    live_server_url, table_url, browser, screenshot
):
    p1 = page_of(browser, live_server_url, "hostess", DESKTOP)
    p2 = page_of(browser, live_server_url, "opponent", DESKTOP)
    for page in (p1, p2):
        page.goto(table_url)
    say(p1, "before the cut")
    expect(last_text(p2)).to_have_text("before the cut")

    # Sent while the socket is closing (closed, but its close not yet told): that says so,
    # and the text stays in the box, as without a socket (the socket's wrapper would keep
    # it and send it again on reconnecting, while the box sent it too).
    p2.locator("#chat-input").fill("typed while cut off")
    p2.evaluate(DROP + "; document.getElementById('chat-input').form.requestSubmit()")
    expect(p2.locator("#chat-said")).to_contain_text("Not connected")
    expect(p2.locator("#chat-input")).to_have_value("typed while cut off")
    # And once the close is told too.
    p2.wait_for_function(SOCKET + ".readyState === WebSocket.CLOSED")
    p2.locator("#chat-input").press("Enter")
    expect(p2.locator("#chat-said")).to_contain_text("Not connected")
    expect(p2.locator("#chat-input")).to_have_value("typed while cut off")

    say(p1, "while you were away 1")
    say(p1, "while you were away 2")
    expect(last_text(p1)).to_have_text("while you were away 2")
    p2.wait_for_timeout(300)
    expect(p2.locator("#chat-log .chat-text", has_text="while you were away")).to_have_count(0)

    p2.evaluate(RECONNECT)
    expect(p2.locator("#chat-log .chat-text")).to_have_text(
        ["before the cut", "while you were away 1", "while you were away 2"]
    )
    # The box came again with the log: what was typed in it is still there, and goes now.
    expect(p2.locator("#chat-input")).to_have_value("typed while cut off")
    p2.locator("#chat-input").press("Enter")
    expect(last_text(p1)).to_have_text("typed while cut off")

    p2.reload()
    expect(p2.locator("#chat-log .chat-text")).to_have_text(
        ["before the cut", "while you were away 1", "while you were away 2", "typed while cut off"]
    )
    expect(messages(p2).last).to_have_class(re.compile(r"\bmine\b"))
    shot(screenshot, p2, "chat-after-reconnect-desktop")


def test_the_lobby_chat_is_live_on_a_desktop_and_a_phone(
    live_server_url, host, opponent, browser, screenshot
):
    desk = page_of(browser, live_server_url, "hostess", DESKTOP)
    phone = page_of(browser, live_server_url, "opponent", PHONE)
    visitor = page_of(browser, live_server_url, "", DESKTOP)  # not logged in: reads only
    sent = frames_sent(desk)
    for page in (desk, phone, visitor):
        page.goto(f"{live_server_url}/lobby/")
        expect(page.locator("#live-dot.on")).to_be_visible()
    for page in (desk, phone):
        expect(page.locator("#chat-input")).to_have_attribute("placeholder", "Message the lobby")
    expect(visitor.locator("#chat-box")).to_contain_text("Log in or sign up to write in the chat.")

    # On a desktop the chat stands beside the tables; on a phone, folded under them.
    tables, chat = desk.locator("#table-list").bounding_box(), desk.locator("#chat").bounding_box()
    assert chat["x"] >= tables["x"] + tables["width"]
    expect(phone.locator("#chat")).not_to_have_attribute("open", "")
    tables, chat = phone.locator("#table-list").bounding_box(), phone.locator("#chat").bounding_box()
    assert chat["y"] >= tables["y"] + tables["height"]

    # Enter, then Send at once: one message.
    desk.locator("#chat-input").fill("anyone for TetriWar?")
    desk.locator("#chat-input").press("Enter")
    desk.get_by_role("button", name="Send").click()
    expect(last_text(visitor)).to_have_text("anyone for TetriWar?")
    expect(phone.locator("#chat .chat-unread [aria-hidden]")).to_have_text("1")
    phone.locator("#chat > summary").tap()
    expect(last_text(phone)).to_have_text("anyone for TetriWar?")
    expect(phone.locator("#chat .chat-unread")).to_be_hidden()
    say(phone, "me! open a table")
    expect(last_text(desk)).to_have_text("me! open a table")
    assert [f for f in sent if f.get("intent") == "say"] == [
        {"intent": "say", "text": "anyone for TetriWar?"}
    ]
    expect(messages(visitor)).to_have_count(2)
    # A viewer who may not report sees no report or hide buttons.
    messages(visitor).last.hover()
    expect(visitor.locator("#chat-log .chat-act").first).to_be_hidden()

    # Too long, typed or pasted, on either: said at once and not sent, nothing cut off; a
    # message of the most characters the chat takes (Chinese, three bytes each) goes.
    for page in (desk, phone):
        box = page.locator("#chat-input")
        box.fill("字" * 350)
        expect(page.locator("#chat-said")).to_have_text("50 characters too many: a message has at most 300.")
        box.press("Enter")
        expect(box).to_have_value("字" * 350)  # kept, to shorten
        box.press("Backspace")
        expect(page.locator("#chat-said")).to_contain_text("49 characters too many")
        box.fill("字" * 300)
        expect(page.locator("#chat-said")).to_have_text("")
    say(phone, "字" * 300)
    expect(last_text(desk)).to_have_text("字" * 300)
    expect(messages(visitor)).to_have_count(3)

    # A long word wraps inside the log rather than widening it.
    say(desk, "a" * 200)
    expect(last_text(phone)).to_have_text("a" * 200)
    assert phone.locator("#chat-log").evaluate("log => log.scrollWidth <= log.clientWidth")
    for page, size in ((desk, "desktop"), (phone, "phone")):
        width = SIZES[size]["viewport"]["width"]
        assert layout_problems(page, width, f"the lobby's chat ({size})", "#chat") == []
        shot(screenshot, page, f"chat-lobby-{size}")
