"""An arena page's board over the lobby's socket (issue 51, lobby/arenas.py arena_news):
its standings and games pushed as they change, in the reader's language; its chat a
room of its own; a socket for a forged arena is refused."""

from __future__ import annotations

import datetime as dt

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from accounts.services import user_language_set
from lobby import arenas
from lobby.models import ChatMessage
from tests.live.conftest import connect, cookie_for
from tests.personas import ref

pytestmark = pytest.mark.django_db(transaction=True)


def make_arena(admin_user):
    return arenas.arena_create(
        by=admin_user, title="Board test", game="viertris", starts_at=timezone.now() + dt.timedelta(minutes=5),
        minutes=20,
    )


async def open_board(arena_id, cookie=None, *, chat=True):
    ws = await connect(f"/ws/lobby/?arena={arena_id}", cookie)
    connected, _ = await ws.connect()
    assert connected
    if chat:  # an arena's socket opens with its chat room (lobby/chat.py)
        assert 'id="chat-log" ' in await ws.receive_from(timeout=2)
    return ws


async def test_a_join_reaches_the_arena_pages_board(admin_user, host, opponent):
    arena = await database_sync_to_async(make_arena)(admin_user)
    ws = await open_board(arena.pk)
    mine = await open_board(arena.pk, await cookie_for(opponent))
    await database_sync_to_async(arenas.arena_join)(arena_id=arena.pk, player=ref(host))
    html = await ws.receive_from(timeout=2)
    assert html.strip().startswith('<div id="arena-board" class="stack" hx-swap-oob="true">')
    assert "hostess" in html and 'id="arena-standings"' in html
    assert 'id="chat-log"' not in html  # an arena page hears nothing of the lobby
    assert 'id="arena-my-place"' not in html  # a visitor has no place
    await mine.receive_from(timeout=2)
    # A player's page gets their own place with the board, however far down it is.
    await database_sync_to_async(arenas.arena_join)(arena_id=arena.pk, player=ref(opponent))
    html = await mine.receive_from(timeout=2)
    assert '<span id="arena-my-place" hx-swap-oob="true">Your place: 2, 0 points</span>' in html
    for socket in (ws, mine):
        await socket.disconnect()


async def test_the_board_comes_in_the_readers_language(admin_user, host, opponent):
    arena = await database_sync_to_async(make_arena)(admin_user)
    await database_sync_to_async(user_language_set)(user=opponent, language="de")
    ws = await open_board(arena.pk, await cookie_for(opponent))
    await database_sync_to_async(arenas.arena_join)(arena_id=arena.pk, player=ref(host))
    html = await ws.receive_from(timeout=2)
    assert "Standings" not in html
    await ws.disconnect()


@pytest.mark.parametrize("forged", ["abc", "1e3", "-1", "9" * 20, "١٢", "%ff%fe"])
async def test_a_socket_for_a_forged_arena_is_refused(forged):
    ws = await open_board(forged, chat=False)
    html = await ws.receive_from(timeout=2)
    assert 'data-code="NO_SUCH_ARENA"' in html
    await ws.disconnect()


async def test_a_query_of_many_fields_is_the_lobbys_socket():
    ws = await connect("/ws/lobby/?" + "&".join(f"f{n}=1" for n in range(50)))
    assert (await ws.connect())[0]
    assert 'id="chat-log" ' in await ws.receive_from(timeout=2)
    await ws.disconnect()


async def test_the_arenas_chat_is_a_room_of_its_own(admin_user, host, opponent):
    arena = await database_sync_to_async(make_arena)(admin_user)
    writer = await open_board(arena.pk, await cookie_for(host))
    reader = await open_board(arena.pk)
    lobby = await connect("/ws/lobby/")
    assert (await lobby.connect())[0]
    assert 'id="chat-log" ' in await lobby.receive_from(timeout=2)
    await writer.send_to(text_data='{"intent": "say", "text": "good luck all"}')
    for ws in (writer, reader):
        html = await ws.receive_from(timeout=2)
        assert "good luck all" in html and "hostess" in html
    assert await lobby.receive_nothing(timeout=0.3)  # the lobby's room hears nothing of it
    message = await database_sync_to_async(ChatMessage.objects.get)(text="good luck all")
    assert (message.room, message.arena_id, message.table_id) == ("arena", arena.pk, None)
    for ws in (writer, reader, lobby):
        await ws.disconnect()


async def test_no_arena_no_chat(host):
    ws = await open_board(999999, await cookie_for(host))
    await ws.send_to(text_data='{"intent": "say", "text": "anyone?"}')
    assert 'data-code="CHAT_CLOSED"' in await ws.receive_from(timeout=2)
    assert not await database_sync_to_async(ChatMessage.objects.exists)()
    await ws.disconnect()
