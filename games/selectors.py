"""Reads about games: the leaderboards (RULES.md §6, "per game, over all time and
over the current month")."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, F, OuterRef, Q, QuerySet, Subquery, Sum, Window
from django.db.models.functions import Rank
from django.utils import timezone
from django.utils.translation import gettext_lazy

from accounts.models import User
from games.core.rating import SHOWN_Z
from games.models import Game, Participation, Rating
from games.ratings import ShownRating, shown_of, shown_ratings
from games.registry import GAMES

# The leaderboard's periods, in tab order, with their labels.
PERIODS: dict[str, Any] = {"all": gettext_lazy("All time"), "month": gettext_lazy("This month")}
# What a leaderboard is sorted by, the first the default, with their labels.
SORTS: dict[str, Any] = {"points": gettext_lazy("Ranking points"), "rating": gettext_lazy("Rating")}


@dataclass(frozen=True)
class Row:
    """One player's line on a leaderboard. Equal points, wins and games share a position
    (sorted by rating: an equal rating, then points, wins and games)."""

    position: int
    user_id: int
    username: str
    points: int
    games: int
    wins: int
    rating: ShownRating | None = None  # None: rated by no game yet (games before ratings)


def month_start(now: dt.datetime | None = None) -> dt.datetime:
    """The first instant of the current calendar month in UTC."""
    now = (now or timezone.now()).astimezone(dt.UTC)
    return now.replace(day=1, hour=0, minute=0, second=0, microsecond=0)


def _totals(game: str, period: str) -> QuerySet:
    """Each counted player's points, games and wins in the period, one row per player."""
    if period not in PERIODS:
        raise ValueError(f"unknown leaderboard period {period!r}")
    # Only scored games count: friendly games and same-IP games carry no points,
    # and a game's points are final only once it has finished.
    counted = Q(game__kind=game, game__status=Game.Status.FINISHED, game__scored=True, user__isnull=False)
    if period == "month":
        counted &= Q(game__ended_at__gte=month_start())
    # The rating's conservative estimate (mu − 3σ), which orders the shown numbers;
    # it is over all time in either period, as a rating has no months.
    estimate = Rating.objects.filter(user_id=OuterRef("user_id"), kind=game).annotate(
        estimate=F("mu") - SHOWN_Z * F("sigma")
    )
    return (
        Participation.objects.filter(counted)
        .values("user_id", "user__username")
        .annotate(
            total_points=Sum("points"),
            games=Count("id"),
            wins=Count("id", filter=Q(place=1)),
            estimate=Subquery(estimate.values("estimate")[:1]),
        )
    )


def _order(sort: str) -> list:
    by_points = [F("total_points").desc(), F("wins").desc(), F("games").asc()]
    if sort == "rating":
        return [F("estimate").desc(nulls_last=True), *by_points]
    if sort == "points":
        return by_points
    raise ValueError(f"unknown leaderboard sort {sort!r}")


def _ranked(game: str, period: str, sort: str) -> QuerySet:
    return (
        _totals(game, period)
        .annotate(position=Window(Rank(), order_by=_order(sort)))
        .order_by("position", "user__username")
    )


def _rows(game: str, found: list[dict]) -> list[Row]:
    ratings = shown_ratings([values["user_id"] for values in found], game)
    return [
        Row(
            position=values["position"],
            user_id=values["user_id"],
            username=values["user__username"],
            points=values["total_points"],
            games=values["games"],
            wins=values["wins"],
            rating=ratings.get(values["user_id"]),
        )
        for values in found
    ]


def leaderboard(game: str, period: str, *, sort: str = "points", limit: int = 100) -> list[Row]:
    """The best ``limit`` players of ``game`` ("all" time or this "month"), best first
    by ``sort``: "points" (RULES.md §6) or "rating" (issue 32)."""
    return _rows(game, list(_ranked(game, period, sort)[:limit]))


def leaderboard_row(game: str, period: str, *, user_id: int, sort: str = "points") -> Row | None:
    """One player's row, placed among everyone, or None if they have no scored game
    in the period: for showing a player who is below the top rows."""
    totals = _totals(game, period)
    own = totals.filter(user_id=user_id).order_by("user_id").first()
    if own is None:
        return None
    # A WHERE on the user would rank them alone, so count who ranks above them instead.
    points, wins, games, estimate = own["total_points"], own["wins"], own["games"], own["estimate"]
    better = Q(total_points__gt=points) | Q(total_points=points, wins__gt=wins)
    better |= Q(total_points=points, wins=wins, games__lt=games)
    if sort == "rating":
        if estimate is None:  # not rated: below every rated player
            better = Q(estimate__isnull=False) | (Q(estimate__isnull=True) & better)
        else:
            better = Q(estimate__gt=estimate) | (Q(estimate=estimate) & better)
    elif sort != "points":
        raise ValueError(f"unknown leaderboard sort {sort!r}")
    return _rows(game, [{**own, "position": totals.filter(better).count() + 1}])[0]


def recent_games(game: str, *, limit: int = 10) -> list[Game]:
    """The latest finished games of ``game`` whose replays are public, newest first, with
    their players: what the leaderboard's points came from, to watch again."""
    return list(
        Game.objects.filter(kind=game, status=Game.Status.FINISHED, replay_hidden=False)
        .order_by("-ended_at", "-pk")
        .prefetch_related("participations")[:limit]
    )


def chips_in_pots(user_id: int) -> int:
    """Chips the player staked in games still running: in the pot, not in their
    balance, and theirs again if the game is aborted or they win."""
    total = Participation.objects.filter(
        user_id=user_id, game__status=Game.Status.RUNNING, game__stake__gt=0
    ).aggregate(total=Sum("game__stake"))["total"]
    return total or 0


# --- a player's games (their profile) ---------------------------------------------
def game_history(user: User, limit: int = 50) -> list:
    """The player's ended games, newest first, each with ``game_name`` for display."""
    rows = list(
        Participation.objects.filter(
            user=user, game__status__in=[Game.Status.FINISHED, Game.Status.ABORTED]
        )
        .select_related("game")
        .order_by("-game__ended_at", "-game_id")[:limit]
    )
    for row in rows:
        spec = GAMES.get(row.game.kind)
        row.game_name = spec.name if spec else row.game.kind
    return rows


def player_totals(user: User) -> dict:
    """The player's totals over finished games: games played and won, leaderboard
    points (only scored games carry any) and the chips their games won or lost."""
    return Participation.objects.filter(user=user, game__status=Game.Status.FINISHED).aggregate(
        games=Count("id"),
        wins=Count("id", filter=Q(place=1)),
        scored_games=Count("id", filter=Q(game__scored=True)),
        points=Sum("points", filter=Q(game__scored=True), default=0),
        chips=Sum("chips_delta", default=0),
    )


@dataclass(frozen=True)
class GameRating:
    """A player's rating in one game, for their profile."""

    slug: str
    game_name: Any
    rating: ShownRating


def player_ratings(user: User) -> list[GameRating]:
    """The player's skill ratings (issue 32), one per game they are rated in, in the
    order the games are offered."""
    rows = {r.kind: r for r in Rating.objects.filter(user=user)}
    return [
        GameRating(slug=slug, game_name=spec.name, rating=shown_of(rows[slug]))
        for slug, spec in GAMES.items()
        if slug in rows
    ]
