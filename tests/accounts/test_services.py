"""Chips and accounts services (RULES.md §6): every change is a ledger row, no balance below zero."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import IntegrityError, transaction

from accounts import services
from accounts.models import ChipTransaction, User

Reason = ChipTransaction.Reason
MONDAY = dt.date(2025, 3, 3)
TUESDAY = MONDAY + dt.timedelta(days=1)


@pytest.fixture
def newcomer(db) -> User:
    return services.user_signup(username="newcomer", email="new@example.com", password="a-Long-pass-42")


@pytest.fixture
def broke_player(make_user) -> User:
    return make_user("brokeplayer", chips=30)


def test_newcomer_starts_with_exactly_1000_chips_and_one_welcome_row(newcomer):
    newcomer.refresh_from_db()
    assert newcomer.chips == 1000
    rows = list(ChipTransaction.objects.filter(user=newcomer))
    assert len(rows) == 1
    assert (rows[0].delta, rows[0].balance_after, rows[0].reason) == (1000, 1000, Reason.SIGNUP)
    assert rows[0].created_by is None


def test_chips_change_refuses_to_go_negative_and_writes_nothing(broke_player):
    rows_before = ChipTransaction.objects.filter(user=broke_player).count()
    with pytest.raises(services.ChipsError):
        services.chips_change(user=broke_player, delta=-31, reason=Reason.STAKE)
    broke_player.refresh_from_db()
    assert broke_player.chips == 30
    assert ChipTransaction.objects.filter(user=broke_player).count() == rows_before


def test_chips_change_may_take_the_balance_to_exactly_zero(broke_player):
    row = services.chips_change(user=broke_player, delta=-30, reason=Reason.STAKE)
    broke_player.refresh_from_db()
    assert broke_player.chips == 0
    assert row.balance_after == 0


def test_chips_change_refuses_a_zero_change(broke_player):
    with pytest.raises(services.ChipsError):
        services.chips_change(user=broke_player, delta=0, reason=Reason.STAKE)


def test_database_rejects_a_negative_balance_even_bypassing_the_services(newcomer):
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.filter(pk=newcomer.pk).update(chips=-1)
    newcomer.refresh_from_db()
    assert newcomer.chips == 1000


def test_database_rejects_a_ledger_row_with_a_negative_balance(newcomer):
    with pytest.raises(IntegrityError), transaction.atomic():
        ChipTransaction.objects.create(user=newcomer, delta=-2000, balance_after=-1000, reason=Reason.STAKE)


def test_refill_tops_a_broke_player_up_to_exactly_100(broke_player):
    row = services.chips_refill(user=broke_player, chips_in_pots=0, today=MONDAY)
    broke_player.refresh_from_db()
    assert broke_player.chips == 100
    assert (row.delta, row.balance_after, row.reason) == (70, 100, Reason.REFILL)
    assert broke_player.last_refill == MONDAY


def test_refill_from_zero_gives_100(make_user):
    penniless = make_user("penniless", chips=0)
    services.chips_refill(user=penniless, chips_in_pots=0, today=MONDAY)
    penniless.refresh_from_db()
    assert penniless.chips == 100


@pytest.mark.parametrize("chips", [100, 101, 1000])
def test_refill_is_refused_at_or_above_100_chips(make_user, chips):
    comfortable = make_user("comfortable", chips=chips)
    rows_before = ChipTransaction.objects.filter(user=comfortable).count()
    assert not services.refill_available(comfortable, MONDAY, chips_in_pots=0)
    with pytest.raises(services.ChipsError, match="below 100"):
        services.chips_refill(user=comfortable, chips_in_pots=0, today=MONDAY)
    comfortable.refresh_from_db()
    assert comfortable.chips == chips
    assert comfortable.last_refill is None
    assert ChipTransaction.objects.filter(user=comfortable).count() == rows_before


def test_refill_only_once_a_day_then_again_the_next_day(broke_player):
    services.chips_refill(user=broke_player, chips_in_pots=0, today=MONDAY)
    # Lose chips again the same day: still no second refill.
    services.chips_change(user=broke_player, delta=-60, reason=Reason.STAKE)
    broke_player.refresh_from_db()
    assert not services.refill_available(broke_player, MONDAY, chips_in_pots=0)
    with pytest.raises(services.ChipsError, match="already"):
        services.chips_refill(user=broke_player, chips_in_pots=0, today=MONDAY)
    broke_player.refresh_from_db()
    assert broke_player.chips == 40

    assert services.refill_available(broke_player, TUESDAY, chips_in_pots=0)
    services.chips_refill(user=broke_player, chips_in_pots=0, today=TUESDAY)
    broke_player.refresh_from_db()
    assert broke_player.chips == 100
    assert broke_player.last_refill == TUESDAY
    assert ChipTransaction.objects.filter(user=broke_player, reason=Reason.REFILL).count() == 2


def test_refill_checks_the_stored_balance_not_a_stale_copy(broke_player):
    stale = User.objects.get(pk=broke_player.pk)
    services.chips_change(user=broke_player, delta=500, reason=Reason.POT)
    assert stale.chips == 30  # the copy a view may still hold
    with pytest.raises(services.ChipsError):
        services.chips_refill(user=stale, chips_in_pots=0, today=MONDAY)


def test_admin_adjustment_requires_a_reason(newcomer, admin_user):
    for note in ("", "   "):
        with pytest.raises(services.ChipsError, match="reason"):
            services.chips_adjust(user=newcomer, delta=50, note=note, by=admin_user)
    assert ChipTransaction.objects.filter(user=newcomer, reason=Reason.ADMIN).count() == 0


def test_admin_adjustment_names_the_admin_and_the_reason(newcomer, admin_user):
    row = services.chips_adjust(user=newcomer, delta=-250, note="  chip dumping  ", by=admin_user)
    newcomer.refresh_from_db()
    assert newcomer.chips == 750
    assert row.created_by == admin_user
    assert row.note == "chip dumping"
    assert (row.reason, row.delta, row.balance_after) == (Reason.ADMIN, -250, 750)


def test_admin_adjustment_cannot_take_more_than_the_balance(newcomer, admin_user):
    with pytest.raises(services.ChipsError):
        services.chips_adjust(user=newcomer, delta=-1001, note="too much", by=admin_user)
    newcomer.refresh_from_db()
    assert newcomer.chips == 1000


def test_ledger_balance_after_always_equals_the_running_sum(newcomer, admin_user):
    services.chips_change(user=newcomer, delta=-400, reason=Reason.STAKE)
    services.chips_change(user=newcomer, delta=800, reason=Reason.POT)
    services.chips_change(user=newcomer, delta=-1350, reason=Reason.STAKE)
    services.chips_refill(user=newcomer, chips_in_pots=0, today=MONDAY)
    services.chips_adjust(user=newcomer, delta=25, note="apology for an outage", by=admin_user)

    running = 0
    rows = ChipTransaction.objects.filter(user=newcomer).order_by("created_at", "id")
    for row in rows:
        running += row.delta
        assert row.balance_after == running
    newcomer.refresh_from_db()
    assert newcomer.chips == running == 125
    assert len(rows) == 6


def test_banned_player_is_inactive_with_a_reason(newcomer, admin_user):
    services.user_ban(user=newcomer, reason="cheating", by=admin_user)
    newcomer.refresh_from_db()
    assert newcomer.is_banned
    assert not newcomer.is_active
    assert newcomer.ban_reason == "cheating"

    services.user_unban(user=newcomer, by=admin_user)
    newcomer.refresh_from_db()
    assert not newcomer.is_banned
    assert newcomer.is_active
