"""lobby 0004 (issue 30): stored default table names, in whichever of the site's
languages their creator read, become a kind and a name; stored "Bot (greedy)" names
become names of their seats. Typed names stay as typed."""

from __future__ import annotations

import pytest

from tests.migrating import latest_schema_after, migrate  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db(transaction=True)
BEFORE = [("lobby", "0003_watcher_server"), ("games", "0007_game_replay")]
AFTER = [("lobby", "0004_table_name_kind"), ("games", "0008_game_rules_version")]


def test_stored_default_names_and_bot_names_become_language_neutral():
    apps = migrate(BEFORE)
    Table, Seat = apps.get_model("lobby", "Table"), apps.get_model("lobby", "Seat")
    Game, Participation = apps.get_model("games", "Game"), apps.get_model("games", "Participation")

    def table(name: str, host: str) -> int:
        row = Table.objects.create(game="viertris", name=name, seats_total=2, host_name=host)
        Seat.objects.create(table=row, number=1, guest_token=f"g{row.pk}", name=host.removesuffix(" (guest)"))
        return row.pk

    german = table("Übung von bea", "bea (guest)")
    english = table("ann's table", "ann")
    chinese = table("cai 单人", "cai")
    typed = table("Evening practice", "dan")  # reads like a default, but of nobody at the table
    own = table("Freitagsblöcke", "eve")
    Seat.objects.create(table_id=english, number=2, bot_level="hard", name="Bot (hard)", ready=True)
    game = Game.objects.create(table_id=english, kind="viertris", seed=1)
    Participation.objects.create(game=game, seat=2, name="Bot (hard)", bot_level="hard")
    Participation.objects.create(game=game, seat=1, name="ann")

    apps = migrate(AFTER)
    Table, Seat = apps.get_model("lobby", "Table"), apps.get_model("lobby", "Seat")
    Participation = apps.get_model("games", "Participation")
    rows = {t.pk: (t.name, t.name_kind, t.named_for) for t in Table.objects.all()}
    assert rows[german] == ("", "practice", "bea")
    assert rows[english] == ("", "table", "ann")
    assert rows[chinese] == ("", "solo", "cai")
    assert rows[typed] == ("Evening practice", "", "")
    assert rows[own] == ("Freitagsblöcke", "", "")
    assert Seat.objects.get(table_id=english, number=2).name == "Alan"
    assert sorted(Participation.objects.values_list("name", flat=True)) == ["Alan", "ann"]

    apps = migrate(BEFORE)  # and back
    Table = apps.get_model("lobby", "Table")
    assert Table.objects.get(pk=german).name == "bea practice"
    assert apps.get_model("lobby", "Seat").objects.get(table_id=english, number=2).name == "Bot (hard)"
