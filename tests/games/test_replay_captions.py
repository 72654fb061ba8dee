"""A turn-based game's replay says each move in words, as people say it, in the
reader's language (games/replays.py ``Moment.label``, each game's ``move_words``): never
the entry of the input log it was played from ("place 4,1,3,0,3,0")."""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from games.core.log import InputLog
from games.registry import GAMES
from games.replays import Replay, recorded
from games.thirdoption.board import cells_of
from tests.contract.test_game_contract import setup_for
from tests.games.test_replays import recorded_bots_game

pytestmark = pytest.mark.django_db

TURN_BASED = ["blockkiller", "tetrix", "thirdoption", "viertris"]
# An intent's arguments as the input log writes them: numbers run together with commas,
# keys as letters (place:12:LLDDC), or a Te-Trix write's three numbers.
RAW = re.compile(r"\d+,\d+|:\w|\b[LRDUC]{4,}\b|\b(?:arrange|write|stack|place|attack|piece|drop) \d")


def replayed(setup: dict, live) -> Replay:
    log, start, end = InputLog.unpack(live.game.log.pack(live.start, live.game.now))
    return Replay(setup, log, start, end)


def named(kind: str, seats: int, seed: int = 7) -> tuple[dict, object]:
    setup = setup_for(GAMES[kind], seed, seats)
    for player, name in zip(setup["players"], ("Ann", "Bea", "Cy"), strict=False):
        player["name"] = name
    live = GAMES[kind].live(setup)
    live.begin(0.0)
    return setup, live


@pytest.mark.parametrize("kind", TURN_BASED)
def test_no_caption_of_a_bots_game_is_its_input_log(host, kind):
    record = recorded(recorded_bots_game(host, kind, seed=41))
    replay = Replay.of(record)
    assert replay.moments
    for language in ("en", "de", "es", "zh-hans"):
        with translation.override(language):
            for m in replay.moments:
                _, seat, text = record.log[m.entry - 1]
                label = m.label
                assert label and not RAW.search(label), f"{kind} in {language}: {label!r} (the entry {text!r})"
                if ":" in text:  # an intent with arguments ("drop" alone may be a word of the caption)
                    assert text.replace(":", " ") not in label


def test_a_third_option_caption_names_the_card_and_where_it_went(host):
    record = recorded(recorded_bots_game(host, "thirdoption", seed=41))
    replay = Replay.of(record)
    # Each seat as the table shows it (a bot: "Alan (bot, greedy)").
    table = replay._state(0, record.log[0][0])
    names = {p["seat"]: table.name(p["seat"]) for p in record.setup["players"]}
    said = re.compile(r"^(?P<who>.+?) places (?P<card>\S+) at row (?P<row>\d+), column (?P<column>\d+)")
    for m in replay.moments:
        _, seat, text = record.log[m.entry - 1]
        words = said.match(m.label)
        assert words, m.label
        assert words["who"] == names[seat]
        grid = replay._state(m.entry, record.log[m.entry - 1][0]).game.grids[seat]
        card, mask = grid.pieces[-1]  # what the move placed, as the engine has it
        cells = cells_of(mask)
        assert (words["card"], int(words["row"]), int(words["column"])) == (
            card, min(r for r, _ in cells) + 1, min(c for _, c in cells) + 1
        )
    with translation.override("de"):
        assert re.match(r"^.+ setzt \S+ in Reihe \d+, Spalte \d+", replay.moments[0].label)


def test_every_step_of_a_block_killer_play_is_worded():
    setup, live = named("blockkiller", 3)
    game = live.game
    now = [0.0]

    def act(seat: int, text: str) -> None:
        now[0] += 1.0
        live.render_events(live.apply(seat, text, now[0]))

    attacker = game.turn
    defender, third = (s for s in game.seats if s != attacker)
    first = game.players[attacker].blocks[0]
    act(attacker, f"attack:{defender}")
    act(attacker, "stack:")
    act(attacker, f"piece:{first}")
    for step in ("left", "right", "rotate", "rotate_ccw", "down", "cancel"):
        act(attacker, step)
    act(attacker, f"piece:{first}")
    act(attacker, "drop")
    act(attacker, "done")
    act(defender, "stack:")
    act(defender, "done")
    assert game.turn == third
    act(third, f"attack:{attacker}")
    act(third, "cancel")
    act(third, "pass")
    after = game.turn

    replay = replayed(setup, live)
    a, d, t, n = (setup["players"][s - 1]["name"] for s in (attacker, defender, third, after))
    shape = {0: "Z", 12: "S", 24: "J", 36: "L", 48: "T", 60: "O", 72: "I", 84: "monomino"}[first // 12 * 12]
    labels = [m.label for m in replay.moments]
    assert labels[:11] == [
        f"{a} draws 1 block card · {a} draws 1 garbage card · {a} sets out to attack {d}",
        f"{a} stacks 0 garbage rows",
        f"{a} brings in the {shape} piece",
        f"{a} moves the piece left",
        f"{a} moves the piece right",
        f"{a} turns the piece clockwise",
        f"{a} turns the piece counter-clockwise",
        f"{a} moves the piece down",
        f"{a} takes the piece back",
        f"{a} brings in the {shape} piece",
        f"{a} drops the piece",
    ]
    assert labels[11].startswith(f"{a} attacks {d} with ")
    assert labels[12] == f"{d} stacks 0 garbage rows"
    assert labels[13].startswith("Exchange: ") and labels[13].endswith(f"{t} draws 1 block card · {t} draws 1 garbage card")
    assert labels[14:] == [
        f"{t} sets out to attack {a}",
        f"{t} calls the attack off",
        f"{t} passes · {n} draws 1 block card · {n} draws 1 garbage card",
    ]
    with translation.override("es"):
        assert replay.moments[3].label == f"{a} mueve la pieza a la izquierda"
        assert replay.moments[15].label == f"{t} cancela el ataque"
    with translation.override("zh-hans"):
        assert replay.moments[6].label == f"{a} 逆时针旋转方块"


def test_a_viertris_player_who_leaves_is_said_to_leave():
    setup, live = named("viertris", 2)
    live.render_events(live.apply(1, "drop:3", 1.0))
    live.render_events(live.forfeit(2, 2.0))
    replay = replayed(setup, live)
    assert [m.label for m in replay.moments] == ["Ann: column 4", "Bea leaves the game"]
    with translation.override("de"):
        assert replay.moments[1].label == "Bea verlässt das Spiel"
