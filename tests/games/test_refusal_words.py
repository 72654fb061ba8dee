"""Refusals reach a player in their language (games/refusals.py): every code raised
anywhere has a translatable sentence, and English keeps the refusers' own messages."""

from __future__ import annotations

import re
from pathlib import Path

from django.utils import translation

from games import refusals
from games.core.outcome import Termination
from games.live import live_frames
from games.refusals import REFUSALS, refusal_text
from games.registry import GAMES
from games.wire import TABLE_FRAMES, error_fragment
from games.words import TERMINATIONS

ROOT = Path(__file__).resolve().parents[2]
# A refusal's code: the first argument of a refusal's constructor or helper, or the
# code argument of the helpers that send one.
RAISED = re.compile(
    r"\b(?:IllegalIntent|_refuse|_bad|Refusal|FrameError|ClientError|TableError|_reply_error)"
    r"\(\s*(?:budget,\s*)?\"([A-Z][A-Z0-9_]+)\""
)
SENT = re.compile(r"\b(?:error_fragment|send_error)\([^()]*(?:\([^()]*\)[^()]*)*,\s*\"([A-Z][A-Z0-9_]+)\"\)")


def codes_in_source() -> set[str]:
    found: set[str] = set()
    for package in ("games", "lobby", "accounts", "config"):
        for path in (ROOT / package).rglob("*.py"):
            text = path.read_text()
            found.update(RAISED.findall(text))
            found.update(SENT.findall(text))
    return found


def test_every_refusal_code_in_the_source_has_a_sentence():
    found = codes_in_source()
    assert len(found) > 80  # the scan still finds them
    assert found - set(REFUSALS) == set()


def test_every_frame_field_a_game_declares_has_its_bad_code():
    frames = [*TABLE_FRAMES, *(kind for slug in GAMES for kind in live_frames(slug))]
    fields = {name for kind in frames for name in kind.__struct_fields__}
    assert {f"BAD_{name.upper()}" for name in fields} - set(REFUSALS) == set()


def test_english_keeps_the_refusers_own_message():
    with translation.override("en"):
        assert refusal_text("Column 4 is full.", "COLUMN_FULL") == "Column 4 is full."
        assert refusal_text("Somebody's words.", "NO_SUCH_CODE") == "Somebody's words."
        assert error_fragment("Seat 3 is taken.", "SEAT_TAKEN").endswith(">Seat 3 is taken.</div>")


def test_a_translated_code_sentence_replaces_the_english_message(monkeypatch):
    german = {"That column is full.": "Diese Spalte ist voll.", "The game is over.": "Das Spiel ist aus."}
    monkeypatch.setattr(refusals, "gettext", lambda text: german.get(text, text))
    assert refusal_text("Column 4 is full.", "COLUMN_FULL") == "Diese Spalte ist voll."
    assert refusal_text("The game is over.", "GAME_OVER") == "Das Spiel ist aus."
    # not translated yet: the precise English message, not the code's plainer sentence
    assert refusal_text("Seat 3 is taken.", "SEAT_TAKEN") == "Seat 3 is taken."
    assert refusal_text("Somebody's words.", "NO_SUCH_CODE") == "Somebody's words."


def test_every_termination_has_words_marked_for_translation():
    assert set(TERMINATIONS) == {t.words for t in Termination}


def test_tetriwar_hot_fragments_speak_through_djangos_gettext():
    from django.utils.translation import gettext

    from games.tetriwar import render

    assert render.gettext is gettext  # installed by games/apps.py
    assert ">Score</dt>" in render.score(1, 0, 1, 0, 0)


def test_tetriwars_score_box_speaks_each_language_read_at_the_table():
    from django.utils import translation

    from games.tetriwar import render

    assert render.language is translation.get_language  # installed by games/apps.py
    english = render.score(1, 120, 2, 7, 0)
    with translation.override("de"):
        german = render.score(1, 120, 2, 7, 0)
    with translation.override("es"):
        spanish = render.score(1, 120, 2, 7, 0)
    assert ">Score</dt><dd>120</dd>" in english
    assert ">Punktzahl</dt><dd>120</dd>" in german
    assert ">Puntuación</dt><dd>120</dd>" in spanish
    assert render.score(1, 120, 2, 7, 0) == english  # and back: each language's own words


def test_a_new_translator_speaks_at_once():
    from games.tetriwar import render

    shouting = str.upper
    render.use_translator(shouting, lambda: "loud")
    try:
        assert ">SCORE</dt>" in render.score(1, 0, 1, 0, 0)
    finally:
        from django.utils.translation import get_language, gettext

        render.use_translator(gettext, get_language)
    assert ">Score</dt>" in render.score(1, 0, 1, 0, 0)
