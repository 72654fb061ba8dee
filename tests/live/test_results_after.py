"""A page whose socket connects after a game (issue 30's "nothing stuck on screen"): a
page away while the game ended (a dropped connection, a sleeping tab) still shows the
boards of a game that is over; as its socket comes back, the results take their place,
as a page opened then shows them (lobby/table.html). Every game the same way."""

from __future__ import annotations

import re

import pytest
from channels.db import database_sync_to_async

from tests.live.conftest import cookie_for, open_socket, ready_table, receive_until, started_sockets
from tests.live.test_reconnect import EVERY_GAME
from tests.live.test_tetriwar_table import OPTIONS as TETRIWAR

pytestmark = pytest.mark.django_db(transaction=True)
RESULTS_REGION = re.compile(r'<div id="game" hx-swap-oob="true">\s*<section id="results"')
GAME_OF = re.compile(r'<section id="results"[^>]* data-game="(\d*)"')


@pytest.mark.parametrize("kind", list(EVERY_GAME))
async def test_a_page_back_after_the_end_gets_the_results_in_place_of_the_game(
    kind, host, opponent, third, fake_clock
):
    options, players, running = EVERY_GAME[kind]
    users = (host, opponent, third)[:players]
    table = await database_sync_to_async(ready_table)(kind, options, users)
    p1, p2, *others = await started_sockets(table, users, fake_clock, running)
    await p2.disconnect()  # the opponent's connection drops ...
    for ws in (p1, *others):  # ... and everybody else leaves: the game is over
        await ws.send_json_to({"intent": "forfeit"})
    pushed = await receive_until(p1, 'id="results-title"', timeout=10)
    back = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(opponent))
    arrival = await receive_until(back, 'id="seat-panel"', timeout=10)
    assert RESULTS_REGION.search(arrival)  # the results, whatever the page still showed
    # Of the game they were pushed for at its end: a page that shows them keeps its own.
    games = {GAME_OF.search(html).group(1) for html in (pushed, arrival)}
    assert len(games) == 1 and games != {""}
    assert "Results" in arrival and "hostess" in arrival
    assert 'id="clock"' not in arrival  # no clock of a game that is over
    for ws in (p1, back, *others):
        await ws.disconnect()


async def test_before_any_game_a_page_gets_no_game_region(host, opponent):
    table = await database_sync_to_async(ready_table)("tetriwar", TETRIWAR, (host, opponent))
    ws = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(opponent))
    arrival = await receive_until(ws, 'id="seat-panel"')
    assert 'id="game"' not in arrival  # the page's own "the game will appear here" stays
    await ws.disconnect()


async def test_the_results_come_in_the_page_s_language(host, opponent, fake_clock):
    from tests.live.test_languages import open_socket as open_socket_in

    table = await database_sync_to_async(ready_table)("tetriwar", TETRIWAR, (host, opponent))
    p1, p2 = await started_sockets(table, (host, opponent), fake_clock, "data-remaining-ms")
    await p2.send_json_to({"intent": "forfeit"})
    await receive_until(p1, 'id="results-title"', timeout=10)
    german = await open_socket_in(f"/ws/table/{table.pk}/", accept_language="de")
    arrival = await receive_until(german, 'id="seat-panel"', timeout=10)
    assert RESULTS_REGION.search(arrival) and "Ergebnis" in arrival
    for ws in (p1, p2, german):
        await ws.disconnect()
