"""Skill ratings per game kind: the numbers the quick-play matcher compares and the
ones players see (issue 32). The formula and the shown scale are ``games.core.rating``;
here they meet the ``Rating`` rows. Guests and bots have no rating: they are matched
as a new player and show none.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

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
