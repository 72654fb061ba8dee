"""Chat over the live sockets (issue 33): who reads what, what is refused, and what a
socket finds when it (re)connects."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from accounts.models import ModerationAction, User
from lobby import services
from lobby.models import ChatMessage
from tests.live.conftest import cookie_for, guest_cookie, open_socket, receive_until, received
from tests.live.test_tetriwar_table import seat_everyone, start_game
from tests.personas import ref

pytestmark = pytest.mark.django_db(transaction=True)


async def lobby_socket(user=None, cookie=None):
    ws = await open_socket("/ws/lobby/", cookie or (await cookie_for(user) if user else None))
    assert 'id="chat-log"' in await ws.receive_from(timeout=2)  # the log, as the socket opens
    return ws


def codes(messages: list[str]) -> list[str]:
    return [m.group(1) for m in (re.search(r'data-code="(\w+)"', x) for x in messages) if m]


def chat_items(messages: list[str]) -> list[str]:
    return [item for x in messages for item in re.findall(r'<li id="chat-\d+"[^>]*>.*?</li>', x)]


async def stored() -> list[str]:
    return await database_sync_to_async(lambda: list(ChatMessage.objects.order_by("id").values_list("text", flat=True)))()


# --- what is written, and how it shows ---------------------------------------------------
async def test_a_lobby_message_reaches_every_lobby_socket_as_text(host, opponent):
    writer, reader, anonymous = await lobby_socket(host), await lobby_socket(opponent), await lobby_socket()
    hostile = '<script>alert(1)</script><b>bold</b> <img src=x onerror=alert(2)> http://evil.example/?a=1&b=2'
    await writer.send_json_to({"intent": "say", "text": hostile})
    for ws in (writer, reader, anonymous):
        fragment = await receive_until(ws, "chat-msg")
        assert fragment.startswith('<div hx-swap-oob="beforeend:#chat-log"><li id="chat-')
        assert "&lt;script&gt;alert(1)&lt;/script&gt;&lt;b&gt;bold&lt;/b&gt;" in fragment
        assert "&lt;img src=x onerror=alert(2)&gt;" in fragment
        assert "http://evil.example/?a=1&amp;b=2" in fragment and "<a " not in fragment
        assert "<script" not in fragment and "<b>" not in fragment and "<img" not in fragment
        assert '<span class="chat-name">hostess</span>' in fragment
    assert await stored() == [hostile]


async def test_invisible_and_direction_characters_are_removed_and_lines_joined(host):
    ws = await lobby_socket(host)
    await ws.send_json_to({"intent": "say", "text": "a\u202egnp.exe\u200b\nb\x00c"})
    fragment = await receive_until(ws, "chat-msg")
    assert '<span class="chat-text">agnp.exe bc</span>' in fragment


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ({"intent": "say"}, "BAD_TEXT"),
        ({"intent": "say", "text": 5}, "BAD_TEXT"),
        ({"intent": "say", "text": ["a"]}, "BAD_FRAME"),
        ({"intent": "say", "text": "x" * 1001}, "FRAME_TOO_LARGE"),  # refused at the edge, unread
        ({"intent": "say", "text": "x" * 301}, "CHAT_TOO_LONG"),
        ({"intent": "say", "text": " \n\t\u200b "}, "CHAT_EMPTY"),
        ({"intent": "say", "text": "hi", "room": "spectators"}, "BAD_FRAME"),
        ({"intent": "say", "text": "hi", "table": 99}, "WRONG_TABLE"),
    ],
)
async def test_a_malformed_chat_frame_is_refused_with_a_code_and_writes_nothing(host, opponent, frame, code):
    table = await database_sync_to_async(seat_everyone)(host, opponent)
    me = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(host))
    other = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(opponent))
    await received(me)
    await received(other)
    await me.send_json_to(frame)
    assert codes([await receive_until(me, "ws-error")]) == [code]
    assert not chat_items(await received(other))
    assert await stored() == []
    await me.send_json_to({"intent": "say", "text": "still here"})  # the socket stays open
    assert "still here" in await receive_until(other, "chat-msg")


async def test_a_message_of_the_longest_length_is_written(host):
    ws = await lobby_socket(host)
    await ws.send_to(text_data=json.dumps({"intent": "say", "text": "é" * 300}, ensure_ascii=False))  # as a page sends it
    assert "é" * 300 in await receive_until(ws, "chat-msg")


async def test_an_anonymous_visitor_and_a_guest_read_but_do_not_write(host, settings):
    anonymous = await lobby_socket()
    guest = await lobby_socket(cookie=await database_sync_to_async(guest_cookie)("Zed"))
    await anonymous.send_json_to({"intent": "say", "text": "hello"})
    assert codes([await receive_until(anonymous, "ws-error")]) == ["CHAT_LOG_IN"]
    await guest.send_json_to({"intent": "say", "text": "hello"})
    assert codes([await receive_until(guest, "ws-error")]) == ["CHAT_ACCOUNTS_ONLY"]
    assert await stored() == []
    settings.CHAT_GUESTS_MAY_WRITE = True
    await guest.send_json_to({"intent": "say", "text": "hello"})
    fragment = await receive_until(anonymous, "chat-msg")
    assert "Zed" in fragment and "(guest)" in fragment and "guest-token" not in fragment


async def test_the_box_says_who_may_write(host):
    anonymous = await open_socket("/ws/lobby/")
    first = await anonymous.receive_from(timeout=2)
    assert 'id="chat-box"' in first and "Log in</a> or" in first and "chat-input" not in first
    member = await open_socket("/ws/lobby/", await cookie_for(host))
    assert 'id="chat-input"' in await member.receive_from(timeout=2)


# --- rooms ------------------------------------------------------------------------------------
async def test_spectators_write_to_their_own_room_while_a_game_runs(host, opponent, outsider, third, fake_clock):
    table = await database_sync_to_async(seat_everyone)(host, opponent)
    players = [await open_socket(f"/ws/table/{table.pk}/", await cookie_for(u)) for u in (host, opponent)]
    watchers = [await open_socket(f"/ws/table/{table.pk}/", await cookie_for(u)) for u in (outsider, third)]
    everyone = [*players, *watchers]

    # Before the game: one room, everybody reads everybody.
    await watchers[0].send_json_to({"intent": "say", "text": "good luck both"})
    for ws in everyone:
        assert "good luck both" in await receive_until(ws, "chat-msg")

    await start_game(table, fake_clock, everyone)
    await watchers[0].send_json_to({"intent": "say", "text": "host should go left"})
    spectator_item = await receive_until(watchers[1], "chat-msg")
    assert "host should go left" in spectator_item and "chat-spectators" in spectator_item
    await players[0].send_json_to({"intent": "say", "text": "gg soon"})
    for ws in everyone:
        assert "chat-spectators" not in await receive_until(ws, "gg soon")
    for ws in players:  # the spectators' room never reached them
        assert not any("host should go left" in x for x in await received(ws))
    rooms = await database_sync_to_async(lambda: list(ChatMessage.objects.order_by("id").values_list("room", flat=True)))()
    assert rooms == ["table", "spectators", "table"]

    # A player's page that reconnects mid-game gets the table's room only; a spectator's both.
    await players[0].disconnect()
    again = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(host))
    log = await receive_until(again, 'id="chat-log"')
    assert "good luck both" in log and "gg soon" in log and "host should go left" not in log
    await watchers[1].disconnect()
    back = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(third))
    log = await receive_until(back, 'id="chat-log"')
    assert "good luck both" in log and "host should go left" in log and "gg soon" in log


async def test_a_socket_that_reconnects_gets_what_it_missed_and_the_room_keeps_its_last_100(host, opponent, settings):
    settings.CHAT_BURST, settings.CHAT_ADDRESS_BURST, settings.WS_FRAME_BURST = 1000, 1000, 1000
    table = await database_sync_to_async(seat_everyone)(host, opponent)
    writer = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(host))
    reader = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(opponent))
    await writer.send_json_to({"intent": "say", "text": "message 0"})
    assert "message 0" in await receive_until(reader, "chat-msg")
    await reader.disconnect()
    for n in range(1, 105):
        await writer.send_json_to({"intent": "say", "text": f"message {n}"})
    await receive_until(writer, r"message 104\b", timeout=10)
    reader = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(opponent))
    log = await receive_until(reader, 'id="chat-log"')
    shown = re.findall(r'class="chat-text">message (\d+)<', log)
    assert shown == [str(n) for n in range(5, 105)]  # the last 100, oldest first
    count = await database_sync_to_async(ChatMessage.objects.filter(table=table).count)()
    assert count == 100


async def test_a_closed_table_has_no_chat_to_write_in(host, opponent, admin_user):
    table = await database_sync_to_async(seat_everyone)(host, opponent)
    ws = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(host))
    await database_sync_to_async(services.table_close)(table_id=table.pk, reason="test", by=admin_user)
    await received(ws)
    await ws.send_json_to({"intent": "say", "text": "bye"})
    assert codes(await received(ws)) == ["CHAT_CLOSED"]
    assert await stored() == []


# --- budgets and the timed mute --------------------------------------------------------------
async def test_a_flood_gets_a_clear_refusal_then_a_timed_mute_that_every_page_shows(host, opponent, settings):
    settings.CHAT_BURST, settings.CHAT_PER_MINUTE, settings.CHAT_STRIKES = 3, 1, 3
    settings.CHAT_FLOOD_MUTE_SECONDS = 300
    flooder, second_tab, reader = await lobby_socket(host), await lobby_socket(host), await lobby_socket(opponent)
    for n in range(8):
        await flooder.send_json_to({"intent": "say", "text": f"spam {n}"})
    answers = await received(flooder, 0.5)
    # The burst is written; the next two are refused for their speed; the third refusal mutes.
    assert [re.search(r"spam \d", x).group(0) for x in chat_items(answers)] == ["spam 0", "spam 1", "spam 2"]
    assert codes(answers) == ["CHAT_FLOOD", "CHAT_FLOOD", "MUTED", "MUTED", "MUTED"]
    assert "You are writing too fast" in next(x for x in answers if "CHAT_FLOOD" in x)
    assert await stored() == ["spam 0", "spam 1", "spam 2"]
    user = await database_sync_to_async(User.objects.get)(pk=host.pk)
    remaining = (user.muted_until - timezone.now()).total_seconds()
    assert 290 < remaining <= 300
    action = await database_sync_to_async(
        lambda: ModerationAction.objects.filter(action="mute", user=host).values_list("admin_id", "reason").get()
    )()
    assert action[0] is None and "automatic" in action[1]
    # Every page of the flooder's now says until when, in place of the box.
    box = await receive_until(second_tab, 'id="chat-box"')
    assert "You are muted in the chat until" in box and "chat-input" not in box
    assert "you wrote too many messages too fast" in box  # and why
    assert [x for x in chat_items(await received(reader)) if "spam" in x].__len__() == 3
    # Another page of the same player, opened now, is muted too (the account says so).
    third_tab = await open_socket("/ws/lobby/", await cookie_for(host))
    assert "You are muted in the chat until" in await third_tab.receive_from(timeout=2)


async def test_an_address_has_a_budget_of_its_own_for_all_its_writers(host, opponent, third, settings):
    settings.CHAT_BURST, settings.CHAT_ADDRESS_BURST, settings.CHAT_ADDRESS_PER_MINUTE = 5, 4, 1
    sockets = [await lobby_socket(u) for u in (host, opponent, third)]
    for n in range(2):
        for ws in sockets:
            await ws.send_json_to({"intent": "say", "text": f"hi {n}"})
            await asyncio.sleep(0.02)
    refusals = [code for ws in sockets for code in codes(await received(ws))]
    assert len(await stored()) == 4  # the address's burst, whoever wrote
    assert refusals.count("CHAT_FLOOD") == 2


async def test_a_muted_player_is_refused_and_sees_until_when(host, opponent):
    until = timezone.now() + timezone.timedelta(hours=1)
    await database_sync_to_async(User.objects.filter(pk=host.pk).update)(muted_until=until, mute_reason="rude")
    ws = await open_socket("/ws/lobby/", await cookie_for(host))
    first = await ws.receive_from(timeout=2)
    assert "You are muted in the chat until" in first and until.isoformat(timespec="seconds")[:16] in first
    assert "too fast" not in first  # a moderator's mute: their reason is theirs to give
    await ws.send_json_to({"intent": "say", "text": "let me speak"})
    assert "MUTED" in codes(await received(ws))
    assert await stored() == []


async def test_a_message_is_rendered_once_for_all_the_readers_of_a_language(host, opponent, third, outsider, monkeypatch):
    from lobby import chat

    renders = []
    original = chat.message_in

    def counting(language, fields):
        renders.append(language)
        return original(language, fields)

    monkeypatch.setattr(chat, "message_in", counting)
    await database_sync_to_async(User.objects.filter(pk__in=[opponent.pk, third.pk, outsider.pk]).update)(language="de")
    english = await lobby_socket(host)
    germans = [await lobby_socket(u) for u in (opponent, third, outsider)]
    await english.send_json_to({"intent": "say", "text": "hallo"})
    assert "Report this message" in await receive_until(english, "chat-msg")
    for ws in germans:
        fragment = await receive_until(ws, "chat-msg")
        assert "hallo" in fragment and "Report this message" not in fragment
    assert renders == ["de"]  # the site's language was rendered as it was sent; German once for three


async def test_a_banned_player_writes_nothing(host):
    from lobby import chat

    await database_sync_to_async(User.objects.filter(pk=host.pk).update)(banned_at=timezone.now())
    with pytest.raises(chat.ChatRefused) as refused:
        await database_sync_to_async(chat.say)(player=ref(host), table_id=None, text="still here?")
    assert refused.value.code == "BANNED"
    assert await stored() == []


async def test_brackets_and_braces_are_text_in_a_message_but_still_refused_as_structure(host):
    ws = await lobby_socket(host)
    await ws.send_json_to({"intent": "say", "text": '[afk] {brb} :-[ "quoted" \\ {{x}}'})
    assert '[afk] {brb} :-[ &quot;quoted&quot; \\ {{x}}' in await receive_until(ws, "chat-msg")
    for nested in ('{"intent": "say", "text": "[", "x": [1]}', '{"intent": "say", "text": "{", "x": {"y": 1}}',
                   '{"intent": "say", "text": "' + "[" * 900 + '"' + "[" * 90):
        await ws.send_to(text_data=nested)
        assert codes([await receive_until(ws, "ws-error")]) == ["BAD_FRAME"]
    assert await stored() == ['[afk] {brb} :-[ "quoted" \\ {{x}}']
