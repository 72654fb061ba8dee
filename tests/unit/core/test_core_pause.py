"""A turn-based bot's pause (games/core/pause.py): drawn once per position, never past
the deadline, shortened by the time the bot already watched the position it acts on."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from games.core.pause import Pause

THINK = (1.0, 2.5)


def pause(seed: int = 1) -> Pause:
    return Pause(random.Random(seed), THINK, idle=0.5)


@given(st.integers(0, 10_000), st.floats(0, 1000))
def test_a_pause_is_drawn_once_per_position_within_the_think_range(seed, now):
    p = pause(seed)
    first = p.left(1, "move 0", now, None)
    assert THINK[0] <= first <= THINK[1]
    assert abs(p.left(1, "move 0", now + 0.4, None) - (first - 0.4)) < 1e-9  # the same pause, running
    assert p.left(1, "move 0", now + first, None) == 0
    other = p.left(1, "move 1", now + first, None)  # a new position: a new pause
    assert THINK[0] <= other <= THINK[1]


def test_a_pause_never_runs_past_the_deadline_less_the_look_again_interval():
    p = pause()
    assert p.left(1, "move 0", 10.0, deadline=11.0) == 0.5
    assert p.left(2, "move 0", 10.0, deadline=10.2) == 0  # no time left: at once


def test_done_forgets_the_seat_alone():
    p, same = pause(3), pause(3)
    p.left(1, "x", 0.0, None)
    kept = p.left(2, "x", 0.0, None)
    p.done(1)
    assert p.plans.keys() == {2} and p.left(2, "x", 0.0, None) == kept
    # Seat 1's next pause for the same position is a new draw: the rng's third.
    for seat in (1, 2):
        same.left(seat, "x", 0.0, None)
    same.done(1)
    same.done(2)
    assert p.left(1, "x", 0.0, None) == same.left(1, "x", 0.0, None)


def test_what_was_watched_counts_only_for_the_position_it_watched():
    p = pause()
    p.looked(3.0, now=50.0)
    assert p.left(1, "move 4", 50.0, None) == 0  # watched 3 s, thinks at most 2.5
    p.done(1)
    # A later position (the next move) was not watched: a whole pause again.
    later = p.left(2, "move 5", 51.0, None)
    assert THINK[0] <= later <= THINK[1]


def test_a_short_look_shortens_the_pause_by_as_much():
    a, b = pause(7), pause(7)
    b.looked(0.5, now=0.0)
    assert abs((a.left(1, "p", 0.0, None) - 0.5) - b.left(1, "p", 0.0, None)) < 1e-9
