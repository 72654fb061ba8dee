"""Rules version 3 (issue #31): each board on its own clock, in whole milliseconds; bombs
announced at the drop and landing at the target's next piece at or after 500 ms; Enter
weighing by the scores of 500 ms before; one board's canonical text, hash and state."""

from __future__ import annotations

import json
import random
import zlib
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tetriwar_helpers import HARD_DROP, LEFT, field, game_for, kinds, press

from games.core.protocol import IllegalIntent
from games.tetriwar import constants as C
from games.tetriwar.bot import Bot
from games.tetriwar.dice import Dice
from games.tetriwar.engine import Game, Intent, Options


# --- whole milliseconds ----------------------------------------------------------------------------
def test_times_are_whole_milliseconds_and_a_float_is_refused():
    game = game_for(minutes=2)
    assert (game.start, game.end) == (0, 120_000)
    for call in (lambda: game.apply(1, LEFT, 0.25), lambda: game.advance(1.5), lambda: game.forfeit(1, 2.0)):
        with pytest.raises(TypeError):
            call()
    with pytest.raises(TypeError):
        Game(Options(), 1, [1], 0.0)


def test_a_replay_reads_a_packed_logs_whole_doubles():
    game = game_for(seats=(1, 2))
    press(game, 1, "left", now=250)
    game.advance(game.end)
    copy = Game.replay(game.options, game.seed, game.seats, 0.0, [(250.0, 1, "left")], float(game.end))
    assert copy.to_text() == game.to_text()


# --- a clock per board -----------------------------------------------------------------------------
def test_an_input_acts_at_its_time_on_its_board_and_moves_no_other():
    game = game_for(seats=(1, 2))
    game.advance(2000)
    events = game.apply(1, LEFT, 2350)
    assert (game.players[1].now, game.players[2].now, game.now) == (2350, 2000, 2350)
    assert {e.seat for e in events} == {1}
    assert game.log[-1] == (2350, 1, "left")
    game.apply(2, LEFT, 2100)  # seat 2's input 250 ms late still acts at 2100
    assert game.players[2].now == 2100 and game.log[-1] == (2100, 2, "left")
    assert game.players[1].now == 2350


def test_an_input_is_clamped_to_its_boards_time_and_to_the_lag_allowance():
    game = game_for(seats=(1, 2))
    game.apply(1, LEFT, 1000)
    game.apply(1, LEFT, 900)  # never before the board's own time
    assert game.log[-1] == (1000, 1, "left")
    game.apply(2, LEFT, 3000)
    game.apply(1, LEFT, 1500)  # more than 400 ms behind the game's time (3000)
    assert game.log[-1] == (3000 - C.MAX_LAG_MS, 1, "left")


def test_a_board_left_far_behind_is_brought_within_the_lag_allowance():
    # our choice beside plan31: an input far ahead of the game's time moves the game's time,
    # and a board more than MAX_LAG_MS behind it is run up to then (so no board lags further)
    game = game_for(seats=(1, 2))
    game.apply(2, LEFT, 5000)
    assert game.players[1].now == 5000 - C.MAX_LAG_MS


def test_advance_keeps_a_seat_behind_by_at_most_the_lag_allowance():
    game = game_for(seats=(1, 2, 3))
    game.advance(3000, behind={2: 150, 3: 9999})
    assert [game.players[s].now for s in (1, 2, 3)] == [3000, 2850, 3000 - C.MAX_LAG_MS]
    assert game.now == 3000
    game.advance(2000)  # never back
    assert game.players[1].now == 3000 and game.now == 3000


def test_the_next_deadline_is_each_boards_next_clock_plus_its_lag():
    game = game_for(seats=(1, 2))
    assert game.next_deadline() == 1000  # gravity, level 1
    assert game.next_deadline(behind={1: 200, 2: 300}) == 1200
    assert game.earliest_due() <= game.next_deadline()


def test_the_end_runs_every_board_to_the_end():
    game = game_for(seats=(1, 2), minutes=1)
    game.apply(1, LEFT, 10_000)
    events = game.advance(60_000, behind={2: 400})
    assert game.finished and "finished" in kinds(events)
    assert game.players[1].now == game.players[2].now == 60_000


# --- bombs land at the next piece at or after 500 ms -------------------------------------------------
def bombed(seats=(1, 2), bombs=("add_line",)):
    game = game_for(seats=seats, bombs="manual")
    game.setup(1, store=list(bombs))
    return game


def test_a_bomb_is_announced_at_the_drop_and_lands_at_the_first_piece_at_or_after_500_ms():
    game = bombed()
    events = game.apply(1, Intent("bomb", 2), 1000)
    assert [(e.kind, e.seat) for e in events if e.kind == "feed"] == [("feed", 2)]
    (due, bomb, sender, seed), = game.state(2)["incoming"]  # its dice's seed, drawn at the drop
    assert (due, bomb, sender) == (1500, "add_line", 1) and 0 <= seed < 2**32
    game.apply(2, HARD_DROP, 1499)  # a piece enters before 1500: nothing lands
    assert "G" not in "".join(game.view(2).field) and game.players[2].incoming
    game.advance(1700)  # 1500 comes and goes with no new piece: still nothing
    assert "G" not in "".join(game.view(2).field)
    events = game.apply(2, HARD_DROP, 1800)  # the first piece at or after 1500
    landed = [e for e in events if e.kind == "landed"]
    assert [(e.seat, e.bomb, e.sender) for e in landed] == [(2, "add_line", 1)]
    assert game.view(2).field[-1].count("G") == 9 and game.players[2].incoming == []
    assert game.view(2).field[-1].index(".") == Dice(seed).below(C.WIDTH)  # the hole: its dice's


def test_a_piece_entering_exactly_at_500_ms_takes_the_bomb():
    game = bombed()
    game.apply(1, Intent("bomb", 2), 1000)
    game.apply(2, HARD_DROP, 1500)
    assert game.view(2).field[-1].count("G") == 9


def test_bombs_land_in_drop_order():
    game = bombed(seats=(1, 2, 3), bombs=("remove_line",))
    game.setup(3, store=["add_line"])
    game.setup(2, field=field("XXXX.XXXXX"))
    game.apply(3, Intent("bomb", 3), 1000)  # seat 3's key 3 is seat 2: add line first ...
    game.apply(1, Intent("bomb", 2), 1100)  # ... then remove line
    assert [bomb for _, bomb, *_ in game.state(2)["incoming"]] == ["add_line", "remove_line"]
    events = game.apply(2, HARD_DROP, 2000)
    assert [e.bomb for e in events if e.kind == "landed"] == ["add_line", "remove_line"]
    # the garbage row came in under the X row, then the bottom row (the garbage) went
    assert "G" not in "".join(game.view(2).field)


def test_lack_of_control_lasts_5000_ms_from_its_landing():
    game = bombed(bombs=("lack_of_control",))
    game.apply(1, Intent("bomb", 2), 1000)
    events = game.apply(2, HARD_DROP, 2300)
    control = [e for e in events if e.kind == "control"]
    assert [(c.reversed, c.until) for c in control] == [(True, 2300 + C.LACK_OF_CONTROL_MS)]
    assert game.view(2).reversed_until == 7300


def test_a_bomb_on_oneself_lands_the_same_way():
    game = bombed(bombs=("demolition",))
    game.setup(1, field=field("XXXX.XXXXX"))
    game.apply(1, Intent("bomb", 1), 1000)
    assert game.view(1).field[-1] == "XXXX.XXXXX"  # not yet
    game.apply(1, HARD_DROP, 1200)  # a piece at 1200: too early
    assert "XXXX" in game.view(1).field[-1]
    events = game.apply(1, HARD_DROP, 1600)
    assert [(e.seat, e.bomb, e.sender) for e in events if e.kind == "landed"] == [(1, "demolition", 1)]


def test_an_add_line_that_tops_out_eliminates_and_the_piece_still_enters():
    game = bombed()
    game.setup(2, field=field(*["X........."] * 22))
    game.apply(1, Intent("bomb", 2), 0)
    dealt = game.players[2].bag.dealt
    events = game.apply(2, HARD_DROP, 600)
    assert game.view(2).eliminations >= 1 and "eliminated" in kinds(events)
    assert game.players[2].bag.dealt == dealt + 1  # one spawn, no second
    assert game.view(2).piece is not None


# --- Enter weighs by the scores of 500 ms before ---------------------------------------------------
def test_enter_weighs_the_targets_by_their_scores_500_ms_before_the_drop():
    hits = Counter()
    for seed in range(300):
        game = game_for(bombs="manual", seats=(1, 2, 3), seed=seed)
        game.players[2].scores = [(-(10**9), 0), (1000, 50)]  # seat 2 led from 1000 ms on ...
        game.players[3].scores = [(-(10**9), 0), (1600, 90)]  # ... seat 3 only from 1600
        game.setup(1, store=["drill"])
        events = game.apply(1, Intent("bomb"), 2000)  # as of 1500: seat 2 leads
        hits[next(e.seat for e in events if e.kind == "feed")] += 1
    assert abs(hits[2] / 300 - 3 / 4) < 0.08


def test_a_boards_score_history_answers_any_time_a_drop_may_ask():
    game = game_for(bombs="off")
    player = game.players[1]
    player.score = 5
    player.scored(100)
    player.score = 9
    player.scored(700)
    assert [player.score_at(t) for t in (0, 100, 699, 700, 10_000)] == [0, 5, 5, 9, 9]


# --- one board as text, hash and JSON --------------------------------------------------------------
def test_board_hash_is_crc32_of_the_canonical_utf8():
    game = game_for(seats=(1, 2))
    canon = game.canon(1)
    assert game.board_hash(1) == zlib.crc32(canon.encode()) == zlib.crc32(canon.encode("utf-8"))
    assert zlib.crc32(b"123456789") == 0xCBF43926  # the check value both engines share


def test_canon_is_plan31s_format():
    game = game_for(seats=(1, 2), bombs="manual")
    game.setup(1, field=field("XXa.XXXXXX"), piece=("T", 1, 4, 10), store=["drill", "gravity"], score=12)
    press(game, 1, "hold_left", now=30)
    canon = game.canon(1)
    lines = canon.split("\n")
    assert lines[:5] == [
        "t 30 piece T 1 3 12 lowest 12 resets 0 touched 0 soft 0",
        "clocks 1000 - 200 - 0",
        "keys L charged 0",
        "score 12 1 0 0 0 dealt 1 out 0",
        "store rg",
    ]
    assert lines[5:] == ["." * 10] * 21 + ["XXa.XXXXXX"]
    assert game.board_hash(1) == zlib.crc32(canon.encode())


def test_state_is_plan31s_json_and_reads_back_as_json():
    game = game_for(seats=(1, 2), bombs="manual")
    game.setup(1, store=["add_line"])
    game.apply(1, Intent("bomb", 2), 100)
    state = game.state(2)
    assert json.loads(json.dumps(state)) == state
    assert set(state) == {
        "t", "field", "piece", "lowest", "resets", "touched", "soft", "fall_at", "lock_at", "repeat_at",
        "control_until", "last_fall", "held", "charged", "score", "level", "lines", "level_lines",
        "eliminations", "start_level", "lines_per_level", "bombs", "handling", "dealt", "next", "store",
        "out", "incoming",
    }  # fmt: skip
    assert state["incoming"] == [[600, "add_line", 1, state["incoming"][0][3]]] and state["lock_at"] is None
    assert len(state["field"]) == C.HEIGHT and len(state["next"]) >= C.PREVIEW


# --- however the boards are advanced, the replay is the game ---------------------------------------
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    seats=st.sampled_from([(1, 2), (1, 2, 3), (1, 2, 3, 4), (2, 4)]),
    bombs=st.sampled_from(["manual", "automatic"]),
    pairs=st.booleans(),
    steps=st.lists(
        st.tuples(st.integers(0, 80), st.integers(0, 9), st.integers(0, C.MAX_LAG_MS), st.integers(0, 3)),
        min_size=20,
        max_size=400,
    ),
)
def test_a_replay_of_the_log_is_the_game_however_the_boards_were_advanced(seed, seats, bombs, pairs, steps):
    game = Game(
        Options(minutes=1, start_level=6, lines_per_level=4, bombs=bombs, pairs=pairs and len(seats) == 4),
        seed,
        seats,
    )
    bot = Bot(random.Random(seed), randomness=0.1, bomb_rate=0.5, careful=True)
    t = 0
    for dt, what, lag, which in steps:
        t += dt * 20  # up to 1.6 s a step: a minute's game in a few hundred steps
        seat = seats[which % len(seats)]
        if what < 3:  # the host's clock, some seats behind
            game.advance(t, {s: (lag * (i + which)) % (C.MAX_LAG_MS + 1) for i, s in enumerate(seats)})
        elif what == 9 and len(seats) > 2 and not game.players[seat].left:
            game.forfeit(seat, t)
        elif not game.players[seat].left:
            try:
                game.apply(seat, bot.choose(game, seat), t - lag)  # a late input
            except IllegalIntent:
                pass
    game.advance(game.end)
    copy = Game.replay(game.options, game.seed, game.seats, game.start, game.log, game.end)
    assert copy.to_text() == game.to_text()
