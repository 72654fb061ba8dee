"""The edge of the live path (lobby/edge.py, games/wire.py, config/network.py):
typed frames, budgets per player and per address, the Origin check, and what a
consumer leaves behind however it ends."""

from __future__ import annotations

import asyncio
import re

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from config.asgi import application
from config.network import gate
from games import host as game_host
from lobby.broadcast import user_group
from lobby.consumers import TableConsumer
from lobby.edge import Inbox, address_key
from lobby.models import Watcher
from tests.live.conftest import HOST, ORIGIN, connect, cookie_for, open_socket, receive_until
from tests.live.test_tetriwar_table import seat_everyone, start_game, three_sockets

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def table(host, opponent):
    return seat_everyone(host, opponent)


def from_address(address: str, headers=()):
    """The site's application, as if the connection came from ``address``."""

    async def app(scope, receive, send):
        return await application({**scope, "client": (address, 40000)}, receive, send)

    return app


async def attempt(app, path="/ws/lobby/", headers=(HOST, ORIGIN)):
    ws = WebsocketCommunicator(app, path, headers=list(headers))
    connected, _ = await ws.connect()
    return ws, connected


async def outputs_until_close(ws, timeout=2.0):
    outputs = []
    while True:
        output = await ws.receive_output(timeout=timeout)
        outputs.append(output)
        if output["type"] == "websocket.close":
            return outputs


def codes(outputs) -> list[str]:
    found = (re.search(r'data-code="(\w+)"', o.get("text", "")) for o in outputs)
    return [match.group(1) for match in found if match]


# --- typed frames ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ("[" * 1000, "BAD_FRAME"),  # nested past any recursion limit: refused by its shape
        ('{"a":' * 200, "BAD_FRAME"),
        ('{"intent": "left", "x": ' + "[" * 400 + "]" * 400 + "}", "BAD_FRAME"),
        ('{"intent": "left", "seq": -1}', "BAD_SEQ"),
        ('{"intent": "left", "seq": 4611686018427387904}', "BAD_SEQ"),
        ('{"intent": "left", "seq": 1.5}', "BAD_SEQ"),
        ('{"intent": "left", "seq": "7"}', "BAD_SEQ"),
        ('{"intent": "left", "seq": true}', "BAD_SEQ"),
        ('{"intent": "left", "extra": 1}', "BAD_FRAME"),
        ('{"intent": "bomb", "target": "2"}', "BAD_TARGET"),
        ('{"intent": "teleport"}', "UNKNOWN_INTENT"),
        ('{"intent": 3}', "BAD_FRAME"),
        ('{"seq": 3}', "BAD_FRAME"),
        ('{"intent": "left", "table": -4}', "BAD_TABLE"),
        ("\ud800", "BAD_FRAME"),
    ],
)
async def test_a_frame_that_is_not_a_declared_type_gets_one_error_and_changes_nothing(
    table, host, opponent, outsider, fake_clock, frame, code
):
    sockets = await three_sockets(table, host, opponent, outsider)
    await start_game(table, fake_clock, sockets)
    player1, player2, spectator = sockets
    watchers = await database_sync_to_async(Watcher.objects.count)()
    await player1.send_to(text_data=frame)
    assert f'data-code="{code}"' in await receive_until(player1, "ws-error")
    assert await spectator.receive_nothing(timeout=0.2)  # nobody else heard of it
    # The socket is still open and in play; the table is as it was.
    await player1.send_json_to({"intent": "left", "seq": 5})
    assert re.search(r"a1:5\b", await receive_until(spectator, r"a1:5\b"))
    assert await database_sync_to_async(Watcher.objects.count)() == watchers
    for ws in sockets:
        await ws.disconnect()


async def test_an_unknown_intent_is_counted_and_logged(table, host, opponent, outsider, fake_clock, caplog):
    from games import wire

    sockets = await three_sockets(table, host, opponent, outsider)
    await start_game(table, fake_clock, sockets)
    before = wire.refused["UNKNOWN_INTENT"]
    wire._last_logged[0] = 0.0
    await sockets[0].send_json_to({"intent": "warp", "seq": 1})
    assert 'data-code="UNKNOWN_INTENT"' in await receive_until(sockets[0], "ws-error")
    assert wire.refused["UNKNOWN_INTENT"] == before + 1
    assert any("unknown intent" in record.getMessage() and "warp" in record.getMessage() for record in caplog.records)
    for ws in sockets:
        await ws.disconnect()


async def test_a_valid_seq_is_acknowledged(table, host, opponent, outsider, fake_clock):
    sockets = await three_sockets(table, host, opponent, outsider)
    await start_game(table, fake_clock, sockets)
    await sockets[0].send_json_to({"intent": "rotate", "seq": 2**31 - 1})
    assert re.search(r"a1:2147483647\b", await receive_until(sockets[2], r"a1:\d+"))
    for ws in sockets:
        await ws.disconnect()


async def test_oversized_and_binary_frames_are_refused_at_the_edge(db, settings):
    ws = await open_socket("/ws/lobby/")
    await ws.send_to(text_data='{"intent": "left", "pad": "' + "x" * settings.WS_MAX_FRAME_BYTES + '"}')
    # (the lobby's chat log, which the socket gets as it opens, may come before or after)
    assert 'data-code="FRAME_TOO_LARGE"' in await receive_until(ws, "ws-error")
    await ws.send_to(bytes_data=b'{"intent": "left"}')
    assert 'data-code="BAD_FRAME"' in await receive_until(ws, "ws-error")
    await ws.disconnect()


# --- budgets ----------------------------------------------------------------------------
async def test_a_players_sockets_share_one_budget(db, host, settings):
    settings.WS_FRAMES_PER_SECOND, settings.WS_FRAME_BURST = 5, 20
    cookie = await cookie_for(host)
    sockets = [await open_socket("/ws/lobby/", cookie) for _ in range(4)]
    # 4 × 8 frames: within any one socket's burst, twice the player's.
    for _ in range(8):
        for ws in sockets:
            await ws.send_to(text_data="{}")
    closed = 0
    for ws in sockets:
        outputs = []
        while not await ws.receive_nothing(timeout=0.3):
            outputs.append(await ws.receive_output())
        closed += any(o == {"type": "websocket.close", "code": 4008, "stop_reading": True} for o in outputs)
    assert closed >= 1


async def test_anonymous_sockets_each_have_their_own_budget(db, settings):
    settings.WS_FRAMES_PER_SECOND, settings.WS_FRAME_BURST = 5, 20
    sockets = [await open_socket("/ws/lobby/") for _ in range(4)]
    for _ in range(8):
        for ws in sockets:
            await ws.send_to(text_data="{}")
    for ws in sockets:
        assert 'id="chat-log"' in await ws.receive_from(timeout=2)  # the lobby's chat, as the socket opens
        for _ in range(8):  # each frame read and refused: "{}" is no chat message (a lobby socket's one frame)
            assert 'data-code="BAD_TEXT"' in await ws.receive_from(timeout=2)
        assert await ws.receive_nothing(timeout=0.2)
        await ws.disconnect()


async def test_a_resync_costs_more_than_a_key(table, host, opponent, outsider, fake_clock, settings):
    settings.WS_FRAMES_PER_SECOND, settings.WS_FRAME_BURST = 1, 30
    sockets = await three_sockets(table, host, opponent, outsider)
    await start_game(table, fake_clock, sockets)
    spectator = sockets[2]
    for _ in range(5):  # 5 resyncs at 10 each: past a burst of 30
        await spectator.send_json_to({"intent": "resync"})
    outputs = await outputs_until_close(spectator)
    assert codes(outputs)[-1] == "FLOOD" and outputs[-1]["code"] == 4008
    assert sum('id="game"' in o.get("text", "") for o in outputs) <= 3
    for ws in sockets[:2]:
        await ws.disconnect()


async def test_an_address_has_a_cap_on_open_sockets(db, settings):
    settings.WS_MAX_SOCKETS_PER_ADDRESS = 3
    app = from_address("203.0.113.7")
    opened = [await attempt(app) for _ in range(4)]
    assert [connected for _, connected in opened] == [True, True, True, False]
    other, connected = await attempt(from_address("203.0.113.8"))
    assert connected  # another address is not affected
    await opened[0][0].disconnect()
    await asyncio.sleep(0.05)
    again, connected = await attempt(app)
    assert connected  # a closed socket frees its place
    for ws in (again, other, opened[1][0], opened[2][0]):
        await ws.disconnect()


async def test_an_address_knocking_at_its_cap_spends_its_new_sockets_and_is_shut_at_the_gate(db, settings):
    settings.WS_MAX_SOCKETS_PER_ADDRESS = 2
    settings.WS_NEW_SOCKETS_PER_MINUTE = 6
    app = from_address("203.0.113.9")
    held = [await attempt(app) for _ in range(2)]
    assert all(connected for _, connected in held)
    knocks = [(await attempt(app))[1] for _ in range(4)]  # at its cap: refused, each a handshake
    assert knocks == [False] * 4
    assert gate.admits("203.0.113.9")  # not shut yet: four of its six new sockets spent
    assert not (await attempt(app))[1]  # the seventh attempt is over its rate
    assert not gate.admits("203.0.113.9")  # now its connections are closed as they come
    assert gate.admits("203.0.113.10")
    for ws, _ in held:
        await ws.disconnect()


async def test_an_address_has_a_cap_on_new_sockets_a_minute(db, settings):
    settings.WS_NEW_SOCKETS_PER_MINUTE = 5
    app = from_address("2001:db8::1")
    results = []
    for _ in range(6):
        ws, connected = await attempt(app)
        results.append(connected)
        if connected:
            await ws.disconnect()
    assert results == [True] * 5 + [False]
    # The same /64 is the same subscriber; another /64 is not.
    assert not (await attempt(from_address("2001:db8::ffff")))[1]
    ws, connected = await attempt(from_address("2001:db8:0:1::1"))
    assert connected
    await ws.disconnect()


def test_address_keys():
    assert address_key("198.51.100.4") == "198.51.100.4"
    assert address_key("::ffff:198.51.100.4") == "198.51.100.4"
    assert address_key("2001:db8:1:2:3:4:5:6") == "2001:db8:1:2::/64"
    assert address_key(None) == "unknown"


# --- the Origin check -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("origin", "host", "allowed"),
    [
        (b"http://localhost", b"localhost", True),
        (b"http://localhost:8000", b"localhost:8000", True),
        (b"https://localhost", b"localhost", False),  # wrong scheme
        (b"http://localhost:8001", b"localhost:8000", False),  # wrong port
        (b"http://localhost:8000", b"localhost", False),
        (b"http://evil.example", b"evil.example", False),  # not an allowed host
        (b"http://evil.example", b"localhost", False),
        (b"null", b"localhost", False),
    ],
)
async def test_a_socket_is_accepted_only_from_our_own_origin(db, origin, host, allowed):
    ws, connected = await attempt(application, headers=[(b"host", host), (b"origin", origin)])
    assert connected is allowed
    if connected:
        await ws.disconnect()


async def test_a_trusted_proxy_names_the_scheme_and_the_client(db, settings):
    from config.network import request_client_address, scope_client_address

    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]
    headers = [(b"host", b"localhost"), (b"origin", b"https://localhost"), (b"x-forwarded-proto", b"https")]
    ws, connected = await attempt(from_address("10.1.2.3"), headers=headers)
    assert connected
    await ws.disconnect()
    ws, connected = await attempt(from_address("198.51.100.9"), headers=headers)  # not a proxy: not believed
    assert not connected
    forwarded = [(b"x-forwarded-for", b"203.0.113.5, 10.9.9.9")]
    assert scope_client_address({"client": ("10.1.2.3", 1), "headers": forwarded}) == "203.0.113.5"
    assert scope_client_address({"client": ("198.51.100.9", 1), "headers": forwarded}) == "198.51.100.9"

    class Request:
        META = {"REMOTE_ADDR": "10.1.2.3", "HTTP_X_FORWARDED_FOR": "garbage, 10.0.0.2"}

    assert request_client_address(Request()) == "10.1.2.3"  # a forged chain: the proxy is all we know


# --- however a consumer ends ------------------------------------------------------------
async def test_a_consumer_that_fails_leaves_no_watcher_and_starts_the_reconnect_clock(
    table, host, opponent, outsider, fake_clock, monkeypatch
):
    sockets = await three_sockets(table, host, opponent, outsider)
    await start_game(table, fake_clock, sockets)
    player1 = sockets[0]
    assert await database_sync_to_async(Watcher.objects.count)() == 3

    async def broken(self, text):
        raise RuntimeError("a bug in a handler")

    monkeypatch.setattr(TableConsumer, "handle_text", broken)
    await player1.send_json_to({"intent": "left"})
    with pytest.raises(RuntimeError):
        await player1.wait(timeout=2)
    assert await database_sync_to_async(Watcher.objects.count)() == 2
    live = game_host.GameHostConsumer.host.tables[table.pk]
    await asyncio.sleep(0.05)
    assert live.connections[1].gone_since is not None  # the 30 s to come back are running
    for ws in sockets[1:]:
        await ws.disconnect()


def test_behind_a_unix_socket_the_proxys_header_names_the_client():
    from config.network import scope_client_address

    assert scope_client_address({"client": None, "headers": [(b"x-forwarded-for", b"1.2.3.4, 203.0.113.9")]}) == (
        "203.0.113.9"
    )
    assert scope_client_address({"client": None, "headers": [(b"x-forwarded-for", b"junk")]}) is None
    assert scope_client_address({"headers": []}) is None


def test_watcher_rows_of_processes_that_stopped_beating_are_removed(host):
    import datetime as dt

    from django.utils import timezone

    from lobby import services
    from lobby.models import ServerBeat
    from tests.personas import TETRIWAR_OPTIONS, ref

    table = services.table_create(player=ref(host), game="tetriwar", options=dict(TETRIWAR_OPTIONS), seats_total=2)
    services.server_beat(server="alive:1:a")
    ServerBeat.objects.create(server="dead:2:b", beat_at=timezone.now() - dt.timedelta(seconds=30))
    for n, server in enumerate(["alive:1:a", "dead:2:b", "dead:2:b", ""]):
        services.watcher_add(table_id=table.pk, channel_name=f"specific.{n}", player=None, server=server)
    assert services.watchers_reconcile(stale_after=10) == 3
    assert list(Watcher.objects.values_list("server", flat=True)) == ["alive:1:a"]
    assert list(ServerBeat.objects.values_list("server", flat=True)) == ["alive:1:a"]
    # Embedded: this process is the only one alive.
    assert services.watchers_reconcile(alive={"this:3:c"}) == 1
    assert not Watcher.objects.exists()


async def test_a_flooders_address_waits_before_its_next_socket(db, settings):
    settings.WS_FLOOD_COOLOFF_SECONDS = 1
    app = from_address("203.0.113.50")
    ws, connected = await attempt(app)
    assert connected
    for _ in range(3 * settings.WS_FRAME_BURST):
        await ws.send_to(text_data="{}")
    assert (await outputs_until_close(ws))[-1]["code"] == 4008
    assert not (await attempt(app))[1]  # reconnecting at once buys no new burst
    other, connected = await attempt(from_address("203.0.113.51"))
    assert connected
    await other.disconnect()
    await asyncio.sleep(1.1)
    again, connected = await attempt(app)
    assert connected
    await again.disconnect()


async def test_a_consumer_that_falls_behind_refuses_with_busy_and_keeps_the_socket(db, settings, monkeypatch):
    from lobby import edge as edge_module
    from lobby.consumers import LobbyConsumer

    settings.WS_FRAMES_PER_SECOND, settings.WS_FRAME_BURST = 1000, 1000  # the budget never trips
    monkeypatch.setattr(edge_module, "INBOX_BURSTS", 0.005)  # 5 frames may wait

    async def slow(self, text):  # the server under load: each frame takes a while
        await asyncio.sleep(0.05)

    monkeypatch.setattr(LobbyConsumer, "handle_text", slow)
    ws = await open_socket("/ws/lobby/")
    for _ in range(20):
        await ws.send_to(text_data="{}")
    outputs = []
    while not await ws.receive_nothing(timeout=0.5):
        outputs.append(await ws.receive_output())
    assert "BUSY" in codes(outputs)
    assert all(o["type"] != "websocket.close" for o in outputs)  # the player stays
    await ws.disconnect()


# --- one queue for each socket ----------------------------------------------------------
FRAME = {"type": "websocket.receive", "text": "{}"}
CHIPS = {"type": "user.chips", "html": "<span>5</span>"}


async def test_the_layers_messages_wait_in_the_inbox_in_order_with_the_frames():
    inbox = Inbox(limit=10)
    inbox.put(FRAME)
    await inbox.carry(CHIPS)
    inbox.put({**FRAME, "text": "2"})
    assert [await inbox.get() for _ in range(3)] == [FRAME, CHIPS, {**FRAME, "text": "2"}]
    assert (inbox.frames, inbox.carried) == (0, 0)


async def test_the_layer_waits_while_its_limit_of_messages_waits_in_the_inbox():
    inbox = Inbox(limit=10, carried_limit=2)
    await inbox.carry(CHIPS)
    second = asyncio.ensure_future(inbox.carry({**CHIPS, "html": "6"}))
    await asyncio.sleep(0.01)
    assert not second.done()  # two wait: what comes next waits in the layer
    assert inbox.put(FRAME)  # frames are not held up by the layer's messages
    assert await inbox.get() == CHIPS
    await asyncio.wait_for(second, 1)
    assert [await inbox.get() for _ in range(2)] == [{**CHIPS, "html": "6"}, FRAME]


async def test_a_source_that_failed_is_raised_after_what_came_before_it():
    inbox = Inbox(limit=10)
    inbox.put(FRAME)
    inbox.fail(RuntimeError("the layer is down"))
    assert await inbox.get() == FRAME
    with pytest.raises(RuntimeError, match="the layer is down"):
        await inbox.get()


async def test_a_chips_message_from_the_layer_reaches_every_page_of_the_player(db, host):
    cookie = await cookie_for(host)
    pages = [await open_socket("/ws/lobby/", cookie) for _ in range(2)]
    await get_channel_layer().group_send(user_group(host.pk), {"type": "user.chips", "html": "<b id='chips'>77</b>"})
    for ws in pages:
        assert "77" in await receive_until(ws, "chips")
        await ws.disconnect()


async def test_a_consumer_whose_channel_layer_fails_ends_with_its_error_and_leaves_its_groups(
    db, host, monkeypatch
):
    layer = get_channel_layer()

    async def down(self, channel):
        raise RuntimeError("the channel layer is down")

    monkeypatch.setattr(type(layer), "receive", down)
    ws = await connect("/ws/lobby/", await cookie_for(host))
    connected, _ = await ws.connect()
    assert connected
    with pytest.raises(RuntimeError, match="the channel layer is down"):
        await ws.wait(timeout=2)
    assert not layer.groups.get(user_group(host.pk))  # left, as on any other end


def test_the_consumers_own_loop_sets_up_what_channels_would():
    from channels.consumer import AsyncConsumer

    from lobby import ws

    ws.check_channels()  # as the module loads: Channels' consumer sets up these, and only these
    assert {"channel_name", "base_send"} <= ws.CONSUMER_STATE
    original = AsyncConsumer.__call__
    try:
        async def changed(self, scope, receive, send):
            self.scope, self.base_send, self.extra = scope, send, None

        AsyncConsumer.__call__ = changed
        with pytest.raises(RuntimeError, match="review SiteConsumer.serve"):
            ws.check_channels()
    finally:
        AsyncConsumer.__call__ = original


# --- the server's own stalls are not the client's flood ----------------------------------
def test_a_frame_bucket_saves_up_what_a_stall_of_the_loop_held_back(monkeypatch):
    """At 20 frames a second (half its rate), a page's keys of a 5 s stall come in one
    read: they pass. The same 100 at once after 5 s of a loop that did not stand still are
    a flood; and a stall is credited once, and at most LAG_CREDIT_SECONDS of it."""
    from types import SimpleNamespace

    from lobby import edge as edge_module

    now, lag = [0.0], [0.0]
    monkeypatch.setattr(edge_module, "time", SimpleNamespace(monotonic=lambda: now[0]))

    def bucket():
        return edge_module.FrameBucket(40, 80, lag=lambda: lag[0])

    def takes(b, n: int) -> int:
        return sum(b.take() for _ in range(n))

    stalled, idle = bucket(), bucket()
    now[0] += 5.0
    assert takes(idle, 100) == 80  # a burst, no more
    lag[0] += 5.0  # the loop stood still those 5 s
    assert takes(stalled, 100) == 100
    now[0] += 0.1
    # A burst and the stall's 5 s at the rate, 280, less the 100 (and no more saved up
    # meanwhile: over a burst, a bucket only spends).
    assert takes(stalled, 300) == 280 - 100
    now[0] += 1.0
    assert takes(stalled, 100) == 40  # spent: the rate again
    # A stall of a minute saves up LAG_CREDIT_SECONDS of the rate, over a burst.
    calm = bucket()
    now[0] += 60.0
    lag[0] += 60.0
    assert takes(calm, 5000) == 80 + 40 * edge_module.LAG_CREDIT_SECONDS


def test_the_loops_stalls_are_measured_as_they_end():
    """A callback that holds the loop 0.3 s: the lag counts it while the loop is still
    catching up (before the late beat has run), and keeps it after."""
    import time

    from lobby.edge import LoopLag

    async def run():
        lag = LoopLag()
        before = lag.total()
        await asyncio.sleep(0.12)  # the beat runs, on time
        time.sleep(0.3)  # the loop stands still
        during = lag.total()
        await asyncio.sleep(0.12)
        after = lag.total()
        return before, during, after

    before, during, after = asyncio.run(run())
    assert before == 0.0
    assert 0.2 <= during <= after
    assert after < 1.5  # it counts the stall, not the time


async def test_a_pages_keys_held_back_by_a_stall_of_the_server_do_not_close_it(db, settings):
    """The server stands still for 1 s (time.sleep on its loop) while an anonymous
    page sends 20 frames (its rate, 20 a second): they come at once and all pass, well
    over its burst of 5. The same 20 after 1 s of a loop that was free are a flood."""
    import time

    settings.WS_FRAMES_PER_SECOND, settings.WS_FRAME_BURST = 20, 5
    stalled, idle = await open_socket("/ws/lobby/"), await open_socket("/ws/lobby/")
    for ws in (stalled, idle):
        assert 'id="chat-log"' in await ws.receive_from(timeout=2)
    await asyncio.sleep(1.0)  # the idle page's second, the loop free
    for _ in range(20):
        await idle.send_to(text_data="{}")
    assert "FLOOD" in codes(await outputs_until_close(idle))
    await asyncio.sleep(0.1)  # the stalled page's bucket full again (its burst)
    time.sleep(1.0)  # the loop stands still: the page's keys wait in the kernel
    for _ in range(20):
        await stalled.send_to(text_data="{}")
    outputs = []
    while not await stalled.receive_nothing(timeout=0.5):
        outputs.append(await stalled.receive_output())
    assert codes(outputs).count("BAD_TEXT") == 20  # each read and answered: "{}" is no chat message
    assert all(o["type"] != "websocket.close" for o in outputs)
    await stalled.disconnect()
