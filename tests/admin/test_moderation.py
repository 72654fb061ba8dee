from __future__ import annotations

from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.urls import reverse

from accounts.models import ChipTransaction
from lobby.models import Table
from tests.personas import ref


def test_the_admin_lists_users_tables_and_the_ledger(client, admin_user, host, make_table):
    make_table(ref(host))
    client.force_login(admin_user)
    for name in ("admin:accounts_user_changelist", "admin:lobby_table_changelist",
                 "admin:accounts_chiptransaction_changelist"):
        response = client.get(reverse(name))
        assert response.status_code == 200, name
    assert "hostess" in client.get(reverse("admin:accounts_user_changelist")).content.decode()


def test_a_player_cannot_enter_the_admin(client, host):
    client.force_login(host)
    response = client.get(reverse("admin:index"))
    assert response.status_code == 302 and "/admin/login/" in response.url


def test_the_admin_bans_with_a_reason_and_unbans(client, admin_user, opponent):
    client.force_login(admin_user)
    url = reverse("admin:accounts_user_changelist")
    confirm = client.post(url, {"action": "ban_users", ACTION_CHECKBOX_NAME: [opponent.pk]})
    assert "Ban players" in confirm.content.decode()
    opponent.refresh_from_db()
    assert not opponent.is_banned  # nothing happens before the reason is given
    client.post(url, {"action": "ban_users", "apply": "1", "reason": "Cheating", ACTION_CHECKBOX_NAME: [opponent.pk]})
    opponent.refresh_from_db()
    assert opponent.is_banned and opponent.ban_reason == "Cheating" and not opponent.is_active
    client.post(url, {"action": "unban_users", ACTION_CHECKBOX_NAME: [opponent.pk]})
    opponent.refresh_from_db()
    assert not opponent.is_banned and opponent.is_active


def test_a_ban_from_the_admin_frees_the_players_seats(client, admin_user, host, opponent, make_table):
    from lobby import services

    table = make_table(ref(host))
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    client.force_login(admin_user)
    client.post(reverse("admin:accounts_user_changelist"),
                {"action": "ban_users", "apply": "1", "reason": "Cheating", ACTION_CHECKBOX_NAME: [opponent.pk]})
    assert list(table.seats.values_list("number", flat=True)) == [1]


def test_the_admin_closes_a_table(client, admin_user, host, make_table):
    table = make_table(ref(host))
    client.force_login(admin_user)
    client.post(reverse("admin:lobby_table_changelist"), {"action": "close_tables", ACTION_CHECKBOX_NAME: [table.pk]})
    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED
    assert "moderator" in table.closed_reason


def test_the_admin_adjusts_chips_with_a_reason_through_the_ledger(client, admin_user, opponent):
    client.force_login(admin_user)
    url = reverse("admin:accounts_user_adjust_chips", args=[opponent.pk])
    assert client.get(url).status_code == 200
    client.post(url, {"delta": "-250", "reason": "Chargeback"})
    opponent.refresh_from_db()
    assert opponent.chips == 750
    row = ChipTransaction.objects.filter(user=opponent).first()
    assert (row.delta, row.balance_after, row.reason, row.note, row.created_by) == (
        -250, 750, "admin", "Chargeback", admin_user,
    )


def test_an_adjustment_below_zero_is_refused_and_changes_nothing(client, admin_user, opponent):
    client.force_login(admin_user)
    response = client.post(reverse("admin:accounts_user_adjust_chips", args=[opponent.pk]),
                           {"delta": "-5000", "reason": "Too much"})
    assert "cannot take 5000" in response.content.decode()
    opponent.refresh_from_db()
    assert opponent.chips == 1000
    assert ChipTransaction.objects.filter(user=opponent).count() == 1


def test_an_adjustment_needs_a_reason(client, admin_user, opponent):
    client.force_login(admin_user)
    response = client.post(reverse("admin:accounts_user_adjust_chips", args=[opponent.pk]), {"delta": "10"})
    assert "This field is required" in response.content.decode()
    opponent.refresh_from_db()
    assert opponent.chips == 1000


def test_the_ledger_cannot_be_edited_in_the_admin(client, admin_user, opponent):
    client.force_login(admin_user)
    row = ChipTransaction.objects.filter(user=opponent).first()
    assert client.get(reverse("admin:accounts_chiptransaction_add")).status_code == 403
    response = client.post(reverse("admin:accounts_chiptransaction_change", args=[row.pk]), {"delta": "99999"})
    assert response.status_code == 403
