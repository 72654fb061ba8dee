"""RULES.md §4: the cards, and the attack table of every clear."""

from __future__ import annotations

import pytest

from games.blockkiller import constants as C
from games.blockkiller.cards import (
    BLOCK_KIND,
    GARBAGE_KIND,
    card_text,
    clear_attack,
    clear_value,
    combo_bonus,
    garbage_row,
    is_special,
    row_text,
)


def test_there_are_90_block_cards_twelve_of_each_tetromino_and_six_monominoes():
    assert len(BLOCK_KIND) == 90
    for kind in "ZSJLTOI":
        assert list(BLOCK_KIND.values()).count(kind) == 12
    assert list(BLOCK_KIND.values()).count("M") == 6


@pytest.mark.parametrize(("row", "count"), [
    ("X" * 0 + ".XXXXXXXXX", 10), ("X.XXXXXXXX", 10), ("XX.XXXXXXX", 10), ("XXX.XXXXXX", 10),
    ("XXXX.XXXXX", 10),
    ("..XXXXXXXX", 6), ("X..XXXXXXX", 6), ("XX..XXXXXX", 6), ("XXX..XXXXX", 6), ("XXXX..XXXX", 3),
    ("...XXXXXXX", 4), ("X...XXXXXX", 4), ("XX...XXXXX", 4), ("XXX...XXXX", 4),
    ("XXX....XXX", 10),
    ("X.X.X.X.X.", 8),
])
def test_the_111_garbage_cards_are_as_catalogued(row, count):
    rows = [card_text(card) for card in GARBAGE_KIND]
    assert len(rows) == 111
    assert rows.count(row) == count


def test_a_flipped_garbage_card_is_mirrored_and_two_checkerboards_one_flipped_make_a_solid_row():
    h0 = next(c for c, k in GARBAGE_KIND.items() if k == "h0")
    assert row_text(garbage_row(h0, flipped=True)) == "XXXXXXXXX."
    ck = [c for c, k in GARBAGE_KIND.items() if k == "ck"]
    assert garbage_row(ck[0]) | garbage_row(ck[1], flipped=True) == C.FULL_ROW
    assert garbage_row(ck[0]) | garbage_row(ck[1]) != C.FULL_ROW


@pytest.mark.parametrize(("lines", "spin", "attack", "offset"), [
    (1, False, 0, 0), (2, False, 1, 0), (3, False, 2, 0), (4, False, 4, 0),
    (1, True, 2, 0), (2, True, 4, 0), (3, True, 6, 0),
    (5, False, 4, 1), (7, False, 4, 3), (4, True, 6, 1), (6, True, 6, 3),
])
def test_attack_per_clear_and_offset_beyond_four_or_three_lines(lines, spin, attack, offset):
    assert clear_value(lines, spin) == (attack, offset)


@pytest.mark.parametrize(("lines", "spin", "attack"), [
    (1, False, 1), (2, False, 2), (3, False, 4), (4, False, 6), (5, False, 9), (6, False, 10),
    (1, True, 2), (2, True, 5), (3, True, 8), (4, True, 12), (5, True, 16),
])
def test_no_mercy_attack_and_extra_lines_attack_directly(lines, spin, attack):
    assert clear_value(lines, spin, no_mercy=True) == (attack, 0)


@pytest.mark.parametrize(("combo", "bonus"), [(1, 0), (2, 1), (3, 1), (4, 1), (5, 2), (6, 2), (7, 2), (12, 2)])
def test_combo_bonus(combo, bonus):
    assert combo_bonus(combo) == bonus


@pytest.mark.parametrize(("combo", "bonus"), [(1, 0), (2, 1), (3, 2), (4, 2), (5, 3), (6, 3), (7, 4), (11, 4)])
def test_no_mercy_combo_bonus(combo, bonus):
    assert combo_bonus(combo, no_mercy=True) == bonus


def test_four_lines_and_spins_are_special_and_back_to_back_adds_one():
    assert is_special(4, False) and is_special(1, True) and not is_special(3, False)
    assert clear_attack(4, False, combo=1, back_to_back=True) == (5, 0)
    assert clear_attack(2, True, combo=3, back_to_back=True) == (4 + 1 + 1, 0)
    assert clear_attack(0, True, combo=0, back_to_back=True) == (0, 0)
