"""The lobby's game cards and the invite link (issue 32, points 3 and 4), in Chromium.

The lobby fits a phone and a laptop with every game's card on it and nothing sticking
out sideways, in German too (the longest words), and its cards are reached by the keys
alone; a host copies a waiting table's link, and a friend who follows it (without a
name yet) sits down from the top of the page, which the host sees at once. Screenshots:
tests/artifacts/lobby-cards-<width>x<height>.png, invite-host.png, invite-friend.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from games.registry import GAMES
from tests.browser.test_layouts import SOCKET_OPEN, layout_problems
from tests.browser.test_tetriwar_game import log_in

pytestmark = pytest.mark.browser
# The top of each card's numbers, by the top of its card (a row of cards).
CARD_ROWS = """() => {
  const rows = {};
  for (const card of document.querySelectorAll(".lobby-card")) {
    const top = Math.round(card.getBoundingClientRect().top);
    (rows[top] = rows[top] || []).push(Math.round(card.querySelector(".lobby-card-stats").getBoundingClientRect().top));
  }
  return rows;
}"""
TIMEOUT = 10_000


@pytest.mark.parametrize("size", [(390, 844), (1366, 768)], ids=["phone", "laptop"])
def test_the_lobby_shows_every_games_card_without_sideways_scroll(live_server_url, browser, screenshot, size):
    width, height = size
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    page.set_default_timeout(TIMEOUT)
    for language in ("en", "de"):
        page.context.add_cookies([{"name": "django_language", "value": language, "url": live_server_url}])
        page.goto(f"{live_server_url}/lobby/")
        expect(page.locator("#live-dot.on")).to_be_visible()
        cards = page.locator(".lobby-card")
        expect(cards).to_have_count(len(GAMES))
        for n in range(len(GAMES)):
            expect(cards.nth(n)).to_be_visible()
        assert layout_problems(page, width, f"lobby in {language} at {width}x{height}", ".lobby-card") == []
        # The cards of a row line up: their numbers start at one height (Te-Trix's too).
        tops = page.evaluate(CARD_ROWS)
        assert all(len(set(stats)) == 1 for stats in tops.values()), tops
        screenshot(page, f"lobby-cards-{width}x{height}" + ("" if language == "en" else f"-{language}"))
    if width > 1000:  # a laptop shows every card without scrolling
        for n in range(len(GAMES)):
            box = cards.nth(n).bounding_box()
            assert box["y"] + box["height"] <= height, f"card {n + 1} runs past the bottom of the screen"


def test_the_cards_are_reached_and_used_with_the_keys(live_server_url, host, browser):
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    page.set_default_timeout(TIMEOUT)
    log_in(page, live_server_url, "hostess")
    page.goto(f"{live_server_url}/lobby/")
    practise = page.get_by_role("button", name="Practise TetriWar against a bot", exact=True)
    for _ in range(40):
        page.keyboard.press("Tab")
        if practise.evaluate("el => el === document.activeElement"):
            break
    else:
        pytest.fail("Tab never reached TetriWar's Practise button")
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Start the game")).to_be_visible()


@pytest.mark.parametrize("size", [(390, 844), (1366, 768)], ids=["phone", "desktop"])
def test_a_friend_following_the_copied_link_sits_at_the_table(live_server_url, host, browser, screenshot, size):
    host_context = browser.new_context(
        viewport={"width": 1366, "height": 768}, permissions=["clipboard-read", "clipboard-write"]
    )
    host_page = host_context.new_page()
    host_page.set_default_timeout(TIMEOUT)
    log_in(host_page, live_server_url, "hostess")
    host_page.goto(f"{live_server_url}/lobby/")
    host_page.get_by_role("link", name="New TetriWar table").click()
    host_page.get_by_role("button", name="Open the table").click()
    expect(host_page.locator("#seat-2")).to_contain_text("Empty")
    host_page.wait_for_load_state()  # the copying script is deferred: a click before it ran does nothing
    host_page.wait_for_function(SOCKET_OPEN)  # and the socket's first push, which brings the box anew, came

    # The host copies the invite link: it is on the clipboard, and in view.
    expect(host_page.locator("[data-invite-link]")).to_be_hidden()  # until asked for
    host_page.get_by_role("button", name="Copy invite link").click()
    expect(host_page.locator(".invite-said")).to_have_text("Link copied: send it to a friend.")
    link = host_page.evaluate("navigator.clipboard.readText()")
    assert link == host_page.url
    expect(host_page.locator("[data-invite-link]")).to_have_value(link)
    screenshot(host_page, "invite-host")

    # The friend, in a fresh browser and without a name, follows it: Sit is at the top.
    touch = size[0] < 1024
    friend = browser.new_context(
        viewport={"width": size[0], "height": size[1]}, has_touch=touch, is_mobile=touch
    ).new_page()
    friend.set_default_timeout(TIMEOUT)
    friend.goto(link)
    sit = friend.locator("#sit-top")
    expect(sit).to_be_in_viewport()
    screenshot(friend, f"invite-friend-{size[0]}")
    sit.click()
    friend.get_by_label("Guest name").fill("Zed")
    friend.get_by_role("button", name="Play as this guest").click()
    assert friend.url == link  # back at the table, and seated: Sit is pressed once

    expect(friend.locator("#seat-2")).to_contain_text("Zed (guest)")
    expect(friend.locator("#sit-top")).to_have_count(0)
    expect(friend.get_by_role("button", name="I'm ready")).to_be_visible()
    expect(host_page.locator("#seat-2")).to_contain_text("Zed (guest)")
    expect(host_page.locator("#table-top")).to_be_hidden()  # full now: no invite left to send
    screenshot(friend, f"invite-friend-seated-{size[0]}")


def test_without_a_clipboard_the_link_shows_selected_to_copy_by_hand(live_server_url, host, browser):
    page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    page.add_init_script("Object.defineProperty(navigator, 'clipboard', {value: undefined})")
    page.set_default_timeout(TIMEOUT)
    log_in(page, live_server_url, "hostess")
    page.goto(f"{live_server_url}/lobby/new/viertris/")
    page.get_by_role("button", name="Open the table").click()
    copy = page.get_by_role("button", name="Copy invite link")
    expect(copy).to_be_visible()
    page.wait_for_load_state()  # the copying script is deferred: a click before it ran does nothing
    page.wait_for_function(SOCKET_OPEN)  # and the socket's first push, which brings the box anew, came
    copy.click()
    field = page.get_by_label("Invite link")
    expect(field).to_be_focused()
    expect(field).to_have_value(page.url)
    assert field.evaluate("el => el.selectionEnd - el.selectionStart") == len(page.url)
    expect(page.locator(".invite-said")).to_have_text("Copy this link and send it to a friend:")
