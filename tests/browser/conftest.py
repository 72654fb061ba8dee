"""Browser tests: a real Daphne server in a child process and Debian's Chromium
driven by Playwright. They skip without Chromium, except under CI=true.

Every page a browser test opens is watched: a console error or warning, an uncaught
exception or a Content-Security-Policy violation fails the test (``page_problems``).
The ``browser`` fixture is the only way tests reach Chromium, so every browser test
is watched without asking for it. One Chromium serves the whole run (``chromium``);
each test has contexts of its own, closed as it ends."""

from __future__ import annotations

import asyncio
import os
import signal
import time
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


class ServerClock:
    """The test server's game clock (``games.host.clock``, as the live tests' fake clock),
    which a test may move forward: a one-minute game then runs its minute in seconds,
    through the same engine steps that a server catching up after a stall takes."""

    def __init__(self) -> None:
        import multiprocessing

        self.ahead = multiprocessing.Value("d", 0.0)  # seconds, shared with the forked server

    def __call__(self) -> float:
        return time.monotonic() + self.ahead.value

    def advance(self, seconds: float) -> None:
        with self.ahead.get_lock():
            self.ahead.value += seconds


def _in_the_server_process(clock: ServerClock) -> None:
    """The test server is a fork of this process, which keeps no threads but its own.
    asgiref's executor for thread-sensitive calls (every ``database_sync_to_async``)
    would still count the thread that an earlier test of this process started, and
    hand it work that nothing runs: the server's first database call would hang."""
    from concurrent.futures import ThreadPoolExecutor

    from asgiref.sync import SyncToAsync
    from channels.testing.live import set_database_connection

    from games import host
    from lobby import arenas

    SyncToAsync.single_thread_executor = ThreadPoolExecutor(max_workers=1)
    set_database_connection()
    host.clock = clock
    arenas.clock = partial(_arena_time, clock)  # an arena's minutes pass with its games'

    signal.signal(signal.SIGTERM, _stop_at_once)
    _untraced()


def _arena_time(clock: ServerClock):
    import datetime as dt

    from django.utils import timezone

    return timezone.now() + dt.timedelta(seconds=clock.ahead.value)


def _stop_at_once(signum, frame) -> None:
    """The test server, terminated by its test, stops at once as SIGTERM's default does
    (under coverage the handler inherited from the test process would run instead, and
    the fork's way out through Python's exit waited for threads that never end)."""
    os._exit(0)


def _untraced() -> None:
    """The fork inherits the test process's coverage tracer, when it measures (``make
    test``): stopped here, unsaved. A browser test checks the page; traced, the server
    took those tests twice as long, and tests/live measures its code in-process."""
    try:
        import coverage
    except ImportError:
        return
    measuring = coverage.Coverage.current()
    if measuring is not None:
        measuring.stop()


@pytest.fixture
def server_clock() -> ServerClock:
    return ServerClock()


@pytest.fixture
def live_server_url(transactional_db, settings, server_clock):
    """The site served by Daphne (HTTP and WebSockets) on a free port."""
    from channels.testing.live import make_application
    from daphne.testing import DaphneProcess
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

    settings.CHANNEL_LAYERS = {"default": settings.EMBEDDED_CHANNEL_LAYER}
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    server = DaphneProcess(
        "localhost",
        partial(make_application, static_wrapper=ASGIStaticFilesHandler),
        setup=partial(_in_the_server_process, server_clock),
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


class Chromium:
    """The one Chromium of a test run, started by the first browser test that asks.

    Playwright's synchronous API drives it from an event loop of its own, which it marks
    as the thread's running loop after every call (playwright's ``SyncBase._sync``). While
    a test drives its pages that is as it should be; between tests it must not be, or the
    next test's data fixtures would run "inside" that loop: Django refuses ORM calls there
    (``SynchronousOnlyOperation``), asgiref's ``async_to_sync`` refuses to run, and
    pytest-asyncio could not run a loop of its own. So the loop is marked running for a
    test's ``browser`` alone (``lend``) and unmarked after it (``park``), with asyncio's
    ``_set_running_loop`` (exported in ``asyncio.events.__all__``, and checked here as
    STYLE.md asks: ``tests/browser/test_watch.py`` fails if it stops doing its job)."""

    def __init__(self) -> None:
        from playwright.sync_api import sync_playwright

        self.playwright = sync_playwright().start()
        self.loop = asyncio.get_running_loop()  # Playwright's own, marked running by its start
        self.browser = self.launch()
        self.park()

    def launch(self):
        return self.playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)

    def lend(self):
        """The browser, for a test to drive; started again if it is gone (a crash)."""
        asyncio.events._set_running_loop(self.loop)
        if not self.browser.is_connected():
            self.browser = self.launch()
        return self.browser

    def park(self) -> None:
        asyncio.events._set_running_loop(None)
        if asyncio.events._get_running_loop() is not None:
            raise RuntimeError("asyncio no longer lets the tests unmark Playwright's loop between tests")

    def stop(self) -> None:
        asyncio.events._set_running_loop(self.loop)
        try:
            self.browser.close()
        finally:
            self.playwright.stop()
            asyncio.events._set_running_loop(None)


@pytest.fixture(scope="session")
def chromium():
    """One Chromium for the run: launching one costs a second or two, a context a tenth."""
    need_chromium()
    shared = Chromium()
    yield shared
    shared.stop()


class WatchedBrowser:
    """What a test sees of the shared Chromium: every context it opens is watched and
    closed when the test ends; the rest is the browser's own."""

    def __init__(self, browser, problems: list[str]) -> None:
        self._browser = browser
        self._problems = problems
        self.contexts: list = []

    def new_context(self, **kwargs):
        context = self._browser.new_context(**kwargs)
        watch(context, self._problems)
        self.contexts.append(context)
        return context

    def new_page(self, **kwargs):
        return self.new_context(**kwargs).new_page()

    def close(self) -> None:
        from playwright.sync_api import Error as PlaywrightError

        for context in self.contexts:
            for page in context.pages:
                try:
                    violations = page.evaluate("window.__cspViolations || []")  # also lets late events in
                except PlaywrightError:
                    continue  # the page is navigating or gone; its console was heard all along
                self._problems.extend(f"CSP violation on {page.url}: {v}" for v in violations)
        for context in self.contexts:
            try:
                context.close()
            except PlaywrightError:
                pass  # closed already (the browser was restarted under it)

    def __getattr__(self, name: str):
        return getattr(self._browser, name)


@pytest.fixture
def browser(chromium, page_problems):
    from playwright.sync_api import expect

    expect.set_options(timeout=EXPECT_TIMEOUT_MS)
    watched = WatchedBrowser(chromium.lend(), page_problems)
    try:
        yield watched
        watched.close()
    finally:
        chromium.park()
    assert not page_problems, "the pages reported problems:\n" + "\n".join(dict.fromkeys(page_problems))


@pytest.fixture
def screenshot():
    ARTIFACTS.mkdir(exist_ok=True)

    def take(page, name: str) -> Path:
        path = ARTIFACTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take
