"""A live Viertris table through real consumers: two players and a spectator."""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async

from games.models import Game
from lobby import services
from tests.live.conftest import cookie_for, open_socket, ready_table, receive_until, started_sockets, tick
from tests.personas import ref

pytestmark = pytest.mark.django_db(transaction=True)
OPTIONS = {"move_seconds": 30, "target_score": None, "move_limit": 8}


def viertris_table(host, opponent):
    return ready_table("viertris", OPTIONS, (host, opponent))


async def started(table, host, opponent, outsider, fake_clock):
    return await started_sockets(table, (host, opponent, outsider), fake_clock, "to move")


async def test_a_move_reaches_everyone_and_the_clock_passes_the_turn(host, opponent, outsider, fake_clock):
    table = await database_sync_to_async(viertris_table)(host, opponent)
    p1, p2, spectator = await started(table, host, opponent, outsider, fake_clock)
    await p1.send_json_to({"intent": "drop", "column": 3, "seq": 1})
    for ws in (p1, p2, spectator):
        fragment = await receive_until(ws, r"a1:1\b")
        assert 'id="vt-board"' in fragment and "column 4" in fragment
        assert "opponent to move" in fragment


@pytest.mark.parametrize("frame,code", [
    ({"intent": "drop", "column": 9}, "BAD_COLUMN"),
    ({"intent": "jump", "column": 1}, "UNKNOWN_INTENT"),
])
async def test_bad_moves_are_refused_clearly(host, opponent, outsider, fake_clock, frame, code):
    table = await database_sync_to_async(viertris_table)(host, opponent)
    p1, p2, spectator = await started(table, host, opponent, outsider, fake_clock)
    await p1.send_json_to(frame)
    assert f'data-code="{code}"' in await receive_until(p1, "ws-error")


async def test_a_move_out_of_turn_is_refused(host, opponent, outsider, fake_clock):
    table = await database_sync_to_async(viertris_table)(host, opponent)
    p1, p2, spectator = await started(table, host, opponent, outsider, fake_clock)
    await p2.send_json_to({"intent": "drop", "column": 0})
    error = await receive_until(p2, "ws-error")
    assert 'data-code="NOT_YOUR_TURN"' in error
    assert await spectator.receive_nothing(timeout=0.2)


async def test_a_full_column_is_refused(host, opponent, outsider, fake_clock):
    table = await database_sync_to_async(viertris_table)(host, opponent)
    p1, p2, spectator = await started(table, host, opponent, outsider, fake_clock)
    players = [p1, p2]
    # Alternate in column 0 until it is full (6 rows) — no run of 4 of one colour there.
    for move in range(6):
        ws = players[move % 2]
        await ws.send_json_to({"intent": "drop", "column": 0, "seq": move + 1})
        await receive_until(spectator, rf"a{move % 2 + 1}:{move + 1}\b")
    await p1.send_json_to({"intent": "drop", "column": 0})
    refused = await receive_until(p1, "ws-error")
    assert 'data-code="COLUMN_FULL"' in refused
    assert "Column 1 is full." in refused  # the first column, as its button and the log count


async def test_the_move_clock_plays_for_a_slow_player_and_the_game_ends_and_is_saved(host, opponent, outsider, fake_clock):
    table = await database_sync_to_async(viertris_table)(host, opponent)
    p1, p2, spectator = await started(table, host, opponent, outsider, fake_clock)
    for _ in range(8):  # nobody moves: the clock plays all 8 moves of the limit
        fake_clock.t += 30.5
        await tick(table.pk)
        await receive_until(spectator, 'id="vt-board"')
    assert "Results" in await receive_until(spectator, 'id="results-title"')
    game = await database_sync_to_async(Game.objects.get)(table=table)
    assert game.status == "finished"
    log = await database_sync_to_async(lambda: game.log.entries)()
    assert len(log) == 8


async def test_practice_against_the_viertris_bot(host, outsider, fake_clock):
    table = await database_sync_to_async(services.practice_create)(player=ref(host), game="viertris")
    me = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(host))
    await database_sync_to_async(services.table_start)(table_id=table.pk, player=ref(host))
    await receive_until(me, 'id="game"')
    fake_clock.t += 3.01
    await tick(table.pk)
    await receive_until(me, "hostess to move")
    await me.send_json_to({"intent": "drop", "column": 3, "seq": 1})
    await receive_until(me, r"a1:1\b")
    for _ in range(2):  # the bot sees its turn, then thinks at most 1.2 s before it drops
        fake_clock.t += 1.3
        await tick(table.pk)
        await asyncio.sleep(0.1)  # one host step per tick (queued ticks are handled together)
    reply = await receive_until(me, "Alan \\(bot, greedy\\): column")
    assert "hostess to move" in reply
