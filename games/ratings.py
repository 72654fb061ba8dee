"""Skill ratings per game kind: the numbers the quick-play matcher compares and the
ones players see (issue 32). The formula and the shown scale are ``games.core.rating``;
here they meet the ``Rating`` rows. Guests and bots have no rating: they are matched
as a new player and show none.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.utils import timezone

from games.core import rating as formula
from games.models import Rating


@dataclass(frozen=True)
class ShownRating:
    """A rating as people read it: the number, and whether it is still provisional."""

    value: int
    provisional: bool
    rated_games: int


def matching_rating(user_id: int | None, kind: str) -> float:
    """The value the quick-play matcher compares: the mu of the player's rating of
    ``kind``; the model's default for a player with none and for guests (None)."""
    if user_id is None:
        return formula.DEFAULT_MU
    mu = Rating.objects.filter(user_id=user_id, kind=kind).values_list("mu", flat=True).first()
    return formula.DEFAULT_MU if mu is None else mu


def shown_of(rating: Rating) -> ShownRating:
    """The shown form of a ``Rating`` row already loaded."""
    return ShownRating(
        value=formula.shown(rating.mu, rating.sigma),
        provisional=formula.provisional(rating.rated_games),
        rated_games=rating.rated_games,
    )


def shown_rating(user_id: int | None, kind: str) -> ShownRating | None:
    """The rating of ``kind`` a player shows, or None for guests and players not yet rated."""
    if user_id is None:
        return None
    rating = Rating.objects.filter(user_id=user_id, kind=kind).first()
    return None if rating is None else shown_of(rating)


def shown_ratings(user_ids: Iterable[int | None], kind: str) -> dict[int, ShownRating]:
    """The shown ratings of several players in one query (a table's seats), by user id;
    guests, bots and players not yet rated are left out."""
    ids = {uid for uid in user_ids if uid is not None}
    if not ids:
        return {}
    return {r.user_id: shown_of(r) for r in Rating.objects.filter(user_id__in=ids, kind=kind)}


@dataclass(frozen=True)
class RatingChange:
    """A player's shown rating before a rated game and after it (the results show both)."""

    before: int
    after: int


def ratings_update(*, kind: str, sides: list[tuple[int, list[int | None]]]) -> dict[int, RatingChange]:
    """Rate one scored game, inside the caller's transaction (``game_finish``'s, with
    its points and chips): ``sides`` are (place, the user ids of the side's players),
    one side per player in a free-for-all, a pair's two partners in one side; a
    forfeit ranks by its recorded place. A guest or bot (None) plays as a new player
    and keeps no rating. Returns each player's shown rating before and after, by user id
    (read from the locked rows: a game finishing at the same time cannot slip between)."""
    if len(sides) < 2:
        return {}
    user_ids = sorted({uid for _, side in sides for uid in side if uid is not None})
    # Every player gets a row first (a new one at the model's defaults), then the rows
    # are locked in one order, so two games finishing at once never lose an update
    # nor deadlock.
    Rating.objects.bulk_create(
        [
            Rating(user_id=uid, kind=kind, mu=formula.DEFAULT_MU, sigma=formula.DEFAULT_SIGMA)
            for uid in user_ids
        ],
        ignore_conflicts=True,
    )
    rows = {
        r.user_id: r
        for r in Rating.objects.select_for_update()
        .filter(kind=kind, user_id__in=user_ids)
        .order_by("user_id")
    }
    new_skills = formula.rate(
        [
            [formula.Skill() if uid is None else formula.Skill(rows[uid].mu, rows[uid].sigma) for uid in side]
            for _, side in sides
        ],
        [place for place, _ in sides],
    )
    before = {uid: formula.shown(row.mu, row.sigma) for uid, row in rows.items()}
    now = timezone.now()
    for (_, side), skills in zip(sides, new_skills, strict=True):
        for uid, skill in zip(side, skills, strict=True):
            if uid is not None:
                row = rows[uid]
                row.mu, row.sigma, row.rated_games, row.updated_at = (
                    skill.mu,
                    skill.sigma,
                    row.rated_games + 1,
                    now,
                )
    Rating.objects.bulk_update(list(rows.values()), ["mu", "sigma", "rated_games", "updated_at"])
    return {uid: RatingChange(before[uid], formula.shown(row.mu, row.sigma)) for uid, row in rows.items()}
