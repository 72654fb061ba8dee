from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.sessions import InstanceSessionWrapper

from lobby import services
from lobby.broadcast import lobby_group
from lobby.models import Watcher
from tests.live.conftest import connect, cookie_for
from tests.personas import TETRIWAR_OPTIONS, ref

pytestmark = pytest.mark.django_db(transaction=True)


def create_table(user, **kw):
    return services.table_create(
        player=ref(user), game="tetriwar", options=dict(TETRIWAR_OPTIONS), seats_total=kw.get("seats", 2),
        stake=kw.get("stake", 0),
    )


async def open_socket(path, cookie=None):
    ws = await connect(path, cookie)
    connected, _ = await ws.connect()
    assert connected
    if path.startswith("/ws/lobby/"):  # a lobby socket opens with the lobby's chat (lobby/chat.py)
        assert 'id="chat-log" ' in await ws.receive_from(timeout=2)
    return ws


async def test_a_new_table_appears_in_every_lobby_socket(host):
    everyone = await open_socket("/ws/lobby/")
    filtered = await open_socket("/ws/lobby/?game=tetriwar")
    table = await database_sync_to_async(create_table)(host)
    for ws in (everyone, filtered):
        html = await ws.receive_from(timeout=2)
        assert 'hx-swap-oob="afterbegin:#table-list"' in html
        assert f'id="table-{table.pk}"' in html and "hostess&#x27;s table" in html
    await everyone.disconnect()
    await filtered.disconnect()


async def test_the_lobby_of_another_game_gets_the_cards_numbers_but_not_the_row(host):
    viertris = await open_socket("/ws/lobby/?game=viertris")
    table = await database_sync_to_async(create_table)(host)
    html = await viertris.receive_from(timeout=2)
    assert f'id="table-{table.pk}"' not in html
    assert '<dd id="waiting-tetriwar" hx-swap-oob="true">1</dd>' in html
    await viertris.disconnect()


async def test_a_filled_seat_updates_the_row_in_place(host, opponent):
    table = await database_sync_to_async(create_table)(host)
    ws = await open_socket("/ws/lobby/")
    await database_sync_to_async(services.seat_take)(table_id=table.pk, player=ref(opponent), number=2)
    html = await ws.receive_from(timeout=2)
    assert f'id="table-{table.pk}" hx-swap-oob="true"' in html
    assert '<span class="seats-count">2/2</span>' in html
    await ws.disconnect()


async def test_a_closed_table_leaves_the_lobby(host, admin_user):
    table = await database_sync_to_async(create_table)(host)
    ws = await open_socket("/ws/lobby/")
    await database_sync_to_async(services.table_close)(table_id=table.pk, reason="test", by=admin_user)
    html = await ws.receive_from(timeout=2)
    assert html.startswith(f'<li id="table-{table.pk}" hx-swap-oob="delete"></li>')
    assert '<dd id="running-tetriwar" hx-swap-oob="true">0</dd>' in html  # and the game cards' numbers
    await ws.disconnect()


@pytest.mark.parametrize(
    "frame,code",
    [
        ("not json", "BAD_FRAME"),
        ("[1, 2]", "BAD_FRAME"),
        ('{"intent": "left"}', "UNKNOWN_INTENT"),  # the lobby's socket takes chat messages only
        ("x" * 5000, "FRAME_TOO_LARGE"),
    ],
)
async def test_a_malformed_frame_gets_a_clear_error_and_the_socket_stays_open(db, frame, code):
    bad = await open_socket("/ws/lobby/")
    other = await open_socket("/ws/lobby/")
    await bad.send_to(text_data=frame)
    reply = await bad.receive_from(timeout=2)
    assert f'data-code="{code}"' in reply and 'id="ws-error"' in reply
    assert await other.receive_nothing(timeout=0.2)
    # Still open: it answers again.
    await bad.send_to(text_data="again not json")
    assert "BAD_FRAME" in await bad.receive_from(timeout=2)
    await bad.disconnect()
    await other.disconnect()


async def test_binary_frames_are_refused_clearly(db):
    ws = await open_socket("/ws/lobby/")
    await ws.send_to(bytes_data=b"\x00\x01")
    assert "BAD_FRAME" in await ws.receive_from(timeout=2)
    await ws.disconnect()


async def test_a_socket_over_its_budget_gets_one_flood_error_and_is_closed_with_4008(db, settings):
    ws = await open_socket("/ws/lobby/")
    other = await open_socket("/ws/lobby/")
    for _ in range(3 * settings.WS_FRAME_BURST):
        await ws.send_to(text_data=json.dumps({"intent": "left"}))
    outputs = []
    while True:
        output = await ws.receive_output(timeout=2)
        outputs.append(output)
        if output["type"] == "websocket.close":
            break
    codes = [o["text"].split('data-code="')[1].split('"')[0] for o in outputs if o["type"] == "websocket.send"]
    assert codes.count("FLOOD") == 1 and codes[-1] == "FLOOD"
    assert codes.count("UNKNOWN_INTENT") <= settings.WS_FRAME_BURST + 5  # the burst, plus refill while sending
    assert outputs[-1] == {"type": "websocket.close", "code": 4008, "stop_reading": True}
    # The other socket of the same (anonymous) address is untouched.
    await other.send_to(text_data="not json")
    assert "BAD_FRAME" in await other.receive_from(timeout=2)
    await other.disconnect()


async def test_a_socket_without_our_origin_is_refused(db):
    ws = await connect("/ws/lobby/", origin=False)
    connected, _ = await ws.connect()
    assert not connected


async def test_a_banned_player_cannot_connect(opponent, admin_user):
    from lobby.services import player_ban

    cookie = await cookie_for(opponent)
    await database_sync_to_async(player_ban)(user=opponent, reason="cheating", by=admin_user)
    ws = await connect("/ws/lobby/", cookie)
    connected, _ = await ws.connect()
    assert connected
    assert "This account is banned." in await ws.receive_from(timeout=2)
    assert (await ws.receive_output(timeout=2))["type"] == "websocket.close"


async def test_banning_closes_the_players_open_sockets(opponent, admin_user):
    from lobby.services import player_ban

    ws = await open_socket("/ws/lobby/", await cookie_for(opponent))
    await database_sync_to_async(player_ban)(user=opponent, reason="cheating", by=admin_user)
    assert "banned" in await ws.receive_from(timeout=2)
    output = await ws.receive_output(timeout=2)
    assert output == {"type": "websocket.close", "code": 4003}


async def test_a_forged_table_id_gets_a_message_and_is_closed(db):
    ws = await connect("/ws/table/987654/")
    connected, _ = await ws.connect()
    assert connected
    assert "There is no such table" in await ws.receive_from(timeout=2)
    assert (await ws.receive_output(timeout=2))["code"] == 4404
    assert not await database_sync_to_async(Watcher.objects.exists)()


async def test_an_unknown_socket_path_gets_a_message(db):
    ws = await connect("/ws/table/abc/")
    connected, _ = await ws.connect()
    assert connected
    assert "nothing at this address" in await ws.receive_from(timeout=2)


async def test_table_sockets_see_seats_taken_and_count_spectators(host, opponent, outsider):
    table = await database_sync_to_async(create_table)(host)
    host_ws = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(host))
    # As it connects, a socket gets its viewer's panels as the table is now (a page kept
    # by the browser, Back, shows the table afresh).
    own = await host_ws.receive_from(timeout=2)
    assert 'id="seat-panel"' in own and 'data-my-seat="1"' in own and "start-button" in own
    # The host's own arrival: a seated player is no spectator, and is at the table now
    # (their seat is no longer marked away): the seat panels say so.
    arrival = await host_ws.receive_from(timeout=2)
    assert 'id="seat-panel"' in arrival and "away-mark" not in arrival
    assert 'id="spectator-count">0<' in arrival
    spectator = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(outsider))
    # A spectator's arrival changes only the count: one fragment, the same for all.
    assert await host_ws.receive_from(timeout=2) == '<span id="spectator-count" hx-swap-oob="true">1</span>'
    own = await spectator.receive_from(timeout=2)  # its own panels, the count in them
    assert 'data-my-seat="0"' in own and 'id="spectator-count">1<' in own
    await spectator.receive_from(timeout=2)
    await database_sync_to_async(services.seat_take)(table_id=table.pk, player=ref(opponent), number=2)
    panel = await host_ws.receive_from(timeout=2)
    assert "opponent" in panel and 'id="seat-panel"' in panel and 'hx-swap-oob="true"' in panel
    assert "start-button" in panel  # the host's own panel has the start button
    # The spectator sees the same seats but not the host's buttons.
    spectator_panel = await spectator.receive_from(timeout=2)
    assert "opponent" in spectator_panel and "start-button" not in spectator_panel
    await spectator.disconnect()
    assert 'id="spectator-count" hx-swap-oob="true">0<' in await host_ws.receive_from(timeout=2)
    await host_ws.disconnect()


async def test_a_relayed_fragment_goes_straight_to_the_server_past_the_session_middleware(monkeypatch):
    through_sessions = []
    original = InstanceSessionWrapper.send

    async def spy(self, message):
        through_sessions.append(message["type"])
        return await original(self, message)

    monkeypatch.setattr(InstanceSessionWrapper, "send", spy)
    ws = await open_socket("/ws/lobby/")
    assert through_sessions == ["websocket.accept"]
    await get_channel_layer().group_send(lobby_group(None), {"type": "lobby.fragment", "html": "<li>row</li>"})
    assert await ws.receive_from(timeout=2) == "<li>row</li>"
    assert through_sessions == ["websocket.accept"]  # the frame never asked the session
    await ws.disconnect()
