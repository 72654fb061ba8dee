"""Under a server, a table's news of its pages coming and going goes out once a moment
later, not once per page (lobby/broadcast.py ``presence_news``): a restarted server's
pages all come back at once, and each of them re-rendered its table's lobby row and
seat panels on the database's one thread, ahead of every other page's handshake."""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from config import sends
from lobby import broadcast, services
from tests.personas import ref

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
async def served():
    sends.serve_from()
    yield
    sends._outbox = None


async def news_of(channel: str, seconds: float) -> list[dict]:
    layer = get_channel_layer()
    found = []
    try:
        while True:
            found.append(await asyncio.wait_for(layer.receive(channel), seconds))
    except TimeoutError:
        return found


async def test_pages_that_come_together_make_one_news_of_their_table(served, host, opponent, make_table):
    table = await database_sync_to_async(make_table)(ref(host))
    await database_sync_to_async(services.seat_take)(table_id=table.pk, player=ref(opponent), number=2)
    layer = get_channel_layer()
    lobby = await layer.new_channel()
    page = await layer.new_channel()
    await layer.group_add(broadcast.lobby_group(None), lobby)
    await layer.group_add(broadcast.table_group(table.pk), page)
    await news_of(lobby, 0.7)  # what the seat taken said
    await news_of(page, 0.01)

    for n, player in enumerate([host, opponent, None, None]):  # two seated, two spectators
        await database_sync_to_async(services.watcher_add)(
            table_id=table.pk, channel_name=f"specific.p{n}", player=ref(player) if player else None, server="here"
        )
    assert await news_of(lobby, 0.2) == []  # nothing yet: the news waits for the others
    rows = [m for m in await news_of(lobby, 1.0) if m.get("table_id") == table.pk]
    assert len(rows) == 1
    assert f'id="table-{table.pk}"' in rows[0]["html"]
    told = await news_of(page, 0.2)
    # The seat panels (a seated player came) as the table stands once they are all here.
    changed = [m for m in told if m["type"] == "table.changed"]
    assert len(changed) == 1 and changed[0]["table_id"] == table.pk


async def test_without_a_server_the_news_goes_at_once(host, make_table):
    table = await database_sync_to_async(make_table)(ref(host))
    layer = get_channel_layer()
    lobby = await layer.new_channel()
    await layer.group_add(broadcast.lobby_group(None), lobby)
    assert sends.outbox() is None
    await database_sync_to_async(services.watcher_add)(
        table_id=table.pk, channel_name="specific.x", player=None, server="here"
    )
    assert any(m.get("table_id") == table.pk for m in await news_of(lobby, 0.2))
