"""A player who leaves a running game, through real consumers and the table host
(issue 30): the seat panels say so at once (the leaver's page plays no more), and after
the game the seat of a leaver whose page is gone is free, so the rematch waits for
nobody; a leaver still at the table keeps theirs."""

from __future__ import annotations

import asyncio
import re

import pytest
from channels.db import database_sync_to_async

from games import host as game_host
from games.models import Game
from lobby.models import Seat
from tests.live.conftest import ready_table, receive_until, received, started_sockets, tick

pytestmark = pytest.mark.django_db(transaction=True)
OPTIONS = {"move_seconds": 30, "target_score": None, "move_limit": 8}


async def three_players(host, opponent, third, fake_clock):
    table = await database_sync_to_async(ready_table)("viertris", OPTIONS, (host, opponent, third))
    sockets = await started_sockets(table, (host, opponent, third), fake_clock, "to move")
    return table, sockets


async def test_leave_tells_every_page_and_the_leaver_plays_no_more(host, opponent, third, fake_clock):
    table, (p1, p2, p3) = await three_players(host, opponent, third, fake_clock)
    await p3.send_json_to({"intent": "forfeit"})
    panel = await receive_until(p3, 'id="seat-panel"[^>]*data-my-seat="0"')
    assert 'data-my-seat="0"' in panel and "left-note" in panel and "forfeit-button" not in panel
    seen = await receive_until(p1, "Left the game")
    assert "Left the game" in seen and 'data-my-seat="1"' in seen and "forfeit-button" in seen
    assert await database_sync_to_async(Seat.objects.filter(table=table, left_game=True).count)() == 1


async def test_after_the_game_the_seat_of_a_leaver_who_closed_the_page_is_free(
    host, opponent, third, fake_clock, monkeypatch
):
    table, (p1, p2, p3) = await three_players(host, opponent, third, fake_clock)
    await p3.disconnect()  # closes the page: 30 s to come back, then forfeits
    live_table = game_host.GameHostConsumer.host.tables[table.pk]
    while live_table.connections[3].gone_since is None:  # the host has heard of it
        await asyncio.sleep(0.01)
    fake_clock.t += game_host.RECONNECT_SECONDS + 0.1
    await tick(table.pk)
    await receive_until(p1, "Left the game")
    # The two others leave too: the game ends with nobody left but the host.
    await p2.send_json_to({"intent": "forfeit"})
    seen = [await p1.receive_from(timeout=3)]
    while 'id="results-title"' not in seen[-1]:
        seen.append(await p1.receive_from(timeout=3))
    seen += await received(p1)
    panels = [html for html in seen if 'id="seat-panel"' in html]
    # The host's page shows seat 3 empty, ready to be taken (the panel may come first).
    assert panels and re.search(r'id="seat-3">\s*<span class="seat-no">3</span>\s*<span class="seat-name muted">', panels[-1])
    seats = await database_sync_to_async(lambda: sorted(Seat.objects.filter(table=table).values_list("number", flat=True)))()
    assert seats == [1]  # the opponent, who left but is still at the table, gives theirs up too
    assert not await database_sync_to_async(Seat.objects.filter(table=table, left_game=True).exists)()
    assert await database_sync_to_async(Game.objects.filter(table=table, status=Game.Status.FINISHED).count)() == 1


async def test_leave_during_the_countdown_leaves_as_the_game_starts(host, opponent, third, fake_clock):
    from lobby import services
    from tests.live.conftest import cookie_for, open_socket
    from tests.personas import ref

    table = await database_sync_to_async(ready_table)("viertris", OPTIONS, (host, opponent, third))
    sockets = [await open_socket(f"/ws/table/{table.pk}/", await cookie_for(u)) for u in (host, opponent, third)]
    await database_sync_to_async(services.table_start)(table_id=table.pk, player=ref(host))
    p1, p3 = sockets[0], sockets[2]
    await receive_until(p3, "A game is being played")  # the page knows the game runs
    await p3.send_json_to({"intent": "forfeit"})  # during the 3-2-1: not lost
    await left_at_the_start(table.pk, 3)  # (the socket's way to the host is its own: not before the tick)
    fake_clock.t += 3.01
    await tick(table.pk)
    await receive_until(p3, 'id="seat-panel"[^>]*data-my-seat="0"')
    assert "Left the game" in await receive_until(p1, "Left the game")


async def left_at_the_start(table_id: int, seat: int, timeout: float = 3.0) -> None:
    """Once the table's host has the seat's Leave, pressed during the countdown."""
    from games import host as game_host

    async def wait():
        while True:
            table = game_host.GameHostConsumer.host.tables.get(table_id)
            if table is not None and seat in table.leave_at_start:
                return
            await asyncio.sleep(0.01)

    await asyncio.wait_for(wait(), timeout)
