"""Properties: cards are conserved through any turns; every accepted placement is
reachable and inside the field; a seeded game replays from its input log."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.blockkiller import constants as C
from games.blockkiller.engine import Game, IllegalIntent, Intent, Options
from games.blockkiller.field import Field
from games.blockkiller.search import placements, step


def random_intent(game: Game, seat: int, rng: random.Random) -> str:
    player = game.players[seat]
    if game.phase == "draw":
        return rng.choice(["draw", "draw:blocks", "pass"])
    if game.phase == "play":
        return rng.choice(["pass", f"attack:{rng.randint(1, 4)}", "done"])
    texts = ["done", "cancel", "left", "right", "rotate", "rotate_ccw", "down", "drop"]
    if player.garbage:
        cards = rng.sample(player.garbage, rng.randint(0, len(player.garbage)))
        texts.append("stack:" + ",".join(f"{c}{rng.choice(['', 'f'])}" for c in cards))
    if player.blocks:
        card = rng.choice([*player.blocks, 5, 150])
        keys = "".join(rng.choice("LRDUC") for _ in range(rng.randint(0, 8)))
        texts += [f"piece:{card}", f"place:{card}:{keys}"] * 3
    return rng.choice(texts)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), seats=st.integers(2, 6), steps=st.integers(1, 300))
def test_cards_are_conserved_and_every_locked_piece_is_inside_the_field(seed, seats, steps):
    rng = random.Random(seed)
    game = Game(Options(turn_seconds=20), seed, range(1, seats + 1), 0.0)
    now = 0.0
    for _ in range(steps):
        if game.finished:
            break
        now += rng.choice([0.5, 1.0, 25.0])
        seat = game.acting if rng.random() < 0.9 else rng.randint(1, seats)
        try:
            game.apply(seat, Intent.parse(random_intent(game, seat, rng)), now)
        except IllegalIntent:
            pass
        assert game.card_count() == C.ALL_CARDS
        if game.draft is not None:
            assert not any(game.draft.field.rows[: C.HIDDEN_ROWS])  # nothing locked above the field
    again = Game.replay(game.options, seed, game.seats, 0.0, list(game.log), game.now)
    assert again.to_text() == game.to_text()


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), kind=st.sampled_from("ZSJLTOIM"), keys=st.text("LRDUC", max_size=30))
def test_a_place_is_accepted_only_when_every_key_works_and_lands_on_a_searched_placement(seed, kind, keys):
    rng = random.Random(seed)
    field = Field([0] * C.HIDDEN_ROWS + [rng.getrandbits(C.WIDTH) if r > 12 else 0 for r in range(C.VISIBLE_ROWS)])
    field.rows = [row if row != C.FULL_ROW else row & ~1 for row in field.rows]
    piece = field.spawn(kind)
    if piece is None:
        return
    for key in keys:
        piece = step(field, piece, key)
        if piece is None:
            return  # the engine refuses this path (UNREACHABLE)
    piece = field.drop(piece)
    if not field.inside(piece):
        return
    found = {(p.piece, p.spin) for p in placements(field, kind)}
    assert (piece, field.is_spin(piece)) in found


def test_every_searched_placement_is_reached_by_its_keys():
    field = Field.stacked([])
    for kind in "ZSJLTOIM":
        for p in placements(field, kind):
            piece = field.spawn(kind)
            for key in p.keys:
                piece = step(field, piece, key)
            assert field.drop(piece) == p.piece and field.inside(p.piece)
