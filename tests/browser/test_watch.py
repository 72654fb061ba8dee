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
