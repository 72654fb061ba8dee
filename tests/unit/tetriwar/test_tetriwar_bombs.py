"""Bombs (RULES.md §1 "Bombs"): appearance, catching, the store, dropping, every effect."""

from __future__ import annotations

from collections import Counter

import pytest
from tetriwar_helpers import HARD_DROP, I_IN_WELL, LEFT, WELL, field, game_for, kinds, land

from games.core.rng import stream
from games.tetriwar import constants as C
from games.tetriwar.engine import IllegalIntent, Intent
from games.tetriwar.player import weighted_bomb

BOMB_CHARS = set(C.BOMB_CHARS.values())


def bombs_in(game, seat=1):
    return sorted(bomb for _, _, bomb in game.players[seat].field.bombs())


def drop(game, bomb, *, on, by=1, now=None):
    """Seat ``by`` drops ``bomb`` on seat ``on`` with the number key for ``on``, and it
    lands: seat ``on``'s next piece enters BOMB_DELAY_MS later. Returns both steps' events."""
    game.setup(by, store=[bomb])
    number = game.players[by].numbers[on]
    t = game.now if now is None else now
    events = game.apply(by, Intent("bomb", number), t)
    return events + land(game, on, t + C.BOMB_DELAY_MS)


# --- appearance -----------------------------------------------------------------------------
def test_a_completed_line_turns_a_block_lying_in_the_field_into_a_bomb():
    game = game_for(bombs="manual")
    game.setup(1, field=field("X.X.X.X...", WELL), piece=I_IN_WELL)
    game.apply(1, HARD_DROP, 0)
    rows = game.view(1).field
    # 1 line cleared; what is left is the upper row and the I's three other cells
    blocks = [(r, c) for r in range(20) for c in range(10) if rows[r][c] != "."]
    assert len(blocks) == 4 + 3
    bombs = [(r, c) for r, c in blocks if rows[r][c] in BOMB_CHARS]
    assert len(bombs) == 1
    assert bombs[0] in {(19, 0), (19, 2), (19, 4), (19, 6), (17, 9), (18, 9), (19, 9)}


def test_four_lines_make_four_bombs():
    game = game_for(bombs="manual")
    game.setup(1, field=field("XXXX.X.X..", *[WELL] * 4), piece=I_IN_WELL)
    game.apply(1, HARD_DROP, 0)
    assert len(bombs_in(game)) == 4


def test_no_more_bombs_than_blocks_left():
    game = game_for(bombs="manual")
    game.setup(1, field=field("X.X.......", *[WELL] * 4), piece=I_IN_WELL)
    game.apply(1, HARD_DROP, 0)
    assert len(bombs_in(game)) == 2


def test_no_bomb_when_the_field_is_empty():
    game = game_for(bombs="manual")
    game.setup(1, field=field(*[WELL] * 4), piece=I_IN_WELL)
    game.apply(1, HARD_DROP, 0)
    assert game.view(1).field == ("..........",) * 20


def test_no_bombs_when_bombs_are_off():
    game = game_for(bombs="off")
    game.setup(1, field=field("XXXX......", WELL), piece=I_IN_WELL)
    game.apply(1, HARD_DROP, 0)
    assert bombs_in(game) == []


def test_bomb_types_follow_the_weights_table():
    rng = stream(2024, "weights")
    draws = 40_000
    counts = Counter(weighted_bomb(rng) for _ in range(draws))
    for bomb, weight in C.BOMB_WEIGHTS.items():
        assert abs(counts[bomb] / draws - weight / 100) < 0.012, bomb


# --- catching and the store --------------------------------------------------------------------
def test_a_bomb_is_caught_when_its_line_is_cleared():
    game = game_for(bombs="manual", seats=(1, 2))
    game.setup(1, field=field("Xa........", "XXXXgXXXX.", "XXqXXXXXX."), piece=I_IN_WELL)
    events = game.apply(1, HARD_DROP, 0)
    # row by row from the top, left to right: gravity then earthquake; "a" stays in the field
    assert game.view(1).store == ("gravity", "earthquake")
    assert "store" in kinds(events)
    assert "a" in game.view(1).field[-1]


def test_the_store_keeps_twelve_oldest_first_and_loses_the_rest():
    game = game_for(bombs="manual", seats=(1, 2))
    eleven = ["drill"] * 11
    game.setup(1, field=field("XXgXXXXXX.", "XXaXXXXXX."), piece=I_IN_WELL, store=eleven)
    game.apply(1, HARD_DROP, 0)
    assert game.view(1).store == tuple(eleven) + ("gravity",)  # the add line is lost


def test_enter_drops_the_oldest_bomb_first():
    game = game_for(bombs="manual", seats=(1, 2))
    game.setup(1, store=["remove_line", "lack_of_control"])
    events = game.apply(1, Intent("bomb"), 100)
    assert game.view(1).store == ("lack_of_control",)
    assert [e.bomb for e in events if e.kind == "feed"] == ["remove_line"]
    game.apply(1, Intent("bomb"), 200)  # pressing again drops the next one
    assert game.view(1).store == ()
    assert game.view(2).feed[-1].bomb == "lack_of_control"


# --- aiming ------------------------------------------------------------------------------------
def test_enter_drops_a_green_bomb_on_oneself():
    game = game_for(bombs="manual", seats=(1, 2, 3))
    game.setup(1, store=["demolition"])
    events = game.apply(1, Intent("bomb"), 100)
    feed = [e for e in events if e.kind == "feed"]
    assert [(e.seat, e.sender, e.from_seat, e.bomb) for e in feed] == [(1, 1, 1, "demolition")]


def test_enter_drops_a_red_bomb_on_the_leader_three_times_as_often():
    hits = Counter()
    for seed in range(600):
        game = game_for(bombs="manual", seats=(1, 2, 3, 4), seed=seed)
        game.setup(3, score=100)
        game.setup(1, store=["drill"])
        events = game.apply(1, Intent("bomb"), 100)
        hits[next(e.seat for e in events if e.kind == "feed")] += 1
    assert set(hits) == {2, 3, 4}  # never oneself
    assert abs(hits[3] / 600 - 3 / 5) < 0.07
    assert abs(hits[2] / 600 - 1 / 5) < 0.06


def test_in_pairs_enter_never_aims_a_red_bomb_at_the_partner():
    targets = set()
    for seed in range(200):
        game = game_for(bombs="manual", seats=(1, 2, 3, 4), pairs=True, seed=seed)
        game.setup(2, score=1000)  # even when the partner leads
        game.setup(1, store=["add_line"])
        events = game.apply(1, Intent("bomb"), 100)
        targets.add(next(e.seat for e in events if e.kind == "feed"))
    assert targets == {3, 4}


def test_keys_number_players_from_oneself_in_seat_order():
    game = game_for(bombs="manual", seats=(1, 2, 3, 4))
    assert game.players[3].numbers == {3: 1, 4: 2, 1: 3, 2: 4}
    assert game.players[1].numbers == {1: 1, 2: 2, 3: 3, 4: 4}
    game.setup(3, store=["remove_line"] * 4)
    for key, seat in [(1, 3), (2, 4), (3, 1), (4, 2)]:
        events = game.apply(3, Intent("bomb", key), 100)
        assert next(e.seat for e in events if e.kind == "feed") == seat


def test_the_feed_shows_the_dropper_as_the_receiver_numbers_players():
    game = game_for(bombs="manual", seats=(1, 2, 4))
    drop(game, "remove_line", by=2, on=4)  # seat 4 numbers: 4 → 1, 1 → 2, 2 → 3
    entry = game.view(4).feed[-1]
    assert (entry.sender, entry.bomb, entry.from_seat) == (3, "remove_line", 2)


def test_any_bomb_may_be_dropped_on_anyone_with_the_keys():
    game = game_for(bombs="manual", seats=(1, 2))
    game.setup(1, field=field("XXXXXX....", "X.X.X.X.X."))
    drop(game, "add_line", by=1, on=1)  # a red bomb on oneself
    assert game.view(1).field[-1].count("G") == 9


def test_a_red_bomb_with_nobody_to_aim_at():
    game = game_for(bombs="manual")
    game.setup(1, store=["drill"])
    with pytest.raises(IllegalIntent) as error:
        game.apply(1, Intent("bomb"), 100)
    assert error.value.code == "NO_OPPONENT"
    assert game.view(1).store == ("drill",)


def test_automatic_mode_drops_a_caught_bomb_at_once():
    game = game_for(bombs="automatic", seats=(1, 2))
    game.setup(2, field=field("XXXXX....."))
    game.setup(1, field=field("X.X.X.X...", "XXXXaXXXX."), piece=I_IN_WELL)
    events = game.apply(1, HARD_DROP, 0)
    assert game.view(1).store == ()
    feed = [e for e in events if e.kind == "feed"]
    assert [(e.seat, e.sender, e.bomb) for e in feed] == [(2, 2, "add_line")]
    assert game.view(2).field[-1] == "XXXXX....."  # announced: it lands at seat 2's next piece
    land(game, 2, C.BOMB_DELAY_MS)
    assert game.view(2).field[-2] == "XXXXX....."
    assert game.view(2).field[-1].count("G") == 9


def test_automatic_mode_drops_green_bombs_on_oneself():
    game = game_for(bombs="automatic", seats=(1, 2))
    game.setup(1, field=field("X.X.X.X...", "XXXXcXXXX."), piece=I_IN_WELL)
    events = game.apply(1, HARD_DROP, 0)
    assert [(e.seat, e.bomb) for e in events if e.kind == "feed"] == [(1, "remove_line")]


# --- effects ------------------------------------------------------------------------------------
def test_add_line_pushes_a_garbage_row_with_one_hole_in_from_the_bottom():
    game = game_for(bombs="manual", seats=(1, 2))
    game.setup(2, field=field("...TT.....", "XX.XXXXXXX"))
    events = drop(game, "add_line", on=2)
    bottom = game.view(2).field[-3:]
    assert bottom[:2] == ("...TT.....", "XX.XXXXXXX")
    assert bottom[2].count("G") == 9 and bottom[2].count(".") == 1
    assert next(e for e in events if e.kind == "field").rows == (17, 18, 19)


def test_add_line_holes_are_random():
    holes = set()
    for seed in range(40):
        game = game_for(bombs="manual", seats=(1, 2), seed=seed)
        drop(game, "add_line", on=2)
        holes.add(game.view(2).field[-1].index("."))
    assert len(holes) > 5


def test_blocks_pushed_out_of_the_top_top_the_player_out():
    game = game_for(bombs="manual", seats=(1, 2))
    game.setup(2, field=field(*["X........."] * 22))
    events = drop(game, "add_line", on=2)
    assert game.view(2).eliminations == 1
    assert game.view(2).field == ("..........",) * 20
    assert "eliminated" in kinds(events)


def test_add_line_lands_under_the_locked_piece_never_under_a_falling_one():
    # (rules version 2 lifted a falling piece out of the way; now a bomb lands as the next
    # piece enters, after the last one locked: the falling piece is never moved by it)
    game = game_for(bombs="manual", seats=(1, 2))
    game.setup(2, piece=("O", 0, 3, 18))
    game.setup(1, store=["add_line"])
    game.apply(1, Intent("bomb", 2), 0)
    assert game.view(2).piece.y == 18 and game.view(2).field[-1] == ".........."
    game.apply(2, HARD_DROP, 400)  # the next piece enters before 500 ms: nothing lands yet
    assert game.view(2).field[-2:] == ("....OO....", "....OO....")
    events = game.apply(2, HARD_DROP, 600)  # the first piece at or after 500 ms: it lands
    assert "landed" in kinds(events)
    assert game.view(2).field[-2][4:6] == "OO" and game.view(2).field[-1].count("G") == 9


def test_earthquake_shifts_every_row_by_two_columns_at_most_with_wrapping():
    moved = False
    for seed in range(10):
        game = game_for(bombs="manual", seats=(1, 2), seed=seed)
        rows = ("X.X.......", "XX.......X", "X..XX..X..", ".XXXXX.XX.")
        game.setup(2, field=field(*rows))
        drop(game, "earthquake", on=2)
        after = game.view(2).field[-4:]
        for before, now in zip(rows, after, strict=True):
            assert any(now == before[-k:] + before[:-k] for k in range(-2, 3)), (before, now)
        moved = moved or after != rows
    assert moved


def test_remove_bombs_defuses_the_field_and_empties_the_store():
    game = game_for(bombs="manual", seats=(1, 2))
    game.setup(2, field=field("a.g.......", "XXXXr.XXXX"), store=["drill", "gravity"])
    events = drop(game, "remove_bombs", on=2)
    assert game.view(2).field[-2:] == ("X.X.......", "XXXXX.XXXX")
    assert game.view(2).store == ()
    assert "store" in kinds(events)


def test_drill_removes_ten_random_blocks():
    game = game_for(bombs="manual", seats=(1, 2))
    before = field("XXXXXX.XXX", "XXXXX.XXXX", "XXXX.XXXXX")
    game.setup(2, field=before)
    drop(game, "drill", on=2)
    after = game.players[2].field
    assert after.block_count() == 27 - 10
    assert set(after.blocks()) < set(before.blocks())


def test_drill_on_fewer_than_ten_blocks_removes_them_all():
    game = game_for(bombs="manual", seats=(1, 2))
    game.setup(2, field=field("X.X.X.X..."))
    drop(game, "drill", on=2)
    assert game.players[2].field.block_count() == 0


def test_lack_of_control_swaps_left_and_right_for_five_seconds():
    game = game_for(bombs="manual", seats=(1, 2))
    game.setup(2, piece=("T", 0, 3, 5))
    events = drop(game, "lack_of_control", on=2, now=1000)  # lands at 1500
    control = next(e for e in events if e.kind == "control")
    assert (control.seat, control.reversed, control.until) == (2, True, 6500)  # 5 s from landing
    game.apply(2, LEFT, 1600)
    assert game.view(2).piece.x == 4
    assert game.view(2).reversed_until == 6500
    events = game.advance(6500)
    assert [(e.kind, e.reversed) for e in events if e.kind == "control"] == [("control", False)]
    game.apply(2, LEFT, 6600)
    assert game.view(2).piece.x == 3


def test_a_second_lack_of_control_restarts_the_five_seconds():
    game = game_for(bombs="manual", seats=(1, 2))
    drop(game, "lack_of_control", on=2, now=1000)  # lands at 1500: until 6500
    drop(game, "lack_of_control", on=2, now=4000)  # lands at 4500: 5 s from then
    assert game.view(2).reversed_until == 9500
    game.advance(9400)
    assert game.view(2).reversed_until == 9500
    game.advance(9500)
    assert game.view(2).reversed_until is None


def test_gravity_drops_every_block_straight_down_its_column():
    game = game_for(bombs="manual", seats=(1, 2))
    game.setup(
        2, field=field("TT........", ".T.I......", "...I......", "X.X.......", "..X.......", "X.........")
    )
    drop(game, "gravity", on=2)
    assert game.view(2).field[-4:] == (
        "..........",
        "T.........",
        "XTXI......",
        "XTXI......",
    )


def test_remove_line_removes_the_bottom_row():
    game = game_for(bombs="manual", seats=(1, 2))
    game.setup(2, field=field("..Z.......", ".ZZ.......", "XXXX.XXXXX"))
    events = drop(game, "remove_line", on=2)
    assert game.view(2).field[-3:] == ("..........", "..Z.......", ".ZZ.......")
    assert next(e for e in events if e.kind == "field").rows == (17, 18, 19)


def test_demolition_removes_the_bottom_four_rows():
    game = game_for(bombs="manual", seats=(1, 2))
    game.setup(2, field=field("O.........", "G.G.......", "X.X.X.....", "XXXX.X....", "X.X.X.X.X."))
    drop(game, "demolition", on=2)
    assert game.view(2).field[-2:] == ("..........", "O.........")


def test_lines_an_effect_completes_go_at_once_without_credit():
    game = game_for(bombs="manual", seats=(1, 2))
    game.setup(
        2,
        field=field("X.........", "....X.....", "....X.....", "XXaX.XXXXX", "XXXX.XXXXX"),
        score=7,
        lines=3,
    )
    events = drop(game, "gravity", on=2)
    # gravity fills both holes in column 4: the two completed rows vanish, their bomb is lost
    assert game.view(2).field[-2:] == ("..........", "X.........")
    assert (game.view(2).score, game.view(2).lines) == (7, 3)
    assert game.view(2).store == ()
    assert bombs_in(game, 2) == []  # no new bombs either
    assert "score" not in kinds(events)


def test_a_bomb_never_lands_on_a_player_who_left():
    game = game_for(bombs="manual", seats=(1, 2, 3))
    game.forfeit(2, 500)
    game.setup(1, store=["drill"])
    with pytest.raises(IllegalIntent) as error:
        game.apply(1, Intent("bomb", 2), 1000)
    assert error.value.code == "TARGET_LEFT"
    for _ in range(20):
        game.setup(1, store=["drill"])
        events = game.apply(1, Intent("bomb"), 1000)
        assert next(e.seat for e in events if e.kind == "feed") == 3
