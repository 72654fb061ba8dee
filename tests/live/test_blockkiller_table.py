"""A live Block-Killer table through real consumers: three players and a spectator.

Positions are arranged on the running engine (``Game.setup``): the hands, and whose
turn it is. Card ids (games/blockkiller/constants.py): block cards O 60–71, I 72–83;
garbage cards with one hole at column 0: 90–99, at column 1: 100–109, at 2: 110–119."""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import reverse

from games import selectors
from games.blockkiller.events import Passed, TurnChanged
from games.models import Game
from games.registry import GAMES
from lobby import services
from lobby.models import Table
from tests.contract.test_game_contract import setup_for
from tests.games.test_one_source import assert_one_source, played
from tests.live.conftest import (
    cookie_for,
    engine,
    open_socket,
    quiet,
    ready_table,
    receive_until,
    received,
    started_sockets,
    tick,
)
from tests.personas import ref

pytestmark = pytest.mark.django_db(transaction=True)
OPTIONS = {"turn_seconds": 60, "mini": False, "no_mercy": False}
# Seat 1 attacks seat 2 with a double (attack 1): two garbage rows with a hole at column 0,
# an I stood up in that column. Seat 2 defends with a tetris (4): one more than the
# attack is 3 spare, so seat 1 draws 2 (half, rounded up).
HANDS = {1: ([72, 60], [90, 91]), 2: ([73], [100, 101, 102, 103]), 3: ([61], [110])}


def blockkiller_table(host, opponent, third, stake=0):
    return ready_table("blockkiller", OPTIONS, (host, opponent, third), stake)


async def started(table, users, fake_clock, hands=HANDS, turn=1):
    sockets = await started_sockets(table, users, fake_clock, 'id="bk-turn"')
    if hands is not None:
        engine(table).setup(hands=hands, turn=turn)

        async def reloaded(ws):  # every page, as it would be after a reload
            await received(ws)
            await ws.send_json_to({"intent": "resync"})
            await receive_until(ws, 'id="game"')

        await asyncio.gather(*(reloaded(ws) for ws in sockets))
        await quiet(sockets, 0.1)  # and a player's own hand after it
    return sockets


async def play(ws, frames, seq=1) -> int:
    for frame in frames:
        await ws.send_json_to({**frame, "seq": seq})
        seq += 1
    return seq


def frames(*names):
    return [{"intent": name} for name in names]


ATTACK = [
    {"intent": "attack", "target": 2},
    {"intent": "stack", "rows": "90,91"},
    {"intent": "piece", "card": 72},
    *frames("rotate", "left", "left", "left", "drop"),
]
DEFENCE = [
    {"intent": "stack", "rows": "100,101,102,103"},
    {"intent": "piece", "card": 73},
    *frames("rotate", "left", "left", "drop"),
]


async def test_an_attack_a_defence_and_a_counter_reach_everyone(host, opponent, third, outsider, fake_clock):
    table = await database_sync_to_async(blockkiller_table)(host, opponent, third)
    p1, p2, p3, spectator = await started(table, (host, opponent, third, outsider), fake_clock)
    seq = await play(p1, ATTACK)
    fragment = await receive_until(spectator, rf"a1:{seq - 1}\b")
    assert 'id="bk-play-attack"' in fragment and "double: +1" in fragment  # the attack adds up as lines clear
    await play(p1, frames("done"), seq)
    fragment = await receive_until(spectator, r"attacks opponent with 1")
    assert 'data-phase="defend"' in fragment and "incoming 1" in fragment
    seq = await play(p2, [*DEFENCE, {"intent": "done"}])
    fragment = await receive_until(spectator, r"<b>Exchange</b>")
    assert "opponent defends with 4 against 1: opponent draws 0, hostess draws 2" in fragment
    assert "Defender draws 0, attacker draws 2" in fragment  # the defence's field stays on show
    game = engine(table)
    assert [len(game.players[1].garbage), game.turn] == [2, 2]
    for ws in (p1, p2, p3):  # the same log on every page
        assert "<b>Exchange</b>" in await receive_until(ws, r"<b>Exchange</b>")


async def test_a_hand_reaches_its_player_alone(host, opponent, third, outsider, fake_clock, monkeypatch):
    # Seed 1223 deals card 72 to seat 1 and card 90 to seat 2 before HANDS are set, so
    # only the hands sent after the resync may count (a random deal did this in CI).
    monkeypatch.setattr("games.services.new_seed", lambda: 1223)
    table = await database_sync_to_async(blockkiller_table)(host, opponent, third)
    p1, p2, p3, spectator = await started(table, (host, opponent, third, outsider), fake_clock, hands=None)
    for ws in (p1, p2, p3, spectator):  # the dealt hands are read first
        await received(ws)
    engine(table).setup(hands=HANDS, turn=1)
    await p1.send_json_to({"intent": "resync"})
    mine = await receive_until(p1, r'id="bk-hand"[^>]*data-seat="1"')
    assert 'data-card="72"' in mine and 'data-card="90"' in mine
    seq = await play(p1, ATTACK[:3])  # the attack named, the garbage stacked, an I entered
    hand = await receive_until(p1, r'(?s)id="bk-hand".*Block cards <span class="muted">\(1\)')
    assert 'data-card="72"' not in hand and 'data-card="60"' in hand  # the O is left
    await receive_until(spectator, rf"a1:{seq - 1}\b")
    for ws in (p2, p3, spectator):
        assert not any('data-card="72"' in m or 'data-card="90"' in m for m in await received(ws))
    await spectator.send_json_to({"intent": "resync"})
    await receive_until(spectator, 'id="game"')
    assert not any('id="bk-hand" class' in m and "data-card" in m for m in await received(spectator))


@pytest.mark.parametrize(
    ("sender", "frame", "code"),
    [
        (0, {"intent": "piece", "card": 74}, "NOT_PLAYING_YET"),  # no attack named yet
        (1, {"intent": "attack", "target": 3}, "NOT_YOUR_TURN"),
        (0, {"intent": "attack", "target": 1}, "BAD_TARGET"),
        (0, {"intent": "attack", "target": 7}, "BAD_TARGET"),  # the frame's own bound
        (0, {"intent": "draw"}, "ALREADY_DREW"),
        (3, {"intent": "pass"}, "SPECTATOR"),
    ],
)
async def test_out_of_turn_and_out_of_place_actions_are_refused_clearly(
    host, opponent, third, outsider, fake_clock, sender, frame, code
):
    table = await database_sync_to_async(blockkiller_table)(host, opponent, third)
    sockets = await started(table, (host, opponent, third, outsider), fake_clock)
    before = engine(table).to_text()
    await sockets[sender].send_json_to(frame)
    assert f'data-code="{code}"' in await receive_until(sockets[sender], "ws-error")
    assert await sockets[3 if sender != 3 else 2].receive_nothing(timeout=0.2)
    assert engine(table).to_text() == before


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ({"intent": "piece", "card": 74}, "NOT_IN_HAND"),  # an I, but not one of seat 1's
        ({"intent": "piece", "card": 95}, "NOT_A_BLOCK"),
        ({"intent": "stack", "rows": "72"}, "NOT_GARBAGE"),
        ({"intent": "stack", "rows": "92"}, "NOT_IN_HAND"),
        ({"intent": "stack", "rows": "90+91f"}, "BAD_MERGE"),
        ({"intent": "stack", "rows": "90,90f"}, "DUPLICATE_CARD"),
        ({"intent": "stack", "rows": "90,,91"}, "BAD_CARD"),
        ({"intent": "stack", "rows": "90+91+92"}, "BAD_STACK"),
        ({"intent": "left"}, "NO_PIECE"),
        ({"intent": "done"}, "NO_PIECE_PLACED"),
    ],
)
async def test_plays_with_cards_not_in_hand_or_no_piece_are_refused_and_change_nothing(
    host, opponent, third, outsider, fake_clock, frame, code
):
    table = await database_sync_to_async(blockkiller_table)(host, opponent, third)
    p1, p2, p3, spectator = await started(table, (host, opponent, third, outsider), fake_clock)
    seq = await play(p1, ATTACK[:1])
    await receive_until(spectator, rf"a1:{seq - 1}\b")
    before = engine(table).to_text()
    await p1.send_json_to(frame)
    assert f'data-code="{code}"' in await receive_until(p1, "ws-error")
    assert await spectator.receive_nothing(timeout=0.2)
    assert engine(table).to_text() == before


async def test_a_move_the_piece_cannot_make_is_refused_and_changes_nothing(
    host, opponent, third, outsider, fake_clock
):
    table = await database_sync_to_async(blockkiller_table)(host, opponent, third)
    p1, p2, p3, spectator = await started(table, (host, opponent, third, outsider), fake_clock)
    seq = await play(p1, ATTACK[:-1])  # the I stood up at the left wall
    await receive_until(spectator, rf"a1:{seq - 1}\b")
    before = engine(table).to_text()
    await p1.send_json_to({"intent": "left"})  # through the wall: no placement is there
    assert 'data-code="BLOCKED"' in await receive_until(p1, "ws-error")
    assert await spectator.receive_nothing(timeout=0.2)
    assert engine(table).to_text() == before


async def test_bad_frames_are_refused_before_the_engine_sees_them(host, opponent, third, outsider, fake_clock):
    table = await database_sync_to_async(blockkiller_table)(host, opponent, third)
    p1, *_ = await started(table, (host, opponent, third, outsider), fake_clock)
    before = engine(table).to_text()
    for frame in (
        {"intent": "stack", "rows": ",".join(["90"] * 100)},  # longer than any stack
        {"intent": "stack", "rows": "90;91"},
        {"intent": "stack", "rows": [[90, False]]},  # frames are flat
        {"intent": "piece", "card": 201},
        {"intent": "place", "card": 72, "keys": "L" * 500},  # not a frame a page may send
    ):
        await p1.send_json_to(frame)
        assert "ws-error" in await receive_until(p1, "ws-error")
    assert engine(table).to_text() == before


async def test_the_turn_clock_passes_and_an_obliged_player_draws_garbage(
    host, opponent, third, outsider, fake_clock
):
    table = await database_sync_to_async(blockkiller_table)(host, opponent, third)
    hands = {1: ([60, 61, 62, 63, 64, 65], [90]), 2: ([66], [100]), 3: ([67], [110])}
    *_, spectator = await started(table, (host, opponent, third, outsider), fake_clock, hands=hands)
    fake_clock.t += 60.5
    await tick(table.pk)
    fragment = await receive_until(spectator, "passes")
    assert "hostess draws 1 garbage card" in fragment and "hostess passes (time)" in fragment
    assert len(engine(table).players[1].garbage) == 2


async def test_leaving_forfeits_and_the_last_one_in_wins_the_pot(host, opponent, third, outsider, fake_clock):
    table = await database_sync_to_async(blockkiller_table)(host, opponent, third, 10)
    p1, p2, p3, spectator = await started(table, (host, opponent, third, outsider), fake_clock)
    await p2.send_json_to({"intent": "forfeit"})
    assert 'data-state="left"' in await receive_until(spectator, 'id="bk-status-2"')
    fake_clock.t += 1.0
    await p3.send_json_to({"intent": "forfeit"})
    results = await receive_until(spectator, 'id="results-title"')
    assert "opponent (left)" in results and "Garbage sent" in results
    game = await database_sync_to_async(Game.objects.get)(table=table)
    parts = await database_sync_to_async(
        lambda: sorted(game.participations.values_list("seat", "place", "points", "chips_delta", "forfeited"))
    )()
    # RULES.md §6, 3 players: the winner +15 and the pot of 30; leaving: −20, the stake lost
    assert parts == [(1, 1, 15, 20, False), (2, 3, -20, -10, True), (3, 2, -20, -10, True)]
    rows = await database_sync_to_async(lambda: list(selectors.leaderboard("blockkiller", "all")))()
    assert [(r.username, r.points) for r in rows][:1] == [("hostess", 15)]
    board = await database_sync_to_async(Client().get)(reverse("games:leaderboard", args=["blockkiller"]))
    assert board.status_code == 200 and "hostess" in board.content.decode()
    # A rematch: the two who left gave their seats up and sit down again; once all three
    # ask, the same players play again, at the same stake.
    for number, user in ((2, opponent), (3, third)):
        await database_sync_to_async(services.seat_take)(table_id=table.pk, player=ref(user), number=number)
    for user in (host, opponent, third):
        await database_sync_to_async(services.table_rematch)(table_id=table.pk, player=ref(user))
    games = await database_sync_to_async(lambda: list(Game.objects.filter(table=table).order_by("pk")))()
    assert len(games) == 2 and games[1].stake == 10 and games[1].kind == "blockkiller"


async def test_a_player_who_does_not_come_back_within_30_seconds_forfeits(
    host, opponent, third, outsider, fake_clock
):
    table = await database_sync_to_async(blockkiller_table)(host, opponent, third)
    p1, p2, p3, spectator = await started(table, (host, opponent, third, outsider), fake_clock)
    await p3.disconnect()
    await asyncio.sleep(0.1)
    fake_clock.t += 29
    await tick(table.pk)
    assert not any('data-state="left"' in m for m in await received(spectator))
    fake_clock.t += 1.5
    await tick(table.pk)
    assert 'data-state="left"' in await receive_until(spectator, 'id="bk-status-3"')


async def test_a_player_back_within_30_seconds_plays_on_with_their_hand(host, opponent, third, outsider, fake_clock):
    table = await database_sync_to_async(blockkiller_table)(host, opponent, third)
    p1, p2, p3, spectator = await started(table, (host, opponent, third, outsider), fake_clock)
    await p1.disconnect()
    await asyncio.sleep(0.1)
    fake_clock.t += 20
    await tick(table.pk)
    back = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(host))
    await back.send_json_to({"intent": "resync"})
    hand = [m for m in await received(back) if 'id="bk-hand"' in m]
    assert hand and 'data-card="72"' in hand[-1]  # the same hand, to them alone
    fake_clock.t += 15  # 35 s after leaving, but back after 20
    await tick(table.pk)
    assert not any('data-state="left"' in m for m in await received(spectator))
    seq = await play(back, ATTACK[:1])
    assert 'data-phase="attack"' in await receive_until(spectator, rf"a1:{seq - 1}\b")


async def test_a_player_who_is_out_may_leave_and_the_game_goes_on(host, opponent, third, outsider, fake_clock):
    """Out of the game (more than 12 garbage cards), a player's place is settled: their
    Leave, or their page gone for 30 s, changes nothing, and never stops the others'
    game (it used to raise in the host, which aborted the game for everyone)."""
    table = await database_sync_to_async(blockkiller_table)(host, opponent, third)
    p1, p2, p3, spectator = await started(table, (host, opponent, third, outsider), fake_clock)
    game = engine(table)
    game.players[3].out = 1  # arranged: seat 3 is the first out
    await p3.send_json_to({"intent": "forfeit"})
    await p3.disconnect()
    await asyncio.sleep(0.1)
    fake_clock.t += 31  # the page gone for longer than the 30 s
    await tick(table.pk)
    await asyncio.sleep(0.1)
    assert not any("Game aborted" in m for m in await received(p1))
    assert game.players[3].left_at is None and not game.finished
    seq = await play(p1, ATTACK[:1])  # and the others play on
    assert 'data-phase="attack"' in await receive_until(spectator, rf"a1:{seq - 1}\b")
    row = await database_sync_to_async(Game.objects.get)(table=table)
    assert row.status == Game.Status.RUNNING


async def test_practice_against_block_killer_bots(host, fake_clock):
    table = await database_sync_to_async(services.practice_create)(player=ref(host), game="blockkiller")
    me = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(host))
    await database_sync_to_async(services.table_start)(table_id=table.pk, player=ref(host))
    await receive_until(me, 'id="game"')
    fake_clock.t += 3.01
    await tick(table.pk)
    await receive_until(me, 'id="bk-turn"')
    game = engine(table)
    assert len(game.seats) >= 3 and len(game.players) == len(game.seats)
    for _ in range(12):  # the bots think at most 0.7 s a step
        fake_clock.t += 1.0
        await tick(table.pk)
        await asyncio.sleep(0.05)
        if game.acting == 1:
            break
    assert game.acting == 1 or len(game.log) > 0


def test_the_regions_are_the_same_on_the_page_and_in_a_live_update():
    live = played(GAMES["blockkiller"], 3, 20.0)
    page = live.render_full(live.game.now, 0.0)
    update = live.render_events([*live_turn_events(live)])
    assert_one_source(page, update, expected_ids=2 + 3 + 2)


def live_turn_events(live):
    game = live.game
    return [Passed(game.acting), TurnChanged(game.acting, game.phase, game.next_deadline())]


def test_the_site_offers_block_killer_with_its_options_and_rules(client, host):
    rules = client.get(reverse("games:how_to_play", args=["blockkiller"]))
    assert rules.status_code == 200 and "111 garbage cards" in rules.content.decode()
    client.force_login(host)
    form = client.get(reverse("lobby:create", args=["blockkiller"])).content.decode()
    assert 'name="opt-turn_seconds"' in form and 'name="opt-no_mercy"' in form and 'name="opt-mini"' in form
    assert '<option value="3" selected>3</option>' in form and '<option value="6">6</option>' in form
    assert '<option value="2">2</option>' not in form
    response = client.post(
        reverse("lobby:create", args=["blockkiller"]),
        {"name": "", "stake": 0, "opt-seats": 4, "opt-turn_seconds": 45, "opt-no_mercy": "on"},
    )
    assert response.status_code == 302
    table = Table.objects.get(game="blockkiller")
    assert table.seats_total == 4 and table.options == {"turn_seconds": 45, "mini": False, "no_mercy": True}
    refused = client.post(reverse("lobby:create", args=["blockkiller"]), {"stake": 0, "opt-seats": 2})
    assert refused.status_code == 400


def test_a_hand_is_ready_for_its_player_alone():
    live = GAMES["blockkiller"].live(setup_for(GAMES["blockkiller"], seed=3, seats=3))
    live.begin(0.0)
    live.game.setup(hands=HANDS, turn=1)
    private = live.private_fragments([])
    assert set(private) == {1, 2, 3} and 'data-card="72"' in private[1] and 'data-card="72"' not in private[2]
    assert live.private_fragments([]) == {}  # nothing changed, nothing sent
    assert "data-card" not in live.render_full(0.0, 0.0)
