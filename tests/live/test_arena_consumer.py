"""An arena page's board over the lobby's socket (issue 51, lobby/arenas.py ArenaNews):
its standings and games pushed as they change, in the reader's language; a socket
for a forged arena is refused; an arena's socket only listens."""

from __future__ import annotations

import datetime as dt

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from accounts.services import user_language_set
from lobby import arenas
from tests.live.conftest import connect, cookie_for
from tests.personas import ref

pytestmark = pytest.mark.django_db(transaction=True)


def make_arena(admin_user):
    return arenas.arena_create(
        by=admin_user, title="Board test", game="viertris", starts_at=timezone.now() + dt.timedelta(minutes=5),
        minutes=20,
    )


async def open_board(arena_id, cookie=None):
    ws = await connect(f"/ws/lobby/?arena={arena_id}", cookie)
    connected, _ = await ws.connect()
    assert connected
    return ws


async def test_a_join_reaches_the_arena_pages_board(admin_user, host):
    arena = await database_sync_to_async(make_arena)(admin_user)
    ws = await open_board(arena.pk)
    await database_sync_to_async(arenas.arena_join)(arena_id=arena.pk, player=ref(host))
    html = await ws.receive_from(timeout=2)
    assert html.strip().startswith('<div id="arena-board" class="stack" hx-swap-oob="true">')
    assert "hostess" in html and 'id="arena-standings"' in html
    assert 'id="chat-log"' not in html  # an arena page hears nothing of the lobby
    await ws.disconnect()


async def test_the_board_comes_in_the_readers_language(admin_user, host, opponent):
    arena = await database_sync_to_async(make_arena)(admin_user)
    await database_sync_to_async(user_language_set)(user=opponent, language="de")
    ws = await open_board(arena.pk, await cookie_for(opponent))
    await database_sync_to_async(arenas.arena_join)(arena_id=arena.pk, player=ref(host))
    html = await ws.receive_from(timeout=2)
    assert "Standings" not in html
    await ws.disconnect()


@pytest.mark.parametrize("forged", ["abc", "1e3", "-1", "9" * 20, "١٢"])
async def test_a_socket_for_a_forged_arena_is_refused(forged):
    ws = await open_board(forged)
    html = await ws.receive_from(timeout=2)
    assert 'data-code="NO_SUCH_ARENA"' in html
    await ws.disconnect()


async def test_an_arenas_socket_only_listens(admin_user, host):
    arena = await database_sync_to_async(make_arena)(admin_user)
    ws = await open_board(arena.pk, await cookie_for(host))
    await ws.send_to(text_data='{"intent": "say", "text": "hello lobby"}')
    html = await ws.receive_from(timeout=2)
    assert 'data-code="READ_ONLY"' in html
    await ws.disconnect()
