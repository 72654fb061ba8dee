"""Names reach each socket in its reader's language (issue 30, points 8 and 10): a
bot's in the seat panel pushed as the host seats it and in the game's log line of its
move, rendered once per language read at the table; a default table name in the lobby
row pushed to each lobby socket, whoever made the table."""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async
from django.utils import translation

from lobby import services
from tests.live.conftest import cookie_for, receive_until, tick
from tests.live.test_languages import COOKIE, open_socket, speaks
from tests.live.test_viertris_table import OPTIONS
from tests.personas import ref

pytestmark = pytest.mark.django_db(transaction=True)


def table_with_a_bot(host):
    table = services.table_create(player=ref(host), game="viertris", options=dict(OPTIONS), seats_total=2)
    services.seat_ready(table_id=table.pk, player=ref(host), ready=True)
    return table


async def test_a_bots_seat_and_moves_reach_each_socket_in_its_language(host, outsider, fake_clock):
    await database_sync_to_async(speaks)(outsider, "de")
    table = await database_sync_to_async(table_with_a_bot)(host)
    path = f"/ws/table/{table.pk}/"
    english = await open_socket(path, await cookie_for(host))
    german = await open_socket(path, await cookie_for(outsider))
    chinese = await open_socket(path, f"{COOKIE}=zh-hans".encode())
    await database_sync_to_async(services.bot_add)(table_id=table.pk, player=ref(host), number=2, level="greedy")
    # (Each socket had its panels as it connected: the ones with the bot come after.)
    assert "Alan (bot, greedy)" in await receive_until(english, 'id="seat-panel"[^$]*Alan')
    panel = await receive_until(german, 'id="seat-panel"[^$]*Alan')
    assert "Alan (Bot, gierig)" in panel and "(bot," not in panel
    assert "Alan（机器人，贪心）" in await receive_until(chinese, 'id="seat-panel"[^$]*Alan')

    await database_sync_to_async(services.table_start)(table_id=table.pk, player=ref(host))
    for ws in (english, german, chinese):
        await receive_until(ws, 'id="game"')
    fake_clock.t += 3.01
    await tick(table.pk)
    await english.send_json_to({"intent": "drop", "column": 3, "seq": 1})
    await receive_until(english, r"a1:1\b")
    for _ in range(3):  # the bot thinks, then answers, on the host's clock
        fake_clock.t += 1.5
        await tick(table.pk)
        await asyncio.sleep(0.1)  # one step each
    assert "Alan (bot, greedy): column" in await receive_until(english, r"Alan \(bot, greedy\): column")
    line = await receive_until(german, r"Alan \(Bot, gierig\): Spalte")
    assert "(bot," not in line
    await receive_until(chinese, r"Alan（机器人，贪心）：第")


def made_in_german(host):
    with translation.override("de"):  # as a request of a German reader makes it
        return services.practice_create(player=ref(host), game="viertris")


async def test_a_default_table_name_reaches_each_lobby_socket_in_its_language(host):
    english = await open_socket("/ws/lobby/")
    german = await open_socket("/ws/lobby/", f"{COOKIE}=de".encode())
    chinese = await open_socket("/ws/lobby/", f"{COOKIE}=zh-hans".encode())
    await database_sync_to_async(made_in_german)(host)
    row = await receive_until(english, "table-list")
    assert "hostess practice" in row and "Übung" not in row
    assert "Übung von hostess" in await receive_until(german, "table-list")
    assert "hostess 练习" in await receive_until(chinese, "table-list")
