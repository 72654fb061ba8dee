"""The site in German and in Chinese, in a browser (issue 24): a player picks the language
in the header, practises TetriWar against a bot, leaves, and reads the results in that
language; the pages hold with German's long words and with Chinese characters, at a
desktop size and a phone's.

The words expected are the catalogues' own (the test process reads the same compiled
catalogues as the server), so the test checks that the page is translated, not what
the translation says."""

from __future__ import annotations

import re

import pytest
from django.utils import translation
from playwright.sync_api import expect

from games.core.outcome import Termination
from tests.browser.test_tetriwar_game import TIMEOUT, log_in

pytestmark = pytest.mark.browser


def words(language: str, text: str) -> str:
    with translation.override(language):
        return translation.gettext(text)


@pytest.mark.parametrize(
    ("language", "size"),
    [("de", (1366, 768)), ("de", (390, 844)), ("zh-hans", (1366, 768)), ("zh-hans", (390, 844))],
    ids=["de-desktop", "de-phone", "zh-desktop", "zh-phone"],
)
def test_a_practice_game_in_german_and_in_chinese(live_server_url, host, browser, screenshot, language, size):
    page = browser.new_context(viewport={"width": size[0], "height": size[1]}).new_page()
    page.set_default_timeout(TIMEOUT)
    log_in(page, live_server_url, "hostess")
    page.locator("#language-select").select_option(language)  # the page's script sends the form
    expect(page.locator("html")).to_have_attribute("lang", language)
    page.goto(f"{live_server_url}/lobby/")
    expect(page.locator("h1")).to_have_text(words(language, "Lobby"))
    page.locator("form[action='/lobby/practice/tetriwar/'] button").click()
    page.locator("#start-button").click()
    expect(page.locator("#board-1")).to_be_visible(timeout=TIMEOUT)
    expect(page.locator("#clock")).to_have_text(re.compile(r"^[0-9]+:\d\d$"), timeout=TIMEOUT)  # started
    for key in ("ArrowLeft", "ArrowUp", "Space", "ArrowRight", "Space"):  # a few pieces
        page.keyboard.press(key)
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("#forfeit-button").click()
    assert words(language, "Results") != "Results"  # the catalogue is compiled and read
    expect(page.locator("#results-title")).to_have_text(words(language, "Results"))
    expect(page.locator("#results")).to_contain_text(words(language, Termination.FORFEIT.words))
    # The layout holds: nothing sticks out sideways, the board and the results are on screen.
    screenshot(page, f"language-{language}-{size[0]}")
    wide = page.evaluate("""() => Array.from(document.querySelectorAll('body *')).filter(
        (e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5
    ).slice(0, 8).map((e) => e.tagName + '#' + e.id + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))""")
    assert not wide, wide
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
    for selector in ("#board-1", "#results", ".topbar"):
        box = page.locator(selector).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= size[0] + 0.5, selector
    screenshot(page, f"language-{language}-{size[0]}")
    # The choice is the account's: a new browser, signed in, opens in it.
    other = browser.new_context(viewport={"width": size[0], "height": size[1]}).new_page()
    other.set_default_timeout(TIMEOUT)
    other.goto(f"{live_server_url}/accounts/login/")
    other.locator("#id_username").fill("hostess")
    other.locator("#id_password").fill("a-Long-pass-42")
    other.locator("form[action$='/accounts/login/'] button[type=submit], main form button[type=submit]").first.click()
    expect(other.locator("html")).to_have_attribute("lang", language)
