"""A player whose page goes (issue 30, point 6): the others, players and spectators, are
told at once who lost the connection and how long they have to come back, in their own
language; a page that connects later is told too; the line goes when the player comes
back, and when their time runs out the game's own leave takes over. The same for every
game: the host sends it (games/reconnect.py)."""

from __future__ import annotations

import re

import pytest
from channels.db import database_sync_to_async

from games.registry import GAMES
from tests.live.conftest import cookie_for, open_socket, ready_table, receive_until, started_sockets, tick
from tests.live.test_blockkiller_table import OPTIONS as BLOCKKILLER
from tests.live.test_languages import open_socket as open_socket_in
from tests.live.test_tetriwar_table import OPTIONS as TETRIWAR
from tests.live.test_tetrix_table import OPTIONS as TETRIX
from tests.live.test_thirdoption_table import OPTIONS as THIRDOPTION
from tests.live.test_viertris_table import OPTIONS as VIERTRIS
from tests.live.test_viertris_table import viertris_table

pytestmark = pytest.mark.django_db(transaction=True)
AWAY = r'class="reconnect-seat"'  # a message that shows a seat away
NOBODY_AWAY = r'<div id="reconnect"[^>]*></div>'  # one whose region of the seats away is empty
# Every game, its players (Block-Killer needs three), and what shows that it runs.
EVERY_GAME = {
    "tetriwar": (TETRIWAR, 2, "data-remaining-ms"),
    "viertris": (VIERTRIS, 2, "to move"),
    "thirdoption": (THIRDOPTION, 2, "Round 1"),
    "blockkiller": (BLOCKKILLER, 3, 'id="bk-turn"'),
    "tetrix": (TETRIX, 2, 'data-round="1"'),
}


def away_lines(html: str) -> list[str]:
    """The lines of the seats away in a message's #reconnect region (None: no region)."""
    region = re.search(r'<div id="reconnect"[^>]*>(.*?)</div>', html, re.S)
    assert region, html
    return re.findall(r'<p class="reconnect-seat".*?</p>', region.group(1), re.S)


async def test_a_drop_is_announced_with_the_seconds_left_and_cleared_on_return(
    host, opponent, outsider, fake_clock
):
    table = await database_sync_to_async(viertris_table)(host, opponent)
    p1, p2, spectator = await started_sockets(table, (host, opponent, outsider), fake_clock, "to move")

    await p2.disconnect()
    for ws in (p1, spectator):
        [line] = away_lines(await receive_until(ws, AWAY))
        assert 'data-seat="2"' in line and 'data-back-ms="30000"' in line
        assert 'opponent lost the connection — <span class="reconnect-secs">30</span> s to come back' in line

    # Ten seconds on, a page that asks for the whole game is told the twenty left.
    fake_clock.t += 10
    await spectator.send_json_to({"intent": "resync"})
    full = await receive_until(spectator, 'id="game"')
    [line] = away_lines(full)
    assert 'data-back-ms="20000"' in line and ">20</span> s to come back" in line

    # The player comes back: the line goes, for everyone.
    again = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(opponent))
    for ws in (p1, spectator):
        assert away_lines(await receive_until(ws, NOBODY_AWAY)) == []
    assert away_lines(await receive_until(again, 'id="game"')) == []
    await again.disconnect()


async def test_a_page_that_connects_while_a_player_is_away_sees_it(
    host, opponent, outsider, third, fake_clock
):
    table = await database_sync_to_async(viertris_table)(host, opponent)
    p1, p2, spectator = await started_sockets(table, (host, opponent, outsider), fake_clock, "to move")
    await p2.disconnect()
    await receive_until(p1, AWAY)
    fake_clock.t += 4.5
    late = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(third))
    [line] = away_lines(await receive_until(late, 'id="game"'))
    assert 'data-back-ms="25500"' in line and ">26</span> s to come back" in line
    await late.disconnect()


async def test_when_the_time_runs_out_the_line_goes_and_the_game_s_leave_takes_over(
    host, opponent, outsider, fake_clock
):
    table = await database_sync_to_async(viertris_table)(host, opponent)
    p1, p2, spectator = await started_sockets(table, (host, opponent, outsider), fake_clock, "to move")
    await p2.disconnect()
    await receive_until(spectator, AWAY)
    fake_clock.t += 30.01
    await tick(table.pk)
    gone = await receive_until(spectator, NOBODY_AWAY)
    assert away_lines(gone) == []
    assert "opponent (left)" in await receive_until(spectator, 'id="results-title"')


async def test_a_drop_is_said_in_each_reader_s_language(host, opponent, outsider, fake_clock):
    table = await database_sync_to_async(viertris_table)(host, opponent)
    p1, p2, spectator = await started_sockets(table, (host, opponent), fake_clock, "to move") + [None]
    german = await open_socket_in(f"/ws/table/{table.pk}/", accept_language="de")
    await receive_until(german, 'id="game"')
    await p2.disconnect()
    assert "opponent lost the connection" in away_lines(await receive_until(p1, AWAY))[0]
    [line] = away_lines(await receive_until(german, AWAY))
    assert "opponent hat die Verbindung verloren" in line and 'data-mark="Verbindung verloren"' in line
    await german.disconnect()


def test_the_check_covers_every_game():
    assert set(EVERY_GAME) == set(GAMES)


@pytest.mark.parametrize("kind", list(EVERY_GAME))
async def test_every_game_announces_a_drop_and_its_end(kind, host, opponent, third, fake_clock):
    options, players, running = EVERY_GAME[kind]
    users = (host, opponent, third)[:players]
    table = await database_sync_to_async(ready_table)(kind, options, users)
    p1, p2, *_ = await started_sockets(table, users, fake_clock, running)
    await p2.disconnect()
    # (A loaded machine: the page's close passes through the database before the host hears it.)
    [line] = away_lines(await receive_until(p1, AWAY, timeout=10))
    assert 'data-seat="2"' in line and "opponent lost the connection" in line
    again = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(opponent))
    assert away_lines(await receive_until(p1, NOBODY_AWAY, timeout=10)) == []
    await again.disconnect()
