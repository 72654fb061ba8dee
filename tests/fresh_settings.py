"""Settings as a new process reads them from its environment (config/settings.py reads
it once, at import)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def settings_in_a_fresh_process(show: str, *, without: tuple[str, ...] = (), **env: str) -> subprocess.CompletedProcess:
    """A new interpreter imports ``config.settings`` in this process's environment,
    less the variables ``without``, plus ``env``, and prints ``show`` (an expression of
    ``settings``)."""
    clean = {k: v for k, v in os.environ.items() if k not in without}
    return subprocess.run(
        [sys.executable, "-c", f"from config import settings; print({show})"],
        cwd=ROOT, env={**clean, **env}, capture_output=True, text=True, timeout=60,
    )
