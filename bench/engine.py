"""TetriWar engine throughput: a long stream of legal intents across 4-player games with bombs.

    python bench/engine.py [--intents N] [--seed S]

Two phases. *Record*: four bots play 4-player games with manual bombs; intents arrive
every 0–8 ms from a random seat, so gravity, lock delay and the clocks run as in a real
game; each bot steers most pieces toward a deep landing column of a random rotation
(so lines clear and bombs appear) and mixes in random intents and bomb drops. When a
game's 15 minutes run out the next game starts, until N intents are logged. *Replay*
(timed): every game is rebuilt from its options, seed and input log, as a server would
replay it, and must end in exactly the recorded state.

*Peer* (timed, in the same run): the same keys, seat by seat, pushed into python-tetris
(the ``tetris`` package on PyPI, 1.0.0a0, a modern-guideline engine in pure Python), one
game per seat, a lost game started again: ← →, rotate, hard and soft drop as they are;
a bomb is its hold (it has no bombs), a key let go one tick of its gravity.

Prints ``name: value`` lines; the last one is ``intents_per_s``: logged intents applied
per second in the replay phase (the engine alone, events included, one core).
``record_intents_per_s`` is the same for the record phase, the bots' thinking included;
``times_peer`` is ``intents_per_s`` over the peer's (``none`` where it is not installed).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.report import figures  # noqa: E402
from games.tetriwar import COMPILED_BUILD  # noqa: E402
from games.tetriwar.bot import Bot  # noqa: E402
from games.tetriwar.engine import Game, Options, logged_ms  # noqa: E402
from games.tetriwar.intents import intent  # noqa: E402

try:
    import tetris as peer_engine
except ImportError:  # a bench without its peer still measures the engine
    peer_engine = None

SEATS = [1, 2, 3, 4]
OPTIONS = Options(minutes=15, start_level=1, lines_per_level=10, bombs="manual")


def record(intents: int, seed: int) -> tuple[list[Game], float]:
    rng = random.Random(seed)
    bot = Bot(random.Random(seed + 1))
    now = 0  # ms, the engine's clock
    games = [Game(OPTIONS, seed, SEATS, now)]
    started = time.perf_counter()
    for _ in range(intents):
        now += rng.randrange(9)  # 0–8 ms between intents
        game = games[-1]
        if now >= game.end:
            game.advance(now)
            game = Game(OPTIONS, seed + len(games), SEATS, now)
            games.append(game)
            bot.aims.clear()
        seat = SEATS[int(rng.random() * 4)]
        game.apply(seat, bot.choose(game, seat), now)
    games[-1].advance(now)
    return games, time.perf_counter() - started


def replay(games: list[Game]) -> tuple[float, int, bool]:
    """Apply every game's log to a fresh game; returns (seconds, events, all states equal).
    The log keeps its times as doubles (``InputLog``); they are turned back into the
    engine's whole milliseconds, as ``Game.replay`` does, before the clock starts."""
    plans = [[(logged_ms(t), seat, intent(text)) for t, seat, text in game.log] for game in games]
    same, events = True, 0
    seconds = 0.0
    for game, plan in zip(games, plans, strict=True):
        started = time.perf_counter()
        copy = Game(game.options, game.seed, game.seats, game.start)
        apply = copy.apply
        for t, seat, what in plan:
            events += len(apply(seat, what, t))
        copy.advance(game.now)
        seconds += time.perf_counter() - started
        same = same and copy.to_text() == game.to_text()
    return seconds, events, same


def peer(games: list[Game]) -> float | None:
    """Seconds python-tetris takes for the same keys (None: it is not installed)."""
    if peer_engine is None:
        return None
    boards = {seat: peer_engine.BaseGame(seed=seat) for seat in SEATS}
    actions = {
        "left": "left", "hold_left": "left", "right": "right", "hold_right": "right",
        "rotate": "rotate", "hard_drop": "hard_drop", "soft_drop_on": "soft_drop", "hold_down": "soft_drop",
        "bomb": "swap",
    }
    plan = [(seat, actions.get(text.partition(":")[0], "tick")) for game in games for _, seat, text in game.log]
    started = time.perf_counter()
    for seat, action in plan:
        board = boards[seat]
        if board.lost:
            board.reset()
        getattr(board, action)()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--intents", type=int, default=300_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    games, record_seconds = record(args.intents, args.seed)
    seconds, events, same = replay(games)
    peer_seconds = peer(games)
    players = [p for game in games for p in game.players.values()]
    logged = sum(len(game.log) for game in games)
    figures({
        "intents": logged,
        "games": len(games),
        "game_seconds": round(games[-1].now / 1000, 1),
        "lines": sum(p.lines for p in players),
        "bombs_dropped": sum(text.startswith("bomb") for game in games for _, _, text in game.log),
        "eliminations": sum(p.eliminations for p in players),
        "events": events,
        "replay_matches_record": same,
        # games/tetriwar/__init__.py: the mypyc build (make engine), or the .py files
        "engine_build": "compiled" if COMPILED_BUILD else "pure",
        "record_seconds": round(record_seconds, 3),
        "record_intents_per_s": int(logged / record_seconds),
        "seconds": round(seconds, 3),
        "peer": f"python-tetris {peer_engine.__version__}" if peer_engine else "none",
        "peer_intents_per_s": int(logged / peer_seconds) if peer_seconds else "none",
        "times_peer": round(peer_seconds / seconds, 1) if peer_seconds else "none",
        "intents_per_s": int(logged / seconds),
    })


if __name__ == "__main__":
    main()
