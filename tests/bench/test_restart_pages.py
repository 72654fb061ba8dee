"""bench/restart.py's pages try again as the site's pages do (static/js/socket_retry.js)."""

from __future__ import annotations

import re
from pathlib import Path

from bench import restart

PAGE = (Path(__file__).resolve().parents[2] / "static" / "js" / "socket_retry.js").read_text()


def constant(name: str) -> int:
    return int(re.search(rf"export const {name} = (\d+);", PAGE).group(1))


def test_the_bench_pages_wait_as_long_as_the_site_pages_before_trying_again():
    assert restart.RETRY_FLAT_S * 1000 == constant("FLAT_MS")
    assert restart.RETRY_FLAT == constant("FLAT_RETRIES")
    assert restart.RETRY_MAX_DOUBLINGS == constant("MAX_DOUBLINGS")
