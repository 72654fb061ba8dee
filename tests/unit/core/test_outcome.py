"""Every finished game has an Outcome: why it ended, and its places (games/core/outcome.py)."""

from __future__ import annotations

from games.core.outcome import Outcome, Standing, Termination, ranked
from games.tetriwar.engine import Game as TetriWar
from games.tetriwar.engine import Intent as TetriWarIntent
from games.tetriwar.engine import Options as TetriWarOptions
from tests.unit.viertris.viertris_helpers import drop, game_for

ALMOST_FULL = ["1122112.", *(["22112211", "11221122"] * 3)[:5]]


def test_equal_keys_share_their_place_and_the_next_place_is_skipped():
    rows = [
        ((0, -5), {"seats": (1,), "score": 5}),
        ((0, -9), {"seats": (2,), "score": 9}),
        ((0, -5), {"seats": (3,), "score": 5}),
    ]
    assert [(s.seats, s.place, s.shared) for s in ranked(rows)] == [
        ((2,), 1, False),
        ((1,), 2, True),
        ((3,), 2, True),
    ]


def test_an_outcome_reads_back_from_its_stored_form():
    outcome = Outcome(
        Termination.TIME, (Standing(1, (1, 2), 300, lines=4), Standing(2, (3, 4), 100, forfeited=True))
    )
    assert Outcome.from_dict(outcome.to_dict()) == outcome
    assert outcome.winners == (1, 2)
    assert outcome.to_dict()["termination"] == "time"


def test_a_running_game_has_no_outcome():
    assert TetriWar(TetriWarOptions(minutes=1), 1, [1, 2], 0).outcome() is None
    assert game_for().outcome() is None


def test_tetriwar_ends_on_time_and_replays_to_the_same_outcome():
    game = TetriWar(TetriWarOptions(minutes=1), 3, [1, 2], 0)
    for n in range(30):
        game.apply(1 + n % 2, TetriWarIntent.parse("hard_drop"), 500 + 1000 * n)  # ms
    game.advance(61_000)
    outcome = game.outcome()
    assert outcome.termination is Termination.TIME
    assert [s.seats for s in outcome.standings] in ([(1,), (2,)], [(2,), (1,)])
    again = TetriWar.replay(TetriWarOptions(minutes=1), 3, [1, 2], 0, list(game.log), 61_000)
    assert again.outcome() == outcome


def test_tetriwar_ends_by_forfeit_when_one_side_is_left():
    game = TetriWar(TetriWarOptions(minutes=1), 3, [1, 2, 3], 0)
    game.forfeit(2, 1000)
    assert game.outcome() is None
    game.forfeit(1, 2000)
    outcome = game.outcome()
    assert outcome.termination is Termination.FORFEIT
    assert [(s.seats, s.forfeited, s.left) for s in outcome.standings] == [
        ((3,), False, ()),
        ((1,), True, (1,)),  # the last to leave before the first
        ((2,), True, (2,)),
    ]


def test_tetriwar_of_one_player_ends_by_forfeit_when_the_player_leaves():
    game = TetriWar(TetriWarOptions(minutes=1), 3, [2], 0)
    game.forfeit(2, 1000)
    outcome = game.outcome()
    assert outcome.termination is Termination.FORFEIT
    assert [(s.seats, s.forfeited) for s in outcome.standings] == [((2,), True)]


def test_a_stored_outcome_without_leavers_reads_back():
    stored = Outcome(Termination.TIME, (Standing(1, (1,), 5), Standing(2, (2,), 0, forfeited=True))).to_dict()
    for standing in stored["standings"]:
        del standing["left"]  # as outcomes were stored before
    outcome = Outcome.from_dict(stored)
    assert [s.leavers for s in outcome.standings] == [(), (2,)]


def test_the_leavers_of_a_pair_are_the_partners_who_left():
    pair = Standing(2, (1, 2), 300, forfeited=True, left=(2,))
    assert pair.leavers == (2,)
    assert Outcome.from_dict(Outcome(Termination.TIME, (pair,)).to_dict()).standings == (pair,)


def test_viertris_says_why_it_ended():
    game = game_for(board=ALMOST_FULL, turn=2)
    drop(game, 2, 7, now=4.0)
    assert game.outcome().termination is Termination.FULL_BOARD

    game = game_for(board=["111....."], turn=1, scores={1: 8}, target_score=10)
    drop(game, 1, 3)
    assert game.outcome().termination is Termination.TARGET_SCORE
    assert game.outcome().winners == (1,)

    game = game_for(move_limit=8)
    for column in range(8):
        drop(game, game.turn, column, now=float(column))
    assert game.outcome().termination is Termination.MOVE_LIMIT

    game = game_for()
    game.forfeit(1, 3.0)
    outcome = game.outcome()
    assert outcome.termination is Termination.FORFEIT
    assert [(s.seats, s.place, s.forfeited) for s in outcome.standings] == [((2,), 1, False), ((1,), 2, True)]
