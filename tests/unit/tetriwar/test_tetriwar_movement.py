"""Moving, turning and dropping the falling piece; gravity, soft drop, lock delay, ghost."""

from __future__ import annotations

import pytest
from tetriwar_helpers import HARD_DROP, LEFT, RIGHT, ROTATE, field, game_for, kinds, press

from games.tetriwar import constants as C


def piece(game, seat=1):
    view = game.view(seat).piece
    return view.kind, view.rotation, view.x, view.y


def test_left_and_right_move_one_column():
    game = game_for()
    game.setup(1, piece="T")
    assert kinds(game.apply(1, LEFT, 100)) == ["piece"]
    assert piece(game) == ("T", 0, 2, -1)
    game.apply(1, RIGHT, 200)
    game.apply(1, RIGHT, 300)
    assert piece(game) == ("T", 0, 4, -1)


def test_walls_and_blocks_stop_a_move_and_nothing_is_reported():
    game = game_for()
    game.setup(1, piece=("T", 0, 0, 10))
    assert game.apply(1, LEFT, 100) == []
    assert piece(game) == ("T", 0, 0, 10)
    game.setup(1, field=field(*["...X......"] * 12), piece=("T", 0, 0, 10))
    assert game.apply(1, RIGHT, 100) == []


def test_rotate_turns_clockwise():
    game = game_for()
    game.setup(1, piece=("T", 0, 3, 5))
    for expected in (1, 2, 3, 0):
        game.apply(1, ROTATE, 100)
        assert piece(game) == ("T", expected, 3, 5)


def test_a_t_against_the_left_wall_is_kicked_right():
    game = game_for()
    game.setup(1, piece=("T", 1, -1, 5))  # state R, its stem in column 0
    game.apply(1, ROTATE, 100)  # test 1 fails (column −1), test 2 moves it right
    assert piece(game) == ("T", 2, 0, 5)


def test_an_i_against_the_right_wall_is_kicked_left():
    game = game_for()
    game.setup(1, piece=("I", 1, 7, 5))  # vertical in column 9
    game.apply(1, ROTATE, 100)  # test 1 fails (columns 7–10), test 2: one left
    assert piece(game) == ("I", 2, 6, 5)
    assert game.view(1).piece.cells == ((7, 6), (7, 7), (7, 8), (7, 9))


def test_a_kick_can_lift_the_piece():
    # T in state 0 resting on the floor: test 1 (0, 0) and test 2 (−1, 0) would put
    # its stem into the bottom row; test 3 (−1, +1) lifts it one row
    game = game_for()
    game.setup(1, field=field("XXXXXXXXX."), piece=("T", 0, 3, 17))
    game.apply(1, ROTATE, 100)
    assert piece(game) == ("T", 1, 2, 16)


def test_when_all_five_tests_fail_nothing_happens():
    game = game_for()
    walls = field(*["XXXX.XXXXX"] * 8)
    game.setup(1, field=walls, piece=("I", 1, 2, 16))  # a vertical I deep in a narrow well
    game.advance(100)  # the game's time moves on (each board keeps its time): not the rotation's doing
    before = game.to_text()
    assert game.apply(1, ROTATE, 100) == []
    assert piece(game) == ("I", 1, 2, 16)
    assert game.to_text() == before


@pytest.mark.parametrize("level", range(1, 11))
def test_gravity_moves_the_piece_one_row_per_level_interval(level):
    game = game_for(start_level=min(level, 9))
    game.setup(1, level=level, piece=("T", 0, 3, 0))
    interval = C.GRAVITY_MS[level]
    game.advance(interval - 1)
    assert piece(game)[3] == 0
    assert kinds(game.advance(interval)) == ["piece"]
    assert piece(game)[3] == 1
    game.advance(2 * interval)
    assert piece(game)[3] == 2


def test_soft_drop_falls_twenty_times_faster_and_at_least_a_row_per_50_ms():
    game = game_for(start_level=5)  # gravity 355 ms a row, soft drop 18 ms (17.75 rounded)
    game.setup(1, piece=("T", 0, 3, 0))
    press(game, 1, "soft_drop_on", now=0)
    game.advance(17)
    assert piece(game)[3] == 0
    game.advance(18)
    assert piece(game)[3] == 1
    game.advance(5 * C.SOFT_DROP_MS[20][5])
    assert piece(game)[3] == 5

    slow = game_for(start_level=1)  # 1 s / 20 = 50 ms
    slow.setup(1, piece=("T", 0, 3, 0))
    press(slow, 1, "soft_drop_on", now=0)
    slow.advance(49)
    assert piece(slow)[3] == 0
    slow.advance(50)
    assert piece(slow)[3] == 1


def test_releasing_soft_drop_returns_to_gravity_from_the_last_row_fallen():
    game = game_for()
    game.setup(1, piece=("T", 0, 3, 0))
    press(game, 1, "soft_drop_on", now=0)
    game.advance(60)  # one row at 0.05
    press(game, 1, "soft_drop_off", now=60)
    game.advance(1049)
    assert piece(game)[3] == 1
    game.advance(1050)
    assert piece(game)[3] == 2


def test_hard_drop_lands_and_locks_at_once():
    game = game_for()
    game.setup(1, piece=("T", 0, 3, 0))
    events = game.apply(1, HARD_DROP, 100)
    assert game.view(1).field[-2:] == ("....T.....", "...TTT....")
    assert set(kinds(events)) >= {"field", "score", "piece", "next"}
    assert game.view(1).score == 1  # 1 × level for the piece


def test_the_ghost_shows_where_the_piece_lands():
    game = game_for()
    game.setup(1, field=field("X.........", "XX........"), piece=("T", 0, 0, 3))
    assert game.view(1).ghost == ((16, 1), (17, 0), (17, 1), (17, 2))
    game.apply(1, RIGHT, 100)
    assert game.view(1).ghost == ((17, 2), (18, 1), (18, 2), (18, 3))


def test_a_landed_piece_locks_after_half_a_second():
    game = game_for()
    game.setup(1, piece=("O", 0, 3, 18))  # on the floor
    game.advance(499)
    assert game.view(1).field[-1] == ".........."
    events = game.advance(500)
    assert game.view(1).field[-2:] == ("....OO....", "....OO....")
    assert "field" in kinds(events)


def test_the_lock_delay_starts_when_gravity_lands_the_piece():
    game = game_for()
    game.setup(1, piece=("O", 0, 3, 17))  # one row above the floor
    game.advance(1000)  # falls onto the floor at 1.0
    game.advance(1499)
    assert game.view(1).field[-1] == ".........."
    game.advance(1500)
    assert game.view(1).field[-1] == "....OO...."


def test_a_move_resets_the_lock_delay():
    game = game_for()
    game.setup(1, piece=("O", 0, 3, 18))
    game.apply(1, LEFT, 400)
    game.advance(899)
    assert game.view(1).field[-1] == ".........."
    game.advance(900)
    assert game.view(1).field[-1] == "...OO....."


def test_at_most_fifteen_resets():
    game = game_for()
    game.setup(1, piece=("O", 0, 3, 18))
    t = 0
    for step in range(15):
        t += 400
        game.apply(1, LEFT if step % 2 == 0 else RIGHT, t)
    assert game.players[1].resets == 15
    assert game.players[1].lock_at == pytest.approx(t + 500)
    game.apply(1, LEFT, t + 400)  # the 16th move still moves, but does not reset
    assert game.players[1].lock_at == pytest.approx(t + 500)
    game.advance(t + 500)
    assert game.view(1).field[-1] == "..OO......"


def test_moving_off_a_ledge_lets_the_piece_fall_again():
    game = game_for()
    game.setup(1, field=field("XXX.......", "XXX......."), piece=("O", 0, 0, 16))
    assert game.players[1].lock_at == 500
    game.apply(1, RIGHT, 200)
    game.apply(1, RIGHT, 300)  # now over the gap: no longer resting
    assert game.players[1].lock_at == float("inf")
    game.advance(1000)
    assert piece(game)[3] == 17


def test_stepping_off_a_ledge_and_back_counts_and_cannot_hold_a_piece_up():
    """RULES.md: at most 15 resets, "no endless spinning in place". Moves off the ground
    count too: stepping off a one-cell ledge and back (faster than gravity) used to get a
    fresh half second each time it landed, for ever."""
    game = game_for()
    game.setup(1, field=field("X........."), piece=("O", 0, -1, 17))  # on the ledge at column 0
    assert game.players[1].lock_at == 500
    t = 0
    for _ in range(7):  # 14 moves: off the ledge and back on, well within gravity's second
        t += 30
        game.apply(1, RIGHT, t)
        game.apply(1, LEFT, t)
    assert game.players[1].resets == 14 and game.players[1].lock_at == pytest.approx(t + 500)
    game.apply(1, RIGHT, t + 30)  # the 15th: off the ground
    assert game.view(1).field[-3:] == ("..........", "..........", "X.........")  # not locked
    game.apply(1, LEFT, t + 40)  # the 16th: lands again, and locks at once
    assert game.view(1).field[-3:] == ("OO........", "OO........", "X.........")


def test_with_resets_left_a_piece_landing_again_gets_its_half_second():
    game = game_for()
    game.setup(1, field=field("X........."), piece=("O", 0, -1, 17))
    game.apply(1, RIGHT, 100)  # off the ledge (the 1st)
    game.apply(1, LEFT, 200)  # and back on (the 2nd): half a second from now
    assert game.players[1].resets == 2 and game.players[1].lock_at == pytest.approx(700)


def test_a_kick_to_a_lower_row_restores_the_fifteen_resets():
    """RULES.md: "when the piece reaches a row lower than any it reached before, the 15
    resets are restored" — by a kick as by a fall."""
    rows = ["." * 10] * 20
    rows[15] = "...X......"
    rows[17] = "....X....."
    game = game_for()
    game.setup(1, field=field(*rows), piece=("T", 0, 3, 15))
    t = 0
    for i in range(16):
        t += 30
        game.apply(1, RIGHT if i % 2 == 0 else LEFT, t)
    player = game.players[1]
    assert player.resets > 15 and player.lowest == 15 + C.HIDDEN_ROWS
    game.apply(1, ROTATE, 510)  # the fifth kick test takes the T two rows down
    assert piece(game)[3] == 17 and player.resets == 0
    assert player.lock_at == pytest.approx(510 + 500)


def test_a_rotation_resets_the_lock_delay_too():
    game = game_for()
    game.setup(1, piece=("T", 2, 3, 17))  # pointing down, on the floor
    game.apply(1, ROTATE, 300)  # still resting on the floor
    assert game.players[1].lock_at == 800
    game.advance(790)
    assert game.view(1).field[-1] == ".........."
    game.advance(800)
    assert game.view(1).field[-1] == "....T....."


def test_events_say_which_board_and_region_changed():
    game = game_for(seats=(1, 2))
    events = game.apply(2, HARD_DROP, 0)
    assert {e.seat for e in events} == {2}
    assert {e.kind for e in events} == {"piece", "field", "score", "next"}
    nxt = next(e for e in events if e.kind == "next")
    assert nxt.to_dict() == {"kind": "next", "seat": 2, "next": game.view(2).next}
