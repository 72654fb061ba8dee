"""Taking back a step of a play (issue #30): ``back`` undoes the last thing done (the
falling piece, else the top garbage row, else the choice of a target), ``calloff``
calls the whole attack off; the refusals a player can cause by a double click speak
to people, with no card numbers, seats or intent names in them."""

from __future__ import annotations

import re

import pytest

from games.blockkiller.engine import IllegalIntent

from .blockkiller_helpers import blocks_of, game, garbage_of, play


def attacking(garbage: int = 2):
    g = game()
    g.setup(hands={1: (blocks_of("T") + blocks_of("O"), garbage_of("h0", garbage))}, turn=1)
    play(g, 1, "attack:2")
    return g


def test_back_with_no_piece_falling_takes_back_the_top_garbage_row_not_the_attack():
    g = attacking()
    low, high = garbage_of("h0", 2)
    play(g, 1, f"stack:{low},{high}f")
    play(g, 1, "back")
    assert g.phase == "attack" and g.draft is not None
    assert g.draft.stack == (((low, False),),)
    assert high in g.players[1].garbage and low not in g.players[1].garbage
    assert g.card_count() == 201


def test_back_takes_back_the_falling_piece_first_then_the_rows_then_the_target():
    g = attacking()
    low, high = garbage_of("h0", 2)
    t = blocks_of("T")[0]
    play(g, 1, f"stack:{low},{high}", f"piece:{t}")
    play(g, 1, "back")
    assert g.draft.piece is None and t in g.players[1].blocks and len(g.draft.stack) == 2
    play(g, 1, "back", "back")
    assert g.phase == "attack" and g.draft.stack == ()
    play(g, 1, "back")  # nothing stacked: the choice of a target is taken back
    assert g.phase == "play" and g.draft is None
    assert sorted(g.players[1].garbage) == [low, high]


def test_back_leaves_placed_pieces_placed():
    g = attacking()
    play(g, 1, f"stack:{garbage_of('h0')[0]}", f"place:{blocks_of('O')[0]}:")
    before = g.to_text()
    with pytest.raises(IllegalIntent) as err:
        play(g, 1, "back")
    assert err.value.code == "NOTHING_TO_CANCEL" and g.to_text() == before


def test_calloff_calls_the_whole_attack_off_with_a_piece_falling():
    g = attacking()
    low, high = garbage_of("h0", 2)
    t = blocks_of("T")[0]
    hand = (list(g.players[1].blocks), list(g.players[1].garbage))
    play(g, 1, f"stack:{low},{high}", f"piece:{t}", "left")
    play(g, 1, "calloff")
    assert g.phase == "play" and g.draft is None
    assert (g.players[1].blocks, g.players[1].garbage) == hand


def test_calloff_is_refused_once_a_piece_is_placed_and_in_a_defence():
    g = attacking()
    play(g, 1, f"place:{blocks_of('O')[0]}:")
    before = g.to_text()
    with pytest.raises(IllegalIntent) as err:
        play(g, 1, "calloff")
    assert err.value.code == "NOTHING_TO_CANCEL" and g.to_text() == before
    play(g, 1, "done")
    assert g.phase == "defend"
    before = g.to_text()
    with pytest.raises(IllegalIntent) as err:
        play(g, 2, "calloff")
    assert err.value.code == "WRONG_PHASE" and g.to_text() == before


def refused(g, seat: int, text: str) -> IllegalIntent:
    with pytest.raises(IllegalIntent) as err:
        play(g, seat, text)
    return err.value


# What a raw message gave away: a card or seat number, a seat, or an intent's own name
# ("attack is not possible during a play", "The piece cannot rotate_ccw there").
RAW = re.compile(r"\d|[Ss]eat|^[a-z]|_|cannot (?:left|right|down|rotate)")


def test_the_refusals_a_double_click_causes_are_worded_for_people():
    g = attacking()
    card = garbage_of("h0")[0]
    t = blocks_of("T")[0]
    # the second click of a double click on the attack button, a garbage card, a block card
    second = [refused(g, 1, "attack:2"), refused(g, 1, f"stack:{card},{card}")]
    play(g, 1, f"piece:{t}")
    second.append(refused(g, 1, f"piece:{t}"))
    play(g, 1, "left", "left", "left")
    second.append(refused(g, 1, "left"))  # at the wall
    play(g, 1, "drop", "done")
    second.append(refused(g, 1, "done"))  # Done twice: it is the defender's move now
    second.append(refused(g, 1, f"piece:{t}"))
    codes = [err.code for err in second]
    assert codes == ["WRONG_PHASE", "DUPLICATE_CARD", "PIECE_FALLING", "BLOCKED", "NOT_YOUR_TURN", "NOT_YOUR_TURN"]
    for err in second:
        assert not RAW.search(err.message), err.message
