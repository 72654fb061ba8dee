"""Edges of RULES.md §4 (Block-Killer): every rule fact not pinned elsewhere, at its
boundaries (9/10 garbage, 5/6 blocks, 12/13 garbage), and the edge cases a rules-lawyer
tries: spins against the wall, offset with spins, back-to-back and combo across pieces
and across the defence, rounding of the counter, a target who is out, the reshuffle."""

from __future__ import annotations

import pytest

from games.blockkiller import constants as C
from games.blockkiller.engine import Game, IllegalIntent, Options
from games.blockkiller.events import Exchange

from .blockkiller_helpers import blocks_of, column, game, garbage_of, keys_to, play


def cleared(events: list) -> list[tuple[int, bool, int, bool, int, int]]:
    """(lines, spin, combo, b2b, attack, offset) of each clear among ``events``."""
    return [(e.lines, e.spin, e.combo, e.b2b, e.attack, e.offset) for e in events if e.kind == "cleared"]


def exchange_of(events: list) -> Exchange:
    return next(e for e in events if isinstance(e, Exchange))


def stack_text(*cards: int) -> str:
    return "stack:" + ",".join(map(str, cards))


# --- Options (RULES.md l.168, l.178, l.181) ----------------------------------------------
def test_the_turn_clock_defaults_to_120_seconds_and_mini_and_no_mercy_are_off():
    """l.168 "Option Mini (off by default)"; l.181 "A turn clock (option, default 120 s)"."""
    options = Options()
    assert (options.turn_seconds, options.mini, options.no_mercy) == (120, False, False)
    g = Game(options, seed=1, seats=[1, 2, 3], now=10.0)
    assert g.next_deadline() == 130.0


# --- Start and turn order (l.152–153) ------------------------------------------------
def test_a_random_player_begins():
    """l.152 "a random player begins": over seeds, every seat begins some game."""
    firsts = {Game(Options(), seed, [1, 2, 3, 4], 0.0).turn for seed in range(40)}
    assert firsts == {1, 2, 3, 4}


def test_turns_go_round_in_seat_order_and_skip_a_player_who_is_out():
    """l.153 "turns go round in seat order"; l.177 a player out no longer has turns."""
    g = game(seats=(1, 2, 3, 4))
    g.setup(hands={1: (blocks_of("O"), []), 2: (blocks_of("O", skip=1), []),
                   3: (blocks_of("O", skip=2), garbage_of("h1", 10) + garbage_of("h2", 2)),
                   4: (blocks_of("O", skip=3), [])}, turn=1)
    play(g, 1, "pass")
    assert g.turn == 2
    play(g, 2, "pass")
    assert g.turn == 3 and g.phase == "draw"
    events = play(g, 3, "draw")  # 12 + 1 garbage cards: out
    assert any(e.kind == "out" and e.seat == 3 for e in events)
    assert g.turn == 4
    play(g, 4, "pass")
    play(g, 1, "pass")
    play(g, 2, "pass")
    assert g.turn == 4  # seat 3 is skipped


# --- The draw and must-play (l.154–156) ----------------------------------------------
def test_five_block_cards_after_the_draw_leave_the_choice_to_pass():
    """l.155–156: 6 block cards oblige a play, "otherwise they may play or pass" (5)."""
    g = game()
    g.setup(hands={2: (blocks_of("O", 4), garbage_of("h1", 2))}, turn=1)
    play(g, 1, "pass")
    assert len(g.players[2].blocks) == 5 and not g.obliged(2)
    play(g, 2, "pass")
    assert g.turn == 3


def test_seven_block_cards_after_drawing_two_must_be_played_down_below_six():
    """l.154–156 and the seed ("must be < 6 after the turn"): two block cards drawn onto
    five make seven; the attack must place at least two of them."""
    g = game()
    g.setup(hands={2: (blocks_of("O", 5), garbage_of("h1", 10))}, turn=1)
    play(g, 1, "pass")
    play(g, 2, "draw:blocks")
    assert len(g.players[2].blocks) == 7
    o1, o2 = g.players[2].blocks[:2]
    play(g, 2, "attack:3", f"place:{o1}:")
    with pytest.raises(IllegalIntent) as err:
        play(g, 2, "done")
    assert err.value.code == "MUST_PLAY"
    play(g, 2, f"place:{o2}:", "done")
    assert g.phase == "defend" and len(g.players[2].blocks) == 5


def test_twelve_garbage_cards_are_still_in():
    """l.177 "more than 12 garbage cards is out": a draw from 11 to 12 keeps the player in
    (with 11 ≥ 10 in hand, l.154, the draw is the player's choice)."""
    g = game()
    g.setup(hands={2: (blocks_of("O"), garbage_of("h1", 10) + garbage_of("h2", 1))}, turn=1)
    play(g, 1, "pass")
    assert g.phase == "draw"
    events = play(g, 2, "draw")
    assert len(g.players[2].garbage) == 12 and g.players[2].active
    assert not any(e.kind == "out" for e in events) and g.phase == "play" and g.turn == 2


# --- Playing (l.157–162) -------------------------------------------------------------
def test_a_player_who_is_out_cannot_be_targeted():
    """l.157 "name a target among the players still in"."""
    g = game()
    g.setup(hands={1: (blocks_of("O"), []), 2: (blocks_of("O", skip=1), []),
                   3: (blocks_of("O", skip=2), garbage_of("h1", 10) + garbage_of("h2", 2))}, turn=2)
    play(g, 2, "pass")
    play(g, 3, "draw")  # out
    assert not g.players[3].active and g.turn == 1
    with pytest.raises(IllegalIntent) as err:
        play(g, 1, "attack:3")
    assert err.value.code == "BAD_TARGET"
    play(g, 1, "attack:2")


def test_uncleared_garbage_returns_to_hand_used_blocks_and_cleared_garbage_go_to_the_discard():
    """l.161–162 "uncleared garbage cards return to the hand; used block cards and cleared
    garbage go to the discard"."""
    g = game()
    (h3,), h0 = garbage_of("h3"), garbage_of("h0", 2)
    (i,) = blocks_of("I")
    g.setup(hands={1: ([i], [h3, *h0])}, turn=1)
    play(g, 1, "attack:2", stack_text(h3, *h0))  # h3 lowest
    keys = keys_to(g.draft.field, "I", column(0, 20, 4))  # on h3's filled column 0
    assert cleared(play(g, 1, f"place:{i}:{keys}"))[0][0] == 2
    play(g, 1, "done")
    assert g.players[1].garbage == [h3] and g.players[1].blocks == []
    assert set(h0) <= set(g.garbage_discard) and i in g.block_discard and h3 not in g.garbage_discard
    assert g.card_count() == C.ALL_CARDS


def test_a_merged_checkerboard_row_clears_when_the_first_piece_is_placed():
    """l.149–150: two checkerboard cards, one flipped, make one solid row, which clears
    with the first piece (here an O that completes nothing itself); both cards go to the
    discard. Two unflipped checkerboards do not merge."""
    g = game()
    ck = garbage_of("ck", 2)
    (o,) = blocks_of("O")
    g.setup(hands={1: ([o], ck)}, turn=1)
    play(g, 1, "attack:2")
    with pytest.raises(IllegalIntent) as err:
        play(g, 1, f"stack:{ck[0]}+{ck[1]}")
    assert err.value.code == "BAD_MERGE"
    play(g, 1, f"stack:{ck[0]}+{ck[1]}f")
    assert g.draft.field.text()[-1] == "XXXXXXXXXX"
    play(g, 1, f"place:{o}:", "done")
    assert set(ck) <= set(g.garbage_discard) and g.players[1].garbage == []


# --- Spins, back-to-back, combo, offset (l.163–171) --------------------------------------
def spin_double_field_cards() -> tuple[int, int]:
    (t02,), (h0,) = garbage_of("t02"), garbage_of("h0")
    return t02, h0


def test_a_spin_against_the_wall_is_a_spin_and_a_spin_double_attacks_four():
    """l.164–165: a spin is a rotation last and no move left, right or up; the field's wall
    blocks like a cell. t02 and h0 flipped make a slot at the right wall for an L-spin
    double (l.163: 2 lines spin = 4)."""
    t02, h0 = spin_double_field_cards()
    g = game()
    (l_card,) = blocks_of("L")
    g.setup(hands={1: ([l_card], [t02, h0])}, turn=1)
    play(g, 1, "attack:2", f"stack:{t02}f,{h0}f")
    assert g.draft.field.text()[-2:] == ("XXXXXXXXX.", "XXXXXXX...")
    cells = {(20, 9), (21, 7), (21, 8), (21, 9)}
    keys = keys_to(g.draft.field, "L", cells, spin=True)
    assert keys.endswith("U")
    assert cleared(play(g, 1, f"place:{l_card}:{keys}")) == [(2, True, 1, False, 4, 0)]


def test_a_spin_clearing_four_lines_attacks_six_and_gives_one_offset():
    """l.163–164 (spin 3 lines = 6, 4 lines —) and l.169–170 (lines beyond 3 of a spin: no
    attack, as many offset points). Two merged checkerboard rows clear with the L-spin
    double (the first piece, l.150): 4 spin lines."""
    t02, h0 = spin_double_field_cards()
    ck = garbage_of("ck", 4)
    g = game()
    (l_card,) = blocks_of("L")
    g.setup(hands={1: ([l_card], [t02, h0, *ck])}, turn=1)
    play(g, 1, "attack:2", f"stack:{ck[0]}+{ck[1]}f,{ck[2]}f+{ck[3]},{t02}f,{h0}f")
    keys = keys_to(g.draft.field, "L", {(18, 9), (19, 7), (19, 8), (19, 9)}, spin=True)
    assert cleared(play(g, 1, f"place:{l_card}:{keys}")) == [(4, True, 1, False, 6, 1)]


def test_back_to_back_follows_the_previous_clear_not_the_previous_piece():
    """l.166 "a special clear right after a special clear adds +1" (the seed: the previous
    *clear*); l.167 a piece that clears nothing ends the combo."""
    g = game()
    h0 = garbage_of("h0", 8)
    (o,), (i1, i2) = blocks_of("O"), blocks_of("I", 2)
    g.setup(hands={1: ([o, i1, i2], h0)}, turn=1)
    play(g, 1, "attack:2", stack_text(*h0))
    assert cleared(play(g, 1, f"place:{i1}:{keys_to(g.draft.field, 'I', column(0, 21, 4))}")) == [
        (4, False, 1, False, 4, 0)]
    assert cleared(play(g, 1, f"place:{o}:")) == []
    # a tetris again: back-to-back (+1), combo count 1 (+0)
    assert cleared(play(g, 1, f"place:{i2}:{keys_to(g.draft.field, 'I', column(0, 21, 4))}")) == [
        (4, False, 1, True, 5, 0)]


def test_a_clear_that_is_not_special_breaks_back_to_back_but_not_the_combo():
    """l.165–167: 2 lines are not special, so the tetris after it is no back-to-back; three
    clearing pieces in a row are combo 1, 2, 3 (+0, +1, +1)."""
    g = game()
    h2, h1, h0 = garbage_of("h2", 4), garbage_of("h1", 2), garbage_of("h0", 4)
    i = blocks_of("I", 3)
    g.setup(hands={1: (i, h2 + h1 + h0)}, turn=1)
    play(g, 1, "attack:2", stack_text(*h2, *h1, *h0))  # h2 rows lowest, h0 rows on top
    runs = []
    for card, col, bottom in zip(i, (0, 1, 2), (15, 17, 21), strict=True):
        runs += cleared(play(g, 1, f"place:{card}:{keys_to(g.draft.field, 'I', column(col, bottom, 4))}"))
    assert runs == [(4, False, 1, False, 4, 0), (2, False, 2, False, 1 + 1, 0), (4, False, 3, False, 4 + 1, 0)]
    assert g.draft.attack == 11


def test_combo_and_back_to_back_restart_for_the_defence():
    """l.171 "Combo and back-to-back restart with each play": the attacker's last clear
    was a back-to-back tetris at combo 2; the defender's first tetris is combo 1, no
    back-to-back."""
    g = game()
    h0, h1 = garbage_of("h0", 8), garbage_of("h1", 4)
    i = blocks_of("I", 3)
    g.setup(hands={1: (i[:2], h0), 3: (i[2:], h1)}, turn=1)
    play(g, 1, "attack:3", stack_text(*h0))
    for card in i[:2]:
        events = play(g, 1, f"place:{card}:{keys_to(g.draft.field, 'I', column(0, 21, 4))}")
    assert cleared(events) == [(4, False, 2, True, 6, 0)]
    play(g, 1, "done")
    assert g.attack == (1, 10)
    play(g, 3, stack_text(*h1))
    events = play(g, 3, f"place:{i[2]}:{keys_to(g.draft.field, 'I', column(1, 21, 4))}", "done")
    assert cleared(events) == [(4, False, 1, False, 4, 0)]
    exchange = exchange_of(events)
    assert (exchange.attack, exchange.defence, exchange.to_defender, exchange.to_attacker) == (10, 4, 6, 0)


# --- Defence (l.172–176) ---------------------------------------------------------------
@pytest.mark.parametrize(("attack_rows", "defence_rows", "attack", "defence", "to_defender", "to_attacker"), [
    (1, 4, 0, 4, 0, 2),  # an even spare: 4 / 2 = 2
    (2, 3, 1, 2, 0, 1),  # spare 1: ⌈1 / 2⌉ = 1
    (3, 3, 2, 2, 0, 0),  # cancelled exactly: nothing either way
    (4, 2, 4, 1, 3, 0),  # attack left over: the defender draws it
    (3, 0, 2, 0, 2, 0),  # no defence
])
def test_the_exchange_cancels_one_for_one_and_halves_a_spare_defence_rounding_up(
        attack_rows, defence_rows, attack, defence, to_defender, to_attacker):
    """l.172–176: defence cancels attack 1 : 1; defence left over is halved, rounded up,
    and drawn by the attacker, who does not defend; attack left over is drawn by the
    defender; then the player after the attacker moves. Each side drops a vertical I into
    its column of single-hole rows (1, 2, 3, 4 rows: 0, 1, 2, 4 attack)."""
    g = game()
    h0, h1 = garbage_of("h0", attack_rows), garbage_of("h1", defence_rows)
    i1, i2 = blocks_of("I", 2)
    g.setup(hands={1: ([i1], h0), 3: ([i2], h1)}, turn=1)
    play(g, 1, "attack:3", stack_text(*h0))
    play(g, 1, f"place:{i1}:{keys_to(g.draft.field, 'I', column(0, 21, 4))}", "done")
    assert g.attack == (1, attack)
    if defence_rows:
        play(g, 3, stack_text(*h1))
        play(g, 3, f"place:{i2}:{keys_to(g.draft.field, 'I', column(1, 21, 4))}")
    events = play(g, 3, "done")
    exchange = exchange_of(events)
    assert (exchange.attack, exchange.defence, exchange.to_defender, exchange.to_attacker) == (
        attack, defence, to_defender, to_attacker)
    assert len(g.players[1].garbage) == to_attacker
    assert len(g.players[3].garbage) == to_defender  # every row of its stack cleared
    assert g.turn == 2 and g.phase == "play"  # the attacker did not get to defend


def test_offset_left_over_is_not_sent_back():
    """l.169–170 offset is "usable only in defence" and l.172–174 only *defence* left over is
    halved and sent back: against 0 attack, a 5-line defence (4 attack, 1 offset) sends
    ⌈4 / 2⌉ = 2, not ⌈5 / 2⌉ = 3."""
    g = game()
    ck, h1 = garbage_of("ck", 2), garbage_of("h1", 4)
    (h0,) = garbage_of("h0")
    i1, i2 = blocks_of("I", 2)
    g.setup(hands={1: ([i1], [h0]), 3: ([i2], [*ck, *h1])}, turn=1)
    play(g, 1, "attack:3", stack_text(h0))
    play(g, 1, f"place:{i1}:{keys_to(g.draft.field, 'I', column(0, 21, 4))}", "done")
    assert g.attack == (1, 0)
    play(g, 3, f"stack:{ck[0]}+{ck[1]}f," + ",".join(map(str, h1)))
    events = play(g, 3, f"place:{i2}:{keys_to(g.draft.field, 'I', column(1, 20, 4))}", "done")
    assert cleared(events) == [(5, False, 1, False, 4, 1)]
    exchange = exchange_of(events)
    assert (exchange.defence, exchange.offset, exchange.to_defender, exchange.to_attacker) == (4, 1, 0, 2)


def test_a_counter_can_put_the_attacker_out_and_the_player_after_the_attacker_moves():
    """l.174–177: the attacker draws the counter without defending; above 12 garbage
    cards they are out; the player after the attacker moves."""
    g = game()
    (o,), (i,) = blocks_of("O"), blocks_of("I")
    h0 = garbage_of("h0", 4)
    g.setup(hands={1: ([o], garbage_of("h2", 10) + garbage_of("h3", 2)), 3: ([i], h0)}, turn=1)
    play(g, 1, "attack:3", f"place:{o}:", "done")  # 0 attack; 12 garbage cards kept in hand
    play(g, 3, stack_text(*h0))
    events = play(g, 3, f"place:{i}:{keys_to(g.draft.field, 'I', column(0, 21, 4))}", "done")
    assert exchange_of(events).to_attacker == 2
    assert any(e.kind == "out" and e.seat == 1 for e in events)
    assert not g.players[1].active and not g.finished and g.turn == 2


def test_leftover_attack_can_put_the_defender_out_and_the_next_player_in_moves():
    """l.175–177: the defender draws the attack left over; above 12 garbage cards they are
    out; the player after the attacker moves, skipping the one now out."""
    g = game()
    (i,) = blocks_of("I")
    h0 = garbage_of("h0", 4)
    g.setup(hands={1: ([i], h0), 2: (blocks_of("O"), garbage_of("h2", 10) + garbage_of("h3", 1))}, turn=1)
    play(g, 1, "attack:2", stack_text(*h0))
    play(g, 1, f"place:{i}:{keys_to(g.draft.field, 'I', column(0, 21, 4))}", "done")
    events = play(g, 2, "done")
    assert exchange_of(events).to_defender == 4
    assert any(e.kind == "out" and e.seat == 2 for e in events)
    assert not g.finished and g.turn == 3


# --- No Mercy (l.178–180) --------------------------------------------------------------
def test_no_mercy_a_fifth_line_attacks_directly_without_offset():
    """l.178–179: No Mercy, 5 lines non-spin = 9, "extra lines attack directly (no offset)"."""
    g = game(no_mercy=True)
    ck, h0 = garbage_of("ck", 2), garbage_of("h0", 4)
    (i,) = blocks_of("I")
    g.setup(hands={1: ([i], [*ck, *h0])}, turn=1)
    play(g, 1, "attack:2", f"stack:{ck[0]}+{ck[1]}f," + ",".join(map(str, h0)))
    assert cleared(play(g, 1, f"place:{i}:{keys_to(g.draft.field, 'I', column(0, 20, 4))}")) == [
        (5, False, 1, False, 9, 0)]


# --- Reshuffle (l.151) -----------------------------------------------------------------
@pytest.mark.parametrize(("pile", "shuffles"), [("block", "blocks"), ("garbage", "garbage")])
def test_an_empty_draw_pile_is_reshuffled_from_its_discard(pile, shuffles):
    """l.151 "Empty draw piles are reshuffled from their discards": the next draw takes
    its card from the discard, shuffled into a new pile."""
    g = game()
    g.setup(hands={2: (blocks_of("O"), [])}, turn=1)
    deck, discard = getattr(g, f"{pile}_deck"), getattr(g, f"{pile}_discard")
    discard.extend(deck)
    deck.clear()
    size, before = len(discard), g.shuffles[shuffles]
    play(g, 1, "pass")  # seat 2 draws 1 block card and 1 garbage card
    assert g.shuffles[shuffles] == before + 1
    assert len(getattr(g, f"{pile}_deck")) == size - 1 and getattr(g, f"{pile}_discard") == []
    assert (len(g.players[2].blocks), len(g.players[2].garbage)) == (2, 1)
    assert g.card_count() == C.ALL_CARDS


def test_the_field_is_stacked_from_hand_only_before_the_first_piece():
    """l.157–159: the garbage is stacked, *then* block cards are placed."""
    g = game()
    h0 = garbage_of("h0", 2)
    (o,) = blocks_of("O")
    g.setup(hands={1: ([o, *blocks_of("O", skip=1)], h0)}, turn=1)
    play(g, 1, "attack:2", stack_text(h0[0]), f"place:{o}:")
    with pytest.raises(IllegalIntent) as err:
        play(g, 1, stack_text(*h0))
    assert err.value.code == "STACK_FIXED"
