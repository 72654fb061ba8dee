"""Browser tests: a real Daphne server in a child process and Debian's Chromium
driven by Playwright. They skip without Chromium, except under CI=true."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest

from conftest import CHROMIUM, need_chromium

ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
# Assertions wait for the live page up to this long: a loaded 2-core CI machine
# can take more than Playwright's default 5 s to open a socket.
EXPECT_TIMEOUT_MS = 15_000
CHROMIUM_ARGS = [
    "--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
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


@pytest.fixture
def browser():
    need_chromium()
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=EXPECT_TIMEOUT_MS)
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def screenshot():
    ARTIFACTS.mkdir(exist_ok=True)

    def take(page, name: str) -> Path:
        path = ARTIFACTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take
