"""RULES.md §4 as played: dealing, the draw rule, must-play, attacks, defences, counters,
elimination, the turn clock, refusals with codes."""

from __future__ import annotations

import pytest

from games.blockkiller.engine import IllegalIntent, Intent
from games.blockkiller.events import Exchange
from games.blockkiller.field import Field
from games.core.outcome import Termination

from .blockkiller_helpers import blocks_of, column, game, garbage_of, keys_to, play


def tetris_keys(stack_rows: int = 4, extra_bottom: int = 0) -> str:
    """Keys that drop a vertical I into column 0 over ``stack_rows`` h0 rows."""
    f = Field.stacked([((c, False),) for c in garbage_of("h0", stack_rows)])
    return keys_to(f, "I", column(0, 21 - extra_bottom, 4))


def test_deal_four_blocks_and_four_garbage_then_the_first_player_draws_one_of_each():
    g = game()
    for seat in g.seats:
        p = g.players[seat]
        expected = (5, 5) if seat == g.turn else (4, 4)
        assert (len(p.blocks), len(p.garbage)) == expected
    assert g.phase == "play" and g.card_count() == 201


def test_with_ten_garbage_cards_the_player_may_draw_two_block_cards():
    g = game()
    g.setup(hands={2: (blocks_of("T", 2), garbage_of("h1", 10))}, turn=1)
    play(g, 1, "pass")
    assert g.turn == 2 and g.phase == "draw"
    with pytest.raises(IllegalIntent) as err:
        play(g, 2, "pass")
    assert err.value.code == "DRAW_FIRST"
    play(g, 2, "draw:blocks")
    assert (len(g.players[2].blocks), len(g.players[2].garbage)) == (4, 10)


def test_with_nine_garbage_cards_two_blocks_are_not_offered():
    g = game()
    g.setup(hands={2: (blocks_of("T", 2), garbage_of("h1", 9))}, turn=1)
    play(g, 1, "pass")
    assert g.phase == "play" and (len(g.players[2].blocks), len(g.players[2].garbage)) == (3, 10)


def test_six_block_cards_after_the_draw_oblige_a_play():
    g = game()
    g.setup(hands={2: (blocks_of("O", 5), garbage_of("h1", 2))}, turn=1)
    play(g, 1, "pass")
    with pytest.raises(IllegalIntent) as err:
        play(g, 2, "pass")
    assert err.value.code == "MUST_PLAY"
    o = g.players[2].blocks[0]
    play(g, 2, "attack:3", f"place:{o}:")
    assert len(g.players[2].blocks) == 5
    play(g, 2, "done")
    assert g.phase == "defend"


def test_a_tetris_attack_lands_in_full_on_a_defender_who_does_not_defend():
    g = game()
    g.setup(hands={1: (blocks_of("I"), garbage_of("h0", 4)), 3: ([], garbage_of("h1", 2))}, turn=1)
    i = g.players[1].blocks[0]
    stack = ",".join(str(c) for c in garbage_of("h0", 4))
    play(g, 1, "attack:3", f"stack:{stack}", f"place:{i}:{tetris_keys()}", "done")
    assert g.phase == "defend" and g.acting == 3
    events = play(g, 3, "done")
    exchange = next(e for e in events if isinstance(e, Exchange))
    assert (exchange.attack, exchange.defence, exchange.to_defender, exchange.to_attacker) == (4, 0, 4, 0)
    assert len(g.players[3].garbage) == 6 and g.players[1].garbage == []
    assert g.turn == 2  # the player after the attacker moves next


def test_defence_left_over_is_halved_rounded_up_and_drawn_by_the_attacker():
    g = game()
    g.setup(hands={1: (blocks_of("I"), garbage_of("h0", 2)), 3: (blocks_of("I", skip=1), garbage_of("h0", 4, skip=2))},
            turn=1)
    f2 = Field.stacked([((c, False),) for c in garbage_of("h0", 2)])
    two = keys_to(f2, "I", column(0, 21, 4))
    play(g, 1, "attack:3", "stack:" + ",".join(map(str, garbage_of("h0", 2))),
         f"place:{g.players[1].blocks[0]}:{two}", "done")
    assert g.attack == (1, 1)
    play(g, 3, "stack:" + ",".join(map(str, garbage_of("h0", 4, skip=2))),
         f"place:{g.players[3].blocks[0]}:{tetris_keys()}")
    events = play(g, 3, "done")
    exchange = next(e for e in events if isinstance(e, Exchange))
    # 1 attack against 4 defence: 3 left over, sent back as ⌈3 / 2⌉ = 2
    assert (exchange.to_defender, exchange.to_attacker) == (0, 2)
    assert len(g.players[1].garbage) == 2


def test_offset_from_lines_beyond_four_cancels_attack_first():
    g = game()
    ck = garbage_of("ck", 2)
    h0 = garbage_of("h0", 8)
    g.setup(hands={1: (blocks_of("I"), h0[:4]), 3: (blocks_of("I", skip=1), [*ck, *h0[4:]])}, turn=1)
    play(g, 1, "attack:3", "stack:" + ",".join(map(str, h0[:4])), f"place:{g.players[1].blocks[0]}:{tetris_keys()}",
         "done")
    stack = f"{ck[0]}+{ck[1]}f," + ",".join(map(str, h0[4:]))
    f = Field.stacked([((ck[0], False), (ck[1], True)), *[((c, False),) for c in h0[4:]]])
    events = play(g, 3, f"stack:{stack}", f"place:{g.players[3].blocks[0]}:{keys_to(f, 'I', column(0, 20, 4))}")
    cleared = next(e for e in events if e.kind == "cleared")
    assert (cleared.lines, cleared.attack, cleared.offset) == (5, 4, 1)
    exchange = next(e for e in play(g, 3, "done") if isinstance(e, Exchange))
    # attack 4: offset 1 cancels 1, defence 4 cancels 3, 1 left over: ⌈1 / 2⌉ = 1 back
    assert (exchange.to_defender, exchange.to_attacker) == (0, 1)


def test_attackers_offset_is_worth_nothing_and_combo_and_back_to_back_add_up():
    g = game()
    h0 = garbage_of("h0", 8)
    g.setup(hands={1: (blocks_of("I", 2), h0)}, turn=1)
    i1, i2 = g.players[1].blocks
    play(g, 1, "attack:2", "stack:" + ",".join(map(str, h0)))
    e1 = play(g, 1, f"place:{i1}:{keys_to(g.draft.field, 'I', column(0, 21, 4))}")
    e2 = play(g, 1, f"place:{i2}:{keys_to(g.draft.field, 'I', column(0, 21, 4))}")
    c1 = next(e for e in e1 if e.kind == "cleared")
    c2 = next(e for e in e2 if e.kind == "cleared")
    assert (c1.attack, c1.combo, c1.b2b) == (4, 1, False)
    assert (c2.attack, c2.combo, c2.b2b) == (4 + 1 + 1, 2, True)
    assert g.draft.attack == 10


def test_more_than_twelve_garbage_cards_is_out_and_the_last_player_in_wins():
    g = game(seats=(1, 2))
    g.setup(hands={2: (blocks_of("O", 1), garbage_of("h2", 10) + garbage_of("h3", 2))}, turn=1)
    play(g, 1, "pass")
    events = play(g, 2, "draw")
    assert any(e.kind == "out" for e in events) and g.finished
    outcome = g.outcome()
    assert outcome.termination is Termination.LAST_STANDING and outcome.winners == (1,)
    assert g.card_count() == 201


def test_the_turn_clock_passes_and_an_obliged_player_draws_one_garbage_card():
    g = game(turn_seconds=30)
    g.setup(hands={2: (blocks_of("O", 5), []), 3: (blocks_of("O", 1, skip=5), [])}, turn=1)
    g.advance(30.0)
    assert g.turn == 2 and g.phase == "play"
    g.advance(60.0)
    assert g.players[2].garbage and len(g.players[2].garbage) == 2  # the draw and the penalty
    assert g.turn == 3 and g.log[-1][2] == "timeout"


def test_an_attack_under_way_when_the_clock_runs_out_is_not_sent():
    """RULES.md §4: "on timeout the player passes, or, obliged to play, plays nothing and
    draws one garbage card": the tetris laid is called off, every card back in hand."""
    g = game(turn_seconds=30)
    blocks = blocks_of("I") + blocks_of("O", 5)
    g.setup(hands={1: (blocks, garbage_of("h0", 4)), 3: ([], garbage_of("h1", 2))}, turn=1)
    hand = (list(g.players[1].blocks), list(g.players[1].garbage))
    i = blocks[0]
    stack = ",".join(str(c) for c in garbage_of("h0", 4))
    play(g, 1, "attack:3", f"stack:{stack}", f"place:{i}:{tetris_keys()}")  # four lines cleared
    assert g.draft.lines == 4 and g.players[1].garbage == []
    events = g.advance(31.0)
    assert not [e for e in events if e.kind == "attacked"] and g.phase != "defend"
    assert g.players[1].blocks == hand[0]  # six block cards: obliged, so one garbage card more
    assert len(g.players[1].garbage) == len(hand[1]) + 1 and set(hand[1]) <= set(g.players[1].garbage)
    assert g.players[1].lines == 0 and len(g.players[3].garbage) == 2
    assert g.turn == 2 and g.card_count() == 201


def test_a_defence_under_way_when_the_clock_runs_out_defends_with_nothing():
    g = game(turn_seconds=30)
    g.setup(hands={1: (blocks_of("I"), garbage_of("h0", 4)), 3: (blocks_of("I", skip=1), garbage_of("h0", 4, skip=4))},
            turn=1)
    i = g.players[1].blocks[0]
    stack = ",".join(str(c) for c in garbage_of("h0", 4))
    play(g, 1, "attack:3", f"stack:{stack}", f"place:{i}:{tetris_keys()}", "done")
    j = g.players[3].blocks[0]
    defence = ",".join(str(c) for c in garbage_of("h0", 4, skip=4))
    play(g, 3, f"stack:{defence}", f"place:{j}:{tetris_keys()}", now=2.0)  # a tetris laid, not sent
    events = g.advance(33.0)
    exchange = next(e for e in events if isinstance(e, Exchange))
    assert (exchange.attack, exchange.defence, exchange.to_defender) == (4, 0, 4)
    assert j in g.players[3].blocks and len(g.players[3].garbage) == 4 + 4
    assert g.card_count() == 201


@pytest.mark.parametrize(("seat", "text", "code"), [
    (2, "pass", "NOT_YOUR_TURN"),
    (1, "attack:1", "BAD_TARGET"),
    (1, "attack:6", "BAD_TARGET"),
    (1, "draw", "ALREADY_DREW"),
    (1, "left", "NOT_PLAYING_YET"),
    (9, "pass", "NOT_PLAYING"),
])
def test_refusals_have_codes_and_change_nothing(seat, text, code):
    g = game()
    g.setup(turn=1)
    before = g.to_text()
    with pytest.raises(IllegalIntent) as err:
        g.apply(seat, Intent.parse(text), 1.0)
    assert err.value.code == code and g.to_text() == before


def test_a_card_not_in_hand_and_an_unreachable_placement_are_refused():
    g = game()
    g.setup(hands={1: (blocks_of("T"), garbage_of("h0", 2))}, turn=1)
    play(g, 1, "attack:2")
    before = g.to_text()
    for text, code in [(f"place:{blocks_of('I')[0]}:", "NOT_IN_HAND"), (f"stack:{garbage_of('h1')[0]}", "NOT_IN_HAND"),
                       (f"place:{g.players[1].blocks[0]}:LLLLLLLLL", "UNREACHABLE"), ("done", "NO_PIECE_PLACED"),
                       (f"stack:{garbage_of('h0')[0]}+{garbage_of('h0')[0]}", "DUPLICATE_CARD"),
                       (f"stack:{garbage_of('h0', 2)[0]}+{garbage_of('h0', 2)[1]}f", "BAD_MERGE")]:
        with pytest.raises(IllegalIntent) as err:
            play(g, 1, text)
        assert err.value.code == code and g.to_text() == before


def test_key_by_key_play_and_cancel_return_the_card():
    g = game()
    g.setup(hands={1: (blocks_of("T"), [])}, turn=1)
    t = g.players[1].blocks[0]
    play(g, 1, "attack:2", f"piece:{t}", "left", "rotate", "down")
    assert g.draft.piece is not None and t not in g.players[1].blocks
    play(g, 1, "cancel")
    assert t in g.players[1].blocks
    play(g, 1, "cancel")
    assert g.phase == "play" and g.draft is None
    play(g, 1, "attack:3", f"piece:{t}", "drop", "done")
    assert g.phase == "defend" and t in g.block_discard


def test_a_forfeit_ranks_last_and_one_player_left_ends_the_game():
    g = game()
    g.forfeit(2, 1.0)
    g.forfeit(3, 2.0)
    assert g.finished and g.outcome().termination is Termination.FORFEIT
    assert [s.seats for s in g.outcome().standings] == [(1,), (3,), (2,)]  # the earlier leaver last


def test_a_draw_from_an_empty_pile_and_discard_says_what_was_drawn():
    """With every block card in hands (none in the pile or its discard), a draw deals the
    garbage card alone, and its event says so (it said one block card as well)."""
    g = game()
    g.setup(turn=1)
    g.players[3].blocks = sorted([*g.players[3].blocks, *g.block_deck, *g.block_discard])
    g.block_deck, g.block_discard = [], []
    g.advance(0.5)  # the deal's own events, reported with the first call
    before = len(g.players[2].blocks), len(g.players[2].garbage)
    events = play(g, 1, "pass")
    drew = [e for e in events if e.kind == "drew"]
    assert [(e.seat, e.blocks, e.garbage) for e in drew] == [(2, 0, 1)]
    assert (len(g.players[2].blocks), len(g.players[2].garbage)) == (before[0], before[1] + 1)
    assert g.card_count() == 201
