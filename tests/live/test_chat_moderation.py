"""Moderation in the chat as the open pages live it (issue 33): an admin's delete and
mute reach every page at once, a player's hidden writers stop reaching theirs, and a
banned player writes nothing."""

from __future__ import annotations

import json
import re

import pytest
from channels.db import database_sync_to_async
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.test import Client
from django.urls import reverse

from accounts.models import ModerationAction
from lobby import chat
from lobby.models import ChatIgnore, ChatMessage
from tests.live.conftest import cookie_for, open_socket, receive_until, received
from tests.personas import TETRIWAR_OPTIONS, ref

pytestmark = pytest.mark.django_db(transaction=True)


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@database_sync_to_async
def post_as(user, url: str, data: dict):
    return logged_in(user).post(url, data)


@database_sync_to_async
def say(user, text: str, table_id: int | None = None) -> ChatMessage:
    return chat.say(player=ref(user), table_id=table_id, text=text)


async def lobby_socket(user):
    """A lobby page of ``user``'s, its chat arrived."""
    ws = await open_socket("/ws/lobby/", await cookie_for(user))
    await receive_until(ws, 'id="chat-log"')
    return ws


def frame(text: str) -> str:
    return json.dumps({"intent": "say", "text": text})


async def test_an_admin_delete_takes_the_message_off_every_open_page(admin_user, host, outsider):
    from lobby import services

    table = await database_sync_to_async(services.table_create)(
        player=ref(host), game="tetriwar", options=dict(TETRIWAR_OPTIONS), seats_total=2, stake=0
    )
    watcher = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(outsider))
    await receive_until(watcher, 'id="chat-log"')
    message = await say(host, "buy cheap chips at example.com", table.pk)
    await receive_until(watcher, f'id="chat-{message.pk}"')
    await post_as(admin_user, reverse("admin:lobby_chatmessage_changelist"),
                  {"action": "delete_messages", ACTION_CHECKBOX_NAME: [message.pk]})
    gone = await receive_until(watcher, 'hx-swap-oob="delete"')
    assert re.search(rf'<li id="chat-{message.pk}" hx-swap-oob="delete">', gone)
    await database_sync_to_async(message.refresh_from_db)()
    assert message.deleted_at is not None
    assert await database_sync_to_async(chat.history)(table.pk, ref(outsider)) == []
    assert await ModerationAction.objects.filter(
        action=ModerationAction.Action.DELETE_MESSAGE, chat_message_id=message.pk
    ).acount() == 1
    again = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(outsider))  # a reconnect's log lacks it
    assert "example.com" not in await receive_until(again, 'id="chat-log"')
    for ws in (watcher, again):
        await ws.disconnect()


async def test_an_admin_mute_shows_until_when_and_refuses_the_players_words_until_unmuted(admin_user, host, outsider):
    muted, reader = await lobby_socket(host), await lobby_socket(outsider)
    await post_as(admin_user, reverse("admin:accounts_user_mute", args=[host.pk]), {"length": "1d", "reason": "Insults"})
    box = await receive_until(muted, 'id="chat-box"')
    await database_sync_to_async(host.refresh_from_db)()
    assert "muted in the chat until" in box and f'datetime="{host.muted_until.isoformat()}"' in box
    assert 'id="chat-input"' not in box
    assert await ModerationAction.objects.filter(action=ModerationAction.Action.MUTE, user=host).acount() == 1

    await muted.send_to(text_data=frame("can you hear me?"))
    assert 'data-code="MUTED"' in await receive_until(muted, 'id="ws-error"')
    assert await ChatMessage.objects.acount() == 0
    assert not [m for m in await received(reader) if "can you hear me" in m]

    await post_as(admin_user, reverse("admin:accounts_user_unmute", args=[host.pk]), {})
    assert 'id="chat-input"' in await receive_until(muted, 'id="chat-box"')
    await muted.send_to(text_data=frame("sorry, all"))
    assert "sorry, all" in await receive_until(reader, "chat-msg")
    for ws in (muted, reader):
        await ws.disconnect()


async def test_a_hidden_writer_no_longer_reaches_the_hiders_pages_and_does_again_once_shown(host, opponent, outsider):
    hider, other = await lobby_socket(opponent), await lobby_socket(outsider)
    first = await say(host, "first words")
    await receive_until(hider, "first words")
    await receive_until(other, "first words")

    response = await post_as(opponent, reverse("lobby:chat_ignore"), {"message": first.pk})
    assert response.status_code == 200
    hidden = await ChatIgnore.objects.aget(owner=opponent)
    assert hidden.author_name == "hostess" and hidden.author_key == f"u{host.pk}"
    log = await receive_until(hider, 'id="chat-log"')  # every page of the hider's reads its log again
    assert "first words" not in log

    await say(host, "second words")
    assert "second words" in await receive_until(other, "chat-msg")  # the others still read them
    assert not [m for m in await received(hider) if "second words" in m]

    response = await post_as(opponent, reverse("lobby:chat_unignore"), {"ignore": hidden.pk})
    assert response.status_code == 302 and response.url.endswith("#chat-hidden")
    log = await receive_until(hider, 'id="chat-log"')
    assert "first words" in log and "second words" in log
    await say(host, "third words")
    assert "third words" in await receive_until(hider, "chat-msg")
    for ws in (hider, other):
        await ws.disconnect()


async def test_a_message_deleted_that_a_reader_had_hidden_sends_them_nothing(admin_user, host, opponent, outsider):
    """The hider's page never showed it: a removal of it there would name a target that
    is not on the page (htmx:oobErrorNoTarget in its console)."""
    hider, other = await lobby_socket(opponent), await lobby_socket(outsider)
    message = await say(host, "buy cheap chips at example.com")
    await receive_until(hider, "example.com")
    await post_as(opponent, reverse("lobby:chat_ignore"), {"message": message.pk})
    await receive_until(hider, 'id="chat-log"')
    await post_as(admin_user, reverse("admin:lobby_chatmessage_changelist"),
                  {"action": "delete_messages", ACTION_CHECKBOX_NAME: [message.pk]})
    assert f'<li id="chat-{message.pk}" hx-swap-oob="delete">' in await receive_until(other, 'hx-swap-oob="delete"')
    assert not [m for m in await received(hider) if 'hx-swap-oob="delete"' in m]
    for ws in (hider, other):
        await ws.disconnect()


async def test_a_banned_player_cannot_write(admin_user, opponent, outsider):
    from lobby.services import player_ban

    banned, reader = await lobby_socket(opponent), await lobby_socket(outsider)
    await database_sync_to_async(player_ban)(user=opponent, reason="cheating", by=admin_user)
    assert "banned" in await receive_until(banned, "banned")
    assert (await banned.receive_output(timeout=2)) == {"type": "websocket.close", "code": 4003}
    with pytest.raises(chat.ChatRefused) as refused:
        await say(opponent, "I'm back")  # nor by any other way than their (closed) socket
    assert refused.value.code == "BANNED"
    assert await ChatMessage.objects.acount() == 0
    assert not [m for m in await received(reader) if "back" in m]
    await reader.disconnect()
