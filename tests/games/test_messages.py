"""What the table host takes are declared types (games/messages.py): anything else is
logged, counted and dropped."""

from __future__ import annotations

import asyncio
import logging

import pytest

from config.metrics import MESSAGES_REFUSED
from games import messages
from games.host import GameHost


def refused(kind: str) -> float:
    return MESSAGES_REFUSED.labels(type=kind)._value.get()


@pytest.mark.parametrize("message", [
    messages.Start(table_id=3, game_id=9),
    messages.Intent(table_id=3, seat=2, intent="bomb:4", seq=17, reply="specific.a!b"),
    messages.Sync(table_id=3, seat=None, reply="specific.a!c"),
    messages.Gone(table_id=3, seat=1, reply="specific.a!d"),
    messages.Forfeit(table_id=3, seat=1),
    messages.Abort(table_id=3, reason="Closed by a moderator."),
    messages.Tick(table_id=3),
])
def test_every_message_crosses_the_layer_as_a_dict_and_comes_back_as_itself(message):
    raw = message.to_dict()
    assert isinstance(raw, dict) and raw["type"].startswith("host.")
    assert messages.decode(raw) == message


def test_a_message_of_no_declared_type_is_logged_and_counted(caplog):
    messages._LAST_LOG[0] = 0.0
    before = refused("host.nonsense")
    with caplog.at_level(logging.WARNING, logger="games.messages"):
        assert messages.decode({"type": "host.nonsense", "table_id": 1}) is None
    assert refused("host.nonsense") == before + 1
    assert "host.nonsense" in caplog.text


def test_a_message_with_fields_of_the_wrong_kind_is_refused_whole():
    before = refused("host.intent")
    assert messages.decode({"type": "host.intent", "table_id": 1, "seat": "1", "intent": "left"}) is None
    assert messages.decode({"type": "host.intent", "table_id": 1, "intent": "left"}) is None  # no seat
    assert refused("host.intent") == before + 2


async def test_the_host_drops_what_it_cannot_decode_and_goes_on():
    host = GameHost()
    before = refused("game.fragment")
    await host.dispatch({"type": "game.fragment", "table_id": 1, "html": "<p>"})
    assert refused("game.fragment") == before + 1
    assert host.tables == {}


@pytest.mark.django_db(transaction=True)
async def test_a_socket_given_a_message_it_has_no_handler_for_counts_it_and_stays():
    from channels.layers import get_channel_layer
    from channels.testing import WebsocketCommunicator

    from config.asgi import application
    from tests.live.conftest import HOST, ORIGIN

    ws = WebsocketCommunicator(application, "/ws/lobby/", headers=[HOST, ORIGIN])
    connected, _ = await ws.connect()
    assert connected
    assert 'id="chat-log"' in await ws.receive_from(timeout=2)  # the lobby's chat, as the socket opens
    before = refused("lobby.nonsense")
    await get_channel_layer().group_send("lobby", {"type": "lobby.nonsense"})
    for _ in range(100):  # it takes the consumer's queue (a fragment is handed over at once)
        if refused("lobby.nonsense") == before + 1:
            break
        await asyncio.sleep(0.01)
    assert refused("lobby.nonsense") == before + 1
    await get_channel_layer().group_send("lobby", {"type": "lobby.fragment", "html": "<p id=x>still here</p>"})
    assert "still here" in await ws.receive_from(timeout=2)
    await ws.disconnect()
