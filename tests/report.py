"""What a run of the suite cost, printed at its end (a pytest plugin, loaded by the root
conftest): the time of each test directory (setup, call and teardown of its tests added
up), and, when the run measured it (``make test`` runs under pytest-cov), the line and
branch coverage of the site's code. ``--durations=25`` (the Makefile) names the slowest
tests beside it."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest


def directory_of(nodeid: str) -> str:
    """The test directory a test belongs to: ``tests/live`` for ``tests/live/test_x.py::t``
    (and ``tests/unit/tetriwar`` stays ``tests/unit``)."""
    parts = nodeid.split("::", 1)[0].split("/")
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


class Costs:
    def __init__(self, coverage_json: Path | None) -> None:
        self.coverage_json = coverage_json
        self.seconds: dict[str, float] = defaultdict(float)
        self.tests: dict[str, set[str]] = defaultdict(set)

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        where = directory_of(report.nodeid)
        self.seconds[where] += report.duration
        self.tests[where].add(report.nodeid)

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter) -> None:
        if not self.seconds:
            return
        write = terminalreporter.write_line
        terminalreporter.section("time per test directory")
        total = sum(self.seconds.values())
        for where, seconds in sorted(self.seconds.items(), key=lambda item: -item[1]):
            write(f"{seconds:8.1f} s  {seconds / total:6.1%}  {len(self.tests[where]):5d} tests  {where}")
        write(f"{total:8.1f} s  {1:6.1%}  {sum(map(len, self.tests.values())):5d} tests  (all)")
        summary = coverage_summary(self.coverage_json) if self.coverage_json else []
        if summary:
            terminalreporter.section("coverage")
            for line in summary:
                write(line)


def coverage_summary(path: Path) -> list[str]:
    """The totals of a coverage.py JSON report."""
    try:
        totals = json.loads(path.read_text())["totals"]
    except (OSError, ValueError, KeyError):
        return []
    lines = f"{totals['covered_lines']} of {totals['num_statements']} lines"
    line_share = totals["covered_lines"] / max(1, totals["num_statements"])
    out = [f"line_coverage: {line_share:.2%} ({lines})"]
    if "num_branches" in totals:
        branch_share = totals["covered_branches"] / max(1, totals["num_branches"])
        out.append(
            f"branch_coverage: {branch_share:.2%}"
            f" ({totals['covered_branches']} of {totals['num_branches']} branches)"
        )
    out.append(f"coverage: {totals['percent_covered']:.2f}% (lines and branches together)")
    return out


def coverage_json_of(config: pytest.Config) -> Path | None:
    """The JSON report this run asked pytest-cov for (``--cov-report=json:PATH``), which
    it writes as the session ends, before the terminal summary; None when not measuring."""
    if not config.getoption("cov_source", None):
        return None
    reports = config.getoption("cov_report", None) or {}
    return Path(reports.get("json") or "coverage.json") if "json" in reports else None


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):  # the controller only, under xdist
        config.pluginmanager.register(Costs(coverage_json_of(config)), "tetriwar-costs")
