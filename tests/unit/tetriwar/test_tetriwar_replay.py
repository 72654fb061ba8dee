"""Determinism: a game is fully reproduced from (options, seed, seats, start, input log)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from games.tetriwar.bot import Bot
from games.tetriwar.engine import Game, Options

RECORDINGS = sorted((Path(__file__).parent / "recordings").glob("*.json"))


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda path: path.stem)
def test_recorded_games_replay_to_their_recorded_final_state(path):
    record = json.loads(path.read_text())
    game = Game.replay(
        Options.from_dict(record["options"]),
        record["seed"],
        record["seats"],
        record["start"],
        record["log"],
        record["end"],
    )
    assert game.finished
    assert game.to_text().split("\n") == record["final"]


def test_there_are_recordings_with_every_bomb_mode():
    modes = {json.loads(path.read_text())["options"]["bombs"] for path in RECORDINGS}
    assert modes == {"off", "manual", "automatic"}


def test_a_replay_equals_the_original_at_any_moment():
    game = Game(Options(bombs="manual", lines_per_level=4), 99, [1, 2, 3], 0.0)
    bot = Bot(random.Random(5), careful=True)
    rng = random.Random(6)
    t = 0.0
    for _ in range(1500):
        t += rng.random() * 0.05
        seat = rng.choice([1, 2, 3])
        game.apply(seat, bot.choose(game, seat), t)
    copy = Game.replay(game.options, game.seed, [3, 1, 2], game.start, game.log, game.now)
    assert copy.to_text() == game.to_text()
    assert [copy.view(s) for s in (1, 2, 3)] == [game.view(s) for s in (1, 2, 3)]
    assert copy.results() == game.results()


def test_the_log_holds_plain_json_values():
    game = Game(Options(), 1, [1], 0.0)
    game.apply(1, Bot(random.Random(1)).choose(game, 1), 0.5)
    assert json.loads(json.dumps(list(game.log))) == [list(entry) for entry in game.log]
