"""The server's log writes each line once (issue 19): as `make run` configures it, in a
process of its own (pytest's own log capture would hide what the handlers do)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LOG_SOME_LINES = """
import logging
import django

django.setup()
logging.getLogger("django.request").warning("Not Found: /favicon.ico")  # Django's own
logging.getLogger("django.channels.server").warning("HTTP GET /favicon.ico 404")  # Daphne's runserver
logging.getLogger("games.host").info("game started table=1 game=1 kind=tetriwar")  # the site's
logging.getLogger("axes.apps").info("AXES: BEGIN version 8")  # a library's chatter
"""


def test_each_line_of_the_server_log_is_written_once():
    env = {**os.environ, "DEBUG": "true", "DJANGO_SETTINGS_MODULE": "config.settings"}
    env.pop("LOG_LEVEL", None)
    result = subprocess.run(
        [sys.executable, "-c", LOG_SOME_LINES], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    for line in (
        "Not Found: /favicon.ico",
        "HTTP GET /favicon.ico 404",
        "game started table=1 game=1 kind=tetriwar",
    ):
        assert lines.count(line) == 1, result.stderr
    assert not any("AXES" in line for line in lines), result.stderr
