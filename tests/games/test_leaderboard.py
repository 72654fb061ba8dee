"""The leaderboards (RULES.md §6: per game, over all time and this month), the
navbar link to them, and the totals on a player's profile."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games import selectors
from games.models import Game, Participation
from games.selectors import player_totals
from tests.personas import ref


@pytest.fixture
def table(make_table, host):
    return make_table(ref(host), stake=10)


def play(
    table, *results, scored=True, status=Game.Status.FINISHED, ended_at=None, kind="tetriwar", reason=""
) -> Game:
    """A game as games.services leaves it: ``results`` are (user, place, points, chips)."""
    game = Game.objects.create(
        table=table,
        kind=kind,
        seed=7,
        stake=10,
        pot=10 * len(results),
        status=status,
        scored=scored,
        unscored_reason=reason,
        ended_at=ended_at or timezone.now(),
    )
    Participation.objects.bulk_create(
        Participation(
            game=game,
            seat=seat,
            user=user,
            name=user.username if user else "a guest",
            is_guest=user is None,
            place=place,
            points=points,
            chips_delta=chips,
        )
        for seat, (user, place, points, chips) in enumerate(results, start=1)
    )
    return game


def board(client, game: str = "tetriwar", **params) -> str:
    response = client.get(reverse("games:leaderboard", args=[game]), params)
    assert response.status_code == 200
    return response.content.decode()


def test_the_leaderboard_sums_points_and_counts_games_and_wins(db, table, host, opponent):
    play(table, (host, 1, 10, 10), (opponent, 2, -5, -10))
    play(table, (opponent, 1, 10, 10), (host, 2, -5, -10))
    play(table, (host, 1, 10, 10), (opponent, 2, -5, -10))

    rows = selectors.leaderboard("tetriwar", "all")

    assert [(r.position, r.username, r.points, r.games, r.wins) for r in rows] == [
        (1, "hostess", 15, 3, 2),
        (2, "opponent", 0, 3, 1),
    ]


def test_only_finished_scored_games_of_the_game_count(db, table, host, opponent, third):
    play(table, (host, 1, 10, 10), (opponent, 2, -5, -10))
    play(
        table,
        (host, 2, 0, 0),
        (opponent, 1, 0, 0),
        scored=False,
        reason="A friendly game: no points or chips.",
    )
    play(table, (host, 2, -5, 0), (opponent, 1, 10, 0), status=Game.Status.ABORTED, scored=False)
    play(table, (host, None, 0, 0), (third, None, 0, 0), status=Game.Status.RUNNING, scored=False)
    play(table, (opponent, 1, 10, 0), (third, 2, -5, 0), kind="viertris")
    play(table, (None, 1, 10, 0), (third, 2, -5, 0))  # a guest seat is not on the board

    rows = selectors.leaderboard("tetriwar", "all")

    assert [(r.position, r.username, r.points, r.games, r.wins) for r in rows] == [
        (1, "hostess", 10, 1, 1),
        (2, "opponent", -5, 1, 0),
        (2, "thirdwheel", -5, 1, 0),
    ]


def test_the_month_board_leaves_out_last_months_games(client, table, host, opponent):
    last_month = selectors.month_start() - dt.timedelta(days=1)
    play(table, (host, 1, 10, 10), (opponent, 2, -5, -10), ended_at=last_month)
    play(table, (opponent, 1, 10, 10), (host, 2, -5, -10))

    month = selectors.leaderboard("tetriwar", "month")
    assert [(r.username, r.points, r.games) for r in month] == [("opponent", 10, 1), ("hostess", -5, 1)]
    assert [(r.username, r.points) for r in selectors.leaderboard("tetriwar", "all")] == [
        ("hostess", 5),
        ("opponent", 5),
    ]
    html = board(client, period="month")
    assert html.index(">opponent<") < html.index(">hostess<")


def test_the_month_starts_on_the_first_at_midnight_utc():
    late = dt.datetime(2025, 3, 31, 23, 30, tzinfo=dt.timezone(dt.timedelta(hours=-5)))  # April 1st in UTC
    assert selectors.month_start(late) == dt.datetime(2025, 4, 1, tzinfo=dt.UTC)


def test_equal_points_wins_and_games_share_a_position(db, table, make_user, host, opponent, third):
    fourth = make_user("fourth")
    # host and opponent: 10 points, 1 win, 2 games each; third: 10 points, 1 win, 3 games;
    # fourth: 10 points and 2 wins, so first.
    play(table, (host, 1, 10, 0), (fourth, 2, 0, 0))
    play(table, (host, 2, 0, 0), (opponent, 1, 10, 0))
    play(table, (opponent, 2, 0, 0), (third, 1, 15, 0))
    play(table, (third, 2, -5, 0), (fourth, 1, 5, 0))
    play(table, (third, 3, 0, 0), (fourth, 1, 5, 0))

    rows = selectors.leaderboard("tetriwar", "all")

    assert [(r.position, r.username, r.points, r.wins, r.games) for r in rows] == [
        (1, "fourth", 10, 2, 3),
        (2, "hostess", 10, 1, 2),
        (2, "opponent", 10, 1, 2),
        (4, "thirdwheel", 10, 1, 3),
    ]


def test_the_signed_in_players_row_is_highlighted_and_links_to_profiles(client, table, host, opponent):
    play(table, (host, 1, 10, 10), (opponent, 2, -5, -10))
    client.force_login(opponent)

    html = board(client)

    assert html.count('class="me"') == 1
    me = html[html.index('class="me"') :]
    assert me.index("opponent") < me.index("</tr>")
    assert f'href="{reverse("player", args=["hostess"])}"' in html
    assert 'class="own-row"' not in html  # already in the top rows


def test_a_player_outside_the_top_100_sees_their_row_below_a_separator(client, table, outsider):
    crowd = User.objects.bulk_create(User(username=f"player{n:03d}") for n in range(100))
    big = play(table)  # one game with a hundred seats keeps the setup quick
    Participation.objects.bulk_create(
        Participation(game=big, seat=n + 1, user=user, name=user.username, place=n + 1, points=200 - n)
        for n, user in enumerate(crowd)
    )
    play(table, (outsider, 2, -5, -10), (crowd[0], 1, 10, 10))
    client.force_login(outsider)

    html = board(client)

    body = html[html.index("<tbody>") : html.index('<tbody class="own-row">')]
    assert body.count("<tr") == 100 and "outsider" not in body
    own = html[html.index('<tbody class="own-row">') :]
    assert 'class="gap"' in own and 'class="me"' in own and ">outsider<" in own
    assert '<td class="num position">101</td>' in own
    assert selectors.leaderboard_row("tetriwar", "all", user_id=outsider.pk).position == 101


def test_a_player_without_scored_games_sees_no_row_of_their_own(client, table, host, opponent, outsider):
    play(table, (host, 1, 10, 10), (opponent, 2, -5, -10))
    client.force_login(outsider)
    html = board(client)
    assert 'class="me"' not in html and 'class="own-row"' not in html


def test_an_empty_board_says_so(client, db):
    html = board(client)
    assert "No scored TetriWar games yet" in html
    assert 'id="leaderboard"' not in html


def test_an_unknown_game_is_not_found(client, db):
    assert client.get(reverse("games:leaderboard", args=["chess"])).status_code == 404


def test_the_period_tabs_mark_the_current_one_and_a_bad_period_means_all_time(client, table, host, opponent):
    play(
        table,
        (host, 1, 10, 10),
        (opponent, 2, -5, -10),
        ended_at=selectors.month_start() - dt.timedelta(days=3),
    )
    url = reverse("games:leaderboard", args=["tetriwar"])

    month = board(client, period="month")
    assert f'href="{url}?period=month" aria-current="true"' in month
    assert f'href="{url}?period=all" >' in month
    assert "No scored TetriWar games this month" in month

    bogus = board(client, period="yesterday")
    assert f'href="{url}?period=all" aria-current="true"' in bogus
    assert ">hostess<" in bogus
    # The game tabs keep the period.
    assert f'href="{url}?period=month" aria-current="true">TetriWar</a>' in month


def test_the_leaderboard_index_opens_the_first_games_board(client, db):
    response = client.get(reverse("games:leaderboard_index"))
    assert response.status_code == 302
    assert response.url == reverse("games:leaderboard", args=["tetriwar"])


def test_the_leaderboard_refuses_a_post(client, db):
    assert client.post(reverse("games:leaderboard", args=["tetriwar"])).status_code == 405


def test_the_navbar_links_the_leaderboard_on_the_home_page(client, db):
    html = client.get(reverse("home")).content.decode()
    nav = html[html.index('<ul class="nav-links">') : html.index("</ul>")]
    assert (
        nav.index("Lobby")
        < nav.index(f'href="{reverse("games:leaderboard_index")}"')
        < nav.index("How to play")
    )


def test_the_navbar_marks_the_leaderboard_as_the_current_page(client, db):
    html = board(client)
    nav = html[html.index('<ul class="nav-links">') : html.index("</ul>")]
    assert 'aria-current="page">Leaderboard' in nav
    assert 'aria-current="page">How to play' not in nav


def test_the_profile_shows_totals_and_why_a_game_was_not_scored(client, table, host, opponent):
    play(table, (host, 1, 10, 20), (opponent, 2, -5, -10))
    play(table, (host, 2, -5, -10), (opponent, 1, 10, 20))
    play(table, (host, 1, 20, 20), (opponent, 2, -5, -10))
    play(
        table,
        (host, 1, 0, 0),
        (opponent, 2, 0, 0),
        scored=False,
        reason="Two players share an IP address: this game is not scored and stakes were returned.",
    )

    assert player_totals(host) == {"games": 4, "wins": 3, "scored_games": 3, "points": 25, "chips": 30}
    client.force_login(host)
    html = client.get(reverse("profile")).content.decode()

    totals = _totals_html(html)
    assert "<dd>4</dd>" in totals and "<dd>3</dd>" in totals
    assert ">25</dd>" in totals and ">+30</dd>" in totals
    assert "from 3 scored games" in totals
    assert html.index('id="player-totals"') < html.index('<table class="data">')
    assert "Two players share an IP address" in html


def test_a_new_players_totals_are_zero(client, host):
    client.force_login(host)
    html = client.get(reverse("profile")).content.decode()
    assert player_totals(host) == {"games": 0, "wins": 0, "scored_games": 0, "points": 0, "chips": 0}
    assert 'id="player-totals"' in html and "No games yet" in html


def test_another_players_profile_shows_their_totals(client, table, host, opponent):
    play(table, (host, 1, 10, 10), (opponent, 2, -5, -10))
    client.force_login(host)
    html = client.get(reverse("player", args=["opponent"])).content.decode()
    totals = _totals_html(html)
    assert ">-5</dd>" in totals and ">-10</dd>" in totals


def _totals_html(html: str) -> str:
    start = html.index('id="player-totals"')
    return html[start : html.index("</dl>", start)]


def test_the_latest_games_mark_an_unscored_game_and_its_returned_stake(client, table, host, opponent):
    from games.services import SAME_IP_REASON

    play(table, (host, 1, 10, 10), (opponent, 2, -5, -10))
    play(table, (host, 1, 0, 0), (opponent, 2, 0, 0), scored=False, reason=SAME_IP_REASON)
    rows = re.findall(r"<tr>\s*<td class=\"muted small\">.*?</tr>", board(client), re.S)
    assert len(rows) == 2
    unscored, scored = rows  # newest first
    assert "10, returned" in unscored and SAME_IP_REASON in unscored and 'class="muted unscored"' in unscored
    assert "unscored" not in scored and "<td>10</td>" in scored
