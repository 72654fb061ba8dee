"""Tables nobody is at close after TABLE_IDLE_MINUTES, and leave the lobby (issue 19):
an empty table, or one whose players went home after their game."""

from __future__ import annotations

import datetime as dt

import pytest
from django.conf import settings
from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone

from games import services as game_services
from games.models import Game
from lobby import services
from lobby.models import Seat, Table
from lobby.services import chips_available
from tests.games.test_money import outcome
from tests.personas import ref

IDLE = dt.timedelta(minutes=settings.TABLE_IDLE_MINUTES)
MINUTE = dt.timedelta(minutes=1)


def later(delta: dt.timedelta) -> dt.datetime:
    return timezone.now() + delta


def left_alone_since(table: Table, when: dt.datetime) -> None:
    """Everything that happened at the table happened at ``when``."""
    Table.objects.filter(pk=table.pk).update(updated_at=when)
    Seat.objects.filter(table=table).update(joined_at=when)


def status_of(table: Table) -> str:
    table.refresh_from_db()
    return table.status


@pytest.fixture
def left_to_its_bot(host, make_table):
    """A table whose host seated a bot and went away: no human seated, nobody watching."""
    table = make_table(ref(host))
    services.bot_add(table_id=table.pk, player=ref(host), number=2, level="easy")
    services.seat_leave(table_id=table.pk, player=ref(host))
    assert status_of(table) == Table.Status.OPEN
    return table


@pytest.fixture
def after_a_game(host, opponent, make_table):
    """Two players finished a game and went home: the table waits, 2 of 2 seats taken."""
    table = make_table(ref(host))
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    for player in (host, opponent):
        services.seat_ready(table_id=table.pk, player=ref(player), ready=True)
    services.table_start(table_id=table.pk, player=ref(host))
    game_services.game_finish(game_id=Game.objects.get(table=table).pk, finished=outcome({1: 1, 2: 2}))
    assert status_of(table) == Table.Status.OPEN and table.seats.count() == 2
    return table


def test_an_empty_table_closes_after_the_idle_minutes_and_not_before(left_to_its_bot):
    table = left_to_its_bot
    assert services.tables_close_idle(now=later(IDLE - MINUTE)) == []
    assert status_of(table) == Table.Status.OPEN

    assert services.tables_close_idle(now=later(IDLE + MINUTE)) == [table.pk]
    assert status_of(table) == Table.Status.CLOSED
    assert table.closed_reason == f"Nobody was at the table for {settings.TABLE_IDLE_MINUTES} minutes."
    assert not table.seats.exists()


def test_the_idle_minutes_are_a_setting(left_to_its_bot, settings):
    settings.TABLE_IDLE_MINUTES = 60
    assert services.tables_close_idle(now=later(IDLE + MINUTE)) == []
    assert services.tables_close_idle(now=later(dt.timedelta(minutes=61))) == [left_to_its_bot.pk]


def test_a_table_somebody_watches_stays_open_however_long(left_to_its_bot, outsider):
    services.watcher_add(table_id=left_to_its_bot.pk, channel_name="specific.watching", player=ref(outsider))
    assert services.tables_close_idle(now=later(dt.timedelta(days=1))) == []
    assert status_of(left_to_its_bot) == Table.Status.OPEN


def test_the_idle_time_counts_from_when_the_last_page_closed(left_to_its_bot, outsider):
    table = left_to_its_bot
    services.watcher_add(table_id=table.pk, channel_name="specific.watching", player=ref(outsider))
    left_alone_since(table, timezone.now() - dt.timedelta(hours=2))  # opened long ago, watched since
    services.watcher_remove(channel_name="specific.watching")
    assert services.tables_close_idle(now=later(IDLE - MINUTE)) == []
    assert services.tables_close_idle(now=later(IDLE + MINUTE)) == [table.pk]


def test_somebody_sitting_down_keeps_a_table_open(host, opponent, make_table):
    table = make_table(ref(host))
    left_alone_since(table, timezone.now() - 2 * IDLE)
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)  # just now, without a page
    assert services.tables_close_idle() == []
    assert status_of(table) == Table.Status.OPEN


def test_a_running_game_is_never_closed_for_idleness(after_a_game, host, opponent):
    table = after_a_game
    for player in (host, opponent):
        services.seat_ready(table_id=table.pk, player=ref(player), ready=True)
    services.table_start(table_id=table.pk, player=ref(host))
    left_alone_since(table, timezone.now() - 2 * IDLE)
    assert services.tables_close_idle() == []
    assert status_of(table) == Table.Status.RUNNING


def test_closing_an_idle_competitive_table_frees_the_stakes_it_reserved(host, make_table):
    table = make_table(ref(host), stake=300)
    assert chips_available(host.pk) == 700
    left_alone_since(table, timezone.now() - 2 * IDLE)
    assert services.tables_close_idle() == [table.pk]
    assert chips_available(host.pk) == 1000


def test_a_finished_table_whose_players_went_home_leaves_the_lobby(client, after_a_game):
    table = after_a_game
    listed = client.get(reverse("lobby:index")).content.decode()
    assert f'id="table-{table.pk}"' in listed and "2/2" in listed  # just finished: still there

    left_alone_since(table, timezone.now() - 2 * IDLE)
    cache.delete(services.IDLE_SWEEP_KEY)  # the first listing's look was a moment ago
    listed = client.get(reverse("lobby:index")).content.decode()
    assert f'id="table-{table.pk}"' not in listed  # listing the lobby closed it
    assert status_of(table) == Table.Status.CLOSED


def test_a_finished_table_with_a_player_still_there_stays_in_the_lobby(client, after_a_game, host):
    table = after_a_game
    services.watcher_add(table_id=table.pk, channel_name="specific.host", player=ref(host))
    left_alone_since(table, timezone.now() - 2 * IDLE)
    listed = client.get(reverse("lobby:index")).content.decode()
    assert f'id="table-{table.pk}"' in listed


def test_the_lobby_looks_for_idle_tables_at_most_once_a_period(client, db, monkeypatch, settings):
    settings.TABLE_IDLE_SWEEP_SECONDS = 30
    sweeps = []
    monkeypatch.setattr(services, "tables_close_idle", lambda: sweeps.append(1) or [])
    for _ in range(5):
        client.get(reverse("lobby:index"))
    assert len(sweeps) == 1


def test_a_closed_idle_table_leaves_every_open_lobby_at_once(
    left_to_its_bot, django_capture_on_commit_callbacks, monkeypatch
):
    from lobby import broadcast

    sent = []
    monkeypatch.setattr(broadcast, "_send_table_changed", lambda table_id, created: sent.append(table_id))
    with django_capture_on_commit_callbacks(execute=True):
        services.tables_close_idle(now=later(IDLE + MINUTE))
    assert sent == [left_to_its_bot.pk]
    game, fragment = broadcast.lobby_row_fragment(left_to_its_bot.pk)
    assert fragment == f'<li id="table-{left_to_its_bot.pk}" hx-swap-oob="delete"></li>'
