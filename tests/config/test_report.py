"""tests/report.py: what a run of the suite prints about its own cost."""

from __future__ import annotations

import json

from tests.report import coverage_summary, directory_of


def test_a_test_counts_for_its_top_directory_under_tests():
    assert directory_of("tests/live/test_edge.py::test_x[a/b]") == "tests/live"
    assert directory_of("tests/unit/tetriwar/test_tetriwar_game.py::test_y") == "tests/unit"
    assert directory_of("conftest.py::test_z") == "conftest.py"


def test_the_coverage_totals_print_lines_and_branches_apart(tmp_path):
    report = tmp_path / "coverage.json"
    totals = {"covered_lines": 90, "num_statements": 100, "covered_branches": 30, "num_branches": 40,
              "percent_covered": 85.71}
    report.write_text(json.dumps({"totals": totals}))
    assert coverage_summary(report) == [
        "line_coverage: 90.00% (90 of 100 lines)",
        "branch_coverage: 75.00% (30 of 40 branches)",
        "coverage: 85.71% (lines and branches together)",
    ]
    assert coverage_summary(tmp_path / "missing.json") == []
