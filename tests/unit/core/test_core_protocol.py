from __future__ import annotations

import dataclasses

import pytest

from games.core.protocol import Event, IllegalIntent, InvalidOptions


def test_illegal_intent_is_a_value_error_with_a_code_and_a_message():
    error = IllegalIntent("EMPTY_STORE", "There is no bomb in the store.")
    assert isinstance(error, ValueError)
    assert error.code == "EMPTY_STORE"
    assert str(error) == "There is no bomb in the store."


def test_invalid_options_names_the_field():
    error = InvalidOptions("minutes", "minutes must be 1 to 15")
    assert isinstance(error, ValueError) and error.field == "minutes"


def test_events_are_frozen_and_carry_their_kind():
    event = Event(2)
    assert event.kind == "event" and event.to_dict() == {"kind": "event", "seat": 2}
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.seat = 3
