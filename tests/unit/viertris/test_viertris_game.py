"""The game (RULES.md §2): options, intents, turns, the end, ranking, the move clock,
forfeits, and the log that replays it."""

from __future__ import annotations

import pytest

from games.core.protocol import InvalidOptions
from games.viertris import constants as C
from games.viertris.engine import (
    Dropped,
    Finished,
    Game,
    IllegalIntent,
    Intent,
    Options,
    PlayerLeft,
    Standing,
    TurnChanged,
)

from .viertris_helpers import drop, game_for, kinds

# A full board without a run of four, for two players ...
FULL = ["11221122", "22112211"] * 3
# ... but for its top-right cell, which seat 2 fills without making a run
ALMOST_FULL = ["1122112.", *FULL[1:]]


# --- options -------------------------------------------------------------------------------------
def test_default_options():
    assert Options() == Options(move_seconds=60, target_score=None, move_limit=None)
    assert C.MOVE_SECONDS_DEFAULT == 60


@pytest.mark.parametrize(
    ("field", "good", "bad"),
    [
        ("move_seconds", [10, 60, 300], [9, 301, None, 60.0, "60", True]),
        ("target_score", [None, 10, 1000], [9, 1001, 50.0, "50", False]),
        ("move_limit", [None, 8, 500], [7, 501, 0, "20", True]),
    ],
)
def test_options_are_validated_naming_the_field(field, good, bad):
    for value in good:
        assert getattr(Options(**{field: value}), field) == value
    for value in bad:
        with pytest.raises(InvalidOptions) as error:
            Options(**{field: value})
        assert isinstance(error.value, ValueError)
        assert error.value.field == field
        assert field in str(error.value)


def test_options_round_trip_through_a_dict():
    options = Options(move_seconds=30, target_score=100, move_limit=40)
    assert Options.from_dict(options.to_dict()) == options
    assert options.to_dict() == {"move_seconds": 30, "target_score": 100, "move_limit": 40}
    assert Options.from_dict({}) == Options()
    with pytest.raises(InvalidOptions) as error:
        Options.from_dict({"move_secs": 30})
    assert error.value.field == "move_secs"


def test_two_to_four_seats():
    for seats in ([1, 2], [1, 3, 4], [4, 3, 2, 1], [2, 4]):
        assert Game(Options(), 1, seats, 0.0).seats == tuple(sorted(seats))
    for seats in ([], [1], [1, 1], [0, 1], [1, 5], [1, 2, 3, 4, 1], [1, "2"]):
        with pytest.raises(InvalidOptions) as error:
            Game(Options(), 1, seats, 0.0)
        assert error.value.field == "seats"


# --- intents -------------------------------------------------------------------------------------
def test_intents_have_a_text_form():
    intent = Intent("drop", 3)
    assert intent.text == str(intent) == "drop:3"
    assert Intent.parse("drop:3") == intent


@pytest.mark.parametrize(
    ("make", "code"),
    [
        (lambda: Intent("jump", 3), "UNKNOWN_INTENT"),
        (lambda: Intent.parse(3), "UNKNOWN_INTENT"),
        (lambda: Intent("drop"), "BAD_COLUMN"),
        (lambda: Intent("drop", 8), "BAD_COLUMN"),
        (lambda: Intent("drop", -1), "BAD_COLUMN"),
        (lambda: Intent.parse("drop:-1"), "BAD_COLUMN"),
        (lambda: Intent.parse("drop:8"), "BAD_COLUMN"),
        (lambda: Intent.parse("drop:x"), "BAD_COLUMN"),
        (lambda: Intent("drop", 2.0), "BAD_COLUMN"),
        (lambda: Intent("drop", True), "BAD_COLUMN"),
    ],
)
def test_bad_intents_are_refused_with_a_code(make, code):
    with pytest.raises(IllegalIntent) as error:
        make()
    assert error.value.code == code
    assert isinstance(error.value, ValueError)


def test_an_illegal_intent_raises_and_changes_nothing():
    game = game_for()
    drop(game, 1, 0, now=1.0)
    cases = [
        (2, "drop:9", "BAD_COLUMN"),
        (1, "drop:3", "NOT_YOUR_TURN"),
        (3, "drop:3", "NOT_PLAYING"),
    ]
    for seat, text, code in cases:
        before = game.to_text()
        with pytest.raises(IllegalIntent) as error:
            game.apply(seat, Intent.parse(text), 2.0)
        assert error.value.code == code
        assert game.to_text() == before and len(game.log) == 1
    with pytest.raises(IllegalIntent) as error:
        game.apply(2, "drop:3", 2.0)
    assert error.value.code == "UNKNOWN_INTENT"


def test_not_your_turn_names_whose_turn_it_is():
    game = game_for(seats=(1, 3, 4))
    with pytest.raises(IllegalIntent) as error:
        drop(game, 3, 0)
    assert error.value.code == "NOT_YOUR_TURN" and "seat 1" in error.value.message


def test_nothing_is_played_after_the_end():
    game = game_for(board=ALMOST_FULL, turn=2)
    drop(game, 2, 7)
    assert game.finished
    before = game.to_text()
    with pytest.raises(IllegalIntent) as error:
        drop(game, 1, 0)
    assert error.value.code == "GAME_OVER"
    with pytest.raises(IllegalIntent) as error:
        game.forfeit(1, 5.0)
    assert error.value.code == "GAME_OVER"
    assert game.to_text() == before


# --- turns ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("seats", "order"),
    [
        ((1, 2), [1, 2, 1, 2, 1, 2, 1, 2, 1]),
        ((1, 3, 4), [1, 3, 4, 1, 3, 4, 1, 3, 4]),
        ((4, 2, 1, 3), [1, 2, 3, 4, 1, 2, 3, 4, 1]),
    ],
)
def test_players_take_turns_in_seat_order(seats, order):
    game = game_for(seats=seats)
    turns = [game.turn]
    for column in range(len(order) - 1):
        events = drop(game, game.turn, column)
        assert events[-1] == TurnChanged(game.turn, game.now + 60)
        turns.append(game.turn)
    assert turns == order


# --- the end -------------------------------------------------------------------------------------
def test_the_game_ends_when_every_cell_is_occupied():
    game = game_for(board=ALMOST_FULL, turn=2)
    events = drop(game, 2, 7, now=4.0)
    assert kinds(events) == ["dropped", "finished"]
    assert events[-1] == Finished(0)
    assert game.board() == tuple(FULL) and game.finished
    assert game.turn is None and game.next_deadline() is None


def test_the_game_ends_when_the_board_fills_after_the_cascade_only():
    # the drop makes a run: the board is full for a moment, but not after the cascade
    game = game_for(board=["1122112.", "22112211", "11221121", "22112211", "11221122", "22112211"], turn=1)
    events = drop(game, 1, 7)
    assert "cascade" in kinds(events) and not game.finished


def test_the_game_ends_at_the_target_score():
    game = game_for(board=["111....."], turn=1, scores={1: 7}, target_score=10)
    drop(game, 1, 3)
    assert game.scores[1] == 9 and not game.finished

    game = game_for(board=["111....."], turn=1, scores={1: 8}, target_score=10)
    events = drop(game, 1, 3)
    assert game.scores[1] == 10 and game.finished and events[-1] == Finished(0)


def test_the_target_score_counts_points_won_by_another_players_move():
    game = game_for(
        board=["1.......", "1.......", "1.......", "222.....", "1112...."], turn=2, target_score=10
    )
    game.setup(scores={1: 6})
    drop(game, 2, 3)  # seat 1 wins 4 in step 2
    assert game.finished
    assert [s.seats for s in game.results()] == [(1,), (2,)]


def test_the_game_ends_at_the_move_limit():
    game = game_for(move_limit=8)
    for column in range(7):
        drop(game, game.turn, column, now=float(column))
    assert not game.finished and game.moves == 7
    events = drop(game, game.turn, 7, now=7.0)
    assert game.finished and events[-1] == Finished(0)


def test_a_timed_out_move_counts_towards_the_move_limit():
    game = game_for(move_limit=8)
    for column in range(7):
        drop(game, game.turn, column, now=float(column))
    events = game.advance(100.0)
    assert kinds(events) == ["dropped", "finished"] and events[0].timeout
    assert game.moves == 8 and game.finished


# --- ranking -------------------------------------------------------------------------------------
def test_most_points_first_and_equal_points_share_the_place():
    game = game_for(seats=(1, 2, 3, 4), scores={1: 5, 2: 9, 3: 5, 4: 1})
    assert game.results() == [
        Standing(place=1, seats=(2,), score=9, shared=False, forfeited=False),
        Standing(place=2, seats=(1,), score=5, shared=True, forfeited=False),
        Standing(place=2, seats=(3,), score=5, shared=True, forfeited=False),
        Standing(place=4, seats=(4,), score=1, shared=False, forfeited=False),
    ]
    game = game_for(scores={1: 4, 2: 4}, move_limit=8)
    for column in range(8):
        drop(game, game.turn, column)
    assert game.finished
    assert [(s.place, s.shared) for s in game.results()] == [(1, True), (1, True)]


# --- the move clock ------------------------------------------------------------------------------
def test_each_turn_has_its_own_clock_starting_with_the_previous_move():
    game = game_for(now=100.0, move_seconds=30)
    assert game.next_deadline() == game.deadline == 130.0
    drop(game, 1, 0, now=112.5)
    assert game.next_deadline() == 142.5


def test_a_timeout_plays_a_random_legal_column_and_logs_it():
    game = game_for(now=0.0)
    assert game.advance(59.999) == []
    events = game.advance(60.0)
    (dropped, turn) = events
    assert isinstance(dropped, Dropped) and dropped.seat == 1 and dropped.timeout
    assert turn == TurnChanged(2, 120.0)
    assert game.log == [(60.0, 1, f"timeout:{dropped.column}")]
    assert game.board()[5][dropped.column] == "1"


def test_a_long_silence_plays_one_timeout_per_turn():
    game = game_for(now=0.0)
    events = game.advance(200.0)
    assert [(e.seat, e.timeout) for e in events if e.kind == "dropped"] == [(1, True), (2, True), (1, True)]
    assert [t for t, _, _ in game.log] == [60.0, 120.0, 180.0]
    assert game.next_deadline() == 240.0 and game.turn == 2 and game.now == 200.0


def test_the_timeout_column_comes_from_the_seed():
    def columns(seed):
        game = game_for(seed=seed)
        game.advance(600.0)
        return [text for _, _, text in game.log]

    assert columns(5) == columns(5)
    assert len({tuple(columns(seed)) for seed in range(10)}) > 1
    assert len({column for seed in range(30) for column in columns(seed)}) > 4


def test_a_timeout_never_picks_a_full_column():
    only_6_free = [row[:6] + "." + row[7] for row in FULL]
    for seed in range(20):
        game = game_for(seed=seed, board=only_6_free, turn=1)
        (dropped, _) = game.advance(60.0)
        assert dropped.column == 6


def test_a_move_after_its_deadline_was_already_played_by_the_clock():
    game = game_for()
    with pytest.raises(IllegalIntent) as error:
        drop(game, 1, 3, now=61.0)
    assert error.value.code == "NOT_YOUR_TURN"  # the timeout at 60 s played for seat 1
    assert game.moves == 1 and game.turn == 2
    events = game.advance(61.0)  # the clock's events are reported by the next call
    assert kinds(events) == ["dropped", "turn"] and events[0].timeout


# --- forfeits ------------------------------------------------------------------------------------
def test_a_player_who_leaves_is_skipped_and_ranked_last():
    game = game_for(seats=(1, 2, 3), scores={2: 50})
    events = game.forfeit(2, 1.0)
    assert events == [PlayerLeft(2)]
    assert game.turn == 1
    drop(game, 1, 0, now=2.0)
    assert game.turn == 3
    drop(game, 3, 1, now=3.0)
    assert game.turn == 1
    with pytest.raises(IllegalIntent) as error:
        drop(game, 2, 2)
    assert error.value.code == "NOT_PLAYING"
    assert [(s.seats, s.forfeited) for s in game.results()] == [((1,), False), ((3,), False), ((2,), True)]
    assert game.log[0] == (1.0, 2, "forfeit")


def test_leaving_on_ones_turn_passes_it_with_a_fresh_clock():
    game = game_for(seats=(1, 2, 3))
    events = game.forfeit(1, 10.0)
    assert events == [PlayerLeft(1), TurnChanged(2, 70.0)]
    assert game.turn == 2


def test_the_last_player_left_wins():
    game = game_for(scores={2: 30})
    events = game.forfeit(2, 5.0)
    assert kinds(events) == ["left", "finished"] and game.finished
    assert game.results()[0] == Standing(place=1, seats=(1,), score=0, shared=False, forfeited=False)
    assert game.results()[1].forfeited


def test_the_earliest_to_leave_is_the_very_last():
    game = game_for(seats=(1, 2, 3, 4))
    game.forfeit(3, 1.0)
    game.forfeit(1, 2.0)
    assert [s.seats[0] for s in game.results()] == [2, 4, 1, 3]


# --- replay --------------------------------------------------------------------------------------
def test_a_replay_of_the_log_equals_the_original():
    game = game_for(seats=(1, 2, 3), seed=11, move_seconds=10)
    drop(game, 1, 3, now=1.0)
    game.advance(25.0)  # seat 2 times out at 11, seat 3 at 21
    drop(game, 1, 3, now=26.0)
    game.forfeit(3, 27.0)
    drop(game, 2, 4, now=30.0)
    game.advance(50.0)
    copy = Game.replay(game.options, game.seed, game.seats, game.start, game.log, 50.0)
    assert copy.to_text() == game.to_text()
    assert copy.log == game.log
    assert copy.results() == game.results()
