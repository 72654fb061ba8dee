"""Leaderboard points and pot splitting (RULES.md §6), shared by every game.

Pure functions, no Django: the services call them inside their transaction.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

# RULES.md §6: points by final place, for 2 (or pairs), 3 and 4 sides.
POINTS_BY_SIDES: dict[int, tuple[int, ...]] = {
    2: (10, -5),
    3: (15, 0, -10),
    4: (20, 5, 0, -10),
}
LAST_PLACE_POINTS = -10  # RULES.md §6 (reconstruction) for 5–12 sides
LEAVE_PENALTY = -20  # RULES.md §6: instead of the place's points
MAX_SIDES = 12


def place_points(place: int, sides: int) -> int:
    """Points for finishing at ``place`` (1 = first) among ``sides`` sides.

    Shared places pass the better place here (two firsts are both place 1), so a
    shared place gets the better place's points, as RULES.md says. A game of one
    side scores nothing.
    """
    if not 1 <= place <= sides:
        raise ValueError(f"place {place} is outside 1..{sides}")
    if sides == 1:
        return 0
    if sides in POINTS_BY_SIDES:
        return POINTS_BY_SIDES[sides][place - 1]
    if sides > MAX_SIDES:
        raise ValueError(f"at most {MAX_SIDES} sides, not {sides}")
    # 5–12 sides (reconstruction): 1st 5·N, 2nd 5·(N − 3), then 5 less per place
    # down to 0, and the last place −10.
    if place == sides:
        return LAST_PLACE_POINTS
    if place == 1:
        return 5 * sides
    return max(0, 5 * (sides - 3) - 5 * (place - 2))


def split_pot(pot: int, winners: Iterable[int]) -> dict[int, int]:
    """Share ``pot`` chips evenly among the winners' seats; what does not divide
    evenly goes to the lowest seat number (RULES.md §6). Nothing is created or lost."""
    seats = sorted(set(winners))
    if not seats:
        raise ValueError("a pot needs at least one winner")
    share, remainder = divmod(pot, len(seats))
    payout = {seat: share for seat in seats}
    payout[seats[0]] += remainder
    return payout


def shared_ip(ips: Iterable[str | None]) -> bool:
    """RULES.md §6: no scoring when two seated players share an IP address."""
    counts = Counter(ip for ip in ips if ip)
    return any(n > 1 for n in counts.values())
