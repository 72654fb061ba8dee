"""TetriWar's frozen rules versions 1 and 2 (games/tetriwar/legacy) and the rulebook that
picks an engine for a record's version (games/tetriwar/rulebook.py).

The recordings are games played under version 2 (made by games/tetriwar/engine.py before
rules version 3): the frozen engine must still replay each to its recorded final state.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from games.core.rules import UnknownRules
from games.tetriwar import constants, engine, rulebook
from games.tetriwar.field import field
from games.tetriwar.intents import Intent
from games.tetriwar.legacy.engine import Game as GameV2
from games.tetriwar.legacy.engine import GameV1
from games.tetriwar.legacy.timing import MAX_LOCK_RESETS
from games.tetriwar.options import Options

HERE = Path(__file__).parent / "recordings"
LEFT, RIGHT, ROTATE = Intent("left"), Intent("right"), Intent("rotate")


def _v2_recordings() -> list[Path]:
    """The version 2 recordings, where they are (``recordings/v2/``, or beside newer ones):
    a version 2 game's clock is in seconds, so it ends ``minutes × 60`` after its start."""
    found = {}
    for path in sorted([*HERE.glob("*.json"), *HERE.glob("v2/*.json")]):
        record = json.loads(path.read_text())
        if record["end"] - record["start"] == record["options"]["minutes"] * 60:
            found.setdefault(path.stem, path)
    return sorted(found.values())


V2_RECORDINGS = _v2_recordings()


def replayed(game_class: type, record: dict):
    return game_class.replay(
        Options.from_dict(record["options"]), record["seed"], record["seats"], record["start"], record["log"],
        record["end"],
    )


def test_there_are_version_2_recordings_of_every_bomb_mode_and_of_held_keys():
    records = [json.loads(path.read_text()) for path in V2_RECORDINGS]
    assert {record["options"]["bombs"] for record in records} == {"off", "manual", "automatic"}
    texts = [text for record in records for _, _, text in record["log"]]
    assert any(text.startswith("handling:") for text in texts) and "hold_left" in texts and "hold_down" in texts


@pytest.mark.parametrize("path", V2_RECORDINGS, ids=lambda path: path.stem)
def test_the_frozen_version_2_engine_replays_each_recorded_game_to_its_recorded_end(path):
    record = json.loads(path.read_text())
    game = replayed(GameV2, record)
    assert game.finished
    assert game.to_text().split("\n") == record["final"]


# --- version 1: the lock delay before 36be8e9 ---------------------------------------------
def on_a_ledge(game_class: type):
    """An O resting on a one-cell ledge at column 0 (stepping right takes it off)."""
    game = game_class(Options(), 7, [1], 0.0)
    game.setup(1, field=field("X........."), piece=("O", 0, -1, 17))
    return game


def step_off_and_back(game, times: int, every: float = 0.03) -> float:
    """Off the ledge and back on, ``times`` times, well within gravity's second."""
    t = 0.0
    for _ in range(times):
        t += every
        game.apply(1, RIGHT, t)
        game.apply(1, LEFT, t)
    return t


def locked(game) -> bool:
    return game.view(1).field[-3:] == ("OO........", "OO........", "X.........")


def test_version_2_counts_moves_off_the_ground_and_locks_a_piece_landing_after_fifteen():
    game = on_a_ledge(GameV2)
    step_off_and_back(game, 8)  # the 16th move lands it again: it locks at once
    assert locked(game)


def test_version_1_gives_a_piece_landing_again_a_fresh_half_second_however_often_it_stepped():
    game = on_a_ledge(GameV1)
    t = step_off_and_back(game, 8)
    player = game.players[1]
    assert not locked(game) and player.resets == 0 and player.lock_at == pytest.approx(t + 0.5)
    game.advance(t + 0.49)
    assert not locked(game)  # held up half a second longer than version 2 held it
    game.advance(t + 0.5)
    assert locked(game)


def test_version_1_counts_only_moves_on_the_ground_up_to_fifteen():
    game = on_a_ledge(GameV1)
    t = 0.0
    for _ in range(20):  # sideways on the ledge's own row: blocked, so rotate in place
        t += 0.02
        game.apply(1, ROTATE, t)  # an O turns in place: a move on the ground
    player = game.players[1]
    assert player.resets == 15 and player.lock_at == pytest.approx(15 * 0.02 + 0.5)


def test_a_kick_to_a_lower_row_restores_the_resets_in_version_2_only():
    """Version 2 (36be8e9): a kick that takes the piece to a new lowest row gives 15 fresh
    resets, as a fall does; version 1 counted on."""
    rows = ["." * 10] * 20
    rows[15] = "...X......"
    rows[17] = "....X....."
    resets = {}
    for game_class in (GameV1, GameV2):
        game = game_class(Options(), 7, [1], 0.0)
        game.setup(1, field=field(*rows), piece=("T", 0, 3, 15))
        t = 0.0
        for i in range(16):
            t += 0.03
            game.apply(1, RIGHT if i % 2 == 0 else LEFT, t)
        game.apply(1, ROTATE, 0.51)  # the fifth kick test takes the T two rows down
        assert game.view(1).piece.y == 17
        resets[game_class.RULES_VERSION] = game.players[1].resets
    assert resets[2] == 0 and resets[1] > 0


COUNTERS = re.compile(r" resets \d+ touched \d lowest -?\d+")  # the lock rule's own counts: they differ


def used_up(game) -> bool:
    """Some board has made its 15 resets (version 2 counts past them, version 1 stops)."""
    return any(p.resets >= MAX_LOCK_RESETS for p in game.players.values())


@pytest.mark.parametrize("path", V2_RECORDINGS, ids=lambda path: path.stem)
def test_versions_1_and_2_part_only_where_the_lock_rule_does(path):
    """Version 1 is version 2 but for the Player's lock rule: the class sets nothing else,
    and the two play a recorded game alike (but for the lock rule's counts: resets and
    the lowest row) until a board has used up its 15 resets under one of them."""
    assert {name for name in vars(GameV1) if not name.startswith("__")} == {"RULES_VERSION", "OLD_LOCK_RULE"}
    record = json.loads(path.read_text())
    options = Options.from_dict(record["options"])
    v1 = GameV1(options, record["seed"], record["seats"], record["start"])
    v2 = GameV2(options, record["seed"], record["seats"], record["start"])
    for t, seat, text in [*record["log"], (record["end"], 0, "")]:
        limit = used_up(v1) or used_up(v2)
        for game in (v1, v2):
            game.replay_entry(t, seat, text) if text else game.advance(t)
        if COUNTERS.sub("", v1.to_text()) != COUNTERS.sub("", v2.to_text()):
            assert limit or used_up(v1) or used_up(v2), f"versions 1 and 2 part at {t} ({text}) with resets left"
            return
    assert v1.results() == v2.results()


# --- the rulebook ------------------------------------------------------------------------
def test_the_rulebook_names_the_engine_of_each_version():
    assert rulebook.game_class(1) is GameV1
    assert rulebook.game_class(2) is GameV2
    assert rulebook.game_class(3) is engine.GameV3
    assert rulebook.game_class(4) is engine.Game
    assert rulebook.RULES_VERSION == 4


def test_the_rulebook_agrees_with_the_engines_constants_when_they_name_a_version():
    if hasattr(constants, "RULES_VERSION"):
        assert constants.RULES_VERSION == rulebook.RULES_VERSION == rulebook.PLAYED_VERSION
    else:  # the float-seconds engine: new games are recorded as what plays them, version 2
        assert rulebook.PLAYED_VERSION == 2


@pytest.mark.parametrize("version", [0, 5, 99, None, "2"])
def test_an_unknown_version_is_a_clear_value_error(version):
    with pytest.raises(ValueError, match=f"rules version {version}, which this server does not know"):
        rulebook.game_class(version)
    with pytest.raises(UnknownRules):
        rulebook.seconds(version, 1.0)


def test_seconds_reads_each_versions_clock():
    assert rulebook.seconds(1, 1.25) == rulebook.seconds(2, 1.25) == 1.25
    assert rulebook.seconds(3, 1250) == 1.25
    rules = rulebook.rules(3)
    assert rules.clock(12345.0) == 12345 and type(rules.clock(12345.0)) is int
    assert rules.ticks(12.345) == 12345
    assert rulebook.rules(2).clock(1000.25) == 1000.25 and rulebook.rules(2).ticks(1.5) == 1.5
