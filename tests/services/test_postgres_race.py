"""Two processes finish the same game while stakes are placed, on PostgreSQL.

Skips without PostgreSQL at 127.0.0.1:5432, except under CI=true.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.server import ScratchDatabase
from tests.needs import need, port_open

pytestmark = pytest.mark.services
ROOT = Path(__file__).resolve().parents[2]
PG = os.environ.get("TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432")


@pytest.fixture
def scratch_database():
    need(port_open("127.0.0.1", 5432), "PostgreSQL is not running at 127.0.0.1:5432")

    # Migrated already: a copy of the database migrated once for these migrations.
    database = ScratchDatabase(PG, prefix="tetriwar_race_")
    database.create(migrated=True)
    try:
        yield database.url
    finally:
        database.drop()


def test_a_game_is_finished_once_and_balances_stay_exact_under_concurrency(scratch_database):
    env = {**os.environ, "DATABASE_URL": scratch_database, "DJANGO_SETTINGS_MODULE": "config.settings", "RACE_ROUNDS": "8"}
    env.pop("REDIS_URL", None)
    done = subprocess.run(
        [sys.executable, "tests/services/pg_race.py"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    # Exactly one of the two simultaneous finishes counts, every round.
    assert result["finishes_counted"] == [1] * result["rounds"]
    # One pot payout a round: the winner of each finished game.
    assert result["pot_rows"] == result["rounds"]
    # Chips are neither created nor lost, and every ledger ends at the balance.
    assert result["total"] == result["granted"] == 3000
    assert result["ledger_ok"]
    # racer0 won every game against racer1 (+100 each); racer2 only ever got stakes back.
    assert result["balances"] == {"racer0": 1000 + 100 * result["rounds"], "racer1": 1000 - 100 * result["rounds"], "racer2": 1000}
    assert set(result["stakes"]) <= {"staked", "NOT_ENOUGH_CHIPS"}
