"""A player's chips ledger is theirs and the admins' only, and an admin's note on an
adjustment is for admins (issue 17)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts import services
from games.registry import GAMES
from tests.personas import ref

NOTE = "suspected chip dumping with an alt account"


@pytest.fixture
def adjusted_host(host, admin_user):
    services.chips_adjust(user=host, delta=-250, note=NOTE, by=admin_user)
    return host


def _public_pages(table_id: int) -> list[str]:
    game = next(iter(GAMES))
    return [
        reverse("player", args=["hostess"]),
        reverse("home"),
        reverse("lobby:index"),
        reverse("lobby:table", args=[table_id]),
        reverse("games:leaderboard", args=[game]),
        reverse("games:leaderboard", args=[game]) + "?period=month",
    ]


@pytest.mark.parametrize("viewer", ["outsider", "anonymous"])
def test_nobody_else_sees_a_players_ledger_or_an_admins_note(
    client, adjusted_host, outsider, make_table, viewer
):
    table = make_table(ref(adjusted_host))
    if viewer == "outsider":
        client.force_login(outsider)

    for url in _public_pages(table.pk):
        response = client.get(url)
        assert response.status_code == 200, url
        html = response.content.decode()
        assert NOTE not in html, url
        assert 'id="ledger"' not in html, url
        assert "Chips ledger" not in html, url
        assert "Welcome chips" not in html and "Admin adjustment" not in html, url


def test_the_owner_sees_their_ledger_but_not_the_admins_note(client, adjusted_host):
    client.force_login(adjusted_host)
    html = client.get(reverse("profile")).content.decode()

    assert 'id="ledger"' in html
    assert "Welcome chips" in html and "+1000" in html
    assert "Admin adjustment" in html and "-250" in html
    assert NOTE not in html
    assert "moderator" not in html  # nor which admin made it


def test_the_admin_reads_the_note_in_the_django_admin(client, adjusted_host, admin_user):
    client.force_login(admin_user)
    html = client.get(reverse("admin:accounts_chiptransaction_changelist")).content.decode()
    assert NOTE in html
