"""Browser tests: a real Daphne server in a child process and Debian's Chromium
driven by Playwright. They skip without Chromium, except under CI=true.

Every page a browser test opens is watched: a console error or warning, an uncaught
exception or a Content-Security-Policy violation fails the test (``page_problems``).
The ``browser`` fixture is the only way tests reach Chromium, so every browser test
is watched without asking for it."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest

from tests.needs import CHROMIUM, need_chromium

ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
# Assertions wait for the live page up to this long: a loaded 2-core CI machine
# can take more than Playwright's default 5 s to open a socket.
EXPECT_TIMEOUT_MS = 15_000
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def _in_the_server_process() -> None:
    """The test server is a fork of this process, which keeps no threads but its own.
    asgiref's executor for thread-sensitive calls (every ``database_sync_to_async``)
    would still count the thread that an earlier test of this process started, and
    hand it work that nothing runs: the server's first database call would hang."""
    from concurrent.futures import ThreadPoolExecutor

    from asgiref.sync import SyncToAsync
    from channels.testing.live import set_database_connection

    SyncToAsync.single_thread_executor = ThreadPoolExecutor(max_workers=1)
    set_database_connection()


@pytest.fixture
def live_server_url(transactional_db, settings):
    """The site served by Daphne (HTTP and WebSockets) on a free port."""
    from channels.testing.live import make_application
    from daphne.testing import DaphneProcess
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

    settings.CHANNEL_LAYERS = {"default": settings.EMBEDDED_CHANNEL_LAYER}
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    server = DaphneProcess(
        "localhost",
        partial(make_application, static_wrapper=ASGIStaticFilesHandler),
        setup=_in_the_server_process,
    )
    server.start()
    while not server.ready.wait(timeout=1):
        if not server.is_alive():
            raise RuntimeError("the test server did not start")
    yield f"http://localhost:{server.port.value}"
    server.terminate()
    server.join()


# Runs in every page before its own scripts. Chromium also prints each violation on
# the console; the list lets a test ask a page for its own.
WATCH_CSP = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__cspViolations.push(
    `${e.effectiveDirective} refused ${e.blockedURI || "inline"} (${e.sourceFile}:${e.lineNumber})`);
});
"""


# htmx reports a live region that found no target (``htmx:oobErrorNoTarget``) as a
# console error; browsers report deprecated or refused features as warnings.
PROBLEM_CONSOLE_TYPES = ("error", "warning")


def watch(context, problems: list[str]) -> None:
    """Collect what goes wrong in the context's pages into ``problems``."""
    context.add_init_script(WATCH_CSP)

    def on_console(message) -> None:
        if message.type in PROBLEM_CONSOLE_TYPES:
            where = message.location or {}
            problems.append(
                f"console {message.type} on {message.page.url if message.page else '?'}: {message.text}"
                f" ({where.get('url', '?')}:{where.get('lineNumber', '?')})"
            )

    def on_page(page) -> None:
        # An uncaught exception in the page's own scripts (``weberror`` on the context
        # hears the same; the page's event is the one every Playwright version has).
        page.on("pageerror", lambda error: problems.append(f"uncaught exception on {page.url}: {error}"))

    context.on("console", on_console)
    context.on("page", on_page)


@pytest.fixture
def page_problems() -> list[str]:
    """Console errors, uncaught exceptions and CSP violations of the test's pages."""
    return []


@pytest.fixture
def browser(page_problems):
    need_chromium()
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=EXPECT_TIMEOUT_MS)
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        # Every context a test opens is watched; tests open pages through contexts.
        new_context = chromium.new_context

        def watched_context(**kwargs):
            context = new_context(**kwargs)
            watch(context, page_problems)
            return context

        chromium.new_context = watched_context
        chromium.new_page = lambda **kwargs: watched_context(**kwargs).new_page()
        yield chromium
        for context in chromium.contexts:
            for page in context.pages:
                try:
                    violations = page.evaluate("window.__cspViolations || []")  # also lets late events in
                except PlaywrightError:
                    continue  # the page is navigating or gone; its console was heard all along
                page_problems.extend(f"CSP violation on {page.url}: {v}" for v in violations)
        chromium.close()
    assert not page_problems, "the pages reported problems:\n" + "\n".join(dict.fromkeys(page_problems))


@pytest.fixture
def screenshot():
    ARTIFACTS.mkdir(exist_ok=True)

    def take(page, name: str) -> Path:
        path = ARTIFACTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take
