"""The placement search (ints and a bitboard) finds exactly what a plain breadth-first
search over ``Field.move`` and ``Field.rotate`` finds: the same placements, in the same
order, with the same shortest keys and spins; and the bot scores a placement as if it
had locked it on a copy of the field."""

from __future__ import annotations

import random
from collections import deque

from hypothesis import given, settings
from hypothesis import strategies as st

from games.blockkiller import constants as C
from games.blockkiller.bot import _locked, _shape_penalty
from games.blockkiller.field import Field, Piece, field
from games.blockkiller.search import Placement, placements, step


def reference(f: Field, kind: str, mini_rule: bool = False) -> list[Placement]:
    """The search written plainly: one Piece a state, keys tried in the order L R D U C."""
    start = f.spawn(kind)
    if start is None:
        return []
    keys: dict[Piece, str] = {start: ""}
    queue = deque([start])
    found = []
    while queue:
        piece = queue.popleft()
        if f.resting(piece) and f.inside(piece):
            found.append(Placement(piece, keys[piece], f.is_spin(piece, mini_rule)))
        for key in "LRDUC":
            nxt = step(f, piece, key)
            if nxt is not None and nxt not in keys:
                keys[nxt] = keys[piece] + key
                queue.append(nxt)
    return found


def random_field(seed: int, height: int, density: float, hidden: bool) -> Field:
    """Rows filled at random up to ``height`` (into the hidden rows too, if ``hidden``)."""
    rng = random.Random(seed)
    rows = [0] * C.HEIGHT
    for r in range(C.HEIGHT - height, C.HEIGHT):
        if r >= C.HIDDEN_ROWS or hidden:
            rows[r] = sum(1 << c for c in range(C.WIDTH) if rng.random() < density)
    return Field(rows)


fields = st.builds(
    random_field,
    seed=st.integers(0, 10**9),
    height=st.integers(0, C.HEIGHT),
    density=st.sampled_from([0.2, 0.5, 0.7, 0.85, 0.95]),
    hidden=st.booleans(),
)


@settings(max_examples=150, deadline=None)
@given(f=fields, kind=st.sampled_from("ZSJLTOIM"), mini_rule=st.booleans())
def test_the_search_finds_what_a_plain_breadth_first_search_finds(f, kind, mini_rule):
    assert placements(f, kind, mini_rule) == reference(f, kind, mini_rule)


def test_the_search_on_an_empty_field_and_on_a_t_spin_slot():
    slot = field("XXXX......", "XXX...XXXX", "XXXX.XXXXX", "XXXXXXXXX.")
    for f in (Field(), slot):
        for kind in "ZSJLTOIM":
            for mini_rule in (False, True):
                assert placements(f, kind, mini_rule) == reference(f, kind, mini_rule)
    spins = [p for p in placements(slot, "T") if p.spin]
    assert spins and all(p.piece.rotated and p.keys[-1] in "UC" for p in spins)


def test_no_placement_when_the_piece_cannot_enter():
    f = Field([C.FULL_ROW - 1] * C.HEIGHT)
    assert placements(f, "T") == [] == reference(f, "T")


def columns_penalty(rows: list[int]) -> int:
    holes, top = 0, len(rows)
    for col in range(C.WIDTH):
        seen = False
        for r, row in enumerate(rows):
            if row >> col & 1:
                if not seen:
                    top = min(top, r)
                seen = True
            elif seen:
                holes += 1
    return holes * 4 + (len(rows) - top)


@settings(max_examples=60, deadline=None)
@given(f=fields, kind=st.sampled_from("ZSJLTOIM"))
def test_the_bot_scores_a_placement_as_the_field_locked_with_it(f, kind):
    full = f.rows.count(C.FULL_ROW)
    for p in placements(f, kind):
        trial = f.copy()
        lines, _ = trial.lock(p.piece)
        assert _locked(f.rows, p.piece, full) == (lines, trial.rows)
        assert _shape_penalty(trial.rows) == columns_penalty(trial.rows)
