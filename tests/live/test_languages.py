"""A live table in several languages at once (issue 24): each socket reads the table
in its reader's language, chosen as it connects (the account's, else the menu's
cookie, else the browser's Accept-Language), and every change is rendered once per
language present at the table, not once per socket."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from channels.db import database_sync_to_async
from channels.layers import InMemoryChannelLayer
from channels.testing import WebsocketCommunicator
from django.conf import settings

from accounts.middleware import language_of_scope
from config.asgi import application
from games import messages
from games.hub import Hub, play_group
from games.viertris.live import ViertrisLive
from lobby import services
from tests.live.conftest import HOST, ORIGIN, cookie_for, receive_until, received, tick
from tests.live.test_blockkiller_table import ATTACK, HANDS, blockkiller_table, engine, play
from tests.live.test_viertris_table import viertris_table
from tests.personas import ref

pytestmark = pytest.mark.django_db(transaction=True)
HEAD = re.compile(r"^<!--v\d+[^>]*-->")
COOKIE = settings.LANGUAGE_COOKIE_NAME


async def open_socket(path: str, cookie: bytes | None = None, *, accept_language: str = "") -> WebsocketCommunicator:
    headers = [HOST, ORIGIN]
    if cookie:
        headers.append((b"cookie", cookie))
    if accept_language:
        headers.append((b"accept-language", accept_language.encode()))
    ws = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await ws.connect()
    assert connected
    return ws


def speaks(user, language: str):
    user.language = language
    user.save(update_fields=["language"])
    return user


@pytest.fixture
def counted(monkeypatch):
    """How many times the table's adapter rendered each change: first (in the site's
    language) and again (in another)."""
    calls = {"render_events": 0, "rerender_events": 0}
    inside = []  # render_events renders through rerender_events: that is one render
    for name in calls:
        original = getattr(ViertrisLive, name)

        def counting(self, events, _original=original, _name=name):
            if events and not inside:
                calls[_name] += 1
            inside.append(_name)
            try:
                return _original(self, events)
            finally:
                inside.pop()

        monkeypatch.setattr(ViertrisLive, name, counting)
    return calls


async def started(table, host, *sockets, fake_clock):
    await database_sync_to_async(services.table_start)(table_id=table.pk, player=ref(host))
    for ws in sockets:
        await receive_until(ws, 'id="game"')
    fake_clock.t += 3.01
    await tick(table.pk)
    for ws in sockets:
        await receive_until(ws, 'id="clock"')


async def a_mixed_table(host, opponent, outsider, fake_clock):
    """The host plays in English, the opponent in German (their account), the outsider
    watches in Chinese (the menu's cookie)."""
    await database_sync_to_async(speaks)(opponent, "de")
    table = await database_sync_to_async(viertris_table)(host, opponent)
    path = f"/ws/table/{table.pk}/"
    english = await open_socket(path, await cookie_for(host))
    german = await open_socket(path, await cookie_for(opponent))
    chinese = await open_socket(path, await cookie_for(outsider) + f"; {COOKIE}=zh-hans".encode())
    await started(table, host, english, german, chinese, fake_clock=fake_clock)
    return table, english, german, chinese


async def test_each_socket_reads_a_move_in_its_language_under_the_same_version_and_acks(
    host, opponent, outsider, fake_clock
):
    table, english, german, chinese = await a_mixed_table(host, opponent, outsider, fake_clock)
    await english.send_json_to({"intent": "drop", "column": 3, "seq": 1})
    seen = {name: await receive_until(ws, r"a1:1\b") for name, ws in
            (("en", english), ("de", german), ("zh-hans", chinese))}
    assert "hostess: column 4" in seen["en"]
    assert "hostess: Spalte 4" in seen["de"]
    assert "hostess：第 4 列" in seen["zh-hans"]
    heads = {HEAD.match(html).group(0) for html in seen.values()}
    assert len(heads) == 1  # one broadcast: the same version and acks in every language
    # the board itself is the same markup in every language
    boards = {re.search(r'<div id="vt-board".*?</div>', html, re.S).group(0) for html in seen.values()}
    assert len(boards) == 1


async def test_a_refusal_and_a_resync_reach_the_german_player_in_german(host, opponent, outsider, fake_clock):
    table, english, german, chinese = await a_mixed_table(host, opponent, outsider, fake_clock)
    await german.send_json_to({"intent": "drop", "column": 0})  # seat 1 moves first
    error = await receive_until(german, "ws-error")
    assert 'data-code="NOT_YOUR_TURN"' in error and "Du bist nicht am Zug." in error
    await english.send_json_to({"intent": "drop", "column": 0, "seq": 1})
    for ws in (english, german, chinese):
        await receive_until(ws, r"a1:1\b")
    await chinese.send_json_to({"intent": "drop", "column": 0})  # a spectator, refused by its consumer
    assert "观众只能观战" in await receive_until(chinese, "ws-error")
    await german.send_json_to({"intent": "resync"})
    full = await receive_until(german, 'id="game"')
    assert full.count("hostess: Spalte 1") == 1  # the log so far, in German, each line once
    await english.send_json_to({"intent": "resync"})
    assert (await receive_until(english, 'id="game"')).count("hostess: column 1") == 1


async def test_the_results_reach_each_socket_in_its_language(host, opponent, outsider, fake_clock):
    table, english, german, chinese = await a_mixed_table(host, opponent, outsider, fake_clock)
    for _ in range(8):  # nobody moves: the clock plays all 8 moves of the limit
        fake_clock.t += 30.5
        await tick(table.pk)
        await receive_until(chinese, 'id="vt-board"')
    assert ">Results<" in await receive_until(english, 'id="results-title"')
    assert ">Ergebnisse<" in await receive_until(german, 'id="results-title"')
    assert ">结果<" in await receive_until(chinese, 'id="results-title"')


async def test_a_change_is_rendered_once_per_language_present_not_once_per_socket(
    host, opponent, outsider, fake_clock, counted
):
    table, english, german, chinese = await a_mixed_table(host, opponent, outsider, fake_clock)
    second_german = await open_socket(f"/ws/table/{table.pk}/", accept_language="de-DE,de;q=0.9")
    await receive_until(second_german, 'id="game"')
    before = dict(counted)
    await english.send_json_to({"intent": "drop", "column": 3, "seq": 1})
    seen = [await receive_until(ws, r"a1:1\b") for ws in (english, german, chinese, second_german)]
    assert "Spalte 4" in seen[1] and "Spalte 4" in seen[3]  # the account's German, and the browser's
    assert counted["render_events"] - before["render_events"] == 1
    assert counted["rerender_events"] - before["rerender_events"] == 2  # German and Chinese, once each


async def test_an_english_table_renders_each_change_once(host, opponent, outsider, fake_clock, counted):
    table = await database_sync_to_async(viertris_table)(host, opponent)
    path = f"/ws/table/{table.pk}/"
    sockets = [
        await open_socket(path, await cookie_for(host)),
        await open_socket(path, await cookie_for(opponent), accept_language="fr-FR,fr;q=0.9"),  # not ours: English
        await open_socket(path, await cookie_for(outsider)),
    ]
    await started(table, host, *sockets, fake_clock=fake_clock)
    for move, ws in enumerate(sockets[:2], start=1):
        await ws.send_json_to({"intent": "drop", "column": 3, "seq": move})
        for each in sockets:
            assert "column 4" in await receive_until(each, rf"a{move}:{move}\b")
    assert counted == {"render_events": 2, "rerender_events": 0}


async def test_the_seat_panel_reaches_each_socket_in_its_language(host, opponent, outsider):
    await database_sync_to_async(speaks)(opponent, "de")
    table = await database_sync_to_async(services.table_create)(
        player=ref(host), game="viertris", options={"move_seconds": 30, "target_score": None, "move_limit": 8},
        seats_total=2,
    )
    path = f"/ws/table/{table.pk}/"
    english = await open_socket(path, await cookie_for(host))
    german = await open_socket(path, await cookie_for(opponent))
    chinese = await open_socket(path, accept_language="zh-CN,zh;q=0.9")
    await database_sync_to_async(services.seat_take)(table_id=table.pk, player=ref(opponent), number=2)
    assert ">Seats<" in await receive_until(english, 'id="seat-panel"')
    assert ">Plätze<" in await receive_until(german, 'id="seat-panel"')
    assert ">座位<" in await receive_until(chinese, 'id="seat-panel"')


async def test_a_lobby_row_reaches_each_lobby_socket_in_its_language(host):
    english = await open_socket("/ws/lobby/")
    german = await open_socket("/ws/lobby/", f"{COOKIE}=de".encode())
    await database_sync_to_async(services.table_create)(
        player=ref(host), game="viertris", options={"move_seconds": 30, "target_score": None, "move_limit": 8},
        seats_total=2,
    )
    assert ">Friendly<" in await receive_until(english, "table-list")
    assert ">Freundschaftlich<" in await receive_until(german, "table-list")


# --- where a socket's language comes from ----------------------------------------------


def scope(language: str = "", cookie: str = "", accept: str = "", signed_in: bool = True) -> dict:
    user = SimpleNamespace(is_authenticated=signed_in, language=language)
    headers = [(b"host", b"localhost")] + ([(b"accept-language", accept.encode())] if accept else [])
    return {"user": user, "cookies": {COOKIE: cookie} if cookie else {}, "headers": headers}


@pytest.mark.parametrize("given,expected", [
    ({"language": "de", "cookie": "es", "accept": "zh-CN,zh;q=0.9"}, "de"),  # the account first
    ({"cookie": "es", "accept": "zh-CN,zh;q=0.9"}, "es"),  # then the menu's cookie
    ({"accept": "zh-CN,zh;q=0.9"}, "zh-hans"),  # then the browser
    ({"accept": "de-AT,de;q=0.9"}, "de"),
    ({"cookie": "fr", "accept": "es-MX"}, "es"),  # a cookie we do not speak is passed over
    ({"accept": "fr-FR,fr;q=0.9"}, "en"),  # nothing we speak: the site's
    ({}, "en"),
    ({"language": "de", "signed_in": False}, "en"),  # only a signed-in account's counts
])
def test_a_sockets_language_is_the_accounts_then_the_cookies_then_the_browsers(given, expected):
    assert language_of_scope(scope(**given)) == expected


# --- scale-out: sockets of another process ----------------------------------------------


async def test_a_remote_socket_in_another_language_gets_its_own_group_and_fragment():
    h = Hub(InMemoryChannelLayer(), hosted=frozenset({0}), remote=True)
    h.watch(messages.Watch(table_id=4, channels=["far-en", "far-de"], languages={"far-de": "de"}))
    assert h.languages(4) == {"de"}
    assert h.language("far-de") == "de" and h.language("far-en") == "en"
    await h.layer.group_add(play_group(4), "far-en")
    await h.layer.group_add(play_group(4, "de"), "far-de")
    await h.publish(4, "<!--v1-->english", {"de": "<!--v1-->deutsch"})
    await h.sender
    assert await h.layer.receive("far-en") == {"type": "game.fragment", "html": "<!--v1-->english"}
    assert await h.layer.receive("far-de") == {"type": "game.fragment", "html": "<!--v1-->deutsch"}
    h.watch(messages.Unwatch(table_id=4, channels=["far-de"]))
    assert h.languages(4) == set() and h.language_of == {}


async def test_a_watch_says_the_languages_of_sockets_that_read_another(monkeypatch):
    from games import hub as hub_module

    monkeypatch.setattr(hub_module, "shard_of", lambda table_id: table_id % 2)
    monkeypatch.setattr(hub_module, "host_channel", lambda table_id: f"game-host-{table_id % 2}")
    h = Hub(InMemoryChannelLayer(), hosted=frozenset({0}), remote=True)

    async def relay(html: str) -> None:
        pass

    await h.attach(5, "mine", relay, "de")
    assert await h.layer.receive("game-host-1") == {
        "type": "host.watch", "table_id": 5, "channels": ["mine"], "languages": {"mine": "de"}
    }
    await h.layer.group_send(play_group(5, "de"), {"type": "game.fragment", "html": "x"})
    assert await h.layer.receive("mine") == {"type": "game.fragment", "html": "x"}
    await h.detach(5, "mine")
    h.refresher.cancel()


async def test_sockets_of_this_process_in_another_language_are_counted_by_table():
    h = Hub(InMemoryChannelLayer(), hosted=frozenset({0}), remote=False)
    seen: list = []

    def recorder(name):
        async def relay(html: str) -> None:
            seen.append((name, html))
        return relay

    await h.attach(4, "a", recorder("a"))
    await h.attach(4, "b", recorder("b"), "de")
    await h.attach(4, "c", recorder("c"), "de")
    assert h.languages(4) == {"de"}
    await h.publish(4, "en", {"de": "de"})
    assert seen == [("a", "en"), ("b", "de"), ("c", "de")]
    await h.detach(4, "b")
    assert h.languages(4) == {"de"}
    await h.detach(4, "c")
    assert h.languages(4) == set() and h.local_languages == {}


async def test_each_seat_gets_its_own_hand_in_its_language(host, opponent, third, outsider, fake_clock):
    """A seat's private fragments (a Block-Killer hand) in the seat's language: dealt,
    after a resync, and after a play changes it; and never in another seat's."""
    await database_sync_to_async(speaks)(host, "de")
    await database_sync_to_async(speaks)(opponent, "zh-hans")
    table = await database_sync_to_async(blockkiller_table)(host, opponent, third)
    german, chinese, english = [
        await open_socket(f"/ws/table/{table.pk}/", await cookie_for(u)) for u in (host, opponent, third)
    ]
    await database_sync_to_async(services.table_start)(table_id=table.pk, player=ref(host))
    for ws in (german, chinese, english):
        await receive_until(ws, 'id="game"')
    fake_clock.t += 3.01
    await tick(table.pk)
    dealt = {
        name: await receive_until(ws, r'id="bk-hand"[^>]*data-seat="\d"')
        for name, ws in (("de", german), ("zh-hans", chinese), ("en", english))
    }
    assert "Steinkarten" in dealt["de"] and "Müllkarten" in dealt["de"] and "Block cards" not in dealt["de"]
    assert "方块牌" in dealt["zh-hans"] and "垃圾牌" in dealt["zh-hans"]
    assert "Block cards" in dealt["en"] and "Steinkarten" not in dealt["en"]

    engine(table).setup(hands=HANDS, turn=1)
    for ws in (german, chinese, english):
        await received(ws)
    await german.send_json_to({"intent": "resync"})
    hand = await receive_until(german, r'id="bk-hand"[^>]*data-seat="1"')
    assert 'data-card="72"' in hand and "Steinkarten <span" in hand
    await play(german, ATTACK[:3])  # the I leaves the hand: the hand is sent again, in German
    hand = await receive_until(german, r'(?s)id="bk-hand"[^>]*data-seat="1".*Steinkarten <span class="muted">\(1\)')
    assert 'data-card="72"' not in hand
    for ws in (chinese, english):  # nobody else gets seat 1's hand, in any language
        assert not any('data-seat="1"' in m and "bk-hand" in m for m in await received(ws))
