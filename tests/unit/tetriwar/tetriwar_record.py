"""Record TetriWar games for the replay tests: ``python tests/unit/tetriwar/tetriwar_record.py``.

Each recording holds what a server stores (options, seed, seats, start, end, the input
log) and the final state as text. The replay test rebuilds each game from the stored
input alone and must reach the very same final state: this catches any hidden source of
nondeterminism (the clock, hash order, unseeded randomness) and any accidental change of
the rules' outcome. Re-record only when a rule is changed on purpose.

Games recorded under an earlier rules version stay in ``recordings/v<version>/``, as
they were recorded (a frozen engine of that version replays them); this records the
current version's (``constants.RULES_VERSION``) into ``recordings/``. Times are the
engine's: whole milliseconds from the start.
"""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from games.core.protocol import IllegalIntent  # noqa: E402
from games.tetriwar.bot import Bot  # noqa: E402
from games.tetriwar.constants import RULES_VERSION  # noqa: E402
from games.tetriwar.engine import Game, Intent, Options  # noqa: E402

RECORDINGS = HERE / "recordings"
GAMES = {
    "solo_no_bombs": dict(options=Options(minutes=1, start_level=3, bombs="off"), seats=[1], seed=11),
    "three_manual": dict(
        options=Options(minutes=2, start_level=2, lines_per_level=4, bombs="manual"), seats=[1, 2, 4], seed=12
    ),
    "pairs_automatic": dict(
        options=Options(minutes=1, start_level=9, bombs="automatic", pairs=True), seats=[1, 2, 3, 4], seed=13
    ),
}


def play(options: Options, seats: list[int], seed: int, start: int = 0) -> Game:
    """Bots (with some refused intents mixed in), and a forfeit near the end when there
    are several players; now and then a seat's input comes late (up to 300 ms behind
    the game's time, as over a slow connection) and the clocks run with some seats
    behind."""
    rng = random.Random(seed)
    bot = Bot(random.Random(seed), randomness=0.1, bomb_rate=0.3, careful=True)
    game = Game(options, seed, seats, start)
    t = start
    while True:
        t += rng.randrange(40)
        if t >= game.end:
            break
        seat = rng.choice(seats)
        if rng.random() < 0.05:
            game.advance(t, {other: rng.randrange(300) for other in seats})
        if len(seats) > 1 and seat == seats[-1] and t > game.end - 5000 and not game.players[seat].left:
            game.forfeit(seat, t)
            continue
        if game.players[seat].left:
            continue
        intent = Intent("bomb", rng.randint(1, 4)) if rng.random() < 0.01 else bot.choose(game, seat)
        try:
            game.apply(seat, intent, t - (rng.randrange(300) if rng.random() < 0.1 else 0))
        except IllegalIntent:
            pass  # refused intents (empty store, no such player) are not logged
    game.advance(game.end)
    return game


def main() -> None:
    os.makedirs(RECORDINGS, exist_ok=True)
    for name, spec in GAMES.items():
        game = play(spec["options"], spec["seats"], spec["seed"])
        head = {
            "rules_version": RULES_VERSION,
            "options": game.options.to_dict(),
            "seed": game.seed,
            "seats": list(game.seats),
            "start": game.start,
            "end": game.end,
        }
        # one log entry and one state line per line, so a diff shows what changed
        lines = [json.dumps(key) + ": " + json.dumps(value) + "," for key, value in head.items()]
        lines.append('"log": [\n' + ",\n".join(json.dumps([int(t), seat, text]) for t, seat, text in game.log) + "\n],")
        lines.append(
            '"final": [\n' + ",\n".join(json.dumps(line) for line in game.to_text().split("\n")) + "\n]"
        )
        (RECORDINGS / f"{name}.json").write_text("{\n" + "\n".join(lines) + "\n}\n")
        print(name, len(game.log), "intents")


if __name__ == "__main__":
    main()
