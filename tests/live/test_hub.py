"""The hub (games/hub.py): what stays in the process and what crosses the layer."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.layers import InMemoryChannelLayer

from config.metrics import HUB_OUTBOX_DROPPED
from games import hub as hub_module
from games import messages
from games.hub import Hub, hub, play_group
from lobby import services
from tests.live.conftest import cookie_for, open_socket
from tests.live.test_tetriwar_table import OPTIONS
from tests.personas import ref

pytestmark = pytest.mark.asyncio


class FakeHost:
    def __init__(self) -> None:
        self.accepted: list[messages.HostMessage] = []

    async def accept(self, message: messages.HostMessage) -> None:
        self.accepted.append(message)


def recorder(seen: list, name: str):
    async def relay(html: str) -> None:
        seen.append((name, html))

    return relay


def hub_of(*, hosted=(0,), remote: bool) -> Hub:
    found = Hub(InMemoryChannelLayer(), hosted=frozenset(hosted), remote=remote)
    found.host = FakeHost()
    return found


async def test_a_fragment_goes_to_this_process_sockets_in_hand_and_to_no_layer_when_alone():
    h = hub_of(remote=False)
    seen: list = []
    await h.attach(4, "a", recorder(seen, "a"))
    await h.attach(4, "b", recorder(seen, "b"))
    await h.attach(6, "c", recorder(seen, "c"))
    await h.layer.group_add(play_group(4), "elsewhere")
    await h.publish(4, "<b>1</b>")
    assert seen == [("a", "<b>1</b>"), ("b", "<b>1</b>")]
    assert h.sender is None  # nothing was posted to the layer
    await h.layer.send("elsewhere", {"type": "probe"})
    assert await h.layer.receive("elsewhere") == {"type": "probe"}


async def test_in_scale_out_a_fragment_crosses_to_the_other_processes_in_order_only_if_watched():
    h = hub_of(remote=True)
    seen: list = []
    await h.attach(4, "a", recorder(seen, "a"))
    await h.layer.group_add(play_group(4), "elsewhere")
    await h.publish(4, "<b>unwatched</b>")
    assert h.sender is None  # nobody elsewhere watches: nothing crosses
    h.watch(messages.Watch(table_id=4, channels=["elsewhere"]))
    for n in range(3):
        await h.publish(4, f"<b>{n}</b>")
    assert [html for _, html in seen][1:] == ["<b>0</b>", "<b>1</b>", "<b>2</b>"]  # at once, before the layer
    await h.sender
    crossed = [await h.layer.receive("elsewhere") for _ in range(3)]
    assert crossed == [{"type": "game.fragment", "html": f"<b>{n}</b>"} for n in range(3)]
    h.watch(messages.Unwatch(table_id=4, channels=["elsewhere"]))
    await h.publish(4, "<b>left</b>")
    assert not h.outbox and h.watchers == {}


async def test_a_watcher_not_heard_of_again_is_forgotten(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(hub_module, "clock", lambda: now[0])
    h = hub_of(remote=True)
    h.watch(messages.Watch(table_id=4, channels=["gone"]))
    h.watch(messages.Watch(table_id=6, channels=["alive"]))
    now[0] += hub_module.WATCH_EXPIRY - 1
    h.watch(messages.Watch(table_id=6, channels=["alive"]))  # refreshed in time
    assert set(h.watchers) == {4, 6}
    now[0] += hub_module.WATCH_SECONDS + 1  # the sweep runs as messages come, at most this often
    h.watch(messages.Watch(table_id=8, channels=["new"]))
    assert set(h.watchers) == {6, 8}


async def test_a_socket_of_a_table_hosted_elsewhere_joins_the_layer_and_tells_the_host(monkeypatch):
    monkeypatch.setattr(hub_module, "shard_of", lambda table_id: table_id % 2)
    monkeypatch.setattr(hub_module, "host_channel", lambda table_id: f"game-host-{table_id % 2}")
    monkeypatch.setattr(hub_module, "WATCH_SECONDS", 0.01)
    h = hub_of(hosted=(0,), remote=True)
    seen: list = []
    await h.attach(5, "mine", recorder(seen, "mine"))
    assert await h.layer.receive("game-host-1") == {"type": "host.watch", "table_id": 5, "channels": ["mine"]}
    # ... and again, until it leaves
    assert await h.layer.receive("game-host-1") == {"type": "host.watch", "table_id": 5, "channels": ["mine"]}
    await h.layer.group_send(play_group(5), {"type": "game.fragment", "html": "x"})
    assert await h.layer.receive("mine") == {"type": "game.fragment", "html": "x"}
    await h.detach(5, "mine")
    while (message := await h.layer.receive("game-host-1"))["type"] == "host.watch":
        pass
    assert message == {"type": "host.unwatch", "table_id": 5, "channels": ["mine"]}
    await h.refresher
    assert h.away == {}


async def test_the_outbox_is_bounded_and_counts_what_it_drops(monkeypatch):
    monkeypatch.setattr(hub_module, "OUTBOX_LIMIT", 2)
    h = hub_of(remote=True)
    before = HUB_OUTBOX_DROPPED._value.get()
    for n in range(5):  # posted in one turn of the loop: the sender has not run yet
        h._post(play_group(4), {"type": "game.fragment", "html": str(n)})
    assert [m["html"] for _, m in h.outbox] == ["3", "4"]
    assert HUB_OUTBOX_DROPPED._value.get() - before == 3
    await h.sender


async def test_an_intent_for_a_table_hosted_here_is_handed_to_the_host():
    h = hub_of(hosted=(0,), remote=True)
    intent = messages.Intent(table_id=4, seat=1, reply="a", intent="left", seq=1)
    await h.send(intent)
    assert h.host.accepted == [intent]


async def test_other_messages_and_other_tables_take_the_host_channel():
    h = hub_of(hosted=(0,), remote=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(hub_module, "shard_of", lambda table_id: table_id % 2)
        patch.setattr(hub_module, "host_channel", lambda table_id: f"game-host-{table_id % 2}")
        await h.send(messages.Sync(table_id=4, seat=1, reply="a"))  # in order behind a start
        await h.send(messages.Intent(table_id=5, seat=1, reply="a", intent="left", seq=1))  # shard 1: elsewhere
    assert h.host.accepted == []
    assert (await h.layer.receive("game-host-0"))["type"] == "host.sync"
    assert (await h.layer.receive("game-host-1"))["intent"] == "left"


async def test_a_reply_goes_in_hand_to_a_socket_here_and_through_the_layer_otherwise():
    h = hub_of(remote=True)
    seen: list = []
    await h.attach(4, "a", recorder(seen, "a"))
    await h.reply("a", "<i>mine</i>")
    await h.reply("far-away", "<i>theirs</i>")
    assert seen == [("a", "<i>mine</i>")]
    assert await h.layer.receive("far-away") == {"type": "game.fragment", "html": "<i>theirs</i>"}


async def test_a_failing_socket_does_not_stop_the_others():
    h = hub_of(remote=False)
    seen: list = []

    async def broken(html: str) -> None:
        raise RuntimeError("gone")

    await h.attach(4, "a", broken)
    await h.attach(4, "b", recorder(seen, "b"))
    await h.publish(4, "x")
    assert seen == [("b", "x")]


async def test_a_socket_that_sends_at_once_is_called_and_one_that_returns_its_send_is_awaited(caplog):
    """A relay under Daphne writes its frame and returns None (lobby/ws.py ``deliver``);
    elsewhere it returns the send, which the hub awaits. Both get every fragment in
    order, in their language, and a failing one of either kind stops no other."""
    h = hub_of(remote=False)
    seen: list = []

    def at_once(name: str):
        def relay(html: str) -> None:
            seen.append((name, html))

        return relay

    def broken_at_once(html: str) -> None:
        raise RuntimeError("gone")

    await h.attach(4, "a", at_once("a"))
    await h.attach(4, "x", broken_at_once)
    await h.attach(4, "b", recorder(seen, "b"), "de")
    await h.publish(4, "1")
    await h.publish(4, "2", {"de": "zwei"})
    await h.reply("a", "only a")
    await h.reply("b", "only b")
    assert seen == [("a", "1"), ("b", "1"), ("a", "2"), ("b", "zwei"), ("a", "only a"), ("b", "only b")]
    failed = [record.getMessage() for record in caplog.records if "failed" in record.getMessage()]
    assert failed == ["relay to x failed", "relay to x failed"]  # the broken one alone, each time


async def test_a_socket_that_leaves_is_forgotten():
    h = hub_of(remote=False)
    seen: list = []
    await h.attach(4, "a", recorder(seen, "a"))
    await h.detach(4, "a")
    await h.publish(4, "x")
    await h.reply("a", "y")
    assert seen == [] and h.tables == {} and h.relays == {}


@pytest.mark.django_db(transaction=True)
async def test_a_table_page_joins_the_hub_and_leaves_it_when_it_closes(host):
    table = await database_sync_to_async(services.table_create)(
        player=ref(host), game="tetriwar", options=dict(OPTIONS), seats_total=2
    )
    ws = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(host))
    await ws.receive_nothing(0.2)
    assert len(hub().tables[table.pk]) == 1
    await ws.disconnect()
    assert table.pk not in hub().tables and not hub().relays
