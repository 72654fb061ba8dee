"""Abandoned tables leave the lobby within a short grace (issue 49, point 17): a table
whose seated people all closed its page, or a practice whose only human left its bot, is
no longer offered with Join once ``ABANDONED_AFTER`` has passed, and closes later as any
idle table does (tests/lobby/test_idle_tables.py). A reload keeps the table listed."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from lobby import selectors, services
from lobby.models import Seat, Table
from tests.personas import guest, ref

pytestmark = pytest.mark.django_db
GRACE = selectors.ABANDONED_AFTER
SECOND = dt.timedelta(seconds=1)


def at(page: str, table: Table, player) -> None:
    services.watcher_add(table_id=table.pk, channel_name=page, player=player)


def listed(table: Table, now: dt.datetime) -> bool:
    return not selectors.abandoned_tables(now).filter(pk=table.pk).exists()


def in_lobby(table: Table) -> bool:
    return selectors.lobby_tables().filter(pk=table.pk).exists()


def grace_over(table: Table) -> None:
    """Everything that happened at the table happened just over a grace ago."""
    Table.objects.filter(pk=table.pk).update(updated_at=timezone.now() - GRACE - SECOND)
    Seat.objects.filter(table=table).update(joined_at=timezone.now() - GRACE - SECOND)


def waiting_count() -> int:
    return selectors._game_activity()["tetriwar"].waiting


@pytest.fixture
def guests_table(make_table):
    """A guest opened a table, had its page open, then closed the tab: 1 of 2 seats taken."""
    table = make_table(guest("Wanda", "wanda-token"))
    at("specific.wanda", table, guest("Wanda", "wanda-token"))
    return table


def test_a_table_whose_guest_closed_the_tab_leaves_the_lobby_after_the_grace(guests_table):
    left_at = timezone.now()
    assert services.watcher_remove(channel_name="specific.wanda") == guests_table.pk
    assert listed(guests_table, left_at + GRACE - SECOND)
    assert not listed(guests_table, left_at + GRACE + SECOND)
    guests_table.refresh_from_db()
    assert guests_table.status == Table.Status.OPEN  # closed later, as an idle table


def test_the_grace_counts_from_the_last_page_closed_not_from_when_the_table_was_made(guests_table):
    long_ago = timezone.now() - 10 * GRACE
    Table.objects.filter(pk=guests_table.pk).update(updated_at=long_ago)
    Seat.objects.filter(table=guests_table).update(joined_at=long_ago)
    assert listed(guests_table, timezone.now())  # her page is open
    services.watcher_remove(channel_name="specific.wanda")  # a reload, or the tab closed
    assert listed(guests_table, timezone.now() + GRACE - SECOND)


def test_a_reload_keeps_the_table_in_the_lobby(guests_table):
    services.watcher_remove(channel_name="specific.wanda")
    at("specific.wanda-again", guests_table, guest("Wanda", "wanda-token"))  # the page is back
    assert listed(guests_table, timezone.now() + 10 * GRACE)


def test_a_spectator_does_not_keep_a_table_its_players_left(guests_table, outsider):
    at("specific.outsider", guests_table, ref(outsider))
    services.watcher_remove(channel_name="specific.wanda")
    assert not listed(guests_table, timezone.now() + GRACE + SECOND)


def test_a_practice_whose_only_human_left_leaves_the_lobby(host):
    table = services.practice_create(player=ref(host), game="tetriwar")
    at("specific.host", table, ref(host))
    services.watcher_remove(channel_name="specific.host")
    assert not listed(table, timezone.now() + GRACE + SECOND)


def test_the_lobby_lists_and_counts_an_abandoned_table_no_more(guests_table):
    services.watcher_remove(channel_name="specific.wanda")
    assert in_lobby(guests_table) and waiting_count() == 1
    grace_over(guests_table)
    assert not in_lobby(guests_table) and waiting_count() == 0


def test_somebody_sitting_down_lists_it_again(guests_table, opponent):
    services.watcher_remove(channel_name="specific.wanda")
    grace_over(guests_table)
    services.seat_take(table_id=guests_table.pk, player=ref(opponent), number=2)
    assert in_lobby(guests_table)


def test_only_the_last_page_of_a_seated_person_asks_for_a_look_later(guests_table, outsider):
    at("specific.wanda-tab-2", guests_table, guest("Wanda", "wanda-token"))
    at("specific.outsider", guests_table, ref(outsider))
    assert services.watcher_remove(channel_name="specific.outsider") is None  # a spectator
    assert services.watcher_remove(channel_name="specific.wanda") is None  # she has another tab
    assert services.watcher_remove(channel_name="specific.wanda-tab-2") == guests_table.pk


def test_the_look_after_the_grace_announces_an_abandoned_table_once(
    guests_table, monkeypatch
):
    services.watcher_remove(channel_name="specific.wanda")
    announced = []
    monkeypatch.setattr(services.broadcast, "table_changed", lambda table_id, **kw: announced.append(table_id))
    assert services.table_announce_if_abandoned(table_id=guests_table.pk) is True  # not yet: ask again
    assert announced == []
    grace_over(guests_table)
    assert services.table_announce_if_abandoned(table_id=guests_table.pk) is False
    assert announced == [guests_table.pk]


def test_no_look_again_once_a_seated_person_is_back(guests_table):
    services.watcher_remove(channel_name="specific.wanda")
    at("specific.wanda-again", guests_table, guest("Wanda", "wanda-token"))
    assert services.table_announce_if_abandoned(table_id=guests_table.pk) is False
