"""The chat's times in Chromium (static/js/datetimes.js) read as the server writes the
same instant (config/formats): the browser's ICU, not node's, is the one readers have."""

from __future__ import annotations

from pathlib import Path

from tests.config.test_date_formats import _cases, _server_texts

SOURCE = (Path(__file__).resolve().parents[2] / "static/js/datetimes.js").read_text()


def test_chromium_writes_the_chat_s_times_as_the_server_does(browser):
    page = browser.new_page()
    body = SOURCE.replace("export function", "function")
    texts = page.evaluate(
        f"(cases) => {{ {body}\n return cases.map(([iso, language, kind]) => whenText(iso, language, kind, 'UTC')); }}",
        _cases(),
    )
    assert texts == _server_texts()
