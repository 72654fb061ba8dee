"""A live TetriWar table through real consumers: two players and a spectator."""

from __future__ import annotations

import asyncio
import copy
import re

import pytest
from channels.db import database_sync_to_async
from django.conf import settings

from games import host as game_host
from games.models import Game, GameLog
from games.tetriwar.engine import Intent
from lobby import services
from lobby.models import Table
from tests.live.conftest import (
    FakeClock,
    cookie_for,
    engine,
    open_socket,
    quiet,
    receive_until,
    received,
    tick,
)
from tests.personas import ref

pytestmark = pytest.mark.django_db(transaction=True)
OPTIONS = {"minutes": 1, "start_level": 1, "lines_per_level": 10, "bombs": "manual", "pairs": False}


def seat_everyone(host, opponent):
    table = services.table_create(player=ref(host), game="tetriwar", options=dict(OPTIONS), seats_total=2)
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    for user in (host, opponent):
        services.seat_ready(table_id=table.pk, player=ref(user), ready=True)
    return table


async def start_game(table, fake_clock, sockets, players=2):
    host_ref = ref(await database_sync_to_async(lambda: table.host_user)())
    await database_sync_to_async(services.table_start)(table_id=table.pk, player=host_ref)
    for ws in sockets:
        countdown = await receive_until(ws, 'id="game"')
        assert "data-countdown-ms" in countdown
    fake_clock.t += 3.01  # the 3-2-1 countdown
    await tick(table.pk)
    for ws in sockets:
        started = await receive_until(ws, "data-remaining-ms")
        assert 'id="board-1-row-19"' in started and 'id="board-2-row-19"' in started
    for ws in sockets[:players]:  # each player's page gets its own board, to play it ahead
        own = await receive_until(ws, "<!--tw")
        assert own.startswith("<!--tw") and '"state":' in own


@pytest.fixture
def table(host, opponent):
    return seat_everyone(host, opponent)


async def three_sockets(table, host, opponent, outsider):
    sockets = [
        await open_socket(f"/ws/table/{table.pk}/", await cookie_for(user))
        for user in (host, opponent, outsider)
    ]
    return sockets


async def test_an_intent_reaches_both_players_and_the_spectator(table, host, opponent, outsider, fake_clock):
    sockets = await three_sockets(table, host, opponent, outsider)
    await start_game(table, fake_clock, sockets)
    player1, player2, spectator = sockets
    await player1.send_json_to({"intent": "left", "seq": 7})
    for ws in sockets:
        fragment = await receive_until(ws, 'id="piece-1"')
        assert re.match(r"<!--v\d+ a1:7-->", fragment)  # versioned, and acknowledges seq 7
        assert 'hx-swap-oob="true"' in fragment and "piece-2" not in fragment
    for ws in sockets:
        await ws.disconnect()


# --- frames per tick (issue 52) ---------------------------------------------------------------


class Pace(FakeClock):
    def beats(self, count: int) -> None:
        """``count`` of the tables' ticks pass."""
        self.t += count * settings.LIVE_TICK_MS / 1000


@pytest.fixture
def pace(monkeypatch):
    """The host's pacing clock (``games.host.pace``), stopped: a tick passes when a test says."""
    clock = Pace()
    monkeypatch.setattr(game_host, "pace", clock)
    return clock


async def applied(table, count: int) -> None:
    """Wait until the table's engine has logged ``count`` inputs."""
    async with asyncio.timeout(3):
        while len(engine(table).log) < count:
            await asyncio.sleep(0.005)


async def test_keys_within_a_tick_go_out_as_one_frame_per_socket(
    table, host, opponent, outsider, fake_clock, pace
):
    """Changes go on the table's tick: a key on the beat goes at once; what follows
    within the tick waits for the next and goes as one frame per socket: every region
    changed since, each rendered once as it stands, and each seat's latest key applied."""
    sockets = await three_sockets(table, host, opponent, outsider)
    await start_game(table, fake_clock, sockets)
    player1, player2, spectator = sockets
    await quiet(sockets, 0.1)
    pace.beats(30)  # a second since the start's frames: on the table's beat
    await player1.send_json_to({"intent": "left", "seq": 1})
    for ws in sockets:
        assert re.match(r"<!--v\d+ a1:1-->", await receive_until(ws, " a1:1"))
    logged = len(engine(table).log)
    await player1.send_json_to({"intent": "right", "seq": 2})
    await player1.send_json_to({"intent": "rotate", "seq": 3})
    await player2.send_json_to({"intent": "left", "seq": 1})
    await applied(table, logged + 3)  # all three applied, and nothing sent: the tick is not over
    assert all(await asyncio.gather(*(ws.receive_nothing(timeout=0.1) for ws in sockets)))
    pace.beats(1)
    await tick(table.pk)
    for ws in sockets:
        frame = await receive_until(ws, " a1:3")
        assert re.match(r"<!--v\d+ a1:3 a2:1-->", frame)  # the latest key of each seat
        assert frame.count('id="piece-1"') == 1 and frame.count('id="piece-2"') == 1  # moved twice, drawn once
        assert " a1:2" not in frame
    for ws in sockets:
        await ws.disconnect()


async def test_a_key_held_for_the_tick_acts_at_the_time_it_came_not_at_the_tick(
    table, host, opponent, outsider, fake_clock, pace, settings
):
    """A stamped key waits in the inbox for the table's tick; its lag is the network's
    alone, measured from when it came: a key played the whole allowance before it came
    acts at its stamp, though the server's clock moved on 30 ms while it waited
    (measured then, it would be clamped 30 ms after its stamp: its page corrected)."""
    from games.tetriwar.constants import MAX_LAG_MS

    settings.LIVE_TICK_MS = 250  # a long tick: the key surely waits while the clock moves
    sockets = await three_sockets(table, host, opponent, outsider)
    await start_game(table, fake_clock, sockets)
    player1 = sockets[0]
    await quiet(sockets, 0.1)
    fake_clock.t += 1.0  # the game's clock reads a second
    pace.beats(30)
    hosted = game_host.GameHostConsumer.host.tables[table.pk]
    came = hosted.live.ms(hosted.now())  # the game's clock as the keys come
    # on the beat (at once), 350 ms late: the board now waits the whole allowance behind
    await player1.send_json_to({"intent": "left", "seq": 1, "t": came - 350})
    await receive_until(player1, " a1:1")
    assert engine(table).log[-1] == (came - 350, 1, "left")
    fake_clock.t += 0.1
    came += 100  # the next key comes 100 ms later, played the whole allowance before
    logged = len(engine(table).log)
    await player1.send_json_to({"intent": "right", "seq": 2, "t": came - MAX_LAG_MS})
    async with asyncio.timeout(3):
        while not hosted.inbox.messages:  # the host has it, held for the tick
            await asyncio.sleep(0.001)
    assert len(engine(table).log) == logged
    fake_clock.t += 0.03  # the server's clock moves on while it waits
    await applied(table, logged + 1)
    assert engine(table).log[-1] == (came - MAX_LAG_MS, 1, "right")
    for ws in sockets:
        await ws.disconnect()


async def test_a_player_leaving_goes_out_at_once_within_the_tick(
    table, host, opponent, outsider, fake_clock, pace
):
    sockets = await three_sockets(table, host, opponent, outsider)
    await start_game(table, fake_clock, sockets)
    player1, player2, spectator = sockets
    await quiet(sockets, 0.1)
    pace.beats(30)
    await player1.send_json_to({"intent": "left", "seq": 1})
    await receive_until(spectator, " a1:1")
    await player1.send_json_to({"intent": "right", "seq": 2})  # waits for the tick …
    await player2.send_json_to({"intent": "forfeit"})  # … which a player leaving does not
    frame = await receive_until(spectator, " a1:2")
    assert "Left the game" in frame
    for ws in sockets:
        await ws.disconnect()


async def test_with_no_tick_every_change_goes_at_once(table, host, opponent, outsider, fake_clock, pace, settings):
    settings.LIVE_TICK_MS = 0
    sockets = await three_sockets(table, host, opponent, outsider)
    await start_game(table, fake_clock, sockets)
    player1, player2, spectator = sockets
    for seq, intent in enumerate(("left", "right", "rotate"), start=1):
        await player1.send_json_to({"intent": intent, "seq": seq})
        await receive_until(spectator, f" a1:{seq}-->")
    for ws in sockets:
        await ws.disconnect()


async def test_a_key_that_changes_nothing_is_answered_to_its_sender_alone(
    table, host, opponent, outsider, fake_clock, settings
):
    settings.LIVE_TICK_MS = 0
    sockets = await three_sockets(table, host, opponent, outsider)
    await start_game(table, fake_clock, sockets)
    player1, player2, spectator = sockets
    unshown = []
    for seq in range(1, 12):  # the piece reaches the wall, and the last keys move nothing
        await player1.send_json_to({"intent": "left", "seq": seq})
        answer = await receive_until(player1, rf"^<!--(v\d+ |)a1:{seq}(-->| )")
        if answer == f"<!--a1:{seq}-->":
            unshown.append(seq)
    assert unshown and unshown[-1] == 11
    seen = "".join(await received(spectator, 0.2))
    assert all(f"a1:{seq}-" not in seen and f"a1:{seq} " not in seen for seq in unshown)
    for ws in sockets:
        await ws.disconnect()


async def test_every_broadcast_is_numbered_in_order(table, host, opponent, outsider, fake_clock):
    sockets = await three_sockets(table, host, opponent, outsider)
    await start_game(table, fake_clock, sockets)
    player1 = sockets[0]
    versions = []
    for _ in range(3):
        await player1.send_json_to({"intent": "rotate"})
        fragment = await receive_until(player1, r"^<!--v\d+")
        versions.append(int(re.match(r"<!--v(\d+)", fragment).group(1)))
    assert versions == sorted(versions) and len(set(versions)) == 3
    await player1.send_json_to({"intent": "resync"})
    full = await receive_until(player1, 'id="game"')
    assert int(re.match(r"<!--v(\d+)", full).group(1)) == versions[-1]
    for ws in sockets:
        await ws.disconnect()


async def test_a_spectator_cannot_act(table, host, opponent, outsider, fake_clock):
    sockets = await three_sockets(table, host, opponent, outsider)
    await start_game(table, fake_clock, sockets)
    spectator = sockets[2]
    for frame in ({"intent": "left"}, {"intent": "bomb", "target": 2}, {"intent": "forfeit"}):
        await spectator.send_json_to(frame)
        assert 'data-code="SPECTATOR"' in await receive_until(spectator, "ws-error")
    for ws in sockets:
        await ws.disconnect()


@pytest.mark.parametrize(
    "frame,code",
    [
        ({"intent": "teleport"}, "UNKNOWN_INTENT"),
        ({"intent": "bomb"}, "EMPTY_STORE"),
        ({"intent": "bomb", "target": 5}, "BAD_TARGET"),
        ({"intent": "left", "table": 999}, "WRONG_TABLE"),
        ({"foo": "bar"}, "BAD_FRAME"),
    ],
)
async def test_bad_intents_get_a_clear_error_only_to_the_sender(
    table, host, opponent, outsider, fake_clock, frame, code
):
    sockets = await three_sockets(table, host, opponent, outsider)
    await start_game(table, fake_clock, sockets)
    player1, player2, spectator = sockets
    await player1.send_json_to(frame)
    assert f'data-code="{code}"' in await receive_until(player1, "ws-error")
    assert await player2.receive_nothing(timeout=0.2)
    # The game goes on for everybody.
    await player2.send_json_to({"intent": "right"})
    assert "piece-2" in await receive_until(player1, 'id="piece-2"')
    for ws in sockets:
        await ws.disconnect()


async def test_a_player_who_reconnects_gets_the_board_back(table, host, opponent, outsider, fake_clock):
    sockets = await three_sockets(table, host, opponent, outsider)
    await start_game(table, fake_clock, sockets)
    player1, player2, spectator = sockets
    await player2.send_json_to({"intent": "hard_drop"})
    await receive_until(player1, 'id="board-2-row-19"')
    await player2.disconnect()
    fake_clock.t += 20  # within the 30 s
    back = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(opponent))
    full = await receive_until(back, 'id="game"')
    # The dropped piece is on the bottom row of the restored board.
    assert re.search(r'id="board-2-row-19" class="fr">(<i></i>)*<i class=\w', full)
    fake_clock.t += 15  # 35 s after the drop, but the player came back
    await tick(table.pk)
    await back.send_json_to({"intent": "left"})
    assert 'id="piece-2"' in await receive_until(back, 'id="piece-2"')
    assert await database_sync_to_async(lambda: Table.objects.get(pk=table.pk).status)() == "running"
    for ws in (player1, back, spectator):
        await ws.disconnect()


async def test_a_player_gone_for_30_seconds_forfeits(table, host, opponent, outsider, fake_clock):
    sockets = await three_sockets(table, host, opponent, outsider)
    await start_game(table, fake_clock, sockets)
    player1, player2, spectator = sockets
    await player2.disconnect()
    await asyncio.sleep(0.1)
    fake_clock.t += 30.5
    await tick(table.pk)
    assert "Left the game" in await receive_until(player1, 'id="status-2"')
    for ws in (player1, spectator):
        await ws.disconnect()


async def test_a_player_whose_page_never_came_forfeits_30_seconds_after_the_start(
    table, host, opponent, outsider, fake_clock
):
    # Quick play seats whoever was matched: one may have closed the page meanwhile.
    player1, spectator = [
        await open_socket(f"/ws/table/{table.pk}/", await cookie_for(user)) for user in (host, outsider)
    ]
    await start_game(table, fake_clock, [player1, spectator], players=1)
    fake_clock.t += 20
    await tick(table.pk)
    assert not engine_of(table).players[2].left  # still time to come
    fake_clock.t += 10.5
    await tick(table.pk)
    assert "Left the game" in await receive_until(player1, 'id="status-2"')
    assert engine_of(table).players[2].left and not engine_of(table).players[1].left
    for ws in (player1, spectator):
        await ws.disconnect()


def engine_of(table):
    from tests.live.conftest import engine

    return engine(table)


async def test_the_game_ends_on_time_and_is_saved_once(table, host, opponent, outsider, fake_clock):
    sockets = await three_sockets(table, host, opponent, outsider)
    await start_game(table, fake_clock, sockets)
    player1, player2, spectator = sockets
    await player1.send_json_to({"intent": "hard_drop"})
    await receive_until(spectator, 'id="board-1-row-19"')
    fake_clock.t += 61
    await tick(table.pk)
    for ws in sockets:
        seen = [await ws.receive_from(timeout=3)]
        while 'id="results-title"' not in seen[-1]:
            seen.append(await ws.receive_from(timeout=3))
        results, everything = seen[-1], "".join(seen)
        assert "Results" in results and "hostess" in results and "opponent" in results
        # every board says the game is over, and its piece is gone
        for seat in (1, 2):
            assert re.search(rf'id="status-{seat}"[^>]*>Game over<', everything), seat
            assert f'<div id="piece-{seat}" class="pc none" hx-swap-oob="true"></div>' in everything
        assert "data-stopped" in results and ">Time!<" in results  # the clock stops: the page sends no more keys
    game = await database_sync_to_async(Game.objects.get)(table=table)
    assert game.status == Game.Status.FINISHED
    parts = await database_sync_to_async(lambda: list(game.participations.order_by("seat")))()
    assert [p.seat for p in parts] == [1, 2]
    assert parts[0].score >= 1 and parts[0].place == 1
    log = await database_sync_to_async(GameLog.objects.get)(game=game)
    assert [entry[1:] for entry in log.entries] == [[1, "hard_drop"]]
    table_status = await database_sync_to_async(lambda: Table.objects.get(pk=table.pk).status)()
    assert table_status == "open"
    # The finished game refuses further intents, clearly.
    await player1.send_json_to({"intent": "left"})
    assert 'data-code="NO_GAME"' in await receive_until(player1, "ws-error")
    for ws in sockets:
        await ws.disconnect()


async def test_when_one_of_two_players_leaves_the_game_ends_at_once_for_everyone(
    table, host, opponent, outsider, fake_clock
):
    sockets = await three_sockets(table, host, opponent, outsider)
    await start_game(table, fake_clock, sockets)
    player1, player2, spectator = sockets
    await player2.send_json_to({"intent": "forfeit"})
    for ws in sockets:  # only one side remains: the results, for players and spectators alike
        results = await receive_until(ws, 'id="results-title"')
        assert "(left)" in results
        assert "data-stopped" in results and ">Game over<" in results and "Time!" not in results  # not the time
    game = await database_sync_to_async(Game.objects.get)(table=table)
    assert game.status == Game.Status.FINISHED and game.termination == "forfeit"
    for ws in sockets:
        await ws.disconnect()


async def test_closing_the_table_aborts_the_game_and_tells_everyone(
    table, host, opponent, outsider, admin_user, fake_clock
):
    sockets = await three_sockets(table, host, opponent, outsider)
    await start_game(table, fake_clock, sockets)
    await database_sync_to_async(services.table_close)(table_id=table.pk, reason="Rude names", by=admin_user)
    told = [await receive_until(ws, "Game aborted") for ws in sockets]
    game = await database_sync_to_async(Game.objects.get)(table=table)
    assert game.status == Game.Status.ABORTED and "Rude names" in game.abort_reason
    for html in told:  # of that game: a page back later keeps them (static/js/live.js)
        assert "Game aborted" in html and f'data-game="{game.pk}"' in html


async def test_a_flooding_player_is_closed_and_the_others_play_on(
    table, host, opponent, outsider, fake_clock, settings
):
    sockets = await three_sockets(table, host, opponent, outsider)
    await start_game(table, fake_clock, sockets)
    player1, player2, spectator = sockets
    for _ in range(3 * settings.WS_FRAME_BURST):
        await player1.send_json_to({"intent": "rotate"})
    assert 'data-code="FLOOD"' in await receive_until(player1, "FLOOD")
    while (output := await player1.receive_output(timeout=2))["type"] != "websocket.close":
        pass
    assert output["code"] == 4008
    await player2.send_json_to({"intent": "hard_drop", "seq": 1})
    assert re.search(r"a2:1\b", await receive_until(spectator, r"a2:1\b"))
    for ws in sockets:
        await ws.disconnect()


async def test_banning_a_player_mid_game_forfeits_them_and_closes_their_socket(
    table, host, opponent, outsider, admin_user, fake_clock
):
    from lobby.services import player_ban

    sockets = await three_sockets(table, host, opponent, outsider)
    await start_game(table, fake_clock, sockets)
    player1, player2, spectator = sockets
    await database_sync_to_async(player_ban)(user=opponent, reason="Cheating", by=admin_user)
    assert "Left the game" in await receive_until(spectator, 'id="status-2"')
    assert "banned" in await receive_until(player2, "banned")
    for ws in (player1, spectator):
        await ws.disconnect()


async def test_a_game_of_four_bots_runs_to_its_end(host, outsider, fake_clock):
    from games.models import Participation

    def bots_only_table():
        table = services.table_create(player=ref(host), game="tetriwar", options=dict(OPTIONS), seats_total=4)
        for seat, level in ((2, "easy"), (3, "medium"), (4, "hard")):
            services.bot_add(table_id=table.pk, player=ref(host), number=seat, level=level)
        services.seat_leave(table_id=table.pk, player=ref(host))  # the host only watches
        services.bot_add(table_id=table.pk, player=ref(host), number=1, level="hard")
        return table

    table = await database_sync_to_async(bots_only_table)()
    watcher = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(outsider))
    await database_sync_to_async(services.table_start)(table_id=table.pk, player=ref(host))
    assert "data-countdown-ms" in await receive_until(watcher, 'id="game"')
    results = None
    for _ in range(4 * 65):  # 65 s of game time in quarter seconds
        fake_clock.t += 0.25
        await tick(table.pk)
        while not await watcher.receive_nothing(timeout=0.02):
            message = await watcher.receive_from()
            if 'id="results-title"' in message:
                results = message
        if results:
            break
    if results is None:  # the clock is past the end: wait for the host to write it
        results = await receive_until(watcher, 'id="results-title"', timeout=15)
    assert "Results" in results
    parts = await database_sync_to_async(
        lambda: list(Participation.objects.filter(game__table=table).order_by("seat"))
    )()
    assert [p.bot_level for p in parts] == ["hard", "easy", "medium", "hard"]
    assert all(p.score > 0 for p in parts)  # every bot placed pieces
    assert sum(p.lines for p in parts) > 0  # and they cleared lines
    status = await database_sync_to_async(lambda: Table.objects.get(pk=table.pk).status)()
    assert status == "closed"  # nobody is left to play again
    await watcher.disconnect()


async def test_a_held_key_repeats_on_the_server_at_the_players_own_pace(
    table, host, opponent, outsider, fake_clock
):
    host.handling = {"das": 100, "arr": 0, "soft_drop": 20}  # ARR 0: to the wall at the DAS
    await database_sync_to_async(host.save)()
    sockets = await three_sockets(table, host, opponent, outsider)
    await start_game(table, fake_clock, sockets)
    player1, _, spectator = sockets

    async def piece_x(seq_ack: str | None = None) -> int:
        fragment = await receive_until(spectator, seq_ack or 'id="piece-1"')
        return int(re.search(r'id="piece-1" class="pc \w r\d" style="--x:(-?\d+)', fragment).group(1))

    await player1.send_json_to({"intent": "hold_left", "seq": 1})
    first = await piece_x(r"a1:1\b")  # one step at once
    fake_clock.t += 0.05
    await tick(table.pk)
    await spectator.receive_nothing(0.1)  # before the DAS: nothing more
    fake_clock.t += 0.06
    await tick(table.pk)
    wall = await piece_x()
    assert wall < first and wall <= 0  # at the DAS, straight to the wall
    await player1.send_json_to({"intent": "release_left", "seq": 2})
    await player1.send_json_to({"intent": "right", "seq": 3})
    assert await piece_x(r"a1:3\b") == wall + 1
    for ws in sockets:
        await ws.disconnect()


async def test_the_header_chips_follow_the_stake_and_the_pot(host, opponent, outsider, fake_clock):
    def staked_table():
        table = services.table_create(
            player=ref(host), game="tetriwar", options=dict(OPTIONS), seats_total=2, stake=100, ip="10.0.0.1"
        )
        services.seat_take(table_id=table.pk, player=ref(opponent), number=2, ip="10.0.0.2")
        for user in (host, opponent):
            services.seat_ready(table_id=table.pk, player=ref(user), ready=True)
        return table

    table = await database_sync_to_async(staked_table)()
    before = host.chips
    sockets = await three_sockets(table, host, opponent, outsider)
    player1, player2, spectator = sockets

    async def until_all(ws, *patterns: str) -> str:
        seen, received = set(), []
        while len(seen) < len(patterns):
            received.append(await ws.receive_from(timeout=3))
            seen.update(p for p in patterns if re.search(p, received[-1]))
        return "".join(received)

    await database_sync_to_async(services.table_start)(table_id=table.pk, player=ref(host))
    for ws in (player1, player2):  # the stake is taken, as the countdown shows
        got = await until_all(ws, "nav-chips", 'id="game"')
        assert f'<span id="nav-chips" hx-swap-oob="true">{before - 100}</span>' in got
    assert "nav-chips" not in await until_all(spectator, 'id="game"')  # a spectator's are not theirs
    fake_clock.t += 3.01
    await tick(table.pk)
    await receive_until(player1, "data-remaining-ms")
    await player2.send_json_to({"intent": "forfeit"})
    pot = await receive_until(player1, "nav-chips")  # the winner is paid the pot of 200
    assert f'<span id="nav-chips" hx-swap-oob="true">{before + 100}</span>' in pot
    for ws in sockets:
        await ws.disconnect()


# --- keys played ahead by the page (issue 31) ------------------------------------------------


async def own_news(ws, frame: list | None = None) -> dict:
    """The next news of the player's own board (``<!--tw{json}-->``), to that socket alone:
    at the end of the frame that brings the table's broadcast of the tick, or alone.
    ``frame`` (a list) is given the whole frame."""
    import json

    text = await receive_until(ws, "<!--tw")
    if frame is not None:
        frame.append(text)
    assert text.endswith("-->")
    return json.loads(text[text.rindex("<!--tw") + len("<!--tw"):-len("-->")])


async def test_a_stamped_key_acts_at_its_time_within_the_allowance(table, host, opponent, outsider, fake_clock):
    from tests.live.conftest import engine

    sockets = await three_sockets(table, host, opponent, outsider)
    await start_game(table, fake_clock, sockets)
    player1, player2, spectator = sockets
    fake_clock.t += 0.5  # the game's clock reads 500 ms
    await player1.send_json_to({"intent": "left", "seq": 1, "t": 350})  # played 150 ms ago
    frame: list[str] = []
    news = await own_news(player1, frame)
    game = engine(table)
    assert news["seq"] == 1 and news["h"] == game.board_hash(1)
    # one frame to the player's socket: the table's broadcast that answers the key, its news last
    assert re.match(r"<!--v\d+ a1:1-->", frame[0]) and 'id="piece-1"' in frame[0]
    assert game.log[-1] == (350, 1, "left")  # at its stamp, not on arrival
    seen = []  # what the spectator got meanwhile: the fragments of the move, not the news
    while not await spectator.receive_nothing(timeout=0.2):
        seen.append(await spectator.receive_from())
    assert seen and not any("<!--tw" in text for text in seen)
    for ws in sockets:
        await ws.disconnect()


async def test_a_key_later_than_the_allowance_is_clamped_not_trusted(table, host, opponent, outsider, fake_clock):
    from games.tetriwar.constants import MAX_LAG_MS
    from games.tetriwar.lag import LEAD_MS
    from tests.live.conftest import engine

    sockets = await three_sockets(table, host, opponent, outsider)
    await start_game(table, fake_clock, sockets)
    player1 = sockets[0]
    fake_clock.t += 5.0  # the game's clock reads 5000 ms
    await player1.send_json_to({"intent": "left", "seq": 1, "t": 100})  # claims to be 4.9 s late
    await own_news(player1)
    game = engine(table)
    server = game.now  # the game's clock when the key came: 5000 ms and the countdown's 10
    t, seat, text = game.log[-1]
    assert (seat, text) == (1, "left")
    assert server - MAX_LAG_MS <= t <= server  # within the allowance of the server's time
    await player1.send_json_to({"intent": "right", "seq": 2, "t": 60_000})  # from the future
    await own_news(player1)
    assert engine(table).log[-1][0] <= server + LEAD_MS
    for ws in sockets:
        await ws.disconnect()


async def test_a_page_whose_board_differs_gets_the_servers(table, host, opponent, outsider, fake_clock):
    from tests.live.conftest import engine

    sockets = await three_sockets(table, host, opponent, outsider)
    await start_game(table, fake_clock, sockets)
    player1 = sockets[0]
    fake_clock.t += 0.2
    await player1.send_json_to({"intent": "left", "seq": 1, "t": 150})  # no hash: the page was unsure
    unsure = await own_news(player1)
    assert unsure["seq"] == 1 and "state" in unsure
    ahead = copy.deepcopy(engine(table))  # the page's board, played as the server will
    ahead.apply(1, Intent.parse("right"), 170)
    await player1.send_json_to({"intent": "right", "seq": 2, "t": 170, "h": ahead.board_hash(1)})
    agreed = await own_news(player1)
    assert agreed["seq"] == 2 and agreed["h"] == ahead.board_hash(1)
    assert "state" not in agreed  # nothing to correct: the hash and the preview only
    right = engine(table).board_hash(1)
    await player1.send_json_to({"intent": "left", "seq": 3, "t": 180, "h": (right + 1) % 2**32})
    fixed = await own_news(player1)
    game = engine(table)
    assert fixed["seq"] == 3 and fixed["fix"] is True
    assert fixed["state"]["piece"] == [game.players[1].kind, 0, game.players[1].x, game.players[1].y]
    assert fixed["h"] == game.board_hash(1)
    for ws in sockets:
        await ws.disconnect()


async def test_a_page_that_does_not_play_ahead_gets_no_board_news(table, host, opponent, outsider, fake_clock):
    """A key sent unstamped (no ``t``: a bot, a program, a page that does not predict)
    acts on arrival and is acknowledged in the broadcast's head; the whole board in
    JSON, which only a predicting page reads, is not sent to it after every key. Once
    the page stamps a key again, it gets the whole board to predict from."""
    from tests.live.conftest import engine

    sockets = await three_sockets(table, host, opponent, outsider)
    await start_game(table, fake_clock, sockets)
    player1 = sockets[0]
    fake_clock.t += 0.2
    await player1.send_json_to({"intent": "left", "seq": 1})
    head = await receive_until(player1, " a1:1")
    assert head.startswith("<!--v")
    await player1.send_json_to({"intent": "hard_drop", "seq": 2})  # a new piece, unstamped
    await receive_until(player1, " a1:2")
    seen = []
    while not await player1.receive_nothing(timeout=0.2):
        seen.append(await player1.receive_from())
    assert not any("<!--tw" in text for text in seen)
    fake_clock.t += 0.1
    await player1.send_json_to({"intent": "left", "seq": 3, "t": 290, "h": 1})
    news = await own_news(player1)
    assert news["seq"] == 3 and "state" in news and news["h"] == engine(table).board_hash(1)
    await player1.send_json_to({"intent": "right", "seq": 4})  # unstamped again
    await receive_until(player1, " a1:4")
    # A page of the seat opened now (a reload, a second tab) plays ahead from the start:
    # it gets the whole board, whatever the keys of the page before it were.
    reloaded = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(host))
    news = await own_news(reloaded)
    assert "state" in news and news["h"] == engine(table).board_hash(1)
    for ws in [*sockets, reloaded]:
        await ws.disconnect()


@pytest.mark.parametrize("field,value", [("t", -1), ("t", "soon"), ("h", 2**32), ("h", 1.5)])
async def test_a_malformed_time_or_hash_is_refused_and_changes_nothing(
    table, host, opponent, outsider, fake_clock, field, value
):
    from tests.live.conftest import engine

    sockets = await three_sockets(table, host, opponent, outsider)
    await start_game(table, fake_clock, sockets)
    player1 = sockets[0]
    before = len(engine(table).log)
    await player1.send_json_to({"intent": "left", "seq": 1, field: value})
    assert f'data-code="BAD_{field.upper()}"' in await receive_until(player1, "ws-error")
    assert len(engine(table).log) == before
    for ws in sockets:
        await ws.disconnect()
