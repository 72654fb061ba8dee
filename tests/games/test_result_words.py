"""One set of words for a game's numbers (issue 49, point 8): every game's results call
its own number "Score" (or what it counts), the §6 leaderboard points "Ranking points",
then "Chips" and "Rating" (the new value and its change), and the leaderboard and the
profile use the same words; "Points" alone names nothing any more."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games import services as game_services
from games.ratings import shown_rating
from games.registry import GAMES
from games.replays import last_results
from lobby import services
from tests.contract.test_game_contract import bots_game
from tests.personas import ref

pytestmark = pytest.mark.django_db

# The words that follow a game's own columns at a competitive table, in this order.
AFTER = ["Ranking points", "Chips", "Rating"]
MINUS = "\u2212"


def headings(html: str, table_id: str | None = None) -> list[str]:
    if table_id:
        html = re.search(rf'<table[^>]*id="{table_id}".*?</table>', html, re.S).group(0)
    head = re.search(r"<thead>(.*?)</thead>", html, re.S).group(1)
    return [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<th[^>]*>(.*?)</th>", head, re.S)]


def scored_game(kind: str, *players):
    """A finished competitive game of ``kind`` between accounts (as few as it takes),
    played by bots in their seats and recorded by the services: points, chips and
    ratings written."""
    spec = GAMES[kind]
    players = players[: max(2, spec.min_seats)]
    table = services.table_create(
        player=ref(players[0]), game=kind, options=spec.options_form.defaults(), seats_total=len(players), stake=10
    )
    for number, player in enumerate(players[1:], start=2):
        services.seat_take(table_id=table.pk, player=ref(player), number=number)
    for player in players:
        services.seat_ready(table_id=table.pk, player=ref(player), ready=True)
    services.table_start(table_id=table.pk, player=ref(players[0]))
    game = table.games.get()
    setup = game_services.setup_of(game)
    live = bots_game(spec, seed=5, seats=len(players), setup=setup)
    game_services.game_finish(game_id=game.pk, finished=live.finished_game())
    game.refresh_from_db()
    return table, game


@pytest.mark.parametrize("kind", sorted(GAMES))
def test_every_games_results_use_one_set_of_words_and_show_the_rating(kind, host, opponent, third):
    table, game = scored_game(kind, host, opponent, third)
    assert game.scored
    html = last_results(table.pk)
    words = headings(html)
    own = [heading for heading, _ in GAMES[kind].live.RESULT_COLUMNS]
    assert words == ["Place", "Player", *map(str, own), *AFTER]
    assert "Points" not in words and "Ranking" not in words
    # the game's own number is "Score", or what it counts where that says more
    assert words[2] == {"thirdoption": "Empty squares", "blockkiller": "Garbage sent"}.get(kind, "Score")
    # each player's new rating (the one the leaderboard shows now) and its change, signed
    for player in (host, opponent):
        part = game.participations.get(user=player)
        now = shown_rating(player.pk, kind).value
        assert part.rating_after == now and part.rating_before is not None
        change = part.rating_after - part.rating_before
        sign = "+" if change > 0 else MINUS if change < 0 else ""
        row = re.search(rf'<tr[^>]*data-seats="{part.seat}".*?</tr>', html, re.S).group(0)
        assert f'<span class="rating-after">{now}</span>' in row
        assert f"({sign}{abs(change)})" in row
        points = f"+{part.points}" if part.points > 0 else f"{MINUS}{-part.points}" if part.points < 0 else "0"
        assert f">{points}</td>" in row


def test_a_friendly_game_shows_no_ranking_points_chips_or_rating(host, opponent, make_table):
    table = make_table(ref(host))
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    for player in (host, opponent):
        services.seat_ready(table_id=table.pk, player=ref(player), ready=True)
    services.table_start(table_id=table.pk, player=ref(host))
    game = table.games.get()
    live = bots_game(GAMES["tetriwar"], seed=5, seats=2, setup=game_services.setup_of(game))
    game_services.game_finish(game_id=game.pk, finished=live.finished_game())
    words = headings(last_results(table.pk))
    assert not set(AFTER) & set(words)
    assert game.participations.filter(rating_after__isnull=False).count() == 0


def test_the_leaderboard_and_the_profile_use_the_results_words(client, host, opponent):
    scored_game("viertris", host, opponent)
    board = client.get(reverse("games:leaderboard", args=["viertris"])).content.decode()
    assert "Ranking points" in headings(board, "leaderboard") and "Rating" in headings(board, "leaderboard")
    assert "Points" not in headings(board, "leaderboard")
    profile = client.get(reverse("player", args=[host.username])).content.decode()
    words = headings(profile)
    assert words[words.index("Score"):words.index("Score") + 4] == ["Score", *AFTER]
    part = host.participations.get()
    assert f'<span class="rating-after">{part.rating_after}</span>' in profile
