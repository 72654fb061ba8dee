"""The page's JavaScript engine plays one board exactly as the Python engine does.

Thousands of seeded random timed input logs (and the recorded games of the current rules version)
go through both engines (``js_agree``: the Python ``Game`` with one seat, and
``static/js/tetriwar_engine.js`` in one Node process); the boards' canonical texts are
compared, by their hash, after every input and every clock step, and the first
difference is printed with both texts. A deliberately wrong rule in a copy of the
JavaScript (a kick, a gravity step, the lock count) must make the comparison fail.
"""

from __future__ import annotations

import json
import re
import shutil
from functools import cache
from pathlib import Path

import pytest

from games.tetriwar import constants as C
from games.tetriwar.engine import Options
from games.tetriwar.handling import Handling
from tests.needs import need_node
from tests.unit.tetriwar.js_agree import ROOT, Case, compare, python_side, random_cases

RECORDINGS = Path(__file__).resolve().parent / "recordings"
COUNTS = {"off": 2000, "manual": 500, "automatic": 500}
# The random cases go through both engines in parts of this many, each drawn from a
# chance of its own, so that the parts can run side by side (pytest -n 2).
PART = 250
assert all(count % PART == 0 for count in COUNTS.values())
# Under coverage (``make test``) the first part of each mode is traced; the others take
# the same paths through the engine with other numbers (tracing them added nothing to
# the coverage and tripled their time), so they run untraced (pytest-cov's no_cover).
PARTS = [
    pytest.param(bombs, start, id=f"{bombs}-{start}", marks=[pytest.mark.no_cover] if start else [])
    for bombs in C.BOMB_MODES
    for start in range(0, COUNTS[bombs], PART)
]


@cache
def _random(bombs: str, start: int) -> tuple[list[Case], list[dict]]:
    """A part of the random cases of a bomb mode, and their Python side (worked out once:
    the mutation tests replay the first part against wrong copies of the JavaScript; each
    wrong rule below is caught by 20 to 70 of its cases)."""
    cases = random_cases(PART, bombs, start=start)
    return cases, [python_side(case) for case in cases]


def _report(result: dict, differences: list[str]) -> str:
    shown = "\n\n".join(differences[:3])
    return f"{len(differences)} of {result['cases']} cases differ; the first:\n{shown}"


@pytest.mark.parametrize(("bombs", "start"), PARTS)
def test_random_logs_leave_both_engines_with_the_same_board(bombs, start):
    node = need_node()
    cases, payload = _random(bombs, start)
    result, differences = compare(node, cases, payload=payload)
    assert result["cases"] == PART and result["steps"] > 100 * PART
    assert not differences, _report(result, differences)


def _recorded_cases() -> list[Case]:
    """Each seat of each recorded game of the current rules version, as a one-seat log (bombs off:
    the other boards' bombs are not this board's inputs)."""
    cases = []
    for path in sorted(RECORDINGS.glob("*.json")):
        game = json.loads(path.read_text())
        if game.get("rules_version") != C.RULES_VERSION:
            continue
        options = dict(game["options"], bombs="off", pairs=False)
        for seat in game["seats"]:
            handling = None
            steps = []
            for t, s, text in game["log"]:
                if s != seat or text.startswith("bomb"):
                    continue
                if text.startswith("handling:"):
                    handling = Handling.parse(text)
                elif text != "forfeit":
                    steps.append(["apply", text, int(t) - int(game["start"])])
            steps.append(["advance", int(game["end"]) - int(game["start"]) - 1])
            cases.append(Case(f"{path.stem}-seat{seat}", Options(**options), game["seed"], handling, steps))
    return cases


def test_recorded_games_inputs_leave_both_engines_with_the_same_board():
    cases = _recorded_cases()
    if not cases:
        pytest.skip("no recorded game of the current rules version under tests/unit/tetriwar/recordings yet")
    result, differences = compare(need_node(), cases)
    assert not differences, _report(result, differences)


# --- the test bites: a wrong rule in a copy of the JavaScript is caught ------------------
def _edit_table(text: str, name: str, change) -> str:
    """``change`` applied to one exported table of tetriwar_rules.js."""
    pattern = re.compile(rf"^export const {name} = (deepFreeze\()?(.*?)\)?;$", re.M)
    match = pattern.search(text)
    value = change(json.loads(match.group(2)))
    wrapped = (
        f"deepFreeze({json.dumps(value, separators=(',', ':'))})" if match.group(1) else json.dumps(value)
    )
    return text[: match.start()] + f"export const {name} = {wrapped};" + text[match.end() :]


def _kick(kicks):
    kicks["T"][0][1] = [0, 1]  # T from spawn to R: the second test one column right, not left
    return kicks


def _gravity(gravity):
    gravity[5] += 1  # level 5: 356 ms a row instead of 355
    return gravity


# Each wrong rule, and the bomb mode of the cases that must notice it.
MUTATIONS = {
    "a kick": (lambda text: _edit_table(text, "KICKS", _kick), "off"),
    "a gravity step": (lambda text: _edit_table(text, "GRAVITY_MS", _gravity), "off"),
    "the lock count": (
        lambda text: text.replace("export const MAX_LOCK_RESETS = 15;", "export const MAX_LOCK_RESETS = 14;"),
        "off",
    ),
    # a received bomb's effect by its dice (rules version 4): one block fewer drilled,
    # an earthquake of −1…+1
    "the drill's count": (
        lambda text: text.replace("export const DRILL_BLOCKS = 10;", "export const DRILL_BLOCKS = 9;"),
        "manual",
    ),
    "the earthquake's shifts": (
        lambda text: text.replace("export const EARTHQUAKE_SHIFT = 2;", "export const EARTHQUAKE_SHIFT = 1;"),
        "automatic",
    ),
}


@pytest.mark.parametrize("mutation", MUTATIONS)
def test_a_wrong_rule_in_the_javascript_is_caught(mutation, tmp_path):
    node = need_node()
    for name in ("stacker.js", "tetriwar_engine.js", "tetriwar_dice.js", "tetriwar_rules.js", "package.json"):
        shutil.copy(ROOT / "static" / "js" / name, tmp_path / name)
    rules = tmp_path / "tetriwar_rules.js"
    original = rules.read_text()
    change, bombs = MUTATIONS[mutation]
    rules.write_text(change(original))
    assert rules.read_text() != original
    cases, payload = _random(bombs, 0)
    engine = str(tmp_path / "tetriwar_engine.js")
    result, differences = compare(node, cases, engine=engine, payload=payload, first_failure=True)
    assert differences, f"{mutation} made wrong, and {result['cases']} cases did not notice"
    assert "<-- differs" in differences[0]
