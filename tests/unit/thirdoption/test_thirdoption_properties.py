"""Properties that hold whatever the grid and whatever the players do (hypothesis)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.thirdoption import constants as C
from games.thirdoption.board import FULL, cells_of, shape
from games.thirdoption.engine import Game, IllegalIntent, Intent, Options

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

names = st.sampled_from(sorted(C.SHAPES))
# grids from nearly empty to nearly full: every cell filled with a probability of its own
filled_grids = st.tuples(st.integers(0, 100), st.randoms(use_true_random=False)).map(
    lambda args: sum(1 << i for i in range(C.CELLS) if args[1].randrange(100) < args[0])
)


def every_legal_placement(name: str, filled: int) -> set[int]:
    """By brute force: every turn, mirror image and top-left cell, tested one by one."""
    found = set()
    for turns in range(4):
        for mirrored in (False, True):
            orientation = shape(name).orientation(turns, mirrored)
            for row in range(C.SIZE):
                for column in range(C.SIZE):
                    mask = orientation.at(row, column)
                    if mask is not None and not mask & filled:
                        found.add(mask)
    return found


@SETTINGS
@given(names, filled_grids)
def test_fits_is_true_exactly_when_some_placement_is_legal(name, filled):
    legal = every_legal_placement(name, filled)
    assert shape(name).fits(filled) == bool(legal)
    assert {mask for *_, mask in shape(name).placements(filled)} == legal
    first = shape(name).first_placement(filled)
    assert (first is None) == (not legal)
    if first is not None:
        orientation, row, column = first
        assert orientation.at(row, column) in legal


specs = st.fixed_dictionaries({
    "seats": st.sampled_from([[1], [1, 2], [2, 5, 8], list(range(1, 13))]),
    "seed": st.integers(0, 2**32),
    "round_seconds": st.sampled_from([15, 90]),
    "tetrominoes_only": st.booleans(),
})  # fmt: skip
# (seconds since the last step, what happens, numbers for the placement)
ACTIONS = ["place"] * 12 + ["forfeit", "wait"]
steps = st.lists(
    st.tuples(
        st.floats(0, 40, allow_nan=False),
        st.sampled_from(ACTIONS),
        st.tuples(
            st.integers(0, 11),
            st.integers(0, 2),
            st.integers(0, 3),
            st.booleans(),
            st.integers(0, 8),
            st.integers(0, 8),
        ),
    ),
    max_size=120,
)


def make(spec) -> Game:
    return Game(Options(spec["round_seconds"], spec["tetrominoes_only"]), spec["seed"], spec["seats"], 0.0)


def play(game: Game, moves, check) -> float:
    t = 0.0
    for gap, action, (who, card, turns, mirrored, row, column) in moves:
        t += gap
        seat = game.seats[who % len(game.seats)]
        try:
            if action == "place":
                game.apply(seat, Intent(max(game.round, 1), card, turns, mirrored, row, column), t)
            elif action == "forfeit":
                game.forfeit(seat, t)
            else:
                game.advance(t)
        except IllegalIntent:
            pass
        check(game)
    game.advance(t)
    check(game)
    return t


def check_grids(game: Game) -> None:
    for player in game.players.values():
        union = 0
        for _, mask in player.grid.pieces:
            assert mask and not mask & ~FULL  # inside the grid
            assert not mask & union  # never over another piece
            union |= mask
        assert union == player.grid.filled
    if not game.finished:
        assert game.round >= 1 and len(game.cards) == C.CARDS_PER_ROUND
        for seat in game.waiting_for():  # whoever the round waits for has a card that fits
            assert any(game.players[seat].grid.fits(name) for _, name in game.offered(seat))


@SETTINGS
@given(specs, steps)
def test_no_placement_ever_overlaps_or_leaves_the_grid(spec, moves):
    placed = []
    game = make(spec)

    def check(g: Game) -> None:
        check_grids(g)
        placed.append(sum(len(p.grid.pieces) for p in g.players.values()))

    play(game, moves, check)
    assert placed == sorted(placed)  # a placement is never taken back


@SETTINGS
@given(specs, steps)
def test_a_replay_equals_the_original(spec, moves):
    game = make(spec)
    end = play(game, moves, lambda g: None)
    copy = Game.replay(game.options, game.seed, game.seats, game.start, game.log, end)
    assert copy.to_text() == game.to_text()
    assert copy.results() == game.results()


@SETTINGS
@given(specs)
def test_the_clock_alone_plays_every_game_to_an_end(spec):
    game = make(spec)
    t = 0.0
    while not game.finished:
        t += spec["round_seconds"]
        game.advance(t)
        check_grids(game)
        assert game.round <= C.DECK_SIZE // 2
    assert game.termination.value in ("full_grid", "all_out", "deck_empty")
    placed_cards = sum(len(p.grid.pieces) - 1 for p in game.players.values())
    assert placed_cards and all(cells_of(mask) for p in game.players.values() for _, mask in p.grid.pieces)
