"""Held keys repeat on the server (issue #19): DAS, ARR and soft-drop speed, per player.

A key going down (``hold_left`` …) moves at once; held for DAS it repeats every ARR
(ARR 0: to the wall); ``hold_down`` soft-drops at the player's speed until
``release_down``. Each seat's handling is part of the game and of its replay.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_tetriwar_properties import check_board
from tetriwar_helpers import HARD_DROP, LEFT, field, game_for, kinds, press

from games.core.protocol import IllegalIntent, InvalidOptions
from games.tetriwar import constants as C
from games.tetriwar.engine import Game, Handling, Intent, Options
from games.tetriwar.handling import DEFAULT_HANDLING
from games.tetriwar.intents import HOLDS, NAMES

DAS, ARR = 170, 50  # RULES.md's numbers, the default handling


def handled(seats=(1,), now=0, **by_seat) -> Game:
    """A game where ``s1=Handling(...)`` gives seat 1 its handling."""
    handling = {int(key[1:]): value for key, value in by_seat.items()}
    return Game(Options(), 7, list(seats), now, handling=handling)


def x_of(game: Game, seat: int = 1) -> int:
    return game.view(seat).piece.x


def x_at(game: Game, *times: int, seat: int = 1) -> list[int]:
    """The piece's box column after advancing to each time in turn."""
    columns = []
    for t in times:
        game.advance(t)
        columns.append(x_of(game, seat))
    return columns


# --- the settings --------------------------------------------------------------------------------
def test_the_default_handling_is_the_rules_auto_repeat_and_soft_drop():
    assert Handling() == Handling(das=170, arr=50, soft_drop=20) == DEFAULT_HANDLING
    assert (Handling().das, Handling().arr) == (C.DAS_MS_DEFAULT, C.ARR_MS_DEFAULT) == (DAS, ARR)
    assert (Handling().das_seconds, Handling().arr_seconds) == (C.DAS, C.ARR)  # rules versions 1 and 2
    assert 1 / C.SOFT_DROP_SPEED_DEFAULT == C.SOFT_DROP_MAX_INTERVAL  # RULES.md: a row per 50 ms at least


@pytest.mark.parametrize(
    ("name", "good", "bad"),
    [
        ("das", [50, 170, 300], [49, 301, 170.0, "170", None, True]),
        ("arr", [0, 50, 100], [-1, 101, 0.5]),
        ("soft_drop", [20, 40, 60], [19, 61, 5, 20.0]),
    ],
)
def test_handling_is_validated_naming_the_setting(name, good, bad):
    assert (C.DAS_MS_RANGE, C.ARR_MS_RANGE, C.SOFT_DROP_SPEED_RANGE) == ((50, 300), (0, 100), (20, 60))
    for value in good:
        assert getattr(Handling(**{name: value}), name) == value
    for value in bad:
        with pytest.raises(InvalidOptions) as error:
            Handling(**{name: value})
        assert error.value.field == name and name in error.value.message


def test_handling_has_a_text_form_and_a_json_form():
    handling = Handling(das=120, arr=0, soft_drop=45)
    assert handling.text == "handling:120:0:45"
    assert Handling.parse(handling.text) == handling
    assert Handling.from_dict(handling.to_dict()) == handling
    assert Handling.from_dict({"arr": 10}) == Handling(arr=10)
    assert Handling.from_dict(None) == Handling.from_dict({}) == Handling()
    for bad in (
        "handling:1:2",
        "handling:a:0:20",
        "hold:120:0:45",
        "handling:120:0:45:1",
        "handling:-5:0:20",
    ):
        with pytest.raises(InvalidOptions):
            Handling.parse(bad)
    with pytest.raises(InvalidOptions) as error:
        Handling.from_dict({"dass": 100})
    assert error.value.field == "dass"
    with pytest.raises(InvalidOptions):
        Handling.from_dict([170, 50, 20])


def test_the_hold_intents_have_text_forms_and_the_old_single_steps_stay():
    assert HOLDS == ("hold_left", "release_left", "hold_right", "release_right", "hold_down", "release_down")
    assert set(HOLDS) <= set(NAMES)
    assert {"left", "right", "soft_drop_on", "soft_drop_off"} <= set(NAMES)
    for name in HOLDS:
        assert str(Intent.parse(name)) == name
    with pytest.raises(IllegalIntent):
        Intent.parse("handling:170:50:20")  # a log entry, never a player's intent


def test_handling_only_for_seats_that_play():
    with pytest.raises(InvalidOptions) as error:
        Game(Options(), 1, [1, 2], 0, handling={3: Handling()})
    assert error.value.field == "handling"
    with pytest.raises(InvalidOptions):
        Game(Options(), 1, [1], 0, handling={1: {"das": 100}})


# --- auto-repeat timing ----------------------------------------------------------------------------
def test_a_held_key_moves_at_once_then_after_das_then_every_arr():
    game = game_for()
    game.setup(1, piece="T")  # box column 3; the T reaches the right wall at column 7
    assert kinds(press(game, 1, "hold_right", now=100)) == ["piece"]
    assert x_of(game) == 4  # at once
    assert game.next_deadline() == 100 + DAS  # the host wakes for the repeat
    assert x_at(game, 100 + DAS - 1) == [4]
    assert x_at(game, 100 + DAS) == [5]  # DAS
    assert game.next_deadline() == 100 + DAS + ARR
    assert x_at(game, 100 + DAS + ARR - 1, 100 + DAS + ARR, 100 + DAS + 2 * ARR) == [5, 6, 7]  # every ARR
    assert x_at(game, 900) == [7]  # the wall


def test_a_held_key_counts_the_players_own_das_and_arr():
    game = handled(s1=Handling(das=100, arr=20))
    game.setup(1, piece="T")
    press(game, 1, "hold_left", now=0)
    assert x_at(game, 99, 100, 119, 100 + 20) == [2, 1, 1, 0]


def test_arr_zero_goes_to_the_wall_at_das():
    game = handled(s1=Handling(arr=0))
    game.setup(1, piece="T")
    press(game, 1, "hold_right", now=100)
    assert x_at(game, 100 + DAS - 1, 100 + DAS) == [4, 7]
    assert game.next_deadline() == 1000  # at the wall: nothing more to repeat, gravity is next


def test_arr_zero_slides_as_one_move_for_the_lock_delay():
    game = handled(s1=Handling(arr=0))
    game.setup(1, piece=("O", 0, -1, 18))  # resting on the floor at the left wall
    player = game.players[1]
    press(game, 1, "hold_right", now=0)  # one step at once: one reset
    game.advance(DAS)  # seven columns to the wall: one more
    assert x_of(game) == 7 and player.resets == 2


def test_releasing_stops_the_repeat():
    game = game_for()
    game.setup(1, piece="T")
    press(game, 1, "hold_right", now=100)
    press(game, 1, "release_right", now=200)
    assert game.next_deadline() == 1000  # gravity only
    assert x_at(game, 500) == [4]
    press(game, 1, "hold_right", now=600)  # a new press: at once, and DAS from now
    assert x_at(game, 600, 600 + DAS - 1, 600 + DAS) == [5, 5, 6]


def test_releasing_during_the_repeat_stops_it_too():
    game = game_for()
    game.setup(1, piece="T")
    press(game, 1, "hold_right", now=0)
    game.advance(DAS)
    press(game, 1, "release_right", now=DAS + 10)
    assert x_at(game, 900) == [5]


def test_the_keyboards_own_repeat_of_a_held_key_changes_nothing():
    game = game_for()
    game.setup(1, piece="T")
    press(game, 1, "hold_right", now=0)
    assert press(game, 1, "hold_right", "hold_right", now=50) == []
    assert x_at(game, DAS - 1, DAS) == [4, 5]  # DAS still from the first press


def test_releasing_a_key_that_is_not_held_changes_nothing():
    game = game_for()
    game.setup(1, piece="T")
    before = game.to_text()
    press(game, 1, "release_left", "release_right", "release_down", now=0)
    assert game.to_text().split("\n")[3:] == before.split("\n")[3:]  # the boards, as before


def test_the_last_pressed_direction_wins_and_releasing_it_hands_back_after_das():
    game = game_for()
    game.setup(1, piece="T")
    press(game, 1, "hold_left", now=0)  # x 2
    press(game, 1, "hold_right", now=50)  # x 3 at once: → wins
    assert x_at(game, 50, DAS) == [3, 3]  # ←'s DAS no longer counts
    assert x_at(game, 50 + DAS) == [4]  # →'s does
    press(game, 1, "release_right", now=300)  # ← is still held: it takes over ...
    assert x_at(game, 300, 300 + DAS - 1) == [5, 5]  # ... with no step at once ...
    assert x_at(game, 300 + DAS, 300 + DAS + ARR) == [4, 3]  # ... after its own DAS
    press(game, 1, "release_left", now=600)
    assert x_at(game, 900) == [x_of(game)]


def test_releasing_the_other_key_leaves_the_active_one_repeating():
    game = game_for()
    game.setup(1, piece="T")
    press(game, 1, "hold_left", now=0)
    press(game, 1, "hold_right", now=10)
    press(game, 1, "release_left", now=20)
    assert x_at(game, 10 + DAS, 10 + DAS + ARR) == [4, 5]


def test_a_charged_key_moves_the_next_piece_as_soon_as_it_spawns():
    game = handled(s1=Handling(arr=0))
    game.setup(1, piece="T", next=["O"])
    press(game, 1, "hold_left", now=0)
    game.advance(DAS)
    assert x_of(game) == 0
    game.apply(1, HARD_DROP, 300)
    assert game.view(1).piece.kind == "O" and x_of(game) == -1  # the O's box at the left wall


def test_a_blocked_repeat_waits_and_goes_on_when_the_piece_falls_past_the_block():
    # a wall of blocks in column 6 down to row 12: the O stops beside it (columns 4–5)
    rows = ["......X..."] * 13 + [".........."] * 7
    game = game_for()
    game.setup(1, field=field(*rows), piece=("O", 0, 2, 11))  # rows 11–12
    press(game, 1, "hold_right", now=0)  # box column 2 -> 3, beside the wall
    game.advance(DAS + 3 * ARR)
    assert x_of(game) == 3
    assert game.next_deadline() == game.players[1].fall_at  # no wake-ups against the block
    y = game.view(1).piece.y
    game.advance(game.players[1].fall_at)  # falls a row ...
    game.advance(game.players[1].fall_at)  # ... and another: rows 13–14, below the wall
    assert game.view(1).piece.y >= y + 2
    assert x_of(game) > 3  # it moved on by itself


def test_lack_of_control_turns_a_held_key_around():
    game = game_for(seats=(1, 2), bombs="manual")
    game.setup(1, piece="T")
    game.setup(2, store=["lack_of_control"])
    press(game, 1, "hold_right", now=0)  # x 4
    game.advance(DAS)  # x 5
    press(game, 2, "bomb:2", now=DAS + 1)  # seat 1 is seat 2's player 2
    assert game.players[1].reversed_until is None  # announced: it lands at seat 1's next piece
    landed = DAS + 1 + C.BOMB_DELAY_MS
    press(game, 1, "hard_drop", now=landed)  # → still held
    assert game.players[1].reversed_until == landed + C.LACK_OF_CONTROL_MS
    assert x_of(game) == 2  # the charged → moves the new piece at once: left, now
    assert x_at(game, landed + ARR) == [1]  # and on it steps left


def test_a_player_who_leaves_stops_repeating():
    game = game_for(seats=(1, 2))
    press(game, 1, "hold_right", now=0)
    press(game, 2, "hold_down", now=0)
    game.forfeit(1, 50)
    assert game.finished  # one side left: the game is over
    player = game.players[1]
    assert player.held == [] and player.due() == float("inf")


# --- soft drop ---------------------------------------------------------------------------------------
def rows_fallen(game: Game, until: int) -> int:
    y = game.view(1).piece.y
    game.advance(until)
    return game.view(1).piece.y - y


def test_holding_down_soft_drops_at_the_rules_speed_by_default():
    game = game_for()
    game.setup(1, piece=("T", 0, 3, 0))
    press(game, 1, "hold_down", now=0)
    assert rows_fallen(game, 501) == 10  # at 0.05, 0.10 ... 0.50: 20 rows a second
    press(game, 1, "release_down", now=501)
    last = game.players[1].last_fall
    assert rows_fallen(game, last + 999) == 0  # gravity again: a row a second from the last row
    assert rows_fallen(game, last + 1000) == 1


def test_holding_down_soft_drops_at_the_players_speed():
    game = handled(s1=Handling(soft_drop=40))
    game.setup(1, piece=("T", 0, 3, 0))
    press(game, 1, "hold_down", now=0)
    assert rows_fallen(game, 251) == 10  # at 0.025, 0.05 ... 0.25: 40 rows a second


def test_a_players_speed_never_slows_the_rules_twenty_times_gravity():
    game = Game(Options(start_level=9), 7, [1], 0, handling={1: Handling(soft_drop=20)})
    assert game.players[1].soft_drop[9] == round(C.GRAVITY_MS[9] / 20) < 1000 / 20
    fast = Game(Options(start_level=9), 7, [1], 0, handling={1: Handling(soft_drop=60)})
    assert fast.players[1].soft_drop[1] == round(1000 / 60) and fast.players[1].soft_drop[9] == round(C.GRAVITY_MS[9] / 20)


def test_soft_drop_on_is_hold_down_by_another_name():
    a, b = game_for(), game_for()
    press(a, 1, "hold_down", now=200)
    press(b, 1, "soft_drop_on", now=200)
    a.advance(700)
    b.advance(700)
    assert a.view(1) == b.view(1)


# --- the log and replays -------------------------------------------------------------------------------
def test_a_seats_handling_is_the_first_entry_of_the_log_unless_it_is_the_default():
    game = handled(seats=(1, 2, 3), now=5000, s2=Handling(das=120, arr=0), s3=Handling())
    assert list(game.log) == [(5000, 2, "handling:120:0:20")]
    assert game.handling(2) == Handling(das=120, arr=0) and game.handling(1) == game.handling(3) == Handling()
    assert "handling:120:0:20" in game.to_text()
    assert game_for().log == []


def test_a_replay_sets_each_seats_handling_again():
    game = handled(seats=(1, 2), s1=Handling(das=80, arr=0, soft_drop=60), s2=Handling(das=300, arr=100))
    for seat in (1, 2):
        press(game, seat, "hold_left", "hold_down", now=100 * seat)
    press(game, 1, "release_left", "hold_right", now=500)
    game.advance(3000)
    copy = Game.replay(game.options, game.seed, game.seats, game.start, game.log, game.now)
    assert copy.handling(1) == game.handling(1) and copy.handling(2) == game.handling(2)
    assert copy.to_text() == game.to_text()
    assert copy.log == game.log


def test_an_engine_with_other_handling_is_another_game():
    a = handled(s1=Handling(das=100))
    b = game_for()
    for game in (a, b):
        press(game, 1, "hold_left", now=0)
        game.advance(150)
    assert a.to_text() != b.to_text()


# --- properties -----------------------------------------------------------------------------------------
handlings = st.builds(
    Handling,
    das=st.integers(*C.DAS_MS_RANGE),
    arr=st.sampled_from([0, 1, 16, 33, 50, 100]),
    soft_drop=st.integers(*C.SOFT_DROP_SPEED_RANGE),
)
KEYS = [*HOLDS, "left", "right", "rotate", "hard_drop", "wait"]
presses = st.lists(
    st.tuples(st.integers(0, 400), st.integers(0, 3), st.sampled_from(KEYS)), min_size=1, max_size=250
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from([[1], [1, 2], [2, 3, 4]]),
    st.lists(handlings, min_size=3, max_size=3),
    st.integers(0, 2**32),
    presses,
)
def test_held_keys_never_put_a_cell_outside_the_field_and_replay_exactly(seats, chosen, seed, steps):
    handling = dict(zip(seats, chosen, strict=False))
    game = Game(Options(minutes=1, bombs="automatic"), seed, seats, 0, handling=handling)
    t = 0
    for gap, index, text in steps:
        t += gap
        if text == "wait":
            game.advance(t)
        else:
            game.apply(seats[index % len(seats)], Intent.parse(text), t)
        check_board(game)
    game.advance(t)  # the clocks to the last moment (``now`` is how far they ran)
    check_board(game)
    copy = Game.replay(game.options, game.seed, game.seats, game.start, game.log, game.now)
    assert copy.to_text() == game.to_text()
    assert [copy.view(seat) for seat in seats] == [game.view(seat) for seat in seats]


def test_single_steps_still_move_one_column():
    game = game_for()
    game.setup(1, piece="T")
    game.apply(1, LEFT, 0)
    game.advance(1000)
    assert x_of(game) == 2
