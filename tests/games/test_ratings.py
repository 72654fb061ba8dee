"""Skill ratings per game (issue 32): written by games.services.game_finish beside the
RULES.md §6 points, for scored games only, by the real places of every side."""

from __future__ import annotations

import pytest

from games import ratings
from games import services as game_services
from games.core import rating as formula
from games.core.outcome import Outcome, Standing, Termination
from games.live import FinishedGame
from games.models import Game, Participation, Rating
from games.registry import get_game
from lobby import services
from tests.personas import TETRIWAR_OPTIONS, ref


def seat_all(users, *, stake=10, game="tetriwar", options=None, ips=None):
    """A table of ``game`` with ``users`` seated in order, all ready, started."""
    ips = ips or [None] * len(users)
    if options is None:
        options = dict(TETRIWAR_OPTIONS) if game == "tetriwar" else get_game(game).options_form.defaults()
    table = services.table_create(
        player=ref(users[0]), game=game, options=options, seats_total=len(users), stake=stake, ip=ips[0]
    )
    for n, user in enumerate(users[1:], start=2):
        services.seat_take(table_id=table.pk, player=ref(user), number=n, ip=ips[n - 1])
    for user in users:
        services.seat_ready(table_id=table.pk, player=ref(user), ready=True)
    services.table_start(table_id=table.pk, player=ref(users[0]))
    return Game.objects.get(table=table)


def finished(sides: list[tuple[tuple[int, ...], int]], *, forfeits=()) -> FinishedGame:
    """The end of a game: ``sides`` as (seats, place), best first."""
    standings = tuple(
        Standing(
            place=place,
            seats=seats,
            score=0,
            shared=sum(1 for _, p in sides if p == place) > 1,
            forfeited=any(s in forfeits for s in seats),
            left=tuple(s for s in seats if s in forfeits),
        )
        for seats, place in sorted(sides, key=lambda side: side[1])
    )
    players = {seat: {"score": 0, "lines": 0, "eliminations": 0} for seats, _ in sides for seat in seats}
    termination = Termination.FORFEIT if forfeits else Termination.TIME
    return FinishedGame(Outcome(termination, standings), players, [[0.5, 1, "left"]], 60.0)


def rating(user, kind="tetriwar") -> Rating:
    return Rating.objects.get(user=user, kind=kind)


@pytest.fixture
def players(make_user):
    def make(n: int):
        return [make_user(f"player{i}") for i in range(1, n + 1)]

    return make


def test_a_two_player_game_rates_the_winner_up_and_the_loser_down(host, opponent):
    game = seat_all([host, opponent])
    game_services.game_finish(game_id=game.pk, finished=finished([((1,), 2), ((2,), 1)]))
    winner, loser = rating(opponent), rating(host)
    assert winner.mu > formula.DEFAULT_MU > loser.mu
    assert winner.sigma < formula.DEFAULT_SIGMA and loser.sigma < formula.DEFAULT_SIGMA
    assert (winner.rated_games, loser.rated_games) == (1, 1)
    assert ratings.shown_rating(opponent.pk, "tetriwar").value > ratings.shown_rating(host.pk, "tetriwar").value
    # the points of RULES.md §6 are as they were
    points = dict(Participation.objects.filter(game=game).values_list("seat", "points"))
    assert points == {1: -5, 2: 10}


def test_a_three_player_game_rates_by_place(players):
    users = players(3)
    game = seat_all(users)
    game_services.game_finish(game_id=game.pk, finished=finished([((1,), 3), ((2,), 1), ((3,), 2)]))
    first, second, third = rating(users[1]), rating(users[2]), rating(users[0])
    assert first.mu > second.mu > third.mu
    assert first.mu > formula.DEFAULT_MU > third.mu


def test_a_twelve_player_third_option_game_rates_every_place_in_order(players):
    users = players(12)
    game = seat_all(users, game="thirdoption")
    # seat n finishes at place 13 − n: seat 12 wins
    game_services.game_finish(game_id=game.pk, finished=finished([((n,), 13 - n) for n in range(1, 13)]))
    mus = [rating(u, "thirdoption").mu for u in reversed(users)]  # best first
    assert mus == sorted(mus, reverse=True) and len(set(mus)) == 12
    assert not Rating.objects.filter(kind="tetriwar").exists()  # per game kind
    assert all(r.rated_games == 1 for r in Rating.objects.all())


def test_tetriwar_pairs_are_rated_as_teams(players):
    users = players(4)
    game = seat_all(users, options={**TETRIWAR_OPTIONS, "pairs": True})
    game_services.game_finish(game_id=game.pk, finished=finished([((1, 2), 2), ((3, 4), 1)]))
    won = [rating(users[2]), rating(users[3])]
    lost = [rating(users[0]), rating(users[1])]
    # partners of equal rating move together
    assert won[0].mu == pytest.approx(won[1].mu) and lost[0].mu == pytest.approx(lost[1].mu)
    assert won[0].mu > formula.DEFAULT_MU > lost[0].mu


def test_a_shared_place_moves_the_tied_players_alike(players):
    users = players(3)
    game = seat_all(users)
    game_services.game_finish(game_id=game.pk, finished=finished([((1,), 1), ((2,), 1), ((3,), 3)]))
    a, b, c = (rating(u) for u in users)
    assert a.mu == pytest.approx(b.mu) and a.mu > c.mu


def test_a_tie_between_two_leaves_equal_players_where_they_were(host, opponent):
    game = seat_all([host, opponent])
    game_services.game_finish(game_id=game.pk, finished=finished([((1,), 1), ((2,), 1)]))
    assert rating(host).mu == pytest.approx(formula.DEFAULT_MU)
    assert rating(host).sigma < formula.DEFAULT_SIGMA  # but the game taught something


def test_a_forfeit_ranks_by_its_recorded_place(players):
    users = players(3)
    game = seat_all(users)
    game_services.game_finish(
        game_id=game.pk, finished=finished([((1,), 3), ((2,), 1), ((3,), 2)], forfeits=(1,))
    )
    assert Participation.objects.get(game=game, seat=1).place == 3
    assert rating(users[0]).mu < rating(users[2]).mu < rating(users[1]).mu


def test_a_bot_game_is_not_rated(host):
    table = services.table_create(
        player=ref(host), game="tetriwar", options=dict(TETRIWAR_OPTIONS), seats_total=2, stake=0
    )
    services.bot_add(table_id=table.pk, player=ref(host), number=2, level=get_game("tetriwar").bot_levels[0])
    services.seat_ready(table_id=table.pk, player=ref(host), ready=True)
    services.table_start(table_id=table.pk, player=ref(host))
    game = Game.objects.get(table=table)
    done = game_services.game_finish(game_id=game.pk, finished=finished([((1,), 1), ((2,), 2)]))
    assert not done.scored
    assert not Rating.objects.exists()
    assert ratings.shown_rating(host.pk, "tetriwar") is None


def test_a_friendly_game_is_not_rated(host, opponent):
    game = seat_all([host, opponent], stake=0)
    game_services.game_finish(game_id=game.pk, finished=finished([((1,), 1), ((2,), 2)]))
    assert not Rating.objects.exists()


def test_a_same_address_game_is_not_rated(host, opponent):
    game = seat_all([host, opponent], ips=["10.0.0.7", "10.0.0.7"])
    done = game_services.game_finish(game_id=game.pk, finished=finished([((1,), 1), ((2,), 2)]))
    assert not done.scored
    assert not Rating.objects.exists()


def test_the_rating_is_written_in_the_points_transaction(host, opponent, monkeypatch):
    game = seat_all([host, opponent])

    def broken(_finished):
        raise RuntimeError("the disk is full")

    # packed_log runs after the points and the ratings, in the same transaction
    monkeypatch.setattr(game_services, "packed_log", broken)
    with pytest.raises(RuntimeError):
        game_services.game_finish(game_id=game.pk, finished=finished([((1,), 1), ((2,), 2)]))
    assert not Rating.objects.exists()
    assert set(Participation.objects.filter(game=game).values_list("points", flat=True)) == {0}
    assert Game.objects.get(pk=game.pk).status == "running"


def test_provisional_until_the_tenth_rated_game(host, opponent):
    for n in range(1, 11):
        ratings.ratings_update(kind="viertris", sides=[(1, [host.pk]), (2, [opponent.pk])])
        shown = ratings.shown_rating(host.pk, "viertris")
        assert shown.rated_games == n
        assert shown.provisional == (n < 10)


def test_matching_rating_is_mu_or_the_default(host, opponent):
    assert ratings.matching_rating(None, "tetriwar") == formula.DEFAULT_MU  # a guest
    assert ratings.matching_rating(host.pk, "tetriwar") == formula.DEFAULT_MU  # not yet rated
    ratings.ratings_update(kind="tetriwar", sides=[(1, [host.pk]), (2, [opponent.pk])])
    assert ratings.matching_rating(host.pk, "tetriwar") == rating(host).mu > formula.DEFAULT_MU
    assert ratings.matching_rating(host.pk, "viertris") == formula.DEFAULT_MU


def test_a_guest_side_plays_as_a_new_player_and_keeps_no_rating(host):
    ratings.ratings_update(kind="tetriwar", sides=[(1, [host.pk]), (2, [None])])
    assert list(Rating.objects.values_list("user_id", flat=True)) == [host.pk]
    assert ratings.shown_rating(None, "tetriwar") is None


def test_the_shown_number_is_the_conservative_estimate_scaled():
    assert formula.shown(formula.DEFAULT_MU, formula.DEFAULT_SIGMA) == 850  # a new player
    assert formula.shown(25.0, 2.8) == 1514  # an average player, once sure
    assert formula.shown(26.0, 2.8) - formula.shown(25.0, 2.8) == 40  # a point of mu
    assert formula.shown(0.0, 8.0) == 0  # never below zero
