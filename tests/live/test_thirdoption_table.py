"""A live Third Option table through real consumers: three players and a spectator.

Positions are arranged on the running engine (``Game.setup``) where a test needs one:
the cards of a round, or a player already out."""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import reverse

from games import selectors
from games.models import Game
from games.registry import GAMES
from games.thirdoption.events import Placed, RoundStarted, ThirdOption
from lobby import services
from lobby.models import Table
from tests.contract.test_game_contract import setup_for
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
OPTIONS = {"round_seconds": 60, "tetrominoes_only": False}
# Rows 0 and 1 of every seat's grid are empty at the start (the starting shapes sit lower).
DECK = ["O4", "I3", "T4", "L4", "2", "1", "X5", "I4"]


def thirdoption_table(host, opponent, third, stake=0):
    return ready_table("thirdoption", OPTIONS, (host, opponent, third), stake)


async def started(table, users, fake_clock, deck=DECK):
    sockets = await started_sockets(table, users, fake_clock, "Round 1")
    if deck is not None:
        engine(table).setup(deck=deck)  # round 2 reveals the deck's first two cards
    return sockets


def place(round_, card, row=0, column=0, turns=0, mirrored=False, seq=None) -> dict:
    frame = {
        "intent": "place",
        "round": round_,
        "card": card,
        "row": row,
        "column": column,
        "turns": turns,
        "mirrored": mirrored,
    }
    if seq is not None:
        frame["seq"] = seq
    return frame


async def test_a_placement_reaches_everyone_and_the_round_ends_when_all_have_placed(
    host, opponent, third, outsider, fake_clock
):
    table = await database_sync_to_async(thirdoption_table)(host, opponent, third)
    p1, p2, p3, spectator = await started(table, (host, opponent, third, outsider), fake_clock)
    await p1.send_json_to(place(2, 0, seq=1))  # the O4, top left
    for ws in (p1, p2, p3, spectator):
        fragment = await receive_until(ws, r"a1:1\b")
        assert 'id="to-board-1"' in fragment and 'data-grid="##.......##...' in fragment
        assert 'data-state="placed"' in fragment
    await p2.send_json_to(place(2, 1, seq=1))  # the I3: several may pick either card
    await receive_until(spectator, r"a2:1\b")
    await p3.send_json_to(place(2, 0, row=0, column=7, seq=1))
    fragment = await receive_until(spectator, r"a3:1\b")
    assert 'data-round="3"' in fragment and "Round 3: T4 and L4" in fragment


async def test_placing_twice_in_a_round_is_refused_and_changes_nothing(
    host, opponent, third, outsider, fake_clock
):
    table = await database_sync_to_async(thirdoption_table)(host, opponent, third)
    p1, p2, p3, spectator = await started(table, (host, opponent, third, outsider), fake_clock)
    await p1.send_json_to(place(2, 0, seq=1))
    await receive_until(spectator, r"a1:1\b")
    before = engine(table).to_text()
    await p1.send_json_to(place(2, 1, row=5, column=0, seq=2))
    assert 'data-code="ALREADY_PLACED"' in await receive_until(p1, "ws-error")
    assert await spectator.receive_nothing(timeout=0.2)
    assert engine(table).to_text() == before


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        (place(2, 2), "CARD_NOT_OFFERED"),  # no third option: card 2 is not on the table
        (place(2, 0, row=3, column=3), "OVERLAP"),  # on the starting shape
        (place(1, 0), "WRONG_ROUND"),
        (place(2, 0, row=8, column=8), "OUT_OF_GRID"),
        (place(2, 3), "BAD_CARD"),  # the frame's own check
        ({"intent": "place", "round": 2, "card": 0}, "BAD_ROW"),  # no row (nor column)
    ],
)
async def test_bad_placements_are_refused_clearly_and_change_nothing(
    host, opponent, third, outsider, fake_clock, frame, code
):
    table = await database_sync_to_async(thirdoption_table)(host, opponent, third)
    p1, p2, p3, spectator = await started(table, (host, opponent, third, outsider), fake_clock)
    before = engine(table).to_text()
    await p1.send_json_to(frame)
    assert f'data-code="{code}"' in await receive_until(p1, "ws-error")
    assert await spectator.receive_nothing(timeout=0.2)
    assert engine(table).to_text() == before


async def test_acting_after_elimination_is_refused(host, opponent, third, outsider, fake_clock):
    table = await database_sync_to_async(thirdoption_table)(host, opponent, third)
    p1, p2, p3, spectator = await started(table, (host, opponent, third, outsider), fake_clock, deck=None)
    game = engine(table)
    game.setup(deck=DECK, out=[3])  # seat 3 went out in an earlier round
    before = game.to_text()
    await p3.send_json_to(place(game.round, 0))
    error = await receive_until(p3, "ws-error")
    assert 'data-code="ELIMINATED"' in error and "empty squares" in error
    assert await spectator.receive_nothing(timeout=0.2)
    assert game.to_text() == before


async def test_a_spectator_cannot_place(host, opponent, third, outsider, fake_clock):
    table = await database_sync_to_async(thirdoption_table)(host, opponent, third)
    *_, spectator = await started(table, (host, opponent, third, outsider), fake_clock)
    await spectator.send_json_to(place(2, 0))
    assert 'data-code="SPECTATOR"' in await receive_until(spectator, "ws-error")


async def test_the_round_clock_places_for_everyone_and_the_game_ends_and_is_saved(
    host, opponent, third, outsider, fake_clock
):
    table = await database_sync_to_async(thirdoption_table)(host, opponent, third)
    *_, spectator = await started(
        table, (host, opponent, third, outsider), fake_clock, deck=["O4", "I3", "T4"]
    )
    fake_clock.t += 60.5  # nobody places: the clock does, then the deck cannot reveal two more
    await tick(table.pk)
    fragment = await receive_until(spectator, 'id="results-title"')
    assert "the clock placed O4" in fragment or "The deck ran out." in fragment
    game = await database_sync_to_async(Game.objects.get)(table=table)
    assert game.status == "finished" and game.termination == "deck_empty"
    parts = await database_sync_to_async(
        lambda: sorted(game.participations.values_list("seat", "score", "place"))
    )()
    assert parts == [(1, 69, 1), (2, 69, 1), (3, 69, 1)]  # 73 empty squares less an O4 each: shared


async def test_leaving_forfeits_and_the_last_one_in_wins(host, opponent, third, outsider, fake_clock):
    table = await database_sync_to_async(thirdoption_table)(host, opponent, third)
    p1, p2, p3, spectator = await started(table, (host, opponent, third, outsider), fake_clock)
    await p2.send_json_to({"intent": "forfeit"})
    assert 'data-state="left"' in await receive_until(spectator, 'id="to-status-2"')
    await p3.send_json_to({"intent": "forfeit"})
    results = await receive_until(spectator, 'id="results-title"')
    assert "The game ended when players left it." in results and "opponent (left)" in results


async def test_a_player_who_does_not_come_back_within_30_seconds_forfeits(
    host, opponent, third, outsider, fake_clock
):
    table = await database_sync_to_async(thirdoption_table)(host, opponent, third)
    p1, p2, p3, spectator = await started(table, (host, opponent, third, outsider), fake_clock)
    await p3.disconnect()
    await asyncio.sleep(0.1)
    fake_clock.t += 29
    await tick(table.pk)
    assert not any('data-state="left"' in m for m in await received(spectator))  # 30 s to come back
    fake_clock.t += 1.5
    await tick(table.pk)
    assert 'data-state="left"' in await receive_until(spectator, 'id="to-status-3"')


async def test_practice_against_the_third_option_bot(host, fake_clock):
    table = await database_sync_to_async(services.practice_create)(player=ref(host), game="thirdoption")
    me = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(host))
    await database_sync_to_async(services.table_start)(table_id=table.pk, player=ref(host))
    await receive_until(me, 'id="game"')
    fake_clock.t += 3.01
    await tick(table.pk)
    await receive_until(me, "Round 1")
    for _ in range(3):  # the bot thinks at most 2.5 s before it places
        fake_clock.t += 1.0
        await tick(table.pk)
        await asyncio.sleep(0.1)
    # The first push of seat 2's status may be one from before the bot placed: wait for the placed one.
    await receive_until(me, r'id="to-status-2"[^>]*data-state="placed"')


def test_the_regions_are_the_same_on_the_page_and_in_a_live_update():
    live = played(GAMES["thirdoption"], 4, 30.0)
    page = live.render_full(live.game.now, 0.0)
    game = live.game
    update = live.render_events(
        [RoundStarted(0, game.round, game.cards, len(game.deck), 1e9), Placed(1, "O4", (), 0)]
    )
    # the round, the clock, and every seat's status, own card and grid
    assert_one_source(page, update, expected_ids=2 + 3 * 4)


def test_a_third_option_is_ready_for_its_player_alone():
    live = GAMES["thirdoption"].live(setup_for(GAMES["thirdoption"], seed=3, seats=2))
    live.begin(0.0)
    slot = ["#.#######"] * 3 + ["#########"] * 5 + ["########."]
    events = live.game.setup(grids={1: slot}, deck=["O4", "T4", "I3", "2", "1"])
    assert ThirdOption(1, "I3", True) in events
    private = live.private_fragments(events)
    assert list(private) == [1] and 'id="to-mine-1"' in private[1] and 'data-shape="###"' in private[1]
    assert live.render_private(2).count("to-card") == 0


def competitive_table(host, opponent, third, stake):
    return thirdoption_table(host, opponent, third, stake)


def leaderboard_page(game: str) -> str:
    response = Client().get(reverse("games:leaderboard", args=[game]))
    assert response.status_code == 200
    return response.content.decode()


async def test_a_competitive_game_pays_the_pot_and_points_and_has_its_own_leaderboard(
    host, opponent, third, outsider, fake_clock
):
    table = await database_sync_to_async(competitive_table)(host, opponent, third, 10)
    p1, p2, p3, spectator = await started(table, (host, opponent, third, outsider), fake_clock)
    await p2.send_json_to({"intent": "forfeit"})
    await receive_until(spectator, 'id="to-status-2"')
    fake_clock.t += 1.0  # the first to leave ranks last
    await p3.send_json_to({"intent": "forfeit"})
    await receive_until(spectator, 'id="results-title"')
    game = await database_sync_to_async(Game.objects.get)(table=table)
    parts = await database_sync_to_async(
        lambda: sorted(game.participations.values_list("seat", "place", "points", "chips_delta", "forfeited"))
    )()
    # RULES.md §6, 3 players: the winner +15 and the pot of 30 (a gain of 20); leaving: −20, the stake lost
    assert parts == [(1, 1, 15, 20, False), (2, 3, -20, -10, True), (3, 2, -20, -10, True)]
    rows = await database_sync_to_async(lambda: list(selectors.leaderboard("thirdoption", "all")))()
    assert [(r.username, r.points) for r in rows][:1] == [("hostess", 15)]
    assert "hostess" in await database_sync_to_async(leaderboard_page)("thirdoption")
    assert "hostess" not in await database_sync_to_async(leaderboard_page)("viertris")


async def test_a_third_option_reaches_its_player_alone(host, opponent, third, outsider, fake_clock):
    table = await database_sync_to_async(thirdoption_table)(host, opponent, third)
    p1, p2, p3, spectator = await started(table, (host, opponent, third, outsider), fake_clock, deck=None)
    game = engine(table)
    slot = ["#.#######"] * 3 + ["#########"] * 5 + ["########."]  # an I3 fits; no 4-square card does
    game.setup(grids={1: slot}, deck=["1", "1", "O4", "T4", "I3", "2", "X5", "I5"])
    for ws, column in ((p1, 8), (p2, 0), (p3, 0)):
        await ws.send_json_to(place(game.round, 0, row=8 if ws is p1 else 0, column=column, seq=1))
    public = await receive_until(spectator, r"a3:1\b")  # the next round: O4 and T4; seat 1 gets the I3
    assert 'id="to-mine-1"' in public and "eyes only" in public and 'data-shape="###"' not in public
    assert any('id="to-mine-1"' in m and 'data-shape="###"' in m for m in await received(p1))
    for ws in (p2, p3, spectator):
        assert not any('data-shape="###"' in m for m in await received(ws))
    await p1.send_json_to({"intent": "resync"})  # the player's page, reloaded, has it again
    assert any('id="to-mine-1"' in m and 'data-shape="###"' in m for m in await received(p1))
    await spectator.send_json_to({"intent": "resync"})
    assert not any('data-shape="###"' in m for m in await received(spectator))


def test_the_site_offers_third_option_with_its_options_and_rules(client, host):
    home = client.get("/").content.decode()
    assert "Playable today: TetriWar, Viertris, Third Option, Block-Killer and Te-Trix." in home
    rules = client.get(reverse("games:how_to_play", args=["thirdoption"]))
    assert rules.status_code == 200 and "9 × 9 grid" in rules.content.decode()
    client.force_login(host)
    form = client.get(reverse("lobby:create", args=["thirdoption"])).content.decode()
    assert 'name="opt-round_seconds"' in form and 'name="opt-tetrominoes_only"' in form
    assert '<option value="12">12</option>' in form and '<option value="1">1</option>' in form
    response = client.post(
        reverse("lobby:create", args=["thirdoption"]),
        {"name": "", "stake": 0, "opt-seats": 12, "opt-round_seconds": 45, "opt-tetrominoes_only": "on"},
    )
    assert response.status_code == 302
    table = Table.objects.get(game="thirdoption")
    assert table.seats_total == 12 and table.options == {"round_seconds": 45, "tetrominoes_only": True}
    refused = client.post(
        reverse("lobby:create", args=["thirdoption"]), {"stake": 0, "opt-seats": 13, "opt-round_seconds": 5}
    )
    assert refused.status_code == 400
