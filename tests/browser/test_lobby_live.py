from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

TIMEOUT = 10_000


def test_a_new_table_appears_live_and_a_seat_taken_shows_at_the_host(live_server_url, browser, screenshot):
    host = browser.new_context(viewport={"width": 1280, "height": 860}).new_page()
    guest = browser.new_context(viewport={"width": 390, "height": 844}).new_page()  # a phone
    for page in (host, guest):
        page.set_default_timeout(TIMEOUT)

    # The guest picks a name and waits in the lobby before the table exists.
    guest.goto(f"{live_server_url}/accounts/guest/")
    guest.get_by_label("Guest name").fill("Zed")
    guest.get_by_role("button", name="Play as this guest").click()
    guest.goto(f"{live_server_url}/lobby/")
    expect(guest.locator("#live-text")).to_have_text("Live.")
    expect(guest.locator("#table-list li.table-row")).to_have_count(0)

    # The host signs up and opens a table.
    host.goto(f"{live_server_url}/accounts/signup/")
    host.get_by_label("Username").fill("alice")
    host.get_by_label("Email").fill("alice@example.com")
    host.get_by_label("Password", exact=True).fill("correct-horse-42")
    host.get_by_label("Password confirmation").fill("correct-horse-42")
    host.get_by_role("button", name="Create my account").click()
    expect(host.locator("#nav-chips")).to_have_text("1000")
    host.get_by_role("link", name="New TetriWar table").click()
    host.get_by_label("Name").fill("Alice vs the world")
    host.get_by_role("button", name="Open the table").click()
    expect(host.locator("h1")).to_have_text("Alice vs the world")
    expect(host.locator("#seat-1")).to_contain_text("alice")
    expect(host.locator("#seat-2")).to_contain_text("Empty")

    # Without reloading, the guest's lobby shows it.
    row = guest.locator("#table-list li.table-row")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("Alice vs the world")
    expect(row.locator(".seats-count")).to_have_text("1/2")
    screenshot(guest, "lobby-phone")

    # The guest sits down; the host sees the seat taken without reloading.
    row.get_by_role("link", name="Join").click()
    guest.locator("#seat-2").get_by_role("button", name="Sit here").click()
    expect(guest.locator("#seat-2")).to_contain_text("Zed (guest)")
    expect(host.locator("#seat-2")).to_contain_text("Zed (guest)")

    # Both mark ready; the host's start button becomes usable.
    guest.get_by_role("button", name="I'm ready").click()
    host.get_by_role("button", name="I'm ready").click()
    expect(host.locator("#seat-1 .ready-mark")).to_be_visible()
    expect(host.locator("#seat-2 .ready-mark")).to_be_visible()
    expect(host.locator("#start-button")).not_to_have_attribute("aria-disabled", "true")
    screenshot(host, "table-ready")
