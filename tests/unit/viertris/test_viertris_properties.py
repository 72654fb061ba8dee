"""Properties that hold for every game, whatever the players do (hypothesis)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.viertris import constants as C
from games.viertris.engine import Board, Game, IllegalIntent, Intent, Options

specs = st.fixed_dictionaries(
    {
        "seats": st.sampled_from([[1, 2], [2, 4], [1, 3, 4], [1, 2, 3, 4]]),
        "seed": st.integers(0, 2**32),
        "move_seconds": st.sampled_from([10, 60]),
        "target_score": st.sampled_from([None, None, 10, 40]),
        "move_limit": st.sampled_from([None, None, 8, 30]),
    }
)
# (seconds since the last step, what happens, a column or a seat index)
ACTIONS = ["drop"] * 12 + ["out_of_turn", "forfeit", "wait"]
steps = st.lists(
    st.tuples(st.floats(0, 25, allow_nan=False), st.sampled_from(ACTIONS), st.integers(0, 7)),
    max_size=90,
)
SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def make(spec) -> Game:
    options = Options(
        move_seconds=spec["move_seconds"], target_score=spec["target_score"], move_limit=spec["move_limit"]
    )
    return Game(options, spec["seed"], spec["seats"], 0.0)


def play(game: Game, moves, check=None) -> float:
    t = 0.0
    for gap, action, number in moves:
        t += gap
        try:
            if action == "drop":
                game.apply(game.turn or game.seats[0], Intent("drop", number), t)
            elif action == "out_of_turn":
                game.apply(game.seats[number % len(game.seats)], Intent("drop", number), t)
            elif action == "forfeit":
                game.forfeit(game.seats[number % len(game.seats)], t)
            else:
                game.advance(t)
        except IllegalIntent:
            pass
        if check:
            check(game)
    game.advance(t)
    return t


def check_at_rest(game: Game) -> None:
    rows = game.board()
    assert len(rows) == C.ROWS and all(len(row) == C.COLUMNS for row in rows)
    # drawing the view again refuses any piece over an empty cell, so none floats
    assert Board.from_rows(rows) == game.grid
    assert all(len(stack) <= C.ROWS for stack in game.grid.columns)
    assert game.grid.runs() == []  # every cascade runs to its end
    if game.finished:
        assert game.turn is None and game.next_deadline() is None
    else:
        assert game.turn in game.active_seats() and len(game.active_seats()) >= 2
        assert not game.grid.is_full()


@SETTINGS
@given(specs, steps)
def test_no_piece_ever_floats_over_an_empty_cell(spec, moves):
    play(make(spec), moves, check_at_rest)


@SETTINGS
@given(specs, steps)
def test_scores_never_decrease_and_moves_count_the_drops(spec, moves):
    best: dict[int, int] = {}

    def check(game: Game) -> None:
        for seat, score in game.scores.items():
            assert score >= best.get(seat, 0)
            best[seat] = score
        drops = [text for _, _, text in game.log if text != "forfeit"]
        assert game.moves == len(drops)

    play(make(spec), moves, check)


@SETTINGS
@given(specs, steps)
def test_a_replay_equals_the_original(spec, moves):
    game = make(spec)
    end = play(game, moves)
    copy = Game.replay(game.options, game.seed, game.seats, game.start, game.log, end)
    assert copy.to_text() == game.to_text()
    assert copy.log == game.log
    assert copy.results() == game.results()


@SETTINGS
@given(specs, steps)
def test_the_end_follows_the_options(spec, moves):
    game = make(spec)
    play(game, moves)
    if game.finished:
        target, limit = game.options.target_score, game.options.move_limit
        assert (
            game.grid.is_full()
            or (target is not None and max(game.scores.values()) >= target)
            or (limit is not None and game.moves == limit)
            or len(game.active_seats()) == 1
        )
