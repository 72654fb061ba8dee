"""bench/open.py: a TetriWar table page opened cold and warm through the delaying proxy."""

from __future__ import annotations

import pytest

from tests.bench.runs import run_bench
from tests.needs import need_chromium


@pytest.mark.browser
def test_a_short_run_opens_the_page_cold_and_warm_and_a_warm_page_fetches_its_document_alone():
    need_chromium()
    run = run_bench("open.py", "--runs", "1", "--delay", "25", timeout=600)
    figures = run.figures
    for device in ("desktop", "phone"):
        for delay in ("0ms", "50ms"):
            cold, warm = f"cold_{device}_{delay}", f"warm_{device}_{delay}"
            assert float(figures[f"{cold}_dcl_ms"]) > 0, run.stdout
            assert int(figures[f"{cold}_requests"]) >= 10, run.stdout  # the document and its files
            # every file the page loads is hashed and kept: a returning player's page asks
            # the network for its document alone
            assert figures[f"{warm}_requests"] == "1", run.stdout
            assert int(figures[f"{warm}_cached"]) >= 10, run.stdout
            assert figures[f"{cold}_short_lived"] == "0", run.stdout  # and kept for good
        assert f"cold_{device}_50ms_round_trips" in figures, run.stdout
    assert run.stdout.splitlines()[-1].startswith("round_trips_max: "), run.stdout
