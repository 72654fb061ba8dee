"""games 0008 (issue #31): every game recorded before the rules version was gets the
version it was played under. TetriWar's that ended before the lock-delay change
(36be8e9, 2026-11-25 09:58:47 UTC) were played under version 1, later ones under 2;
other games have only ever had version 1."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.migrating import latest_schema_after, migrate  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db(transaction=True)
BEFORE = [("games", "0007_game_replay"), ("lobby", "0005_seat_left_game")]
AFTER = [("games", "0008_game_rules_version"), ("lobby", "0005_seat_left_game")]
CHANGE = dt.datetime(2026, 11, 25, 9, 58, 47, tzinfo=dt.UTC)


def test_recorded_games_get_the_rules_version_they_were_played_under():
    apps = migrate(BEFORE)
    Table, Game = apps.get_model("lobby", "Table"), apps.get_model("games", "Game")
    table = Table.objects.create(game="tetriwar", name="t", seats_total=2, host_name="ann")
    second = dt.timedelta(seconds=1)

    def game(kind: str, ended_at=None, started_at=None) -> int:
        return Game.objects.create(table=table, kind=kind, seed=1, ended_at=ended_at, started_at=started_at).pk

    before = game("tetriwar", ended_at=CHANGE - second, started_at=CHANGE - 60 * second)
    at = game("tetriwar", ended_at=CHANGE, started_at=CHANGE - 60 * second)
    after = game("tetriwar", ended_at=CHANGE + 3600 * second, started_at=CHANGE + 3000 * second)
    running_since = game("tetriwar", started_at=CHANGE + second)  # not ended: dated by its start
    viertris = game("viertris", ended_at=CHANGE + 3600 * second)

    apps = migrate(AFTER)
    versions = dict(apps.get_model("games", "Game").objects.values_list("pk", "rules_version"))
    assert versions == {before: 1, at: 2, after: 2, running_since: 2, viertris: 1}

    migrate(BEFORE)  # and back
