"""Names in a browser, in each reader's language (issue 30, points 8 and 10): a
German reader's Block-Killer practice is "Übung von hostess" with "Alan (Bot, gierig)"
and "Grace (Bot, gierig)" for them, and "hostess practice" with "Alan (bot, greedy)"
for an English reader, in the lobby, the table page and the running game."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_tetriwar_game import TIMEOUT, log_in

pytestmark = pytest.mark.browser
SIZES = [(1366, 768), (390, 844)]


def assert_names_whole(page):
    """Every name in the seat panel shows whole, its bot's words included: it wraps
    rather than end in "…" (a narrow seat panel, a phone, a longer language)."""
    names = page.locator("#seat-panel .seat-name")
    expect(names.first).to_be_visible()
    clipped = names.evaluate_all(
        "els => els.filter(e => e.scrollWidth > e.clientWidth || e.scrollHeight > e.clientHeight + 1)"
        ".map(e => e.textContent.trim())"
    )
    assert clipped == []


@pytest.mark.parametrize("size", SIZES, ids=["desktop", "phone"])
def test_a_german_readers_practice_reads_in_each_readers_language(live_server_url, host, browser, size):
    viewport = {"width": size[0], "height": size[1]}
    german = browser.new_context(viewport=viewport).new_page()
    german.set_default_timeout(TIMEOUT)
    log_in(german, live_server_url, "hostess")
    german.locator("#language-select").select_option("de")
    expect(german.locator("html")).to_have_attribute("lang", "de")
    german.goto(f"{live_server_url}/lobby/")
    german.locator("form[action='/lobby/practice/blockkiller/'] button").click()
    expect(german.locator("h1")).to_have_text("Übung von hostess")
    expect(german).to_have_title("Übung von hostess · TetriWar")
    expect(german.locator("#seat-2")).to_contain_text("Alan (Bot, gierig)")
    expect(german.locator("#seat-3")).to_contain_text("Grace (Bot, gierig)")
    assert_names_whole(german)
    table_url = german.url
    german.locator("#start-button").click()
    game = german.locator("#game")
    expect(game).to_contain_text("Alan (Bot, gierig)", timeout=TIMEOUT)
    expect(game).to_contain_text("Grace (Bot, gierig)")
    expect(game).not_to_contain_text("(bot,")
    assert_names_whole(german)
    german.screenshot(path=f"/tmp/wt-names-de-{size[0]}.png")

    english = browser.new_context(viewport=viewport).new_page()
    english.set_default_timeout(TIMEOUT)
    english.goto(f"{live_server_url}/lobby/")
    expect(english.locator(".table-row h3").first).to_have_text("hostess practice")
    english.goto(table_url)
    expect(english.locator("h1")).to_have_text("hostess practice")
    expect(english.locator("#game")).to_contain_text("Alan (bot, greedy)", timeout=TIMEOUT)
    expect(english.locator("#game")).to_contain_text("Grace (bot, greedy)")
    english.screenshot(path=f"/tmp/wt-names-en-{size[0]}.png")


@pytest.mark.parametrize("size", SIZES, ids=["desktop", "phone"])
def test_a_spanish_guests_practice_shows_every_name_whole(live_server_url, browser, size):
    # "Beatrix (invitado) (tú)" and "Alan (bot, codicioso)" beside their marks and the
    # Remove button once ended in "…" in the seat panel, on a phone and on a desktop.
    page = browser.new_context(viewport={"width": size[0], "height": size[1]}).new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(f"{live_server_url}/accounts/guest/")
    page.locator("input[name=name]").fill("Beatrix")
    page.locator("form button[type=submit]").last.click()
    page.locator("#language-select").select_option("es")
    expect(page.locator("html")).to_have_attribute("lang", "es")
    page.goto(f"{live_server_url}/lobby/")
    page.locator("form[action='/lobby/practice/viertris/'] button").click()
    expect(page.locator("#seat-1")).to_contain_text("Beatrix (invitado)")
    expect(page.locator("#seat-2")).to_contain_text("Alan (bot, codicioso)")
    assert_names_whole(page)
    page.locator("#start-button").click()
    expect(page.locator("#game")).to_contain_text("Alan (bot, codicioso)")
    assert_names_whole(page)
