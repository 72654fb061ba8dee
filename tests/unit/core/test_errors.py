"""Every refusal of the site is one family: a code for programs, a message for people."""

from __future__ import annotations

import pytest

from games.core.errors import CODE, IllegalIntent, InvalidOptions, Refusal
from games.tetriwar.engine import Game, Intent, Options


def test_an_engines_refusal_is_a_refusal_with_a_code():
    game = Game(Options(), seed=1, seats=[1], now=0)
    with pytest.raises(Refusal) as caught:
        game.apply(1, Intent.parse("bomb"), 1000)  # the store is empty
    assert isinstance(caught.value, IllegalIntent)
    assert caught.value.code == "EMPTY_STORE"
    assert CODE.match(caught.value.code)
    assert str(caught.value) == caught.value.message


def test_a_bad_option_names_its_field_and_has_a_code():
    with pytest.raises(Refusal) as caught:
        Options.from_dict({"minutes": 0})
    assert isinstance(caught.value, InvalidOptions)
    assert caught.value.code == "INVALID_OPTIONS"
    assert caught.value.field == "minutes"
