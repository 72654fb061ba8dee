"""bench/live.py's lean client (``--client scripted``): its keys without a board or the
AI, whether the client made the figure, and a short real run. No timing thresholds:
what is measured is the bench's business, not the tests'."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

from bench.live import ENTER_CHANCE, Script, client_limited

ROOT = Path(__file__).resolve().parent.parent.parent


def test_the_script_sends_nothing_until_its_game_runs_and_then_places_piece_after_piece():
    script = Script(2, random.Random(1))
    assert script.key() is None
    script.read('<!--v1--><div id="game" data-remaining-ms="900000"></div>')
    keys = [script.key()["intent"] for _ in range(200)]
    assert set(keys) <= {"left", "right", "rotate", "hard_drop"}  # the AI client's frames (← → tapped as it taps them)
    assert keys.count("hard_drop") >= 200 // 8  # at most 3 turns and 3 columns a piece
    script.read('<!--v2--><h2 id="results-title">Results</h2>')
    assert script.key() is None


def test_the_script_presses_enter_only_while_its_store_holds_a_bomb():
    script = Script(1, random.Random(3))
    script.read('<!--v1--><div data-remaining-ms="1"></div><div id="bombs-1" class="store" aria-label="Bombs"><span>')
    assert any(script.key() == {"intent": "bomb"} for _ in range(int(20 / ENTER_CHANCE)))
    script.read('<!--v2--><div id="bombs-1" class="store" aria-label="Bombs"></div>')
    assert all(script.key() != {"intent": "bomb"} for _ in range(200))


def test_the_client_makes_the_figure_when_its_lag_is_half_the_p99_or_it_fills_a_core():
    assert client_limited(1.0, 5.0, 1.0, 10.0) == "no"
    assert client_limited(3.0, 5.0, 1.0, 10.0).startswith("yes (client_loop_lag_p99_ms")
    assert client_limited(1.0, 5.0, 9.0, 10.0).startswith("yes (client_cpu_s")
    assert client_limited(float("nan"), float("nan"), 0.0, 0.0) == "no"


def test_a_short_run_of_the_scripted_client():
    run = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "live.py"), "--tables", "2", "--seconds", "3", "--client", "scripted",
         "--no-floor"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env=dict(os.environ),
    )
    assert run.returncode == 0, run.stderr[-3000:]
    out = run.stdout.splitlines()
    lines = dict(line.split(": ", 1) for line in out if ": " in line)
    assert lines["client"] == "scripted", run.stdout
    assert int(lines["intents_sent"]) > 0 and int(lines["intents_acknowledged"]) > 0, run.stdout
    for name in ("p50_ms", "p99_ms", "spectator_p99_ms", "client_cpu_s", "client_loop_lag_p99_ms"):
        assert float(lines[name]) >= 0, run.stdout
    assert lines["timeouts"] == "0" and lines["spectator_timeouts"] == "0", run.stdout
    assert lines["tables_running_at_window_start"] == "2", run.stdout
    assert out[-2].startswith(("client_limited: yes", "client_limited: no")), run.stdout
    assert out[-1] in ("disturbed: yes", "disturbed: no"), run.stdout
