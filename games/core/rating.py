"""The skill rating (openskill's Plackett–Luce model), shared by every game.

Pure functions, no Django: ``games.ratings`` reads and writes the ``Rating`` rows and
calls these. Beside RULES.md §6 points, which measure activity, not strength.

The one place where the shown number is defined (our choice): openskill's
conservative estimate ``mu − 3σ``, scaled to a familiar range,

    shown = round(SHOWN_BASE + SHOWN_PER_MU × (mu − 3σ)),  never below 0,

so a new player (mu 25, σ 25/3: mu − 3σ = 0) shows 850, and a player of average
skill about 1500 once the games have made the rating sure (σ ≈ 2.8, where the
model's drift keeps it). Winning raises the number, and so does playing at all, as
each game makes σ smaller: the number is what the games so far prove at least.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MODEL = PlackettLuce()  # openskill's defaults: mu 25, σ 25/3, β 25/6
DEFAULT_MU: float = MODEL.mu
DEFAULT_SIGMA: float = MODEL.sigma

SHOWN_BASE = 850  # our choice: the shown number of a new player
SHOWN_PER_MU = 40  # our choice: one point of mu − 3σ is 40 shown points
SHOWN_Z = 3  # our choice: the conservative estimate, as TrueSkill's leaderboards use

PROVISIONAL_GAMES = 10  # our choice (issue 32): sure from the tenth rated game of a kind


@dataclass(frozen=True)
class Skill:
    """One player's rating in one game: openskill's mean and uncertainty."""

    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA


def shown(mu: float, sigma: float) -> int:
    """The number players see for a rating (see the module's docstring)."""
    return max(0, round(SHOWN_BASE + SHOWN_PER_MU * (mu - SHOWN_Z * sigma)))


def provisional(rated_games: int) -> bool:
    """Provisional until the player's tenth rated game of that kind."""
    return rated_games < PROVISIONAL_GAMES


def rate(sides: Sequence[Sequence[Skill]], places: Sequence[int]) -> list[list[Skill]]:
    """New skills after one game: ``sides`` (a team per side: one player in a
    free-for-all, two in a TetriWar pair) ranked by ``places`` (1 = first; a shared
    place is the same number for every side that shares it). A game of fewer than
    two sides changes nothing."""
    if len(sides) != len(places):
        raise ValueError(f"{len(sides)} sides but {len(places)} places")
    if len(sides) < 2:
        return [list(side) for side in sides]
    teams = [[MODEL.rating(mu=s.mu, sigma=s.sigma) for s in side] for side in sides]
    rated = MODEL.rate(teams, ranks=[float(p) for p in places])
    return [[Skill(mu=r.mu, sigma=r.sigma) for r in team] for team in rated]
