"""The computer player (games/tetriwar/ai.py): where it puts pieces, how it presses keys,
how fast each level plays and how the hard level uses bombs."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tetriwar_helpers import WELL, field, game_for, land

from games.tetriwar import constants as C
from games.tetriwar.ai import LEVELS, TetriWarAI, placements, spawn_state
from games.tetriwar.engine import Game, Intent

LEFT, RIGHT, ROTATE, HARD_DROP = (Intent(n) for n in ("left", "right", "rotate", "hard_drop"))
WELL_LEFT = ".XXXXXXXXX"  # the only hole in the first column
HIGH = ["XXXX.XXXXX"] * 12  # a stack 12 rows high, no line complete


def play_piece(game: Game, ai: TetriWarAI, seat: int = 1, now: int = 0) -> float:
    """Let the bot play until its current piece locks, as a server would; returns the time."""
    dealt = game.players[seat].bag.dealt
    for _ in range(200):
        game.advance(now)
        delay, key = ai.next_action(game, seat, now)
        if key is not None:
            game.apply(seat, key, now)
        if game.players[seat].bag.dealt != dealt:
            return now
        now += round(delay * 1000)  # the bot's delays are seconds
    raise AssertionError("the piece never locked")


def press_all(game: Game, seat: int, keys: list[Intent], now: int = 0) -> None:
    for key in keys:
        game.apply(seat, key, now)


# --- where it puts pieces ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kind", "count"), [("I", 17), ("O", 9), ("T", 34), ("J", 34), ("L", 34), ("S", 17), ("Z", 17)]
)
def test_every_place_on_an_empty_field_is_reachable_from_spawn(kind, count):
    masks = field().masks
    assert len(placements(masks, kind, spawn_state(masks, kind))) == count


def test_it_finds_the_hole_that_clears_four_lines():
    game = game_for(bombs="off")
    game.setup(1, field=field(WELL, WELL, WELL, WELL), piece="I", next=["O", "T", "S"])
    keys = TetriWarAI("hard").decide(game, 1, 0)
    assert keys[-1] == HARD_DROP and set(keys[:-1]) <= {ROTATE, LEFT, RIGHT}
    press_all(game, 1, keys)
    assert game.players[1].lines == 4
    assert game.players[1].field.is_empty()


def test_the_medium_bot_also_finds_it_through_next_action():
    game = game_for(bombs="off")
    game.setup(1, field=field(WELL, WELL, WELL, WELL), piece="I")
    play_piece(game, TetriWarAI("medium", random.Random(3)))
    assert game.players[1].lines == 4


def test_deciding_changes_nothing_in_the_game():
    game = game_for(seats=(1, 2))
    before = game.to_text()
    ai = TetriWarAI("hard")
    ai.decide(game, 1, 0)
    ai.next_action(game, 2, 0)
    assert game.to_text() == before


def test_it_plans_again_when_the_piece_is_pushed_off_its_path():
    game = game_for(bombs="off")
    game.setup(1, field=field(WELL, WELL, WELL, WELL), piece="I")
    ai = TetriWarAI("hard")
    assert ai.decide(game, 1, 0)[-2:] == [RIGHT, HARD_DROP]
    press_all(game, 1, [LEFT, LEFT, ROTATE, LEFT])  # someone else's keys, say
    game.advance(3000)  # and gravity pulls it three rows down
    assert game.view(1).piece.y > 0
    play_piece(game, ai, now=3000)
    assert game.players[1].lines == 4


def test_it_chooses_again_when_a_bomb_changes_the_field():
    game = game_for(bombs="off")
    game.setup(1, field=field(WELL, WELL, WELL, WELL), piece="I")
    ai = TetriWarAI("hard")
    ai.next_action(game, 1, 0)  # planned for the last column
    game.setup(1, field=field(WELL_LEFT, WELL_LEFT, WELL_LEFT, WELL_LEFT))
    assert LEFT in ai.decide(game, 1, 0)
    play_piece(game, ai)
    assert game.players[1].lines == 4


def test_under_lack_of_control_it_presses_the_opposite_key_and_still_gets_there():
    game = game_for(seats=(1, 2), bombs="manual")
    game.setup(1, field=field(WELL_LEFT, WELL_LEFT, WELL_LEFT, WELL_LEFT), piece="I")
    ai = TetriWarAI("hard")
    assert LEFT in ai.decide(game, 1, 0)
    game.setup(2, store=[C.LACK_OF_CONTROL])
    game.apply(2, Intent("bomb", 2), 0)  # seat 2's key 2 is seat 1
    landed = C.BOMB_DELAY_MS
    land(game, 1, landed)  # it lands as seat 1's next piece enters
    game.setup(1, field=field(WELL_LEFT, WELL_LEFT, WELL_LEFT, WELL_LEFT), piece="I")
    assert game.players[1].reversed_until == landed + C.LACK_OF_CONTROL_MS
    keys = ai.decide(game, 1, landed)
    assert RIGHT in keys and LEFT not in keys
    play_piece(game, ai, now=landed)
    assert game.players[1].lines == 4


def test_once_control_is_back_it_presses_the_plain_keys_again():
    game = game_for(seats=(1, 2), bombs="manual")
    game.setup(1, field=field(WELL_LEFT, WELL_LEFT, WELL_LEFT, WELL_LEFT), piece=("I", 0, 3, 10))
    game.setup(2, store=[C.LACK_OF_CONTROL])
    game.apply(2, Intent("bomb", 2), 0)
    land(game, 1, C.BOMB_DELAY_MS)
    game.setup(1, field=field(WELL_LEFT, WELL_LEFT, WELL_LEFT, WELL_LEFT), piece=("I", 0, 3, 10))
    ai = TetriWarAI("hard")
    # at the moment lack of control ends the engine swaps nothing any more
    keys = ai.decide(game, 1, C.BOMB_DELAY_MS + C.LACK_OF_CONTROL_MS)
    assert LEFT in keys and RIGHT not in keys


# --- levels -------------------------------------------------------------------------------------
def keys_in(level: str, seconds: float) -> int:
    game = game_for(bombs="off", seed=5)
    ai = TetriWarAI(level, random.Random(1))
    now, pressed = 0, 0
    while now < seconds:
        game.advance(now)
        delay, key = ai.next_action(game, 1, now)
        if key is not None:
            game.apply(1, key, now)
            pressed += 1
        now += round(delay * 1000)  # the bot's delays are seconds
    return pressed


def test_levels_differ_in_speed():
    easy, medium, hard = (keys_in(level, 30000) for level in ("easy", "medium", "hard"))
    assert easy < medium < hard
    assert 40 < easy < 90  # about 3 keys a second, less the time to look at each piece
    assert hard > 250  # about 12 a second


def test_the_waits_follow_the_level_speed():
    for level, strength in LEVELS.items():
        ai = TetriWarAI(level, random.Random(2))
        game = game_for(bombs="off")
        delays = []
        now = 0
        while len(delays) < 20:
            delay, key = ai.next_action(game, 1, now)
            if key is not None:
                game.apply(1, key, now)
                delays.append(delay)
            now += round(delay * 1000)  # the bot's delays are seconds
        mean = sum(delays) / len(delays)
        assert mean == pytest.approx(1 / strength.keys_per_second, rel=0.25)


def test_an_unknown_level_is_refused():
    with pytest.raises(ValueError, match="easy, medium, hard"):
        TetriWarAI("impossible")


def test_the_hard_bot_alone_clears_a_hundred_lines_without_topping_out():
    game = game_for(bombs="off", seed=11)
    ai = TetriWarAI("hard")
    player, now = game.players[1], 0
    while player.lines < 100:
        game.advance(now)
        _, key = ai.next_action(game, 1, now)
        if key is not None:
            game.apply(1, key, now)
        now += 10
    assert player.eliminations == 0


def test_nothing_to_press_once_the_game_is_over_or_the_player_left():
    game = game_for(seats=(1, 2), minutes=1)
    ai = TetriWarAI("hard")
    game.forfeit(2, 1000)
    assert ai.next_action(game, 2, 1000)[1] is None
    assert ai.decide(game, 2, 1000) == []
    assert ai.next_action(game, 1, 60000)[1] is None


# --- bombs ------------------------------------------------------------------------------------
def first_key(game: Game, ai: TetriWarAI, seat: int, now: int = 1000) -> Intent | None:
    """The first key the bot presses (after looking at its piece)."""
    for _ in range(10):
        delay, key = ai.next_action(game, seat, now)
        if key is not None:
            return key
        now += round(delay * 1000)  # the bot's delays are seconds
    return None


def three_players(store_seat: int, store: list[str], scores=(0, 50, 300)) -> Game:
    game = game_for(seats=(1, 2, 3), bombs="manual")
    for seat, score in zip((1, 2, 3), scores, strict=True):
        game.setup(seat, score=score)
    game.setup(store_seat, store=store)
    return game


def test_the_hard_bot_drops_a_red_bomb_on_the_leader():
    game = three_players(1, [C.DRILL])  # seat 3 leads with 300; for seat 1 that is key 3
    assert first_key(game, TetriWarAI("hard"), 1) == Intent("bomb", 3)
    game = three_players(2, [C.EARTHQUAKE], scores=(400, 0, 50))  # for seat 2, seat 1 is key 3
    assert first_key(game, TetriWarAI("hard"), 2) == Intent("bomb", 3)


def test_the_hard_bot_holds_one_add_line_and_fires_three_together():
    game = three_players(1, [C.ADD_LINE])
    assert first_key(game, TetriWarAI("hard"), 1).name != "bomb"
    game = three_players(1, [C.ADD_LINE] * 3 + [C.DRILL])
    ai = TetriWarAI("hard")
    now = 1000
    for _ in range(3):
        key = first_key(game, ai, 1, now)
        assert key == Intent("bomb", 3)
        game.apply(1, key, now)
        now += 100
    assert [i.bomb for i in game.players[3].incoming] == [C.ADD_LINE] * 3  # announced
    land(game, 3, now + C.BOMB_DELAY_MS)  # and landing together as seat 3's next piece enters
    assert sum("G" in row for row in game.players[3].field.visible()) == 3
    assert game.players[1].store == [C.DRILL]


def test_the_hard_bot_drops_green_bombs_on_itself_when_its_stack_is_high():
    game = three_players(1, [C.REMOVE_LINE])
    game.setup(1, field=field(*HIGH))
    ai = TetriWarAI("hard")
    assert first_key(game, ai, 1) == Intent("bomb", 1)
    low = three_players(1, [C.REMOVE_LINE])
    assert first_key(low, TetriWarAI("hard"), 1).name != "bomb"  # saved for later


def test_a_green_bomb_holding_up_a_red_one_is_used():
    game = three_players(1, [C.GRAVITY_BOMB, C.DRILL])
    assert first_key(game, TetriWarAI("hard"), 1) == Intent("bomb", 1)


def test_alone_the_hard_bot_keeps_its_red_bombs():
    game = game_for(bombs="manual")
    game.setup(1, store=[C.DRILL])
    assert first_key(game, TetriWarAI("hard"), 1).name != "bomb"


def test_easy_never_drops_bombs_and_medium_only_with_enter():
    easy, medium = TetriWarAI("easy", random.Random(1)), TetriWarAI("medium", random.Random(1))
    game = three_players(1, [C.DRILL] * 12)
    easy_keys, medium_keys = [], []
    now = 0
    for _ in range(200):
        easy_keys.append(easy.next_action(game, 1, now)[1])
        medium_keys.append(medium.next_action(game, 1, now)[1])
        now += 50
    assert not any(key is not None and key.name == "bomb" for key in easy_keys)
    assert Intent("bomb") in medium_keys
    assert not any(key is not None and key.name == "bomb" and key.target for key in medium_keys)


def test_no_bombs_by_hand_when_bombs_are_automatic():
    game = game_for(seats=(1, 2), bombs="automatic")
    game.setup(1, store=[C.DRILL])
    assert first_key(game, TetriWarAI("hard"), 1).name != "bomb"


# --- the bot never sends an illegal intent ---------------------------------------------------------
bomb_lists = st.lists(st.sampled_from(sorted(C.BOMB_WEIGHTS)), max_size=C.STORE_SIZE)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    levels=st.lists(st.sampled_from(sorted(LEVELS)), min_size=2, max_size=4),
    stores=st.lists(bomb_lists, min_size=4, max_size=4),
    start_level=st.integers(1, 9),
    pairs=st.booleans(),
)
def test_bots_never_send_an_illegal_intent(seed, levels, stores, start_level, pairs):
    """2–4 bots of any levels share a game with manual bombs and full stores; every key
    they press goes through ``game.apply``, which raises on anything illegal."""
    seats = list(range(1, len(levels) + 1))
    game = game_for(
        seats=seats,
        seed=seed,
        bombs="manual",
        start_level=start_level,
        minutes=1,
        pairs=pairs and len(seats) == 4,
    )
    bots = {
        seat: TetriWarAI(level, random.Random(seed + seat)) for seat, level in zip(seats, levels, strict=True)
    }
    for seat in seats:
        game.setup(seat, store=stores[seat - 1], field=field(*["XXXXXXXX.X", "X.XXXXXXXX"] * 3))
    due = {seat: 0 for seat in seats}
    pressed = 0
    while True:
        seat = min(due, key=due.get)
        now = due[seat]
        if now > 20000:
            break
        game.advance(now)
        delay, key = bots[seat].next_action(game, seat, now)
        if key is not None:
            game.apply(seat, key, now)
            pressed += 1
        due[seat] = now + round(delay * 1000)
    assert pressed > 50
