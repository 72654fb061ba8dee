"""Every benchmark runs: a short run of each, at the smallest size its options allow (a
few seconds), ends well and prints figures alone, its headline figure last (the guide,
docs/benchmarks.md). No timing thresholds: what is measured is the bench's business,
not the tests'. bench/engine.py crashed unseen for weeks (the clocks of rules version 3
became integers; it replayed the log's doubles): no benchmark breaks unseen again."""

from __future__ import annotations

import importlib
import math

import pytest

from tests.bench.runs import ROOT, run_bench

# bench/<file>: the options of a short run, and its headline figure (the last line).
SHORT_RUNS = {
    "engine.py": (["--intents", "2000"], "intents_per_s"),
    "blockkiller.py": (["--games", "1", "--intents", "40", "--seconds", "0.2"], "placements_searched_per_s"),
    "bot.py": (["--seeds", "1", "--cap", "10"], "bot_mean_lines"),
    "layer.py": (["--sockets", "5", "--messages", "10"], "plain_over_paced"),
    "render.py": (["--fragments", "100"], "template_over_function"),
    "tetrix.py": (["--games", "1", "--seconds", "0.2"], "sheets_scored_per_s"),
    "thirdoption.py": (["--games", "1", "--seconds", "0.2"], "fits_checks_per_s"),
    "replay.py": (["--minutes", "1", "--players", "1", "--seeks", "10"], "seek_p99_ms"),
    "queue.py": (["--players", "16", "--seconds", "2", "--tail", "2"], "time_to_match_with_company_p99_s"),
    "arena.py": (["--players", "6", "--minutes", "10", "--games", "viertris"], "pairing_wait_p99_s"),
    "restart.py": (["--tables", "1", "--play", "1"], "resume_p99_s"),
    "pages.py": (["--seconds", "1", "--warmup", "0.2", "--tables", "1", "--concurrency", "2", "--no-wrk"],
                 "requests_per_s"),
}
# Benchmarks whose short run is a test of its own, beside the checks of what it measures.
RUN_ELSEWHERE = {
    "live.py": "tests/bench/test_live.py::test_a_short_run_of_the_scripted_client",
    "floor.py": "tests/bench/test_live.py::test_a_short_floor_run_measures_its_play_alone_with_the_traffic_it_was_given",
    "capacity.py": "tests/bench/test_live.py::test_a_short_capacity_sweep",
    "latency.py": "tests/bench/test_latency.py::test_a_short_run_of_the_whole_bench",
    "abuse.py": "tests/bench/test_abuse.py::test_a_short_run_of_the_chat_flood",
    "open.py": "tests/bench/test_open.py::test_a_short_run_opens_the_page_cold_and_warm_and_a_warm_page_fetches_its_document_alone",
}
# Parts of the benchmarks, not benchmarks (docs/benchmarks.md, "Helpers, not benchmarks").
HELPERS = {
    "floor_app.py", "machine.py", "proxy.py", "client.py", "server.py", "report.py",
    "matching.py",  # the bench of queue.py, which keeps the name: run above as queue.py
}


def test_every_benchmark_has_a_short_run():
    files = {path.name for path in (ROOT / "bench").glob("*.py")}
    unknown = files - SHORT_RUNS.keys() - RUN_ELSEWHERE.keys() - HELPERS
    assert not unknown, f"a benchmark without a short run (add it to SHORT_RUNS): {sorted(unknown)}"
    assert not (SHORT_RUNS.keys() | RUN_ELSEWHERE.keys() | HELPERS) - files  # none gone and still listed
    for test in RUN_ELSEWHERE.values():
        path, name = test.split("::")
        assert callable(getattr(importlib.import_module(path.removesuffix(".py").replace("/", ".")), name, None)), test


@pytest.mark.parametrize("script", sorted(SHORT_RUNS))
def test_a_short_run_prints_its_figures_and_its_headline_last(script):
    options, headline = SHORT_RUNS[script]
    run = run_bench(script, *options, timeout=120)
    name, value = run.lines[-1].split(": ", 1)
    assert name == headline, run.stdout
    assert math.isfinite(float(value)), run.stdout


def test_the_engine_s_replay_of_its_log_ends_in_the_recorded_state():
    figures = run_bench("engine.py", "--intents", "2000", timeout=120).figures
    assert figures["replay_matches_record"] == "True", figures
    assert int(figures["intents"]) == 2000 and int(figures["events"]) > 0, figures
