"""A live Te-Trix table through real consumers: two players and a spectator, and the
solo game.

Positions are arranged on the running engine (``Game.setup``): who rolls and what the
dice show. A T is arranged as drawn (``.#./###``): its nose first, then the bottom row
from the left; written unturned at (0, 0) it covers (0, 1), (1, 0), (1, 1) and (1, 2)."""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async
from django.urls import reverse

from games import selectors
from games.models import Game
from games.registry import GAMES
from games.tetrix.events import Rolled, Wrote
from lobby import services
from lobby.models import Table
from tests.games.test_one_source import assert_one_source, played
from tests.live.conftest import (
    cookie_for,
    engine,
    open_socket,
    ready_table,
    receive_until,
    received,
    started_sockets,
    tick,
)
from tests.personas import ref

pytestmark = pytest.mark.django_db(transaction=True)
OPTIONS = {"arrange_seconds": 30, "write_seconds": 60, "solo": False}
DICE = "ooxs"


def tetrix_table(host, opponent, stake=0):
    return ready_table("tetrix", OPTIONS, (host, opponent), stake)


async def started(table, users, fake_clock, roller=1, dice=DICE):
    sockets = await started_sockets(table, users, fake_clock, 'data-round="1"')
    if roller is not None:
        engine(table).setup(roller=roller, dice=dice)
        for ws in sockets:  # every page, as it would be after a reload
            await received(ws, 0.1)
            await ws.send_json_to({"intent": "resync"})
            await receive_until(ws, 'id="game"')
    return sockets


def arrange(shape="T", symbols=DICE, seq=None) -> dict:
    frame = {"intent": "arrange", "shape": shape, "symbols": symbols}
    if seq is not None:
        frame["seq"] = seq
    return frame


def write(turns=0, row=0, column=0, seq=None) -> dict:
    frame = {"intent": "write", "turns": turns, "row": row, "column": column}
    if seq is not None:
        frame["seq"] = seq
    return frame


async def test_a_round_reaches_everyone_and_the_next_player_rolls(host, opponent, outsider, fake_clock):
    table = await database_sync_to_async(tetrix_table)(host, opponent)
    p1, p2, spectator = await started(table, (host, opponent, outsider), fake_clock)
    await p1.send_json_to(arrange(seq=1))
    for ws in (p1, p2, spectator):
        fragment = await receive_until(ws, r"a1:1\b")
        assert 'data-phase="write"' in fragment and 'data-shape="T" data-symbols="ooxs"' in fragment
        assert "hostess arranged shape T: ○ ○ ✕ □" in fragment
    await p1.send_json_to(write(seq=2))  # the T, unturned, in the top-left corner
    fragment = await receive_until(spectator, r"a1:2\b")
    assert 'data-sheet=".o.....oxs' in fragment and 'data-state="wrote"' in fragment
    await p2.send_json_to(write(turns=2, row=-1, column=4, seq=1))  # turned upside down, hanging over the top
    fragment = await receive_until(spectator, r"a2:1\b")
    # the T turned twice: its nose at the bottom; the bottom row (now the top) hangs over
    assert 'id="tx-sheet-2"' in fragment and 'data-sheet="' + "." * 5 + "o" in fragment
    assert "opponent wrote it, 3 hanging over" in fragment
    assert 'data-round="2"' in fragment and 'data-roller="2"' in fragment  # seat order: the next rolls
    game = engine(table)
    assert (game.round, game.roller, game.phase) == (2, 2, "arrange")


@pytest.mark.parametrize(
    ("who", "frames", "code"),
    [
        (1, [arrange(), write(row=2, column=2)], "CELL_WRITTEN"),  # over the preprinted centre
        (1, [arrange(), write(row=-3, column=-3)], "NOTHING_WRITTEN"),  # every symbol off the sheet
        (1, [arrange(symbols="xxxx")], "NOT_THE_ROLL"),
        (2, [arrange()], "NOT_YOUR_TURN"),  # seat 1 rolled
        (2, [write()], "NOT_YOUR_TURN"),  # nothing arranged yet
        (1, [{"intent": "stop"}], "NOT_SOLO"),
        (1, [arrange(shape="Q")], "BAD_SHAPE"),  # the frame's own checks
        (1, [arrange(symbols="oxo")], "BAD_SYMBOLS"),
        (1, [arrange(), write(turns=4)], "BAD_TURNS"),
        (1, [arrange(), write(row=7)], "BAD_ROW"),
        (1, [arrange(), {"intent": "write", "turns": 0, "row": 0}], "BAD_COLUMN"),
        # a shape is turned, never mirrored: a write has no way to ask for a mirror image
        (1, [arrange(), {**write(), "mirrored": True}], "BAD_FRAME"),
    ],
)
async def test_refusals_have_a_clear_code_and_change_nothing(
    host, opponent, outsider, fake_clock, who, frames, code
):
    table = await database_sync_to_async(tetrix_table)(host, opponent)
    p1, p2, spectator = await started(table, (host, opponent, outsider), fake_clock)
    player = {1: p1, 2: p2}[who]
    *before_frames, refused = frames
    for frame in before_frames:  # the arrangement the refused write follows
        await p1.send_json_to(frame)
        await receive_until(spectator, 'data-phase="write"')
    before = engine(table).to_text()
    await player.send_json_to(refused)
    error = await receive_until(player, "ws-error")
    assert f'data-code="{code}"' in error
    assert await spectator.receive_nothing(timeout=0.2)
    assert engine(table).to_text() == before


async def test_a_spectator_cannot_arrange_or_write(host, opponent, outsider, fake_clock):
    table = await database_sync_to_async(tetrix_table)(host, opponent)
    p1, p2, spectator = await started(table, (host, opponent, outsider), fake_clock)
    before = engine(table).to_text()
    for frame in (arrange(), write()):
        await spectator.send_json_to(frame)
        assert 'data-code="SPECTATOR"' in await receive_until(spectator, "ws-error")
    assert engine(table).to_text() == before


async def test_a_writing_clock_writes_for_whoever_has_not(host, opponent, outsider, fake_clock):
    table = await database_sync_to_async(tetrix_table)(host, opponent)
    p1, p2, spectator = await started(table, (host, opponent, outsider), fake_clock)
    await p1.send_json_to(arrange())
    await receive_until(spectator, 'data-phase="write"')
    await p1.send_json_to(write())
    await receive_until(spectator, 'data-state="wrote"')
    fake_clock.t += 60.5
    await tick(table.pk)
    fragment = await receive_until(spectator, 'data-round="2"')
    assert "the clock wrote for opponent" in fragment


async def test_leaving_forfeits_and_ends_a_game_of_two(host, opponent, outsider, fake_clock):
    table = await database_sync_to_async(tetrix_table)(host, opponent)
    p1, p2, spectator = await started(table, (host, opponent, outsider), fake_clock)
    await p2.send_json_to({"intent": "forfeit"})
    assert 'data-state="left"' in await receive_until(spectator, 'id="tx-status-2"')
    results = await receive_until(spectator, 'id="results-title"')
    assert "opponent (left)" in results and "<th class=\"num\" scope=\"col\">Score</th>" in results
    # A rematch: the one who left gave the seat up and sits down again; once both ask,
    # the same two play again at the same table.
    await database_sync_to_async(services.seat_take)(table_id=table.pk, player=ref(opponent), number=2)
    for user in (host, opponent):
        await database_sync_to_async(services.table_rematch)(table_id=table.pk, player=ref(user))
    games = await database_sync_to_async(lambda: list(Game.objects.filter(table=table).order_by("pk")))()
    assert len(games) == 2 and games[1].kind == "tetrix" and games[1].status == "running"


async def test_a_player_who_does_not_come_back_within_30_seconds_forfeits(host, opponent, outsider, fake_clock):
    table = await database_sync_to_async(tetrix_table)(host, opponent)
    p1, p2, spectator = await started(table, (host, opponent, outsider), fake_clock)
    await p2.disconnect()
    await asyncio.sleep(0.1)
    fake_clock.t += 29
    await tick(table.pk)
    assert not any('data-state="left"' in m for m in await received(spectator))  # 30 s to come back
    p2 = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(opponent))  # back in time
    await receive_until(p2, 'id="game"')
    fake_clock.t += 5
    await tick(table.pk)
    assert not any('data-state="left"' in m for m in await received(spectator))
    await p2.disconnect()
    await asyncio.sleep(0.1)
    fake_clock.t += 30.5
    await tick(table.pk)
    assert "opponent (left)" in await receive_until(spectator, 'id="results-title"')


async def test_a_competitive_game_pays_the_pot_and_points(host, opponent, outsider, fake_clock):
    table = await database_sync_to_async(tetrix_table)(host, opponent, 10)
    p1, p2, spectator = await started(table, (host, opponent, outsider), fake_clock)
    await p1.send_json_to(arrange())
    await receive_until(spectator, 'data-phase="write"')
    await p2.send_json_to({"intent": "forfeit"})
    await receive_until(spectator, 'id="results-title"')
    game = await database_sync_to_async(Game.objects.get)(table=table)
    parts = await database_sync_to_async(
        lambda: sorted(game.participations.values_list("seat", "place", "points", "chips_delta", "forfeited"))
    )()
    # RULES.md §6, 2 players: the winner +10 and the pot of 20 (a gain of 10); leaving: −20, the stake lost
    assert parts == [(1, 1, 10, 10, False), (2, 2, -20, -10, True)]
    rows = await database_sync_to_async(lambda: list(selectors.leaderboard("tetrix", "all")))()
    assert [(r.username, r.points) for r in rows][:1] == [("hostess", 10)]


async def test_a_finished_game_is_saved_with_each_sheets_score(host, opponent, outsider, fake_clock):
    table = await database_sync_to_async(tetrix_table)(host, opponent)
    p1, p2, spectator = await started(table, (host, opponent, outsider), fake_clock, roller=None)
    game = engine(table)
    # seat 2's sheet has one empty cell, in the middle: no shape fits, even hanging over;
    # the round is the last
    full = ["sssssss"] * 3 + ["sss.sss"] + ["sssssss"] * 3
    game.setup(sheets={2: full, 1: ["ooooo.."] + ["......."] * 6}, roller=1, dice=DICE)
    await p1.send_json_to(arrange())
    await receive_until(spectator, "cannot write the shape")
    await p1.send_json_to(write(row=1, column=0))
    results = await receive_until(spectator, 'id="results-title"')
    assert "Player 2 had no room for the" in results or "opponent had no room for the" in results
    saved = await database_sync_to_async(Game.objects.get)(table=table)
    scores = await database_sync_to_async(lambda: sorted(saved.participations.values_list("seat", "score", "place")))()
    assert scores == [(1, game.score(1), 2), (2, game.score(2), 1)] and game.score(2) == 48


async def test_a_solo_game_from_one_click_to_its_verdict(host, fake_clock):
    table = await database_sync_to_async(services.solo_create)(player=ref(host), game="tetrix")
    assert (table.seats_total, table.stake, table.options["solo"]) == (1, 0, True)
    again = await database_sync_to_async(services.solo_create)(player=ref(host), game="tetrix")
    assert again.pk == table.pk  # playing solo again goes back to the same table
    me = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(host))
    await database_sync_to_async(services.table_start)(table_id=table.pk, player=ref(host))
    page = await receive_until(me, 'id="game"')
    assert 'data-solo' in page and 'class="tx-bar"' in page and 'data-action="stop"' in page
    fake_clock.t += 3.01
    await tick(table.pk)
    await receive_until(me, 'data-round="1"')
    game = engine(table)
    game.setup(dice=DICE)
    await me.send_json_to(arrange(seq=1))
    await receive_until(me, r"a1:1\b")
    await me.send_json_to(write(row=-1, column=0, seq=2))  # the nose hangs over: one box crossed
    fragment = await receive_until(me, r"a1:2\b")
    assert 'aria-label="Bar: 7 of 8 boxes left"' in fragment
    await me.send_json_to({"intent": "stop", "seq": 3})
    assert 'class="tx-verdict">keep practising' in await receive_until(me, 'id="tx-status-1"')
    results = await receive_until(me, 'id="results-title"')
    assert "You stopped the game. 7 points: keep practising" in results


def test_solo_is_for_one_seat_only(client, host):
    client.force_login(host)
    refused = client.post(
        reverse("lobby:create", args=["tetrix"]),
        {"stake": 0, "opt-seats": 2, "opt-arrange_seconds": 30, "opt-write_seconds": 60, "opt-solo": "on"},
    )
    assert refused.status_code == 400 and "The solo game is for one player." in refused.content.decode()
    response = client.post(reverse("lobby:solo", args=["tetrix"]))
    table = Table.objects.get(game="tetrix")
    assert response.status_code == 302 and response["Location"] == table.get_absolute_url()
    assert table.options["solo"] and table.seats_total == 1
    for game in ("thirdoption", "blockkiller"):  # games without a solo variant
        client.post(reverse("lobby:solo", args=[game]))
        assert not Table.objects.filter(game=game).exists()


async def test_practice_against_the_tetrix_bot(host, fake_clock):
    table = await database_sync_to_async(services.practice_create)(player=ref(host), game="tetrix")
    me = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(host))
    await database_sync_to_async(services.table_start)(table_id=table.pk, player=ref(host))
    await receive_until(me, 'id="game"')
    fake_clock.t += 3.01
    await tick(table.pk)
    await receive_until(me, 'data-round="1"')
    game = engine(table)
    game.setup(roller=2, dice=DICE)
    for _ in range(4):  # the bot thinks at most 2.5 s before it arranges
        fake_clock.t += 1.0
        await tick(table.pk)
        await asyncio.sleep(0.1)
    assert game.phase == "write" and game.shape is not None


def test_the_regions_are_the_same_on_the_page_and_in_a_live_update():
    live = played(GAMES["tetrix"], 3, 25.0)
    game = live.game
    update = live.render_events(
        [Rolled(game.roller, game.round, game.dice)]
        + [Wrote(seat, (), 0, game.score(seat)) for seat in live.seats]
    )
    page = live.render_full(game.now, 0.0)
    # the round, the clock, and every seat's status and sheet
    assert_one_source(page, update, expected_ids=2 + 2 * 3)


def test_the_site_offers_tetrix_with_its_options_rules_and_solo(client, host):
    home = client.get("/").content.decode()
    assert "Playable today: TetriWar, Viertris, Third Option, Block-Killer and Te-Trix." in home
    rules = client.get(reverse("games:how_to_play", args=["tetrix"])).content.decode()
    assert "7 × 7 sheet" in rules and "Chapeau!" in rules
    assert f'action="{reverse("lobby:solo", args=["tetrix"])}"' in rules and "Play solo" in rules
    lobby = client.get(reverse("lobby:index")).content.decode()
    assert f'action="{reverse("lobby:solo", args=["tetrix"])}"' in lobby and "Play Te-Trix solo" in lobby
    assert lobby.count("solo</button>") == 1  # the one game with a solo variant
    client.force_login(host)
    form = client.get(reverse("lobby:create", args=["tetrix"])).content.decode()
    for name in ("opt-arrange_seconds", "opt-write_seconds", "opt-solo"):
        assert f'name="{name}"' in form
    assert '<option value="1">1</option>' in form and '<option value="4">4</option>' in form
    response = client.post(
        reverse("lobby:create", args=["tetrix"]),
        {"name": "", "stake": 0, "opt-seats": 3, "opt-arrange_seconds": 20, "opt-write_seconds": 45},
    )
    assert response.status_code == 302
    table = Table.objects.get(game="tetrix")
    assert table.seats_total == 3 and table.options == {"arrange_seconds": 20, "write_seconds": 45, "solo": False}
    refused = client.post(reverse("lobby:create", args=["tetrix"]), {"stake": 0, "opt-seats": 5})
    assert refused.status_code == 400
