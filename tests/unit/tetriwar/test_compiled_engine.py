"""The engine compiled with mypyc (``make engine``) plays the rules of its .py files.

The build is what the site runs where it could be made (under CI=true it must be); the
.py files stay the rules and the fallback (games/tetriwar/__init__.py). Both are run
here on the same random games, in processes of their own: every event and every state
must be the same.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import games.tetriwar as tetriwar
from tests.needs import need

ROOT = Path(__file__).resolve().parents[3]

# Four players with manual bombs, keys 0–29 ms apart from a random seat (the hard bot's
# choices and random ones), 12,000 across as many 1-minute games as that takes (three or
# more): what each apply returned, each game's final state, and a pickle's copy of it.
TRACE = r"""
import hashlib, pickle, random, sys
import games.tetriwar as tetriwar
from games.core.protocol import IllegalIntent
from games.tetriwar.bot import Bot
from games.tetriwar.engine import Game, Options
from games.tetriwar.intents import intent

seed = int(sys.argv[1])
rng, bot = random.Random(seed), Bot(random.Random(seed + 1))
options = Options(minutes=1, start_level=3, lines_per_level=5, bombs="manual")
seats = [1, 2, 3, 4]
digest = hashlib.sha256()
now = 0
games = [Game(options, seed, seats, now)]
keys = ["left", "right", "rotate", "soft_drop_on", "soft_drop_off", "hard_drop", "bomb", "bomb:2", "bomb:9",
        "hold_left", "release_left", "hold_right", "release_right", "hold_down", "release_down"]
for _ in range(12_000):
    now += rng.randrange(30)
    game = games[-1]
    if now >= game.end or game.finished:
        digest.update(repr(game.advance(now)).encode())
        game = Game(options, seed + len(games), seats, now)
        games.append(game)
        bot.aims.clear()
    seat = seats[int(rng.random() * 4)]
    try:
        choice = bot.choose(game, seat) if rng.random() < 0.7 else intent(rng.choice(keys))
        digest.update(repr(game.apply(seat, choice, now)).encode())
    except IllegalIntent as refused:
        digest.update(refused.code.encode())
for game in games:
    digest.update(game.to_text().encode())
    assert pickle.loads(pickle.dumps(game)).to_text() == game.to_text()
print(tetriwar.COMPILED_BUILD, len(games), digest.hexdigest())
"""


def trace(seed: int, *, pure: bool) -> list[str]:
    env = {**os.environ, "TETRIWAR_PURE_ENGINE": "1" if pure else "0"}
    done = subprocess.run(
        [sys.executable, "-c", TRACE, str(seed)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.split()


def test_the_compiled_build_is_what_runs():
    need(tetriwar.COMPILED_BUILD, "the compiled engine is not built (make engine; gcc and mypy are needed)")
    from games.tetriwar import engine, field, pieces, player

    for module in (engine, field, pieces, player):
        assert not module.__file__.endswith(".py"), module.__file__


@pytest.mark.parametrize("seed", [1, 2])
def test_the_compiled_and_the_pure_engine_play_the_same_games(seed):
    need(tetriwar.COMPILED_BUILD, "the compiled engine is not built (make engine; gcc and mypy are needed)")
    compiled, pure = trace(seed, pure=False), trace(seed, pure=True)
    assert compiled[0] == "True" and pure[0] == "False"  # each ran the build it meant to
    assert int(compiled[1]) >= 3  # several games, each to its end
    assert compiled[1:] == pure[1:]


def test_the_build_compiles_the_modules_the_package_knows():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import mypyc_engine
    finally:
        sys.path.remove(str(ROOT / "tools"))
    assert {Path(m).stem for m in mypyc_engine.MODULES} == set(tetriwar.COMPILED)
