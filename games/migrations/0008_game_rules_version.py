"""Every game records the version of its rules it was played under (issue #31).

Games recorded before: TetriWar's that ended before its lock-delay change (commit
36be8e9, 2026-11-25 09:58:47 UTC) were played under rules version 1, later ones under
version 2; every other game's rules have one version. A game that has not ended is
dated by its start (or its creation)."""

import datetime as dt

from django.db import migrations, models

LOCK_DELAY_CHANGE = dt.datetime(2026, 11, 25, 9, 58, 47, tzinfo=dt.UTC)


def versions_of_recorded_games(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    tetriwar = Game.objects.filter(kind="tetriwar")
    ended = tetriwar.filter(ended_at__isnull=False)
    ended.filter(ended_at__gte=LOCK_DELAY_CHANGE).update(rules_version=2)
    not_ended = tetriwar.filter(ended_at__isnull=True)
    not_ended.filter(started_at__gte=LOCK_DELAY_CHANGE).update(rules_version=2)
    not_ended.filter(started_at__isnull=True, created_at__gte=LOCK_DELAY_CHANGE).update(rules_version=2)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0007_game_replay"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="rules_version",
            field=models.PositiveSmallIntegerField(
                default=1, help_text="The version of its game's rules it was played under (its replay uses them)."
            ),
        ),
        migrations.RunPython(versions_of_recorded_games, migrations.RunPython.noop),
    ]
