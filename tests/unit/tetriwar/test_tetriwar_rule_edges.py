"""RULES.md §1 facts that the other TetriWar tests did not pin yet.

Each test names the rule it checks. Boundaries a rules lawyer would try come first:
kicks against walls and floor, the 15th and 16th lock reset and their restoring on a
new lowest row, the exact line that raises a level, a full bomb store, bombs and
partners that left, ties when the time runs out.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from tetriwar_helpers import (
    HARD_DROP,
    I_IN_WELL,
    LEFT,
    RIGHT,
    ROTATE,
    WELL,
    field,
    game_for,
    kinds,
    land,
    press,
)

from games.core.protocol import IllegalIntent
from games.tetriwar import constants as C
from games.tetriwar.engine import Field, Intent, Termination

EMPTY_ROW = "." * C.WIDTH


def piece(game, seat=1):
    view = game.view(seat).piece
    return view.kind, view.rotation, view.x, view.y


# --- Rotation: "the Super Rotation System kick tests (JLSTZ and I tables); if all five
# tests fail, nothing happens" -------------------------------------------------------------
# The Guideline's states, drawn by hand (not taken from games.core.srs), and its kick
# tables as (x, y) with y up, for one clockwise turn from each state.
GUIDELINE_STATES = {
    "I": ("..../IIII/..../....", "..I./..I./..I./..I.", "..../..../IIII/....", ".I../.I../.I../.I.."),
    "J": ("J../JJJ/...", ".JJ/.J./.J.", ".../JJJ/..J", ".J./.J./JJ."),
    "L": ("..L/LLL/...", ".L./.L./.LL", ".../LLL/L..", "LL./.L./.L."),
    "S": (".SS/SS./...", ".S./.SS/..S", ".../.SS/SS.", "S../SS./.S."),
    "Z": ("ZZ./.ZZ/...", "..Z/.ZZ/.Z.", ".../ZZ./.ZZ", ".Z./ZZ./Z.."),
    "T": (".T./TTT/...", ".T./.TT/.T.", ".../TTT/.T.", ".T./TT./.T."),
    "O": (".OO/.OO/...",) * 4,
}
GUIDELINE_JLSTZ = {
    0: ((0, 0), (-1, 0), (-1, 1), (0, -2), (-1, -2)),
    1: ((0, 0), (1, 0), (1, -1), (0, 2), (1, 2)),
    2: ((0, 0), (1, 0), (1, 1), (0, -2), (1, -2)),
    3: ((0, 0), (-1, 0), (-1, -1), (0, 2), (-1, 2)),
}
GUIDELINE_I = {
    0: ((0, 0), (-2, 0), (1, 0), (-2, -1), (1, 2)),
    1: ((0, 0), (-1, 0), (2, 0), (-1, 2), (2, -1)),
    2: ((0, 0), (2, 0), (-1, 0), (2, 1), (-1, -2)),
    3: ((0, 0), (1, 0), (-2, 0), (1, -2), (-2, 1)),
}


def _cells(kind, rotation):
    rows = GUIDELINE_STATES[kind][rotation].split("/")
    return [(r, c) for r, line in enumerate(rows) for c, char in enumerate(line) if char != "."]


def _free(rows, kind, rotation, x, y):
    """Whether the piece fits with its box at column x, visible row y (hidden rows empty,
    nothing above them)."""
    for r, c in _cells(kind, rotation):
        row, col = y + r, x + c
        if not 0 <= col < C.WIDTH or not -C.HIDDEN_ROWS <= row < C.VISIBLE_ROWS:
            return False
        if row >= 0 and rows[row][col] != ".":
            return False
    return True


def _guideline_turn(rows, kind, rotation, x, y):
    table = ((0, 0),) if kind == "O" else (GUIDELINE_I if kind == "I" else GUIDELINE_JLSTZ)[rotation]
    for dx, dy in table:
        if _free(rows, kind, (rotation + 1) % 4, x + dx, y - dy):
            return kind, (rotation + 1) % 4, x + dx, y - dy
    return kind, rotation, x, y


def test_every_turn_matches_the_guideline_srs_on_random_fields():
    # RULES.md §1 "Rotation": SRS kicks, JLSTZ and I tables; all five fail: nothing happens
    rng = random.Random(2024)
    checked = kicked = unchanged = 0
    while checked < 1500:
        density = rng.choice((0.1, 0.3, 0.5, 0.7))
        rows = [
            "".join("X" if row > 4 and rng.random() < density else "." for _ in range(10))
            for row in range(20)
        ]
        rows = [WELL if row == "X" * 10 else row for row in rows]
        kind, rotation = rng.choice("IJLSZTO"), rng.randrange(4)
        x, y = rng.randrange(-3, 10), rng.randrange(-2, 20)
        if not _free(rows, kind, rotation, x, y):
            continue
        game = game_for()
        game.setup(1, field=Field([EMPTY_ROW] * C.HIDDEN_ROWS + rows), piece=(kind, rotation, x, y))
        game.apply(1, ROTATE, 0)
        expected = _guideline_turn(rows, kind, rotation, x, y)
        assert piece(game) == expected, (kind, rotation, x, y, rows)
        checked += 1
        kicked += expected[2:] != (x, y)
        unchanged += expected[1] == rotation and kind != "O"
    assert kicked > 100 and unchanged > 10  # the kick tests and the "nothing happens" case both ran


@pytest.mark.parametrize(
    ("start", "expected", "why"),
    [
        (("I", 1, -2, 5), ("I", 2, 0, 5), "R→2 at the left wall: tests 1, 2 fail, test 3 (+2, 0)"),
        (("I", 3, 8, 5), ("I", 0, 6, 5), "L→0 at the right wall: tests 1, 2 fail, test 3 (−2, 0)"),
        (("I", 0, 3, 18), ("I", 1, 4, 16), "0→R lying on the floor: test 5 (+1, +2) lifts it two rows"),
        (("I", 2, 3, 17), ("I", 3, 5, 16), "2→L lying on the floor: test 4 (+2, +1)"),
        (("J", 3, 8, 5), ("J", 0, 7, 5), "L→0 at the right wall: test 2 (−1, 0)"),
        (("L", 1, -1, 5), ("L", 2, 0, 5), "R→2 at the left wall: test 2 (+1, 0)"),
    ],
)
def test_i_and_jlstz_kicks_against_walls_and_floor(start, expected, why):
    # RULES.md §1 "Rotation": the I table for the I, the JLSTZ table for the others
    game = game_for()
    game.setup(1, piece=start)
    game.apply(1, ROTATE, 100)
    assert piece(game) == expected, why


def test_the_o_piece_turns_without_moving():
    # RULES.md §1 "Rotation": the O has no kicks and its cells never move
    game = game_for()
    game.setup(1, piece=("O", 0, 3, 5))
    cells = game.view(1).piece.cells
    for _ in range(4):
        game.apply(1, ROTATE, 100)
        assert game.view(1).piece.cells == cells


# --- Lock delay: "0.5 s ..., reset by a successful move or rotation, at most 15 resets;
# when the piece reaches a row lower than any it reached before, the 15 resets are
# restored" -------------------------------------------------------------------------------------
def test_a_failed_move_or_turn_neither_resets_the_lock_delay_nor_uses_a_reset():
    # RULES.md §1: the lock delay is reset by a *successful* move or rotation
    game = game_for()
    walls = field(*["XXXX.XXXXX"] * 8)
    game.setup(1, field=walls, piece=("I", 1, 2, 16))  # a vertical I deep in a one-wide well
    player = game.players[1]
    assert player.lock_at == 500
    game.apply(1, ROTATE, 300)  # all five tests fail
    game.apply(1, LEFT, 350)
    game.apply(1, RIGHT, 400)
    assert (player.lock_at, player.resets) == (500, 0)
    game.advance(499)
    assert game.view(1).lines == 0
    game.advance(500)  # locked when the first touch-down said: it fills the well's four rows
    assert game.view(1).lines == 4


def test_the_fifteen_resets_are_restored_when_the_piece_reaches_a_new_lowest_row():
    # RULES.md §1 (the latest change): a piece that slides off a ledge is not punished
    # a ledge two rows high in columns 0–2; the O rests on it in columns 1–2, rows 16–17
    game = game_for()
    game.setup(1, field=field("XXX.......", "XXX......."), piece=("O", 0, 0, 16))
    player = game.players[1]
    t = 0
    for step in range(15):  # 15 moves along the ledge, each a reset
        t += 100
        game.apply(1, RIGHT if step % 2 == 0 else LEFT, t)
        assert player.lock_at == pytest.approx(t + 500)
    assert player.resets == 15
    spent = player.lock_at
    game.apply(1, LEFT, t + 50)  # the 16th move moves, but no longer resets
    assert piece(game)[2] == 0 and player.lock_at == spent
    for dt in (60, 70, 80):  # slides off the ledge, to columns 4–5
        game.apply(1, RIGHT, t + dt)
    assert piece(game)[2] == 3 and player.lock_at == float("inf")

    game.advance(player.fall_at)  # one row lower than it ever was: 15 resets again
    assert piece(game)[3] == 17 and player.resets == 0
    game.advance(player.fall_at)  # onto the floor
    assert piece(game)[3] == 18
    t = game.now
    for step in range(15):  # 15 more resets on the floor
        t += 100
        game.apply(1, LEFT if step % 2 == 0 else RIGHT, t)
        assert player.lock_at == pytest.approx(t + 500)
    spent = player.lock_at
    game.apply(1, RIGHT, t + 100)  # and a 16th that does not reset
    assert player.lock_at == spent
    game.advance(spent)
    assert game.view(1).field[-2:] == ("XXX.OO....", "XXX.OO....")


def test_a_new_piece_has_fifteen_fresh_resets():
    # RULES.md §1: the 15 resets are each piece's own
    game = game_for()
    game.setup(1, piece=("O", 0, 3, 18), next=["O"])
    player = game.players[1]
    for step in range(15):
        game.apply(1, LEFT if step % 2 == 0 else RIGHT, 100 + step * 10)
    assert player.resets == 15
    game.apply(1, HARD_DROP, 300)
    assert player.resets == 0


# --- Score, lines, levels ---------------------------------------------------------------------
@pytest.mark.parametrize("lines_per_level", range(4, 11))
def test_the_level_goes_up_on_exactly_the_lines_per_level_th_line(lines_per_level):
    # RULES.md §1: "every lines per level (option 4–10) lines the player goes up one level"
    below = game_for(lines_per_level=lines_per_level, bombs="off")
    below.setup(1, field=field(WELL), piece=I_IN_WELL, level_lines=lines_per_level - 2)
    below.apply(1, HARD_DROP, 0)
    assert (below.view(1).level, below.players[1].level_lines) == (1, lines_per_level - 1)

    at = game_for(lines_per_level=lines_per_level, bombs="off")
    at.setup(1, field=field(WELL), piece=I_IN_WELL, level_lines=lines_per_level - 1)
    at.apply(1, HARD_DROP, 0)
    assert (at.view(1).level, at.players[1].level_lines) == (2, 0)
    assert at.view(1).score == 10 * 1 + 1 * 1  # scored at the level of the moment of the clear


def test_from_start_level_nine_the_next_level_is_the_last():
    # RULES.md §1: start level 1–9, "level 10 is the highest"
    game = game_for(start_level=9, lines_per_level=4, bombs="off")
    for turn in range(3):  # 12 lines: one level up, then no more
        game.setup(1, field=field(*[WELL] * 4), piece=I_IN_WELL)
        game.apply(1, HARD_DROP, turn * 100)
    assert game.view(1).level == 10 and game.view(1).lines == 12
    assert game.view(1).score == (60 * 9 + 9) + 2 * (60 * 10 + 10)


def test_two_lines_that_are_not_next_to_each_other_are_one_two_line_clear():
    # RULES.md §1: "Points for one clear": 2 lines 25 × level, whatever rows they are
    game = game_for(start_level=3, bombs="off")
    game.setup(1, field=field(WELL, "XXXXXXXX..", WELL), piece=I_IN_WELL)
    game.apply(1, HARD_DROP, 0)
    assert game.view(1).score == 25 * 3 + 3 and game.view(1).lines == 2
    assert game.view(1).field[-2:] == (".........I", "XXXXXXXX.I")


def test_soft_dropping_scores_nothing_but_the_piece():
    # RULES.md §1: points come from clears and from pieces placed, nothing else
    game = game_for(start_level=2)
    game.setup(1, piece=("T", 0, 3, 0))
    press(game, 1, "soft_drop_on", now=0)
    while game.players[1].bag.dealt < 2:  # until the T locks and the next piece comes
        game.advance(game.next_deadline())
    assert game.view(1).score == 1 * 2


def test_a_player_topped_out_starts_again_at_the_start_level_not_level_one():
    # RULES.md §1: "the level returns to the start level"
    game = game_for(start_level=7, lines_per_level=4)
    game.setup(1, field=field(*["...X......"] * 20), piece="T", level=10, level_lines=2)
    game.apply(1, HARD_DROP, 0)
    assert game.view(1).eliminations == 1
    assert (game.view(1).level, game.players[1].level_lines) == (7, 0)


# --- Field and pieces -------------------------------------------------------------------------
def test_a_players_pieces_come_in_whole_bags_of_seven():
    # RULES.md §1: "Next piece from a 7-bag (each bag a shuffle of the 7 tetrominoes)"
    game = game_for(seats=(1, 2), seed=11)
    for seat in (1, 2):
        dealt = []
        for turn in range(21):
            dealt.append(game.view(seat).piece.kind)
            game.setup(seat, field=Field())  # room for every piece
            game.apply(seat, HARD_DROP, turn * 10)
        for start in range(0, 21, 7):
            assert sorted(dealt[start : start + 7]) == sorted("IOJLSZT"), (seat, dealt)


# --- Bombs --------------------------------------------------------------------------------------
def test_a_bomb_caught_with_a_full_store_is_lost():
    # RULES.md §1: "caught bombs go to the player's store, oldest first, at most 12 (more are lost)"
    game = game_for(bombs="manual", seats=(1, 2))
    twelve = ["drill"] * 12
    game.setup(1, field=field("XXgXXXXXX."), piece=I_IN_WELL, store=twelve)
    events = game.apply(1, HARD_DROP, 0)
    assert game.view(1).store == tuple(twelve)
    assert "store" not in kinds(events)
    # the gravity bomb is gone with its line; the one bomb in the field is the cleared
    # line's new one, made of the I's cells left in column 9
    assert [col for _, col, _ in game.players[1].field.bombs()] == [9]


def test_a_new_bomb_never_replaces_a_bomb_already_lying_in_the_field():
    # RULES.md §1: a *block* lying in the field turns into a bomb; where none is, none is made
    game = game_for(bombs="manual", seats=(1, 2))
    game.setup(1, field=field("a.g.......", "XXXXXX...."), piece=("I", 0, 6, 0))
    game.apply(1, HARD_DROP, 0)  # the whole I goes with the line: only the two bombs are left
    assert game.view(1).lines == 1
    assert game.view(1).field[-1] == "a.g......."
    assert game.players[1].field.block_count() == 2


def test_automatic_bombs_never_land_on_a_player_who_left():
    # RULES.md §1: automatic mode aims "as Enter does", at opponents still in the game
    hits = Counter()
    for seed in range(40):
        game = game_for(bombs="automatic", seats=(1, 2, 3), seed=seed)
        game.forfeit(2, 0)
        game.setup(1, field=field("X.X.X.X...", "XXXXrXXXX."), piece=I_IN_WELL)
        events = game.apply(1, HARD_DROP, 100)
        hits.update(e.seat for e in events if e.kind == "feed")
    assert hits == Counter({3: 40})


def test_in_pairs_with_a_partner_out_enter_aims_at_the_opponents_still_playing():
    # RULES.md §1: pairs 1 + 2 against 3 + 4; Enter aims red bombs at opponents only
    game = game_for(bombs="manual", seats=(1, 2, 3, 4), pairs=True)
    game.forfeit(1, 0)
    assert not game.finished  # the pair still has a player
    assert game.opponents(3) == (2,) and game.opponents(2) == (3, 4)
    for turn in range(10):
        game.setup(3, store=["drill"])
        events = game.apply(3, Intent("bomb"), 100 + turn * 10)
        assert [e.seat for e in events if e.kind == "feed"] == [2]
    # the partner who stayed: Enter drops green on oneself, red on 3 or 4
    game.setup(2, store=["gravity", "add_line"])
    events = game.apply(2, Intent("bomb"), 300)
    assert [e.seat for e in events if e.kind == "feed"] == [2]
    events = game.apply(2, Intent("bomb"), 310)
    assert [e.seat for e in events if e.kind == "feed"][0] in (3, 4)
    # and the key of the partner who left drops nothing
    game.setup(2, store=["remove_line"])
    assert game.players[2].numbers[1] == 4
    with pytest.raises(IllegalIntent) as error:
        game.apply(2, Intent("bomb", 4), 400)
    assert error.value.code == "TARGET_LEFT"
    assert game.view(2).store == ("remove_line",)


def test_a_second_hidden_row_block_is_pushed_up_without_a_top_out():
    # RULES.md §1 add line: only blocks pushed out of the top (of the hidden rows) top out
    game = game_for(bombs="manual", seats=(1, 2))
    game.setup(2, field=field(*["X........."] * 21), piece=("O", 0, 6, 5))  # rows 1–21 hold a block
    game.setup(1, store=["add_line"])
    game.apply(1, Intent("bomb", 2), 0)
    land(game, 2, C.BOMB_DELAY_MS)
    assert game.view(2).eliminations == 0
    assert game.players[2].field.text[0] == "X........."  # now in the top hidden row
    assert game.view(2).field[-1].count("G") == 9


def test_remove_line_and_demolition_on_a_field_with_fewer_rows_leave_it_empty():
    # RULES.md §1: remove line removes the bottom row, demolition the bottom four
    for bomb, rows in (("remove_line", 1), ("demolition", 4)):
        game = game_for(bombs="manual", seats=(1, 2))
        game.setup(2, field=field(*["X.X.X.X.X."] * rows))
        game.setup(1, store=[bomb])
        game.apply(1, Intent("bomb", 2), 0)
        land(game, 2, C.BOMB_DELAY_MS)
        assert game.players[2].field.is_empty(), bomb


def test_remove_bombs_defuses_bombs_in_the_hidden_rows_too():
    # RULES.md §1: "every bomb in the target's field becomes a plain block"
    game = game_for(bombs="manual", seats=(1, 2))
    game.setup(2, field=field("q.........", *["X........."] * 21))
    game.setup(1, store=["remove_bombs"])
    game.apply(1, Intent("bomb", 2), 0)
    land(game, 2, C.BOMB_DELAY_MS)
    assert game.players[2].field.bombs() == []
    assert game.players[2].field.text[0] == "X........."


def test_lack_of_control_lasts_exactly_five_seconds():
    # RULES.md §1: "for 5 s the target's ← and → are exchanged"
    game = game_for(bombs="manual", seats=(1, 2))
    game.setup(2, piece=("T", 0, 3, 5))
    game.setup(1, store=["lack_of_control"])
    game.apply(1, Intent("bomb", 2), 2000)
    land(game, 2, 2000 + C.BOMB_DELAY_MS)  # the next piece (at x 3) enters: it lands
    game.advance(7499)
    game.apply(2, LEFT, 7499)
    assert piece(game, 2)[2] == 4  # still exchanged just before 5 s from the landing
    game.apply(2, LEFT, 7500)
    assert piece(game, 2)[2] == 3  # at 5 s, ← is ← again


# --- The game: time, the end, ties --------------------------------------------------------------
@pytest.mark.parametrize("minutes", [1, 15])
def test_a_game_lasts_its_minutes_at_both_ends_of_the_range(minutes):
    # RULES.md §1: minutes per game 1–15
    game = game_for(minutes=minutes, now=5000)
    assert game.end == 5000 + minutes * 60_000
    game.advance(game.end - 1)
    assert not game.finished
    game.advance(game.end)
    assert game.finished and game.outcome().termination is Termination.TIME


def test_a_lock_due_exactly_when_the_time_runs_out_does_not_happen():
    # RULES.md §1: "When the time runs out every player's game stops"
    game = game_for(minutes=1, now=0)
    game.advance(59500)
    game.setup(1, field=Field(), piece=("O", 0, 3, 18))  # resting on the floor
    assert game.players[1].lock_at == 60000  # the lock is due at the end
    score = game.view(1).score
    game.advance(60000)
    assert game.finished and game.view(1).score == score
    assert game.players[1].field.is_empty()


def test_an_exact_tie_when_the_time_runs_out_shares_the_first_place():
    # RULES.md §1: "if still equal, the places are shared"
    game = game_for(seats=(1, 2, 3), minutes=1)
    game.advance(59990)
    for seat, score in ((1, 80), (2, 80), (3, 20)):  # a piece high up: no lock before the end
        game.setup(seat, field=Field(), piece=("O", 0, 3, 0), score=score, lines=4)
        game.players[seat].eliminations = 1
    game.advance(60000)
    standings = [(s.place, s.seats, s.shared) for s in game.outcome().standings]
    assert standings == [(1, (1,), True), (1, (2,), True), (3, (3,), False)]
    assert game.outcome().winners == (1, 2)


def test_tied_pairs_are_split_by_eliminations_then_lines_then_share():
    # RULES.md §1: partners' scores added; ties: fewer eliminations, then more lines
    def pairs_game(numbers):
        game = game_for(seats=(1, 2, 3, 4), pairs=True)
        for seat, (score, lines, eliminations) in numbers.items():
            game.setup(seat, score=score, lines=lines)
            game.players[seat].eliminations = eliminations
        return [(s.place, s.seats, s.shared) for s in game.results()]

    # 60 each; pair 3 + 4 has one elimination fewer
    assert pairs_game({1: (10, 0, 1), 2: (50, 0, 1), 3: (40, 0, 1), 4: (20, 0, 0)}) == [
        (1, (3, 4), False),
        (2, (1, 2), False),
    ]
    # equal eliminations: more lines first
    assert pairs_game({1: (10, 5, 0), 2: (50, 0, 0), 3: (40, 2, 0), 4: (20, 2, 0)}) == [
        (1, (1, 2), False),
        (2, (3, 4), False),
    ]
    # all equal: shared
    assert pairs_game({1: (10, 2, 0), 2: (50, 2, 1), 3: (40, 1, 1), 4: (20, 3, 0)}) == [
        (1, (1, 2), True),
        (1, (3, 4), True),
    ]
