"""RULES.md §4 / §1: moves, SRS rotation, spins by the immobility test, Mini, clears."""

from __future__ import annotations

from games.blockkiller.field import Field, Piece, field
from games.blockkiller.search import placements, step

from .blockkiller_helpers import garbage_of


def tsd_field() -> Field:
    return field(
        "XXXX......",
        "XXX...XXXX",
        "XXXX.XXXXX",
        "XXXXXXXXX.",
    )


def test_a_t_turned_into_a_slot_it_cannot_leave_is_a_spin_and_clears_two():
    f = tsd_field()
    piece = Piece("T", 2, 18, 3, rotated=True)
    assert not f.blocks(piece) and f.is_spin(piece) and f.is_spin(piece, mini_rule=True)
    lines, _ = f.lock(piece)
    assert lines == 2
    assert f.text()[-2:] == ("XXXX......", "XXXXXXXXX.")


def test_the_same_place_reached_by_a_move_is_no_spin():
    assert not tsd_field().is_spin(Piece("T", 2, 18, 3, rotated=False))


def test_a_piece_that_can_still_move_up_or_sideways_is_no_spin():
    f = field("XXX...XXXX", "XXXX.XXXXX")
    assert not f.is_spin(Piece("T", 2, 19, 3, rotated=True))  # nothing above it


def test_the_search_finds_the_t_spin_double_through_srs_kicks():
    found = [p for p in placements(tsd_field(), "T") if p.spin and set(p.piece.cells()) == {
        (19, 3), (19, 4), (19, 5), (20, 4)}]
    assert found and found[0].keys.endswith("U")


def test_mini_a_t_spin_with_fewer_than_two_front_corners_filled_counts_as_no_spin():
    f = field(
        "....X.....",
        "XXX...XXXX",
        "XXX...XXXX",
    )
    piece = Piece("T", 0, 20, 3, rotated=True)
    assert f.is_spin(piece) and not f.is_spin(piece, mini_rule=True)


def test_o_and_the_monomino_do_not_turn_and_no_mirror_exists():
    f = Field()
    assert f.rotate(f.spawn("O")) is None and f.rotate(f.spawn("M")) is None
    # S never becomes Z: every S placement's cells are an S shape
    shapes = {frozenset((r - min(a for a, _ in p.piece.cells()), c - min(b for _, b in p.piece.cells()))
                        for r, c in p.piece.cells()) for p in placements(f, "S")}
    assert frozenset({(0, 0), (1, 0), (1, 1), (2, 1)}) in shapes
    assert frozenset({(0, 1), (1, 0), (1, 1), (2, 0)}) not in shapes  # that is the Z


def test_garbage_is_stacked_lowest_first_flipped_or_not_and_a_merged_pair_is_one_solid_row():
    (h0,) = garbage_of("h0")
    (w01,) = garbage_of("w01")
    ck = garbage_of("ck", 2)
    f = Field.stacked((((h0, False),), ((w01, True),), ((ck[0], False), (ck[1], True))))
    assert f.text()[-3:] == ("XXXXXXXXXX", "XXXXXXXX..", ".XXXXXXXXX")
    lines, cleared = f.lock(f.drop(f.spawn("M")))
    assert lines == 1 and sorted(cleared) == sorted(ck)  # the merged row clears with the first piece
    assert f.garbage_cards() == [w01, h0]


def test_the_field_is_ten_wide_and_twenty_high_plus_two_rows_to_enter():
    f = Field()
    assert len(f.text()) == 20 and all(len(row) == 10 for row in f.text())
    i = f.spawn("I")
    assert f.move(i, 0, -4) is None and f.move(i, 0, -3) is not None
    assert f.drop(i).row + 1 == 21  # an I lies flat on the floor row


def test_turning_counter_clockwise_reaches_the_mirror_of_a_clockwise_spin():
    """RULES.md §4: pieces reach their place by moves and SRS rotations, which turn both
    ways. The J-spin double on the left, the mirror of the L-spin double on the right,
    needs a counter-clockwise turn (its kicks are the Guideline's own)."""
    (t02,), (h0,) = garbage_of("t02"), garbage_of("h0")
    right = Field.stacked([((t02, True),), ((h0, True),)])  # XXXXXXXXX. / XXXXXXX...
    left = Field.stacked([((t02, False),), ((h0, False),)])  # .XXXXXXXXX / ...XXXXXXX
    l_spin = [p for p in placements(right, "L") if set(p.piece.cells()) == {(20, 9), (21, 7), (21, 8), (21, 9)}]
    j_spin = [p for p in placements(left, "J") if set(p.piece.cells()) == {(20, 0), (21, 0), (21, 1), (21, 2)}]
    assert any(p.spin for p in l_spin) and any(p.spin for p in j_spin)
    assert [p.keys[-1] for p in j_spin if p.spin] == ["C"]
    piece = left.spawn("J")
    for key in next(p.keys for p in j_spin if p.spin):
        piece = step(left, piece, key)
    assert piece.rotated and left.is_spin(piece)


def test_a_counter_clockwise_turn_uses_the_guidelines_kicks_for_that_direction():
    f = Field()
    t = Piece("T", 0, 10, 4)
    assert f.rotate(t, -1) == Piece("T", 3, 10, 4, rotated=True)
    against_the_wall = Piece("T", 1, 10, -1)  # pointing right, its stem at the left wall
    turned = f.rotate(against_the_wall, -1)
    assert turned is not None and turned.rotation == 0 and turned.col == 0  # kicked right, off the wall
