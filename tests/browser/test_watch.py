"""The watch on every page (tests/browser/conftest.py) hears what it must: a console
error, a console warning and an uncaught exception each fail a browser test."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def test_console_errors_warnings_and_uncaught_exceptions_are_heard(live_server_url, browser, page_problems):
    page = browser.new_context().new_page()
    page.goto(f"{live_server_url}/games/")
    page.evaluate(
        "console.warn('a warning'); console.error('an error'); console.log('a note');"
        "setTimeout(() => { throw new Error('an uncaught one'); });"
    )
    page.wait_for_function("() => new Promise((done) => setTimeout(() => done(true), 200))")
    heard = list(page_problems)
    page_problems.clear()  # this test's own problems, heard as they must be: the test passes
    assert any(p.startswith("console warning on") and "a warning" in p for p in heard), heard
    assert any(p.startswith("console error on") and "an error" in p for p in heard), heard
    assert any(p.startswith("uncaught exception on") and "an uncaught one" in p for p in heard), heard
    assert not any("a note" in p for p in heard), heard


@pytest.mark.django_db
def test_between_tests_the_shared_browser_leaves_the_thread_free_for_the_orm_and_other_loops(chromium):
    """One Chromium serves every browser test (conftest.py's ``chromium``): Playwright's loop
    is the thread's running loop only while a test drives it, so the fixtures of the next
    test may use the ORM, asgiref's async_to_sync and loops of their own."""
    import asyncio

    from asgiref.sync import async_to_sync

    from accounts.models import User

    page = chromium.lend().new_page()
    page.set_content("<p>one</p>")
    assert asyncio.events._get_running_loop() is chromium.loop  # Playwright's, while it drives
    page.close()
    chromium.park()
    assert asyncio.events._get_running_loop() is None
    assert User.objects.count() == 0  # no SynchronousOnlyOperation
    assert async_to_sync(asyncio.sleep)(0, result="slept") == "slept"
    assert asyncio.run(asyncio.sleep(0, result="ran")) == "ran"
    page = chromium.lend().new_page()  # and the browser serves the next test
    page.set_content("<p>two</p>")
    assert page.locator("p").inner_text() == "two"
    page.close()
    chromium.park()
