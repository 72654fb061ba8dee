"""A page opened after a game (a reload, Back, a second tab, a spectator coming in)
shows the results its players saw at the end, from what the game recorded: not a
spinner saying that the game will appear when the host starts it."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games import services as game_services
from games.core.outcome import Outcome, Standing, Termination
from games.live import FinishedGame
from games.models import Game, GameLog
from games.replays import last_results
from lobby import services
from lobby.models import Table
from tests.personas import ref

pytestmark = pytest.mark.django_db


def finished(scores: dict[int, int], termination=Termination.TIME) -> FinishedGame:
    """A game's end as the engine gives it: seat -> score, the best first."""
    order = sorted(scores, key=lambda seat: -scores[seat])
    standings = tuple(
        Standing(place=place, seats=(seat,), score=scores[seat], lines=seat * 7, eliminations=0)
        for place, seat in enumerate(order, start=1)
    )
    players = {seat: {"score": scores[seat], "lines": seat * 7, "eliminations": 0} for seat in scores}
    return FinishedGame(Outcome(termination, standings), players, [[0.5, 1, "left"]], 180.0)


@pytest.fixture
def table(host, opponent, make_table):
    table = make_table(ref(host))
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    for player in (host, opponent):
        services.seat_ready(table_id=table.pk, player=ref(player), ready=True)
    return table


def start(table, host) -> Game:
    services.table_start(table_id=table.pk, player=ref(host))
    return Game.objects.get(table=table, status=Game.Status.RUNNING)


def page(client, table) -> str:
    return client.get(reverse("lobby:table", args=[table.pk])).content.decode()


def results_panel(html: str) -> str:
    found = re.search(r'<section id="results".*?</section>', html, re.S)
    assert found, "no results panel in the page"
    return found.group(0)


@pytest.mark.parametrize("who", ["host", "opponent", "outsider", None])
def test_a_page_opened_after_the_game_shows_its_results(client, table, host, opponent, outsider, who):
    game = start(table, host)
    game_services.game_finish(game_id=game.pk, finished=finished({1: 1234, 2: 4321}))
    viewer = {"host": host, "opponent": opponent, "outsider": outsider, None: None}[who]
    if viewer is not None:
        client.force_login(viewer)
    panel = results_panel(page(client, table))
    assert "Results" in panel
    # the rows in the order of the places, with the game's own numbers and names
    first, second = panel.index(opponent.username), panel.index(host.username)
    assert first < second
    assert "4321" in panel and "1234" in panel
    assert "14" in panel  # seat 2's lines
    assert reverse("games:replay", args=[game.pk]) in panel
    assert "hx-swap-oob" not in panel  # part of the page, not a push
    html = page(client, table)
    assert 'id="clock"' not in html  # no stray clock of a game no longer shown
    assert "The game will appear here" not in html and 'class="spinner"' not in html  # nothing loads


def test_the_results_are_those_recorded_not_played_again(table, host):
    game = start(table, host)
    game_services.game_finish(game_id=game.pk, finished=finished({1: 50, 2: 60}))
    # Whatever the log holds, the recorded outcome is what the players were shown.
    GameLog.objects.filter(game=game).update(data=b"", entries=[])
    panel = results_panel(last_results(table.pk))
    assert panel.index(">60<") < panel.index(">50<")


def test_an_aborted_game_shows_why(client, table, host):
    game = start(table, host)
    game_services.game_abort(game_id=game.pk, reason="The game server hit an error; the game was aborted and stakes returned.")
    client.force_login(host)
    panel = results_panel(page(client, table))
    assert "Game aborted" in panel
    assert "stakes returned" in panel
    assert f'data-game="{game.pk}"' in panel  # as pushed at the abort: the page keeps its own


def test_no_results_before_the_first_game_or_while_one_runs(client, table, host):
    client.force_login(host)
    assert 'id="results"' not in page(client, table)
    assert last_results(table.pk) == ""
    start(table, host)
    assert last_results(table.pk) == ""  # a running game's page shows the game, not a panel
    assert 'id="results"' not in page(client, table)


def test_the_results_of_the_last_game_not_an_earlier_one(table, host, opponent):
    game = start(table, host)
    game_services.game_finish(game_id=game.pk, finished=finished({1: 111, 2: 222}))
    for player in (host, opponent):
        services.table_rematch(table_id=table.pk, player=ref(player))
    rematch = Game.objects.get(table=table, status=Game.Status.RUNNING)
    game_services.game_finish(game_id=rematch.pk, finished=finished({1: 999, 2: 888}))
    panel = results_panel(last_results(table.pk))
    assert "999" in panel and "111" not in panel


def test_the_results_read_in_the_viewers_language(client, table, host):
    game = start(table, host)
    game_services.game_finish(game_id=game.pk, finished=finished({1: 1, 2: 2}))
    panel = results_panel(client.get(reverse("lobby:table", args=[table.pk]), HTTP_ACCEPT_LANGUAGE="es").content.decode())
    assert "Resultados" in panel


def test_a_table_closed_after_its_game_shows_both(client, table, host):
    game = start(table, host)
    game_services.game_finish(game_id=game.pk, finished=finished({1: 7, 2: 8}))
    Table.objects.filter(pk=table.pk).update(status=Table.Status.CLOSED)
    html = page(client, table)
    assert "Results" in results_panel(html)
    assert "This table is closed: no more games here." in html


@pytest.mark.parametrize("damage", ["summary", "options"])
def test_a_record_that_cannot_be_shown_leaves_the_page_as_before_the_game(client, table, host, damage):
    """A record without its outcome, or played with options this server no longer
    takes: the page opens all the same, with no results (and says so in the log)."""
    game = start(table, host)
    game_services.game_finish(game_id=game.pk, finished=finished({1: 3, 2: 4}))
    if damage == "summary":
        GameLog.objects.filter(game=game).update(summary={})
    else:
        Game.objects.filter(pk=game.pk).update(options={"minutes": -5})
    response = client.get(reverse("lobby:table", args=[table.pk]))
    assert response.status_code == 200
    assert 'id="results"' not in response.content.decode()
    assert "The game will appear here when the host starts it." in response.content.decode()
