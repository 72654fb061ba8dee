"""Score, lines, levels and elimination (RULES.md §1 "Score, lines, levels")."""

from __future__ import annotations

import pytest
from tetriwar_helpers import HARD_DROP, I_IN_WELL, WELL, field, game_for, kinds

from games.tetriwar import constants as C


def drop_i_into_well(game, wells: int, seat: int = 1, now: int = 0, below: tuple[str, ...] = ()):
    """``wells`` rows with a hole in column 9, a vertical I above the hole, hard drop."""
    game.setup(seat, field=field(*[WELL] * wells, *below), piece=I_IN_WELL)
    return game.apply(seat, HARD_DROP, now)


@pytest.mark.parametrize(("lines", "points"), [(1, 10), (2, 25), (3, 40), (4, 60)])
def test_line_points_times_level_plus_one_per_piece(lines, points):
    for level in (1, 4, 9):
        game = game_for(start_level=level, bombs="off")
        drop_i_into_well(game, lines)
        view = game.view(1)
        assert view.score == points * level + 1 * level
        assert view.lines == lines


def test_the_worked_example_three_lines_at_level_six():
    game = game_for(start_level=6, bombs="off")
    drop_i_into_well(game, 3)
    assert game.view(1).score == 40 * 6 + 6 == 246


def test_every_piece_placed_scores_its_level():
    game = game_for(start_level=3)
    game.apply(1, HARD_DROP, 0)
    game.apply(1, HARD_DROP, 100)
    assert game.view(1).score == 2 * 3


def test_cleared_rows_go_and_the_rows_above_come_down():
    game = game_for(bombs="off")
    events = drop_i_into_well(game, 2, below=("X.X.X.X.XX",))
    assert game.view(1).field[-4:] == ("..........", ".........I", ".........I", "X.X.X.X.XX")
    field_event = next(e for e in events if e.kind == "field")
    assert field_event.rows == tuple(range(19))  # every row down to the lowest cleared one
    assert field_event.seat == 1


def test_locking_reports_only_the_rows_that_changed():
    game = game_for()
    game.setup(1, piece=("O", 0, 3, 18))
    events = game.apply(1, HARD_DROP, 0)
    assert [e.rows for e in events if e.kind == "field"] == [(18, 19)]
    score = next(e for e in events if e.kind == "score")
    assert (score.score, score.level, score.lines, score.eliminations) == (1, 1, 0, 0)


def test_a_level_up_every_lines_per_level_lines():
    game = game_for(lines_per_level=4, bombs="off")
    drop_i_into_well(game, 3)
    assert (game.view(1).level, game.players[1].level_lines) == (1, 3)
    drop_i_into_well(game, 2, now=100)
    # 2 lines at level 1 score 25; then the level goes up and 1 line is carried over
    assert (game.view(1).level, game.players[1].level_lines, game.view(1).lines) == (2, 1, 5)
    assert game.view(1).score == 40 + 1 + 25 + 1


def test_the_new_level_makes_pieces_fall_faster():
    game = game_for(lines_per_level=4, bombs="off")
    drop_i_into_well(game, 4)
    assert game.view(1).level == 2
    y = game.view(1).piece.y
    game.advance(C.GRAVITY_MS[2])
    assert game.view(1).piece.y == y + 1


def test_level_ten_is_the_highest():
    game = game_for(start_level=9, lines_per_level=4, bombs="off")
    game.setup(1, level=10, level_lines=3)
    drop_i_into_well(game, 4)
    assert game.view(1).level == 10
    assert game.view(1).score == 60 * 10 + 10


def test_a_piece_that_cannot_spawn_eliminates_the_player():
    game = game_for(start_level=2, lines_per_level=4, bombs="manual")
    blocked = field("....X.....", *["X........."] * 21)  # the top hidden row is taken
    game.setup(1, field=blocked, piece=("O", 0, 6, 10), score=500, level=5, lines=9, level_lines=3)
    game.setup(1, store=["drill", "gravity"], next=["T"])
    events = game.apply(1, HARD_DROP, 0)
    view = game.view(1)
    assert view.eliminations == 1
    assert view.field == ("..........",) * 20  # emptied
    assert (view.level, game.players[1].level_lines) == (2, 0)  # start level, counter restarts
    assert view.score == 500 + 5  # kept (with the last piece's points)
    assert view.lines == 9
    assert view.store == ()  # stored bombs are lost
    assert view.piece.kind == "T"  # the piece that could not spawn comes into the empty field
    assert {"eliminated", "field", "score", "store"} <= set(kinds(events))


def test_a_piece_locking_wholly_above_the_visible_field_eliminates_the_player():
    game = game_for()
    tower = field(*["...X......"] * 20)
    game.setup(1, field=tower, piece="T", score=30)
    assert game.view(1).piece.y == -2  # stuck in the hidden rows
    game.apply(1, HARD_DROP, 0)
    assert game.view(1).eliminations == 1
    assert game.view(1).score == 30  # our choice: a piece that never entered scores nothing
    assert game.view(1).field == ("..........",) * 20


def test_a_piece_locking_partly_in_the_hidden_rows_is_no_top_out():
    game = game_for()
    tower = field(*["X........."] * 19)
    game.setup(1, field=tower, piece=("T", 0, 0, -1))
    game.apply(1, HARD_DROP, 0)
    assert game.view(1).eliminations == 0
    assert game.view(1).field[0] == "TTT......."
    assert game.players[1].field.text[1] == ".T........"  # its top cell in a hidden row


def test_an_eliminated_player_keeps_playing():
    game = game_for()
    game.setup(1, field=field(*["...X......"] * 20), piece="T")
    game.apply(1, HARD_DROP, 0)
    game.apply(1, HARD_DROP, 100)
    assert game.view(1).score == 1
    assert game.view(1).eliminations == 1
