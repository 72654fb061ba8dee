"""The differential harness: one board played by the Python engine and by the page's
JavaScript engine (``static/js/tetriwar_engine.js``, in Node), compared step by step.

A *case* is one seat's timed input log: intents at integer ms and clock steps between.
The Python side plays it (``Game`` with one seat), records the board's ``canon()``
after every step (as a short SHA-1 digest: the texts would be a hundred megabytes), and,
with bombs on, the board's ``state()`` after each step the page cannot predict (a line
clear makes bombs at random, a bomb was dropped on the board, an input was refused): the
server sends exactly that. Bombs land on both sides by their own dice, unsynced: with
bombs on, others drop bombs of every type on the board (``receive`` steps). ``tests/js/agree.js`` gets every case as one JSON document on stdin (one
Node process: fast), plays it, names the first step whose board differs, and checks the
CRC-32 ``board_hash`` / ``hash()`` of each case's last board; :func:`explain` then
replays the case in Python to that step and prints both canonical texts.

    python -m tests.unit.tetriwar.js_agree 2000          # 2000 random cases per bomb mode
    TETRIWAR_ENGINE=/tmp/x/tetriwar_engine.js python -m tests.unit.tetriwar.js_agree
                                                         # the same against another copy
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from games.core.protocol import IllegalIntent
from games.tetriwar import constants as C
from games.tetriwar.bot import Bot
from games.tetriwar.engine import Game, Intent, Options
from games.tetriwar.handling import Handling

ROOT = Path(__file__).resolve().parents[3]
RUNNER = ROOT / "tests" / "js" / "agree.js"
SEAT = 1
# Random intents and their weights: many moves and turns (kicks, lock resets), held keys
# (DAS, ARR, charged repeats), soft drop; hard drops rarer, so the field fills and kicks
# meet blocks. Bombs only when they are on.
INTENTS = {
    "left": 8,
    "right": 8,
    "rotate": 12,
    "hold_left": 5,
    "release_left": 5,
    "hold_right": 5,
    "release_right": 5,
    "soft_drop_on": 2,
    "soft_drop_off": 2,
    "hold_down": 2,
    "release_down": 2,
    "hard_drop": 4,
}
# Bombs dropped on the board by others (a step ``["receive", bomb, t, seed, number]``):
# the server announces each with its dice's seed and sends the board's state, and the page
# lands it itself at its next piece at or after 500 ms, add line, earthquake and drill
# included (rules version 4), with no word from the server.
RECEIVE_RATE = 0.04
FIELD_LINE = 5  # the canonical text's field rows start at its sixth line
BOMB_INTENTS = {"bomb": 2, "bomb:1": 3, "bomb:2": 1}


@dataclass
class Case:
    id: str
    options: Options
    seed: int
    handling: Handling | None
    steps: list[list] = field(default_factory=list)  # ["apply", name, t] or ["advance", t]


def random_case(rng: random.Random, id: str, bombs: str = "off", length: int = 160) -> Case:
    """A random timed log: intents 0–400 ms apart, now and then a burst of quick moves
    (lock resets), clock steps between; random start level, lines per level, handling.
    In half the cases a careful bot chooses most intents (so lines are cleared, bombs
    made, caught and dropped, boards topped out), played as the log is written."""
    options = Options(
        minutes=15, start_level=rng.randint(1, 9), lines_per_level=rng.randint(4, 10), bombs=bombs
    )
    handling = None
    if rng.random() < 0.5:
        arr = rng.choice([0, rng.randint(0, 100)])
        handling = Handling(das=rng.randint(50, 300), arr=arr, soft_drop=rng.randint(20, 60))
    case = Case(id, options, rng.randrange(1 << 30), handling)
    weights = dict(INTENTS, **(BOMB_INTENTS if bombs == "manual" else {}))
    names, counts = list(weights), list(weights.values())
    bot = (
        Bot(random.Random(rng.random()), randomness=0.0, bomb_rate=0.3, careful=True)
        if rng.random() < 0.5
        else None
    )
    game = new_game(case) if bot else None
    t = 0
    burst = 0

    def add(step: list) -> None:
        case.steps.append(step)
        if game is not None:
            play(game, step)

    for _ in range(length):
        if burst:
            burst -= 1
            t += rng.randint(0, 60)
            add(["apply", rng.choice(["left", "right", "rotate"]), t])
            continue
        if rng.random() < 0.05:
            burst = rng.randint(5, 25)
        t += rng.randint(0, 400) if bot is None else rng.randint(0, 120)
        if rng.random() < 0.3:
            add(["advance", t])
            t += rng.randint(0, 400) if bot is None else rng.randint(0, 120)
        if bombs != "off" and rng.random() < RECEIVE_RATE:
            add(["receive", rng.choice(sorted(C.BOMB_WEIGHTS)), t, rng.getrandbits(32), len(case.steps)])
        if bot is not None:
            # a player's taps: each key goes down and up again, 0–250 ms later
            name = bot.choose(game, SEAT).text if rng.random() < 0.85 else rng.choices(names, counts)[0]
            if name in ("left", "right") and rng.random() < 0.5:
                add(["apply", f"hold_{name}", t])
                t += rng.randint(0, 250)
                name = f"release_{name}"
            elif name.startswith(("hold_", "release_")):
                name = "rotate"
            add(["apply", name, t])
        else:
            add(["apply", rng.choices(names, counts)[0], t])
    add(["advance", t + rng.randint(0, 3000)])
    return case


def new_game(case: Case) -> Game:
    handling = {SEAT: case.handling} if case.handling else None
    return Game(case.options, case.seed, [SEAT], 0, handling=handling)


def play(game: Game, step: list) -> bool:
    """One step on the Python engine; False when the input was refused."""
    if step[0] == "advance":
        game.advance(step[1])
        return True
    if step[0] == "receive":  # a bomb dropped on the board by another, with its dice
        _, bomb, t, seed, number = step
        game.players[SEAT].announce(bomb, SEAT, t, 10_000 + number, [], seed)
        return True
    try:
        game.apply(SEAT, Intent.parse(step[1]), step[2])
    except IllegalIntent:
        return False
    return True


def python_side(case: Case) -> dict:
    """The case as the Node runner takes it: the start state, every kind the bag deals,
    the steps, and a digest of the Python engine's board (and, where the server would
    send one, its state) after each."""
    game = new_game(case)
    player = game.players[SEAT]
    start = game.state(SEAT)
    # every kind the bag deals: the one dealt so far, then what the bag holds next
    kinds = [player.kind, *player.bag.peek(2 * len(case.steps) + 40)]
    digests, syncs = [], {}
    bombs = case.options.bombs != "off"
    for i, step in enumerate(case.steps):
        lines, incoming = player.lines, list(player.incoming) if bombs else []
        accepted = play(game, step)
        # a bomb dropped on the board (by another, or by its player on it): the server
        # tells the page at once, the bomb's dice with it (a "feed" change: its state)
        announced = bombs and any(entry not in incoming for entry in player.incoming)
        if not accepted or announced or (bombs and player.lines != lines):
            # the page cannot know this step's outcome: the server sends its state. After a
            # line clear the page knows all but where the new bombs are: its board, blurred
            # to blocks and holes, is compared before it takes the server's; a bomb
            # announced changes nothing the page shows
            blurred = digest(blur(game.canon(SEAT))) if accepted and step[0] != "receive" else None
            syncs[i] = {"state": game.state(SEAT), "blurred": blurred}
        digests.append(digest(game.canon(SEAT)))
    return {
        "id": case.id,
        "state": start,
        "kinds": kinds,
        "steps": case.steps,
        "digests": digests,
        "syncs": syncs,
        "board_hash": game.board_hash(SEAT),
    }


def blur(canon: str) -> str:
    """The canonical text with every block of the field written ``X``: what the page
    predicts of a line clear when bombs are on (the new bombs are the server's draw)."""
    lines = canon.split("\n")
    return "\n".join(lines[:FIELD_LINE] + [re.sub(r"[^.]", "X", row) for row in lines[FIELD_LINE:]])


def digest(canon: str) -> str:
    """A short digest of a canonical text, to carry it to Node (the texts themselves would
    be a hundred megabytes, and the board texts differ more than their hashes); the board
    hash is compared once, at each case's end."""
    return hashlib.sha1(canon.encode()).hexdigest()[:16]


def run_node(node: str, payload: list[dict], engine: str | None = None, first_failure: bool = False) -> dict:
    """All cases through one Node process; ``engine``: another copy of the engine;
    ``first_failure``: stop at the first case that differs."""
    env = dict(os.environ)
    env.pop("TETRIWAR_ENGINE", None)
    if engine:
        env["TETRIWAR_ENGINE"] = engine
    run = subprocess.run(
        [node, str(RUNNER)],
        input=json.dumps({"cases": payload, "firstFailure": first_failure}),
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=600,
        check=False,
    )
    if run.returncode != 0:
        raise RuntimeError(f"the Node runner failed:\n{run.stderr[-4000:]}")
    return json.loads(run.stdout)


def explain(case: Case, failure: dict) -> str:
    """The first difference, readable: the case, the step, both canonical texts."""
    game = new_game(case)
    for step in case.steps[: failure["step"] + 1]:
        play(game, step)
    python, javascript = game.canon(SEAT), failure["canon"]
    if failure.get("blurred"):  # a line clear with bombs on: compared as blocks and holes
        python, javascript = blur(python), blur(javascript)
    python, javascript = python.splitlines(), javascript.splitlines()
    width = max(map(len, python))
    lines = [
        f"case {case.id}: {case.options.to_dict()} seed {case.seed} handling {case.handling}",
        f"step {failure['step']}{' (the field blurred)' if failure.get('blurred') else ''}: {case.steps[failure['step']]} (before it: {case.steps[max(0, failure['step'] - 3) : failure['step']]})",
        f"{'python':<{width}} | javascript",
    ]
    for i in range(max(len(python), len(javascript))):
        py = python[i] if i < len(python) else ""
        js = javascript[i] if i < len(javascript) else ""
        lines.append(f"{py:<{width}} | {js}{'   <-- differs' if py != js else ''}")
    return "\n".join(lines)


def compare(
    node: str,
    cases: list[Case],
    engine: str | None = None,
    payload: list[dict] | None = None,
    first_failure: bool = False,
) -> tuple[dict, list[str]]:
    """Run ``cases`` through both engines: Node's summary, and one explanation per case
    that differed (empty when the engines agree everywhere). ``payload``: the cases'
    Python side, when already worked out; ``first_failure``: stop at the first case
    that differs (enough to show that a difference is caught)."""
    by_id = {case.id: case for case in cases}
    if payload is None:
        payload = [python_side(case) for case in cases]
    result = run_node(node, payload, engine, first_failure)
    return result, [explain(by_id[failure["id"]], failure) for failure in result["failures"]]


def random_cases(count: int, bombs: str = "off", seed: int = 31, start: int = 0) -> list[Case]:
    """``count`` random cases; ``start``: the first of a further part, drawn from a chance
    of its own (so that each part is worked out without the ones before it)."""
    rng = random.Random(f"{seed}:{bombs}:{start}" if start else f"{seed}:{bombs}")
    length = 160 if bombs == "off" else 320  # bombs need pieces: longer logs
    return [random_case(rng, f"{bombs}-{start + i}", bombs, length) for i in range(count)]


if __name__ == "__main__":  # pragma: no cover - a tool for a person
    import shutil
    import time

    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    started = time.monotonic()
    for bombs in C.BOMB_MODES:
        engine = os.environ.get("TETRIWAR_ENGINE")
        result, differences = compare(shutil.which("node") or "node", random_cases(count, bombs), engine)
        print(f"bombs {bombs}: {result['cases']} cases, {result['steps']} steps, {len(differences)} differ")
        for text in differences[:3]:
            print(text, end="\n\n")
    print(f"{time.monotonic() - started:.1f} s")
