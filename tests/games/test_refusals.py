"""Every kind of refusal of the site is one family (games/core/errors.py)."""

from __future__ import annotations

from games.core.errors import IllegalIntent, InvalidOptions, Refusal
from games.services import StakeError
from games.wire import FrameError
from lobby.services import TableError
from lobby.ws import ClientError


def test_every_kind_of_refusal_of_the_site_is_in_the_family():
    for kind in (IllegalIntent, InvalidOptions, FrameError, ClientError, TableError, StakeError):
        assert issubclass(kind, Refusal), kind
    assert StakeError("Anna no longer holds the stake.").code == "NOT_ENOUGH_CHIPS"
