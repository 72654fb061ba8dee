"""The game (RULES.md §1 "The game"): options, seats, pairs, time, the end, ranking, forfeits."""

from __future__ import annotations

import pytest
from tetriwar_helpers import HARD_DROP, game_for, kinds

from games.core.protocol import InvalidOptions
from games.tetriwar.engine import Game, GameFinished, IllegalIntent, Intent, Options, Termination


# --- options -------------------------------------------------------------------------------------
def test_default_options():
    assert Options() == Options(minutes=3, start_level=1, lines_per_level=10, bombs="manual", pairs=False)


@pytest.mark.parametrize(
    ("field", "good", "bad"),
    [
        ("minutes", [1, 15], [0, 16, 3.0, "3", True]),
        ("start_level", [1, 9], [0, 10]),
        ("lines_per_level", [4, 10], [3, 11]),
        ("bombs", ["off", "manual", "automatic"], ["auto", None, ""]),
        ("pairs", [True, False], [1, "yes"]),
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
    options = Options(minutes=7, start_level=4, lines_per_level=6, bombs="automatic", pairs=True)
    assert Options.from_dict(options.to_dict()) == options
    assert Options.from_dict({}) == Options()
    with pytest.raises(InvalidOptions) as error:
        Options.from_dict({"minutse": 3})
    assert error.value.field == "minutse"


def test_one_to_four_seats():
    for seats in ([1], [2, 4], [1, 2, 3], [4, 3, 2, 1]):
        assert Game(Options(), 1, seats, 0).seats == tuple(sorted(seats))
    for seats in ([], [1, 1], [0], [5], [1, 2, 3, 4, 1]):
        with pytest.raises(InvalidOptions) as error:
            Game(Options(), 1, seats, 0)
        assert error.value.field == "seats"


def test_pairs_need_four_players():
    with pytest.raises(InvalidOptions) as error:
        Game(Options(pairs=True), 1, [1, 2, 3], 0)
    assert error.value.field == "pairs"


# --- time and the end ----------------------------------------------------------------------------
def test_the_game_ends_when_its_minutes_run_out():
    game = game_for(seats=(1, 2), minutes=2, now=100000)
    assert game.end == 220000
    game.advance(219999)
    assert not game.finished
    events = game.advance(220000)
    assert game.finished and events[-1] == GameFinished(0)
    assert game.outcome().termination is Termination.TIME
    assert game.next_deadline() is None
    # an intent after the end is ignored: no error for the player, nothing changes
    before = game.to_text()
    assert game.apply(1, Intent("left"), 220500) == []
    assert game.forfeit(2, 221000) == []
    assert game.to_text() == before and game.log == []


def test_an_intent_at_the_end_time_is_ignored_and_the_game_ends():
    game = game_for(minutes=1)
    ended = game_for(minutes=1)
    ended.advance(60000)
    events = game.apply(1, HARD_DROP, 60000)
    assert events[-1] == GameFinished(0) and game.finished
    assert game.to_text() == ended.to_text() and game.log == []  # the piece was not dropped


def test_when_the_time_runs_out_every_board_still_playing_is_over():
    game = game_for(seats=(1, 2, 3), minutes=1)
    game.forfeit(3, 1000)
    events = game.advance(60000)
    assert [(e.kind, e.seat) for e in events[-3:]] == [("over", 1), ("over", 2), ("finished", 0)]
    for seat in (1, 2):
        view = game.view(seat)
        assert view.over and view.piece is None and view.ghost == ()
    assert not game.view(3).over and game.view(3).left
    assert game.outcome().termination is Termination.TIME


def test_time_is_passed_in_never_read():
    game = game_for()
    game.advance(10000)
    assert game.now == 10000
    assert game.view(1).piece is not None


def test_next_deadline_is_the_earliest_clock():
    game = game_for(seats=(1, 2))
    assert game.next_deadline() == 1000  # level 1 gravity
    game.setup(1, piece=("O", 0, 3, 18))  # resting: locks at 0.5
    assert game.next_deadline() == 500
    game.advance(500)
    assert game.next_deadline() == 1000


def test_next_deadline_includes_the_end():
    game = game_for(minutes=1)
    game.setup(1, piece=("O", 0, 3, 18))
    game.advance(59900)
    assert game.next_deadline() <= 60000


def test_gravity_stops_when_the_game_ends():
    game = game_for(minutes=1)
    game.advance(60000)
    text = game.to_text()
    game.advance(100000)
    assert game.to_text() == text


# --- ranking ------------------------------------------------------------------------------------
def standings(game):
    return [(s.place, s.seats, s.score, s.shared, s.forfeited) for s in game.results()]


def test_ranking_by_score_highest_first():
    game = game_for(seats=(1, 2, 3))
    game.setup(1, score=10)
    game.setup(2, score=30)
    game.setup(3, score=20)
    assert [s.seats for s in game.results()] == [(2,), (3,), (1,)]
    assert [s.place for s in game.results()] == [1, 2, 3]


def test_ties_go_to_fewer_eliminations_then_more_lines_then_are_shared():
    game = game_for(seats=(1, 2, 3, 4))
    for seat, lines, eliminations in [(1, 5, 1), (2, 3, 0), (3, 9, 0), (4, 3, 0)]:
        game.setup(seat, score=50, lines=lines)
        game.players[seat].eliminations = eliminations
    assert standings(game) == [
        (1, (3,), 50, False, False),  # no elimination, most lines
        (2, (2,), 50, True, False),  # shared second place
        (2, (4,), 50, True, False),
        (4, (1,), 50, False, False),  # one elimination
    ]


def test_pairs_add_the_partners_scores():
    game = game_for(seats=(1, 2, 3, 4), pairs=True)
    for seat, score in [(1, 10), (2, 50), (3, 40), (4, 30)]:
        game.setup(seat, score=score)
    assert standings(game) == [(1, (3, 4), 70, False, False), (2, (1, 2), 60, False, False)]


def test_a_player_who_leaves_takes_the_last_place():
    game = game_for(seats=(1, 2, 3))
    game.setup(1, score=100)
    game.setup(3, score=5)
    events = game.forfeit(1, 2000)
    assert "left" in kinds(events)
    assert standings(game)[-1] == (3, (1,), 100, False, True)
    assert game.view(1).left and game.view(1).piece is None
    assert game.log[-1] == (2000, 1, "forfeit")
    with pytest.raises(IllegalIntent) as error:
        game.apply(1, Intent("left"), 2500)
    assert error.value.code == "NOT_PLAYING"


def test_the_first_to_leave_is_the_very_last():
    game = game_for(seats=(1, 2, 3))
    game.forfeit(2, 1000)
    game.forfeit(1, 2000)
    assert [s.seats for s in game.results()] == [(3,), (1,), (2,)]


def test_a_pair_with_a_leaver_ranks_last():
    game = game_for(seats=(1, 2, 3, 4), pairs=True)
    game.setup(1, score=500)
    game.forfeit(2, 1000)
    assert [(s.seats, s.forfeited) for s in game.results()] == [((3, 4), False), ((1, 2), True)]


def test_the_game_ends_when_everybody_has_left():
    game = game_for(seats=(2,))
    events = game.forfeit(2, 2000)
    assert game.finished and events[-1].kind == "finished"
    assert game.outcome().termination is Termination.FORFEIT


def test_a_game_of_two_ends_at_once_when_one_leaves_and_the_other_wins():
    game = game_for(seats=(1, 2))
    game.setup(1, score=500)
    events = game.forfeit(1, 1000)
    assert game.finished and [(e.kind, e.seat) for e in events[-3:]] == [
        ("left", 1),
        ("over", 2),
        ("finished", 0),
    ]
    assert game.outcome().termination is Termination.FORFEIT
    assert standings(game) == [(1, (2,), 0, False, False), (2, (1,), 500, False, True)]
    assert game.next_deadline() is None


def test_a_practice_game_ends_when_the_person_leaves_the_bot_alone():
    game = game_for(seats=(1, 4))  # seat 4: a bot, to the engine a player like any
    game.forfeit(1, 3000)
    assert game.finished and game.outcome().winners == (4,)


def test_a_game_of_three_goes_on_until_one_is_left():
    game = game_for(seats=(1, 2, 3))
    game.forfeit(1, 1000)
    assert not game.finished
    game.forfeit(3, 2000)
    assert game.finished and game.outcome().winners == (2,)


def test_in_pairs_one_leaver_does_not_end_the_game_both_partners_do():
    game = game_for(seats=(1, 2, 3, 4), pairs=True)
    game.forfeit(2, 1000)
    assert not game.finished
    game.forfeit(4, 2000)  # one of each pair: both pairs still play
    assert not game.finished
    events = game.forfeit(1, 3000)
    assert game.finished and game.outcome().termination is Termination.FORFEIT
    assert [(e.kind, e.seat) for e in events[-3:]] == [("left", 1), ("over", 3), ("finished", 0)]
    # the pair that kept a player wins; each pair names only its own leavers
    assert [(s.seats, s.forfeited, s.left) for s in game.outcome().standings] == [
        ((3, 4), True, (4,)),
        ((1, 2), True, (1, 2)),
    ]


def test_in_pairs_a_pair_still_playing_ranks_above_a_pair_that_left_whatever_the_times():
    game = game_for(seats=(1, 2, 3, 4), pairs=True)
    game.setup(3, score=900)
    game.forfeit(4, 1000)  # pair 3 + 4 lost a player first ...
    game.forfeit(2, 2000)
    game.forfeit(1, 3000)  # ... but pair 1 + 2 has nobody left
    assert game.finished
    assert [(s.place, s.seats, s.left) for s in game.outcome().standings] == [
        (1, (3, 4), (4,)),
        (2, (1, 2), (1, 2)),
    ]
    assert game.outcome().winners == (3, 4)


def test_in_pairs_only_the_partner_who_left_is_a_leaver():
    game = game_for(seats=(1, 2, 3, 4), pairs=True)
    game.setup(1, score=500)
    game.forfeit(2, 1000)
    game.advance(game.end)
    pair = game.outcome().standings[-1]
    assert pair.seats == (1, 2) and pair.forfeited  # the pair ranks as a leaver ...
    assert pair.left == pair.leavers == (2,)  # ... but only seat 2 left: seat 1 is not penalised
    assert game.outcome().standings[0].left == ()
