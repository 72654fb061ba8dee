"""bench/report.py: the one definition of a figure line, of a percentile and of a measure
repeated for some seconds, which every benchmark uses."""

from __future__ import annotations

import math
import time

from bench.report import figure, figures, figures_of, percentile, timed


def test_a_figure_is_its_name_and_its_value_on_a_line_of_its_own(capsys):
    figure("p99_ms", 3.14159, ".2f")
    figures({"tables": 2, "client": "scripted"})
    assert capsys.readouterr().out == "p99_ms: 3.14\ntables: 2\nclient: scripted\n"


def test_another_bench_s_figures_are_read_by_name():
    printed = "tables: 2\nnot a figure\nothers_top: pytest=1.20 chromium=0.30\n"
    assert figures_of(printed) == {"tables": "2", "others_top": "pytest=1.20 chromium=0.30"}


def test_a_percentile_is_the_value_at_its_rank_and_nan_without_values():
    values = list(range(100, 0, -1))  # 1 to 100, in no order the percentile relies on
    assert (percentile(values, 0.0), percentile(values, 0.5), percentile(values, 0.99)) == (1, 51, 100)
    assert percentile([7.0], 0.99) == 7.0
    assert math.isnan(percentile([], 0.99))


def test_a_timed_measure_runs_once_at_least_and_until_its_seconds_are_spent():
    passes = []
    assert timed(lambda: passes.append(1), 0.0)[1] == len(passes) == 1
    spent, done = timed(lambda: time.sleep(0.01), 0.05)
    assert spent >= 0.05 and done >= 1
