"""Determinism: a game is fully reproduced from (options, seed, seats, start, input log)."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from games.tetriwar import rulebook
from games.tetriwar.bot import Bot
from games.tetriwar.constants import RULES_VERSION
from games.tetriwar.engine import Game, Options

HERE = Path(__file__).parent / "recordings"
# Games recorded under the current rules version (4), under version 3 (a bomb's dice drawn
# as it lands) and under version 2 (float seconds, bombs at once), kept as they were: the
# engine of that version replays them.
RECORDINGS = sorted(HERE.glob("*.json"))
RECORDINGS_V3 = sorted((HERE / "v3").glob("*.json"))
RECORDINGS_V2 = sorted((HERE / "v2").glob("*.json"))


def replayed(engine, record):
    return engine.replay(
        engine_options(record), record["seed"], record["seats"], record["start"], record["log"], record["end"]
    )


def engine_options(record):
    return Options.from_dict(record["options"])


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda path: path.stem)
def test_recorded_games_replay_to_their_recorded_final_state(path):
    record = json.loads(path.read_text())
    assert record["rules_version"] == RULES_VERSION
    game = replayed(Game, record)
    assert game.finished
    assert game.to_text().split("\n") == record["final"]


@pytest.mark.parametrize("path", RECORDINGS_V3, ids=lambda path: path.stem)
def test_games_recorded_under_rules_version_3_replay_with_its_engine(path):
    record = json.loads(path.read_text())
    assert record["rules_version"] == 3
    game = replayed(rulebook.game_class(3), record)
    assert game.finished
    assert game.to_text().split("\n") == record["final"]


def test_the_recordings_of_rules_version_3_are_kept_and_differ_from_version_4s():
    assert {path.stem for path in RECORDINGS} == {path.stem for path in RECORDINGS_V3}
    # the same bots' games with bombs came out otherwise once each bomb drew its own dice
    for path in RECORDINGS:
        now, then = json.loads(path.read_text()), json.loads((HERE / "v3" / path.name).read_text())
        if now["options"]["bombs"] != "off":
            assert now["final"] != then["final"], path.stem


@pytest.mark.parametrize("path", RECORDINGS_V2, ids=lambda path: path.stem)
def test_games_recorded_under_rules_version_2_replay_with_its_engine(path):
    record = json.loads(path.read_text())
    game = replayed(rulebook.game_class(2), record)
    assert game.finished
    assert game.to_text().split("\n") == record["final"]


def test_the_recordings_of_rules_version_2_are_kept():
    # each game recorded again under version 3 keeps its version 2 recording
    assert {path.stem for path in RECORDINGS} <= {path.stem for path in RECORDINGS_V2}


def test_there_are_recordings_with_every_bomb_mode():
    modes = {json.loads(path.read_text())["options"]["bombs"] for path in RECORDINGS}
    assert modes == {"off", "manual", "automatic"}


def test_a_replay_equals_the_original_at_any_moment():
    game = Game(Options(bombs="manual", lines_per_level=4), 99, [1, 2, 3], 0)
    bot = Bot(random.Random(5), careful=True)
    rng = random.Random(6)
    t = 0
    for _ in range(1500):
        t += rng.randrange(50)
        seat = rng.choice([1, 2, 3])
        game.apply(seat, bot.choose(game, seat), t)
    game.advance(game.now)  # every board to the game's time (an input runs its own alone), as the replay's end
    copy = Game.replay(game.options, game.seed, [3, 1, 2], game.start, game.log, game.now)
    assert copy.to_text() == game.to_text()
    assert [copy.view(s) for s in (1, 2, 3)] == [game.view(s) for s in (1, 2, 3)]
    assert copy.results() == game.results()


def test_the_log_holds_plain_json_values():
    game = Game(Options(), 1, [1], 0)
    game.apply(1, Bot(random.Random(1)).choose(game, 1), 500)
    assert json.loads(json.dumps(list(game.log))) == [list(entry) for entry in game.log]


def test_advance_timed_is_advance_with_the_time_of_each_step():
    """Two equal games, one run by ``advance``, the other by ``advance_timed`` in uneven
    steps: the same events and the same game, each event timed by the clock step that
    made it (between the last time and the new one, in order), and the lower bound
    ``earliest_due`` never after the next deadline."""
    a = Game(Options(bombs="automatic"), 7, [1, 2], 0)
    b = Game(Options(bombs="automatic"), 7, [1, 2], 0)
    bot, rng = Bot(random.Random(3), careful=True), random.Random(4)
    t = 0
    for _ in range(600):
        assert b.earliest_due() <= (b.next_deadline() or math.inf)
        previous, t = t, t + rng.randrange(800)
        plain = a.advance(t)
        timed, times = b.advance_timed(t)
        assert timed == plain and len(times) == len(timed)
        assert times == sorted(times) and all(previous <= at <= t for at in times)
        if rng.random() < 0.5 and not a.finished:
            seat = rng.choice([1, 2])
            move = bot.choose(a, seat)
            assert a.apply(seat, move, t) == b.apply(seat, move, t)
    assert a.to_text() == b.to_text()
