"""Every balance number of RULES.md §1, as the constants module holds it."""

from __future__ import annotations

import pytest

from games.tetriwar import constants as C

RULES_GRAVITY = {
    1: 1.000,
    2: 0.793,
    3: 0.618,
    4: 0.473,
    5: 0.355,
    6: 0.262,
    7: 0.190,
    8: 0.135,
    9: 0.094,
    10: 0.064,
}


@pytest.mark.parametrize("level", range(1, 11))
def test_gravity_formula_matches_the_rules_table(level):
    assert C.gravity_seconds(level) == (0.8 - (level - 1) * 0.007) ** (level - 1)
    assert round(C.GRAVITY[level], 3) == RULES_GRAVITY[level]
    assert C.GRAVITY_MS[level] == round(1000 * C.gravity_seconds(level)) == round(1000 * RULES_GRAVITY[level])
    assert type(C.GRAVITY_MS[level]) is int


def test_gravity_in_ms_is_plan31s_table():
    assert list(C.GRAVITY_MS.values()) == [1000, 793, 618, 473, 355, 262, 190, 135, 94, 64]


@pytest.mark.parametrize("level", range(1, 11))
def test_soft_drop_is_twenty_times_gravity_and_at_least_a_row_per_50_ms(level):
    assert C.SOFT_DROP[level] == min(C.GRAVITY[level] / 20, 0.050)
    assert C.SOFT_DROP[level] <= 0.050
    for speed in range(20, 61):
        assert C.SOFT_DROP_MS[speed][level] == min(round(C.GRAVITY_MS[level] / 20), round(1000 / speed))
    assert C.SOFT_DROP_MS[20][level] <= 50


def test_field_and_timing_numbers():
    assert (C.WIDTH, C.VISIBLE_ROWS, C.HIDDEN_ROWS, C.HEIGHT) == (10, 20, 2, 22)
    assert C.PREVIEW == 3
    assert C.LOCK_DELAY == 0.5 and C.MAX_LOCK_RESETS == 15
    assert C.LOCK_DELAY_MS == 500
    assert (C.DAS, C.ARR) == (0.170, 0.050)
    assert C.MAX_LEVEL == 10


def test_score_numbers():
    assert C.LINE_POINTS == {1: 10, 2: 25, 3: 40, 4: 60}
    assert C.PIECE_POINTS == 1


def test_option_ranges():
    assert C.MINUTES_RANGE == (1, 15) and C.MINUTES_DEFAULT == 3
    assert C.START_LEVEL_RANGE == (1, 9)
    assert C.LINES_PER_LEVEL_RANGE == (4, 10)
    assert C.BOMB_MODES == ("off", "manual", "automatic")
    assert C.PAIRS == ((1, 2), (3, 4))


def test_bomb_weights_are_one_table_as_the_rules_give_them():
    assert C.BOMB_WEIGHTS == {
        "add_line": 25,
        "earthquake": 12,
        "remove_bombs": 12,
        "drill": 15,
        "lack_of_control": 8,
        "gravity": 6,
        "remove_line": 15,
        "demolition": 7,
    }
    assert C.RED_BOMBS == {"add_line", "earthquake", "remove_bombs", "drill", "lack_of_control"}
    assert C.GREEN_BOMBS == {"gravity", "remove_line", "demolition"}


def test_bomb_numbers():
    assert C.STORE_SIZE == 12
    assert C.LACK_OF_CONTROL_SECONDS == 5.0 and C.LACK_OF_CONTROL_MS == 5000
    assert C.BOMB_DELAY_MS == 500 and C.MAX_LAG_MS == 400 < C.BOMB_DELAY_MS
    assert C.RULES_VERSION == 4
    assert C.DRILL_BLOCKS == 10 and C.DEMOLITION_ROWS == 4 and C.EARTHQUAKE_SHIFT == 2
    assert (C.ENTER_WEIGHT_LEADER, C.ENTER_WEIGHT_OTHER) == (3, 1)


def test_every_field_character_is_distinct():
    chars = list(C.KINDS) + [C.GARBAGE, C.PLAIN, C.EMPTY] + list(C.BOMB_CHARS.values())
    assert len(chars) == len(set(chars)) == 7 + 3 + 8
    assert set(C.BOMB_CHARS) == set(C.BOMB_WEIGHTS)
