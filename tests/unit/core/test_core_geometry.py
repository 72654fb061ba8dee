from __future__ import annotations

from games.core.geometry import (
    draw_shape,
    fits,
    mirror,
    normalise,
    orientations,
    parse_shape,
    rotate,
    rotate_in_box,
    translate,
)

T = parse_shape(".#./###")
L = parse_shape("#./#./##")


def test_parse_and_draw_round_trip():
    assert T == ((0, 1), (1, 0), (1, 1), (1, 2))
    assert draw_shape(T) == ".#./###"
    assert draw_shape(parse_shape("####/.#../###.")) == "####/.#../###."


def test_normalise_moves_a_shape_to_the_top_left_corner():
    assert normalise([(5, 7), (5, 8), (6, 8)]) == ((0, 0), (0, 1), (1, 1))


def test_a_clockwise_turn_points_the_t_right():
    assert draw_shape(rotate(T)) == "#./##/#."
    assert rotate(T, 4) == normalise(T)
    assert rotate(T, -1) == rotate(T, 3)


def test_rotate_in_box_keeps_the_srs_box():
    # the I piece's spawn row 1 becomes column 2 of its 4 × 4 box
    assert rotate_in_box(parse_shape("..../####"), 4) == ((0, 2), (1, 2), (2, 2), (3, 2))


def test_mirror_flips_left_to_right():
    assert draw_shape(mirror(L)) == ".#/.#/##"


def test_orientations_count_the_distinct_shapes():
    assert len(orientations(parse_shape("##/##"))) == 1
    assert len(orientations(parse_shape("####"))) == 2
    assert len(orientations(T)) == 4
    assert len(orientations(L)) == 8
    assert len(orientations(L, allow_mirror=False)) == 4
    assert len(orientations(parse_shape(".##/##."))) == 4


def test_fits_needs_every_cell_inside_and_free():
    assert fits(translate(T, 0, 0), set(), 2, 3)
    assert not fits(translate(T, 0, 1), set(), 2, 3)  # sticks out on the right
    assert not fits(translate(T, -1, 0), set(), 2, 3)  # sticks out at the top
    assert not fits(T, {(1, 1)}, 2, 3)
