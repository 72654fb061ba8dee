"""Every page runs under the site's strict Content-Security-Policy (config/settings.py)
without a violation or a console error, on a desktop and on a phone.

Each page is checked as it is left (its own ``securitypolicyviolation`` events); the
``browser`` fixture also fails the test on any console error or uncaught exception
of any page (tests/browser/conftest.py)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_tetriwar_game import log_in
from tests.personas import ref

pytestmark = pytest.mark.browser
TIMEOUT = 15_000
VIEWPORTS = {"desktop": {"width": 1366, "height": 768}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(params=list(VIEWPORTS), ids=list(VIEWPORTS))
def viewport(request) -> dict[str, int]:
    return VIEWPORTS[request.param]


@pytest.fixture
def open_page(browser, viewport):
    def open_():
        page = browser.new_context(viewport=viewport).new_page()
        page.set_default_timeout(TIMEOUT)
        return page

    return open_


def assert_strict_policy(response) -> None:
    policy = response.headers.get("content-security-policy", "")
    directives = dict(d.strip().partition(" ")[::2] for d in policy.split(";"))
    assert directives.get("script-src") == "'self'", policy
    assert directives.get("default-src") == "'self'" and directives.get("frame-ancestors") == "'none'", policy


def assert_no_violation(page, what: str) -> None:
    violations = page.evaluate("window.__cspViolations")
    assert violations == [], f"{what}: {violations}"


def visit(page, url: str) -> None:
    response = page.goto(url)
    assert response is not None and response.ok, f"{url}: {response and response.status}"
    assert_strict_policy(response)
    page.wait_for_load_state("load")
    assert_no_violation(page, url)


def test_public_pages(live_server_url, open_page, viewport, screenshot):
    page = open_page()
    for path in (
        "/",
        "/accounts/signup/",
        "/accounts/login/",
        "/accounts/guest/",
        "/accounts/password/reset/",
        "/games/",
        "/games/tetriwar/how-to-play/",
        "/games/viertris/how-to-play/",
        "/games/leaderboard/tetriwar/",
        "/games/leaderboard/viertris/",
    ):
        visit(page, live_server_url + path)
    screenshot(page, f"csp-leaderboard-{viewport['width']}")


def test_player_pages_and_running_games(live_server_url, host, open_page, viewport, screenshot):
    page = open_page()
    log_in(page, live_server_url, "hostess")
    for path in (
        "/accounts/profile/",
        "/accounts/profile/keys/",
        "/accounts/password/change/",
        "/accounts/players/hostess/",
    ):
        visit(page, live_server_url + path)
    screenshot(page, f"csp-profile-{viewport['width']}")

    visit(page, f"{live_server_url}/lobby/")
    expect(page.locator("#live-text")).to_have_text("Live.")  # the socket is allowed

    # A running TetriWar game, played with the keys, and watched by a visitor.
    page.get_by_role("button", name="Practise TetriWar against a bot").click()
    page.get_by_role("button", name="Start the game").click()
    expect(page.locator("#clock")).to_have_text(re.compile(r"^[23]:\d\d$"))
    for key in ("ArrowLeft", "ArrowUp", "ArrowRight", "Space"):
        page.keyboard.press(key)
    expect(page.locator("#board-1 .fr i[class]").first).to_be_visible()
    expect(page.locator("#piece-1")).to_have_attribute("style", re.compile(r"--x:-?\d+;"))
    watcher = open_page()
    visit(watcher, page.url)
    expect(watcher.locator("#board-2 .fr")).to_have_count(20)
    expect(watcher.locator("#board-2 .fr i[class]").first).to_be_visible()  # the bot plays on
    screenshot(page, f"csp-tetriwar-{viewport['width']}")
    assert_no_violation(page, "the TetriWar table")
    assert_no_violation(watcher, "the TetriWar table, watched")

    # A running Viertris game: a move, the bot's answer, and a visitor.
    visit(page, f"{live_server_url}/lobby/")
    page.get_by_role("button", name="Practise Viertris against a bot").click()
    page.get_by_role("button", name="Start the game").click()
    expect(page.locator("#clock")).to_contain_text("hostess to move")
    page.get_by_role("button", name="Drop in column 1").click()
    expect(page.locator("#vt-log li")).to_have_count(2)
    visit(watcher, page.url)
    expect(watcher.locator("#vt-log li")).to_have_count(2)
    screenshot(page, f"csp-viertris-{viewport['width']}")
    assert_no_violation(page, "the Viertris table")
    assert_no_violation(watcher, "the Viertris table, watched")


@pytest.fixture
def open_table(make_table, host):
    # Data first: no ORM calls once Playwright's event loop runs (STACK.md, pitfall 4).
    return make_table(ref(host))


def test_admin_pages(live_server_url, admin_user, host, open_table, open_page, viewport):
    page = open_page()
    page.goto(f"{live_server_url}/admin/login/")
    page.get_by_label("Username").fill("moderator")
    page.get_by_label("Password").fill("a-Long-pass-42")
    page.get_by_role("button", name="Log in").click()
    expect(page.locator("#site-name")).to_be_visible()
    assert_no_violation(page, "/admin/")

    # Every list and form the index links to, and the first object of each list.
    links = page.locator("#content-main a[href]").evaluate_all("links => links.map(a => a.href)")
    assert len(links) >= 4
    for url in dict.fromkeys(links):
        visit(page, url)
        first = page.locator("#result_list tbody tr th a").first
        if first.count():
            visit(page, first.evaluate("a => a.href"))

    # The moderation pages: adjust chips, and the ban action's confirmation.
    visit(page, f"{live_server_url}/admin/accounts/user/{host.pk}/adjust-chips/")
    visit(page, f"{live_server_url}/admin/accounts/user/")
    page.locator(f"#result_list input[value='{host.pk}']").check()
    page.locator("select[name=action]").select_option("ban_users")
    page.locator(".actions button[type=submit]").click()
    expect(page.locator("h1")).to_contain_text("Ban")
    assert_no_violation(page, "the ban confirmation")
