"""Quick play with two processes on PostgreSQL (issue 32): concurrent joins seat every
player once, one player's two simultaneous joins leave one entry, and a matcher skips
the rows another matcher holds (``select_for_update(skip_locked=True)``) at once.

Skips without PostgreSQL at 127.0.0.1:5432, except under CI=true.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.services.test_postgres_race import ROOT, scratch_database  # noqa: F401  (the fixture)

pytestmark = pytest.mark.services
PLAYERS = 40


def test_two_processes_joining_at_once_seat_every_player_once(scratch_database):  # noqa: F811
    env = {
        **os.environ, "DATABASE_URL": scratch_database, "DJANGO_SETTINGS_MODULE": "config.settings",
        "QUEUE_PLAYERS": str(PLAYERS), "QUEUE_ROUNDS": "3",
    }
    env.pop("REDIS_URL", None)
    done = subprocess.run(
        [sys.executable, "tests/services/pg_queue.py"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    for played in result["rounds"]:
        # Everybody was matched, two to a table, each once, and every table started.
        assert played["refused"] == [], played
        assert played["double_seats"] == [], played
        assert played["tables"] == played["running"] == PLAYERS // 2, played
        assert played["seated"] == played["distinct_seated"] == PLAYERS, played
        assert played["still_waiting"] == 0, played
    # One player pressing Play now for two games at once waits in one queue.
    assert result["two_queues"] == ["joined", "joined"]
    assert len(result["two_queues_entries"]) == 1
    # Rows another matcher holds are skipped, not waited for; matched once released.
    assert result["held"] == 1
    assert not result["matched_while_held"] and result["skipped_seconds"] < 5
    assert result["matched_after"]
