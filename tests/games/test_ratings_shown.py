"""Where skill ratings are shown (issue 32): the leaderboards (sortable by rating or by
points, points the default), the profile, each seat of a table, and the admin (read only)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games import selectors
from games.core import rating as formula
from games.models import Rating
from games.ratings import ratings_update
from lobby import services
from tests.games.test_leaderboard import play
from tests.personas import guest, ref


def rate(user, *, mu: float, sigma: float = 3.0, games: int = 12, kind: str = "tetriwar") -> Rating:
    return Rating.objects.create(user=user, kind=kind, mu=mu, sigma=sigma, rated_games=games)


@pytest.fixture
def board_of_three(make_table, host, opponent, third):
    """The host leads on points, the third wheel on rating; the opponent is provisional."""
    table = make_table(ref(host), stake=10)
    play(table, (host, 1, 20, 10), (opponent, 2, 5, 0), (third, 3, -10, -10))
    rate(host, mu=20.0)
    rate(opponent, mu=25.0, sigma=6.0, games=3)
    rate(third, mu=30.0)
    return table


def names_in_order(html: str) -> list[str]:
    body = html[html.index('id="leaderboard"') :]
    body = body[: body.index("</tbody>")]
    return re.findall(r'<td class="player"><a href="[^"]+">([^<]+)</a>', body)


def test_the_leaderboard_sorts_by_points_by_default_and_by_rating_when_asked(client, board_of_three):
    url = reverse("games:leaderboard", args=["tetriwar"])
    by_points = client.get(url).content.decode()
    assert names_in_order(by_points) == ["hostess", "opponent", "thirdwheel"]
    by_rating = client.get(url, {"sort": "rating"}).content.decode()
    # estimates: thirdwheel 30 − 9, hostess 20 − 9, opponent 25 − 18
    assert names_in_order(by_rating) == ["thirdwheel", "hostess", "opponent"]
    assert f'href="{url}?period=all&amp;sort=rating" aria-current="true"' in by_rating
    # an unknown sort is the default
    assert names_in_order(client.get(url, {"sort": "nonsense"}).content.decode()) == names_in_order(by_points)


def test_the_leaderboard_shows_each_rating_and_marks_the_provisional_one(client, board_of_three):
    html = client.get(reverse("games:leaderboard", args=["tetriwar"])).content.decode()
    rows = {m.group(1): m.group(0) for m in re.finditer(r'<a href="[^"]+">([^<]+)</a>.*?</tr>', html, re.S)}
    shown_host = formula.shown(20.0, 3.0)
    assert f'<span class="rating">{shown_host}</span>' in rows["hostess"]
    assert 'class="rating provisional"' in rows["opponent"] and "provisional-mark" in rows["opponent"]
    assert "Provisional: 3 rated games so far" in rows["opponent"]


def test_the_rows_carry_the_rating_and_the_sort_changes_positions(board_of_three, host, third):
    rows = selectors.leaderboard("tetriwar", "all", sort="rating")
    assert [r.position for r in rows] == [1, 2, 3]
    assert rows[0].user_id == third.pk and rows[0].rating.value == formula.shown(30.0, 3.0)
    assert not rows[0].rating.provisional
    own = selectors.leaderboard_row("tetriwar", "all", user_id=host.pk, sort="rating")
    assert own.position == 2 and own.rating.value == formula.shown(20.0, 3.0)
    assert selectors.leaderboard_row("tetriwar", "all", user_id=host.pk).position == 1


def test_a_player_rated_by_no_game_sorts_last_by_rating(make_table, host, opponent):
    table = make_table(ref(host), stake=10)
    play(table, (host, 1, 10, 10), (opponent, 2, -5, -10))  # a game from before ratings
    rate(opponent, mu=15.0)
    rows = selectors.leaderboard("tetriwar", "all", sort="rating")
    assert [(r.user_id, r.rating is None) for r in rows] == [(opponent.pk, False), (host.pk, True)]
    assert selectors.leaderboard_row("tetriwar", "all", user_id=host.pk, sort="rating").position == 2


def test_the_profile_shows_a_rating_per_game(client, host, opponent):
    rate(host, mu=30.0, sigma=3.0, games=12)
    rate(host, mu=25.0, sigma=7.0, games=2, kind="viertris")
    client.force_login(opponent)
    html = client.get(reverse("player", args=[host.username])).content.decode()
    section = html[html.index('id="player-ratings"') :]
    section = section[: section.index("</dl>")]
    tetriwar = section[section.index('data-game="tetriwar"') : section.index('data-game="viertris"')]
    assert f'<span class="rating">{formula.shown(30.0, 3.0)}</span>' in tetriwar and "from 12 rated games" in tetriwar
    viertris = section[section.index('data-game="viertris"') :]
    assert "rating provisional" in viertris and "from 2 rated games" in viertris


def test_a_profile_without_ratings_says_so(client, host):
    client.force_login(host)
    html = client.get(reverse("profile")).content.decode()
    assert "Not rated yet" in html


def test_the_seat_panel_shows_players_ratings_and_none_for_guests_and_bots(client, host, opponent, make_table):
    table = make_table(ref(host), seats=4)
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    services.seat_take(table_id=table.pk, player=guest(), number=3)
    services.bot_add(table_id=table.pk, player=ref(host), number=4, level="easy")
    ratings_update(kind="tetriwar", sides=[(1, [host.pk]), (2, [opponent.pk])])
    client.force_login(host)
    html = client.get(reverse("lobby:table", args=[table.pk])).content.decode()
    seats = {
        n: html[html.index(f'id="seat-{n}"') : html.index("</li>", html.index(f'id="seat-{n}"'))]
        for n in range(1, 5)
    }
    host_rating = Rating.objects.get(user=host)
    assert f">{formula.shown(host_rating.mu, host_rating.sigma)}<" in seats[1]
    assert "seat-rating" in seats[1] and "rating provisional" in seats[1]
    assert "seat-rating" in seats[2]
    assert "seat-rating" not in seats[3] and "seat-rating" not in seats[4]


def test_ratings_are_read_only_in_the_admin(client, admin_user, host):
    rating = rate(host, mu=27.0)
    client.force_login(admin_user)
    listing = client.get(reverse("admin:games_rating_changelist")).content.decode()
    assert "hostess" in listing and str(formula.shown(27.0, 3.0)) in listing
    change = client.get(reverse("admin:games_rating_change", args=[rating.pk])).content.decode()
    assert 'name="mu"' not in change
    response = client.post(
        reverse("admin:games_rating_change", args=[rating.pk]), {"mu": 50, "sigma": 1, "rated_games": 99}
    )
    assert response.status_code == 403
    rating.refresh_from_db()
    assert rating.mu == 27.0
    assert client.get(reverse("admin:games_rating_add")).status_code == 403
