"""An abandoned table leaves the lobbies open at that moment (issue 49, point 17): once
the last seated person's table page closed and the grace (``ABANDONED_AFTER``) is over,
every lobby socket is told to drop its row; a page back in time keeps it listed."""

from __future__ import annotations

import datetime as dt

import pytest
from channels.db import database_sync_to_async

from lobby import selectors
from tests.live.conftest import cookie_for, received
from tests.live.test_lobby_consumer import create_table, open_socket

pytestmark = pytest.mark.django_db(transaction=True)
GRACE_SECONDS = 0.3


@pytest.fixture(autouse=True)
def _short_grace(monkeypatch):
    monkeypatch.setattr(selectors, "ABANDONED_AFTER", dt.timedelta(seconds=GRACE_SECONDS))


def dropped(table_id: int, fragments: list[str]) -> bool:
    return any(f'<li id="table-{table_id}" hx-swap-oob="delete"></li>' in html for html in fragments)


async def test_the_lobby_drops_the_row_once_its_host_closed_the_page_and_the_grace_is_over(host):
    table = await database_sync_to_async(create_table)(host)
    page = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(host))
    lobby = await open_socket("/ws/lobby/")
    await received(lobby)
    await page.disconnect()  # the tab closed
    fragments = await received(lobby, 2.5)  # the grace, the slack (1 s), and a look
    assert dropped(table.pk, fragments)
    assert '<dd id="waiting-tetriwar" hx-swap-oob="true">0</dd>' in fragments[-1]
    await lobby.disconnect()


async def test_a_reload_within_the_grace_keeps_the_row(host):
    table = await database_sync_to_async(create_table)(host)
    page = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(host))
    lobby = await open_socket("/ws/lobby/")
    await received(lobby)
    await page.disconnect()
    again = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(host))  # the reloaded page
    fragments = await received(lobby, 2.5)
    assert not dropped(table.pk, fragments)
    await again.disconnect()
    await lobby.disconnect()
