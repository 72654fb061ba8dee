"""Arenas with several processes on PostgreSQL (issue 51): processes that pair the same
arena at the same instant (``arena_tick``, claiming the waiting rows with
``select_for_update(skip_locked=True)``) never seat anyone twice, every table they make
is full, and every arena player with a table sits at it; rows another process holds
are passed over at once, and paired once it lets them go.

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
PLAYERS = 24
ROUNDS = 4
PROCS = 4


def test_processes_pairing_an_arena_at_once_seat_every_player_once(scratch_database):  # noqa: F811
    env = {
        **os.environ, "DATABASE_URL": scratch_database, "DJANGO_SETTINGS_MODULE": "config.settings",
        "ARENA_PLAYERS": str(PLAYERS), "ARENA_ROUNDS": str(ROUNDS), "ARENA_PROCS": str(PROCS),
    }
    env.pop("REDIS_URL", None)
    done = subprocess.run(
        [sys.executable, "tests/services/pg_arena.py"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["errors"] == [], result["errors"]
    assert result["double_seats"] == 0, result["per_round"]
    assert result["mismatches"] == 0, result["per_round"]
    assert result["rounds"] == ROUNDS
    for played in result["per_round"]:
        # The arena started once and everybody waited for the round's pairing.
        assert played["status"] == "running", played
        assert played["queued"] == PLAYERS, played
        # No waiting row was claimed by two processes; what they left, the next tick paired.
        assert sum(played["claimed"]) + played["held"] <= played["queued"], played
        assert played["tables"] == sum(played["split"]) + played["left_by_race"] // 2, played
        # Tables were made, all running, two to a table, each player at one.
        assert played["tables"] > 0 and played["tables"] == played["running"], played
        assert played["double_seats"] == [] and played["mismatches"] == [], played
        assert played["seated"] == played["distinct_seated"] == 2 * played["tables"], played
        # Nobody paused and fewer than a table's worth left waiting (with an even count: none).
        assert played["paused"] == 0, played
        assert played["still_waiting"] < 2, played
        assert played["seated"] == PLAYERS, played
        # The next round's queue: every game of this round ended.
        assert played["finished"] == played["tables"], played
    # The processes that claimed nobody were done while another held its claim: they
    # passed over locked rows (rather than meeting them paired already).
    assert any(played["skipped_while_locked"] for played in result["per_round"]), result["per_round"]
    # The last round: half the rows held by another process were passed over at once
    # (no process waited for them) and paired after.
    last = result["per_round"][-1]
    assert last["held"] == last["held_rows"] == PLAYERS // 2, last
    assert last["held_seated"] == 0 and last["left_by_race"] == last["held"], last
    assert sum(last["split"]) == (PLAYERS - last["held"]) // 2, last
