"""Replays: what opening a long TetriWar game's replay costs, and a seek in it.

    python bench/replay.py [--minutes M] [--players P] [--seeks N] [--seed S] [--bot LEVEL] [--every E]

*Record*: a TetriWar game of M minutes (default 15) played by P bots (default 4, at the
``hard`` level, whose keys come fastest) on a clock that jumps from one thing to do to
the next, as tests/contract/test_game_contract.py plays them; no database. Its input log
is packed as a finished game's record keeps it (``InputLog.pack``).
*Measure*: ``open_ms``, unpacking the record, opening its ``Replay`` (the whole game played
once, a snapshot every E entries, default ``games.replays.SNAPSHOT_EVERY``, the moments of
the seek bar found) and rendering its first frame; ``seek_p99_ms`` over N random moments
(default 200), each a seek from the nearest snapshot and the whole game area rendered, as
the replay page asks ten times a second while playing; the record's size.
*Floors*, measured in the same run beside them: ``floor_open_ms``, the engine alone
replaying the log (``Replayable.replay``: no snapshots, no moments, nothing rendered);
``floor_render_p99_ms``, the finished game area rendered with no seek.
Prints ``name: value`` lines; the last is ``seek_p99_ms``. Targets: open under 1000 ms and
a seek's 99th percentile under 100 ms, for 15 minutes of 4 players.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.server import django_in_process  # noqa: E402

django_in_process()

from bench.report import figure, percentile  # noqa: E402
from games.core.log import InputLog  # noqa: E402
from games.registry import GAMES  # noqa: E402
from games.replays import SNAPSHOT_EVERY, Replay  # noqa: E402
from games.tetriwar import COMPILED_BUILD  # noqa: E402

CAP_SECONDS = 4 * 3600


def setup_for(minutes: int, players: int, seed: int, bot: str) -> dict:
    spec = GAMES["tetriwar"]
    options = spec.options_form.defaults()
    options["minutes"] = minutes
    return {
        "kind": "tetriwar",
        "options": options,
        "seed": seed,
        "players": [
            {"seat": seat, "name": f"Player {seat}", "is_guest": False, "user_id": None, "bot": bot}
            for seat in range(1, players + 1)
        ],
    }


def bots_game(setup: dict):
    """The game played to its end by its bots, every one at its own pace."""
    live = GAMES["tetriwar"].live(setup)
    now = 0.0
    live.begin(now)
    due = {seat: now for seat in live.bot_seats}
    while not live.finished:
        seat = min(due, key=due.get)
        deadline = live.next_deadline()
        if deadline is not None and deadline < due[seat]:
            now = deadline
            live.advance(now)
            continue
        now = due[seat]
        if now > CAP_SECONDS:
            raise RuntimeError("the bots' game did not end")
        _, delay = live.bot_act(seat, now)
        due[seat] = now + max(delay, 0.001)
    return live


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=int, default=15)
    parser.add_argument("--players", type=int, default=4, choices=range(1, 5))
    parser.add_argument("--seeks", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bot", default="hard", choices=GAMES["tetriwar"].bot_levels)
    parser.add_argument("--every", type=int, default=SNAPSHOT_EVERY, help="log entries between snapshots")
    args = parser.parse_args()

    setup = setup_for(args.minutes, args.players, args.seed, args.bot)
    started = time.perf_counter()
    live = bots_game(setup)
    simulated = time.perf_counter() - started
    game = live.game
    data = live.game.log.pack(*live.finished_game().clock)  # as games/services.py packs it
    minutes = (game.now - game.start) / 60_000
    figure("game",
           f"tetriwar, {args.players} {args.bot} bots, {args.minutes} minutes ({game.termination.value})")
    figure("simulate_s", simulated, ".1f")
    figure("log_entries", len(game.log))
    figure("bytes_per_game", len(data))
    figure("bytes_per_minute", len(data) / max(minutes, 1e-9), ".0f")

    # As the replay page opens it (games/replays.py ``recorded``, then ``Replay.of``).
    replayed_setup = {**setup, "players": [{**p, "handling": None} for p in setup["players"]]}
    started = time.perf_counter()
    log, start, end = InputLog.unpack(data)
    replay = Replay(replayed_setup, log, start, end, every=args.every)
    first = replay.render(0.0)
    open_ms = (time.perf_counter() - started) * 1000
    if replay.at(replay.duration).game.to_text() != game.to_text():
        raise SystemExit("the replay's end is not the game's end")
    figure("engine_build", "compiled" if COMPILED_BUILD else "pure")  # make engine, or the .py files
    figure("snapshot_every", args.every)
    figure("snapshots", len(replay._snapshots))
    figure("last_snapshot_kb", len(replay._snapshots[-1]) / 1024, ".0f")  # the pickled table
    figure("moments", len(replay.moments))
    figure("frame_bytes", len(first.encode()))
    figure("open_ms", open_ms, ".0f")

    # The floors, in the same run: the engine alone playing the log once (no snapshots,
    # no moments, nothing rendered), the least any open could cost; and the game area of
    # the finished table rendered as it stands (no seek), the least a seek could cost.
    engine = type(game)
    started = time.perf_counter()
    again = engine.replay(game.options, game.seed, game.seats, start, log, end)
    floor_open_ms = (time.perf_counter() - started) * 1000
    if again.to_text() != game.to_text():
        raise SystemExit("the engine's replay of the log is not the game")
    renders = []
    for _ in range(max(args.seeks // 4, 10)):
        started = time.perf_counter()
        live.render_full(live.seconds(game.now), live.start)
        renders.append((time.perf_counter() - started) * 1000)
    figure("floor_open_ms", floor_open_ms, ".0f")
    figure("floor_render_p99_ms", percentile(renders, 0.99), ".1f")

    rng = random.Random(args.seed)
    seeks = []
    for _ in range(args.seeks):
        t = rng.uniform(0, replay.duration)
        started = time.perf_counter()
        replay.render(t)
        seeks.append((time.perf_counter() - started) * 1000)
    figure("seek_p50_ms", statistics.median(seeks), ".1f")
    figure("seek_max_ms", max(seeks), ".1f")
    figure("seek_p99_ms", percentile(seeks, 0.99), ".1f")


if __name__ == "__main__":
    main()
