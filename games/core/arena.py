"""Arenas (issue 51): the rules of a tournament that players join and leave at will,
paired again as each of their games ends. Pure functions, no Django: ``lobby.arenas``
reads and writes the rows and calls these.

Scoring, for a game of N players (sides: a pair counts as one):

- each place scores N − place (1st N − 1, last 0); tied places share the better
  place's points, as RULES.md §6 shares them (a drawn duel scores 1 each);
- after two firsts in a row a player is *on fire*: every game they play scores
  double, up to and including the first that is not a first (a shared first is
  not one), which ends the streak. So a draw on a streak scores 2, as on lichess;
- a forfeit scores 0 and ends the streak.

Standings: more points first; then fewer games (more points per game); then the
higher rating for the game; then whoever joined first.

Prizes (an arena with an entry fee): the fees form the pool, split 50/30/20 among
the podium, to the chip: each share rounded down, what rounding leaves to the
first. With fewer than three players who played, the shares are those of the places
filled, in the same proportion (two: 50/30, so 62.5 % and 37.5 %).

Pairing: those waiting, best score first, then rating; each group is the first
waiter and the next ones in that order, passing over the opponents of their last
game while others wait. Too few for a full table play at a smaller one once they
have waited a few seconds for more.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

MIN_MINUTES = 10  # an arena's length, at least
MAX_MINUTES = 120  # and at most
QUIET_SECONDS = 60  # no new pairing in an arena's last minute
PRIZE_SHARES = (50, 30, 20)  # per cent of the pool, to the podium's places 1, 2, 3
FIRSTS_FOR_FIRE = 2  # firsts in a row that put a player on fire


@dataclass(frozen=True)
class Streak:
    """A player's firsts in a row, and whether their next game scores double."""

    firsts: int = 0
    on_fire: bool = False


NO_STREAK = Streak()


@dataclass(frozen=True)
class Scored:
    points: int
    doubled: bool
    streak: Streak  # after the game


def place_points(place: int, players: int) -> int:
    """Arena points of ``place`` (1 = first; tied sides share the better place) in a game
    of ``players`` sides."""
    if players < 1 or not 1 <= place <= players:
        raise ValueError(f"place {place} of {players}")
    return players - place


def score(streak: Streak, *, place: int, players: int, sole_first: bool, forfeited: bool) -> Scored:
    """One game's arena points for a player who came ``place`` of ``players`` (``sole_first``:
    first and not tied), and their streak after it."""
    base = 0 if forfeited else place_points(place, players)
    doubled = streak.on_fire and not forfeited
    if forfeited or not sole_first or place != 1:
        after = NO_STREAK
    else:
        firsts = streak.firsts + 1
        after = Streak(firsts=firsts, on_fire=firsts >= FIRSTS_FOR_FIRE)
    return Scored(points=base * 2 if doubled else base, doubled=doubled, streak=after)


class Ranked(Protocol):
    points: int
    games: int
    rating: float
    joined: int  # the order of joining: smaller joined first


R = TypeVar("R", bound=Ranked)


def standings_key(row: Ranked) -> tuple[int, int, float, int]:
    return (-row.points, row.games, -row.rating, row.joined)


def standings(rows: Iterable[R]) -> list[R]:
    """The arena's table, best first (see the module)."""
    return sorted(rows, key=standings_key)


def prize_split(pool: int, podium: int) -> list[int]:
    """The pool's shares for the first ``podium`` places (at most three), summing to the
    pool; no place, no share (the caller refunds the fees instead)."""
    if pool < 0:
        raise ValueError("a pool is never negative")
    shares = PRIZE_SHARES[: max(0, min(podium, len(PRIZE_SHARES)))]
    if not shares:
        return []
    weight = sum(shares)
    split = [pool * share // weight for share in shares]
    split[0] += pool - sum(split)
    return split


class Waiter(Protocol):
    key: str  # who: a player's identity
    points: int
    rating: float
    since: float  # when they began to wait (seconds, any clock)
    last_opponents: frozenset[str]  # the keys of their last game's opponents


W = TypeVar("W", bound=Waiter)


def pairing_order(waiter: Waiter) -> tuple[int, float, float, str]:
    return (-waiter.points, -waiter.rating, waiter.since, waiter.key)


def _repeat(a: Waiter, b: Waiter) -> bool:
    return b.key in a.last_opponents or a.key in b.last_opponents


def pairings(
    waiting: Sequence[W], size: int, smallest: int = 2, *, now: float = 0.0, patience: float = 0.0
) -> list[list[W]]:
    """Groups to seat together: of ``size`` while enough wait; the rest at a smaller
    table of at least ``smallest``, once one of them has waited ``patience`` seconds
    (until ``now``) for a full one; fewer than that wait on. Each group is the first
    waiter (best score, then rating) with the next in that order who did not just play
    against any of the group, and only when too few such wait, those who did."""
    if smallest < 2 or size < smallest:
        raise ValueError(f"tables of {smallest}..{size}")
    left = sorted(waiting, key=pairing_order)
    groups: list[list[W]] = []
    while len(left) >= smallest:
        if patience > 0 and len(left) < size and now - min(w.since for w in left) < patience:
            break  # a full table may come: the rest wait a little longer
        want = min(size, len(left))
        group = [left[0]]
        passed: list[W] = []
        for waiter in left[1:]:
            if len(group) == want:
                break
            if any(_repeat(waiter, member) for member in group):
                passed.append(waiter)
            else:
                group.append(waiter)
        for waiter in passed:  # nobody else waits: the same opponents again
            if len(group) == want:
                break
            group.append(waiter)
        chosen = {id(w) for w in group}
        left = [w for w in left if id(w) not in chosen]
        groups.append(group)
    return groups
