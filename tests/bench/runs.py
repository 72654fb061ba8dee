"""A benchmark run as a person runs it, at a size that takes seconds: ``python bench/X.py``
in a process of its own, from the project's folder, on this environment with
``DEBUG=true``. It must end well and print what the guide says a benchmark prints
(docs/benchmarks.md): figures alone on its standard output, one ``name: value`` a line."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
FIGURE = re.compile(r"[A-Za-z0-9_-]+: \S.*")


@dataclass(frozen=True)
class Run:
    stdout: str
    stderr: str

    @property
    def lines(self) -> list[str]:
        return self.stdout.splitlines()

    @property
    def figures(self) -> dict[str, str]:
        """Every figure, by name."""
        return dict(line.split(": ", 1) for line in self.lines)


def run_bench(script: str, *options: str, timeout: float = 300) -> Run:
    """``bench/<script>`` with these options: what it printed, once it has exited with 0
    and printed figures, and only figures, on its standard output."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), *options],
        cwd=ROOT, capture_output=True, text=True, timeout=timeout, env={**os.environ, "DEBUG": "true"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    run = Run(done.stdout, done.stderr)
    assert run.lines, f"bench/{script} printed nothing\n{done.stderr[-3000:]}"
    not_figures = [line for line in run.lines if not FIGURE.fullmatch(line)]
    assert not not_figures, f"bench/{script} printed lines that are not `name: value`: {not_figures}"
    return run
