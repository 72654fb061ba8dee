"""Intents: text and wire forms, and the one exception for every illegal intent."""

from __future__ import annotations

import pytest
from tetriwar_helpers import game_for

from games.core.protocol import IllegalIntent
from games.tetriwar.engine import Intent
from games.tetriwar.intents import NAMES


@pytest.mark.parametrize("text", [*NAMES, "bomb:1", "bomb:2", "bomb:3", "bomb:4"])
def test_text_form_round_trips(text):
    intent = Intent.parse(text)
    assert str(intent) == text
    assert Intent.parse(str(intent)) == intent


@pytest.mark.parametrize(
    ("make", "code"),
    [
        (lambda: Intent("jump"), "UNKNOWN_INTENT"),
        (lambda: Intent.parse(3), "UNKNOWN_INTENT"),
        (lambda: Intent.parse(""), "UNKNOWN_INTENT"),
        (lambda: Intent("bomb", 5), "BAD_TARGET"),
        (lambda: Intent("bomb", 0), "BAD_TARGET"),
        (lambda: Intent("bomb", "x"), "BAD_TARGET"),
        (lambda: Intent.parse("bomb:x"), "BAD_TARGET"),
        (lambda: Intent("bomb", True), "BAD_TARGET"),
        (lambda: Intent("bomb", 2.0), "BAD_TARGET"),
        (lambda: Intent("left", 2), "BAD_TARGET"),
    ],
)
def test_illegal_intents_raise_illegal_intent(make, code):
    # Frames from browsers are typed before they get here (games/wire.py); the
    # engine still refuses anything else on its own.
    with pytest.raises(IllegalIntent) as error:
        make()
    assert error.value.code == code
    assert isinstance(error.value, ValueError)
    assert error.value.message


@pytest.mark.parametrize(
    ("text", "code"), [("jump", "UNKNOWN_INTENT"), ("bomb:5", "BAD_TARGET"), ("bomb:x", "BAD_TARGET")]
)
def test_bad_text_raises_illegal_intent(text, code):
    with pytest.raises(IllegalIntent) as error:
        Intent.parse(text)
    assert error.value.code == code


def refused(game, seat, intent, now, code):
    """The intent raises ``code`` and the game is exactly as before."""
    before, log = game.to_text(), list(game.log)
    with pytest.raises(IllegalIntent) as error:
        game.apply(seat, intent, now)
    assert error.value.code == code
    assert game.to_text() == before and game.log == log
    return error.value


def test_a_bomb_with_an_empty_store():
    game = game_for(seats=(1, 2), bombs="manual")
    error = refused(game, 1, Intent("bomb"), 0, "EMPTY_STORE")
    assert "store" in error.message


def test_a_bomb_for_a_player_who_is_not_there():
    game = game_for(seats=(1, 2, 3), bombs="manual")
    game.setup(1, store=["drill"])
    refused(game, 1, Intent("bomb", 4), 0, "BAD_TARGET")


def test_a_bomb_when_bombs_are_off_or_automatic():
    for mode in ("off", "automatic"):
        game = game_for(seats=(1, 2), bombs=mode)
        refused(game, 1, Intent("bomb"), 0, "BOMBS_NOT_MANUAL")


def test_intents_from_a_seat_that_is_not_playing():
    game = game_for(seats=(1, 3))
    refused(game, 2, Intent("left"), 0, "NOT_PLAYING")
    refused(game, 5, Intent("left"), 0, "NOT_PLAYING")


def test_intents_after_the_end_are_ignored_without_an_error():
    game = game_for(seats=(1, 2), minutes=1)
    game.advance(60000)
    before, log = game.to_text(), list(game.log)
    for name in ("left", "hold_right", "release_right", "hard_drop", "bomb"):
        assert game.apply(1, Intent(name), 61000) == []
    assert game.apply(3, Intent("left"), 61000) == []  # whoever sends it
    assert game.to_text() == before and game.log == log


def test_something_that_is_not_an_intent():
    game = game_for()
    refused(game, 1, "left", 0, "UNKNOWN_INTENT")


def test_clock_events_due_before_a_refused_intent_are_reported_next_time():
    game = game_for(seats=(1, 2), bombs="manual")
    with pytest.raises(IllegalIntent):
        game.apply(1, Intent("bomb"), 1000)  # gravity was due at 1.0
    events = game.advance(1000)
    assert [e.kind for e in events].count("piece") == 2


def test_every_applied_intent_is_logged():
    game = game_for(seats=(1, 2))
    game.apply(1, Intent("left"), 100)
    game.apply(2, Intent("rotate"), 200)
    game.apply(1, Intent("left"), 300)  # a move that fails is still an intent applied
    assert game.log[:2] == [(100, 1, "left"), (200, 2, "rotate")]
    assert len(game.log) == 3


def test_a_late_intent_acts_at_the_current_time():
    game = game_for()
    game.advance(5000)
    game.apply(1, Intent("left"), 4000)
    assert game.log == [(5000, 1, "left")]
