"""The JavaScript engine's own rule tests (``node --test tests/js``), run with the suite."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.needs import need_node

ROOT = Path(__file__).resolve().parents[3]


def test_the_javascript_engine_passes_its_node_tests():
    node = need_node()
    run = subprocess.run(
        [node, "--test", "tests/js"], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode == 0, f"node --test tests/js failed:\n{run.stdout[-6000:]}\n{run.stderr[-2000:]}"
