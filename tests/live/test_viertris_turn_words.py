"""A Viertris player who moves out of turn reads whose turn it is, by that player's
name (the engine knows seats by number), in the reader's own language."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from django.utils import translation

from games.core.errors import IllegalIntent
from games.registry import GAMES
from games.wire import error_fragment
from tests.contract.test_game_contract import setup_for
from tests.live.conftest import receive_until, started_sockets
from tests.live.test_languages import speaks
from tests.live.test_viertris_table import viertris_table

pytestmark = pytest.mark.django_db(transaction=True)


async def test_a_move_out_of_turn_names_the_player_to_move(host, opponent, outsider, fake_clock):
    table = await database_sync_to_async(viertris_table)(host, opponent)
    p1, p2, spectator = await started_sockets(table, (host, opponent, outsider), fake_clock, "to move")
    await p2.send_json_to({"intent": "drop", "column": 0})  # seat 1, the hostess, moves first
    error = await receive_until(p2, "ws-error")
    assert 'data-code="NOT_YOUR_TURN"' in error
    assert "It is not your turn: hostess is to move." in error
    assert "seat 1" not in error


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("de", "Du bist nicht am Zug. Am Zug ist hostess."),
        ("es", "No es tu turno: le toca a hostess."),
        ("zh-hans", "还没轮到你：现在轮到 hostess。"),
    ],
)
async def test_the_player_to_move_is_named_in_the_readers_language(host, opponent, fake_clock, language, words):
    await database_sync_to_async(speaks)(opponent, language)
    table = await database_sync_to_async(viertris_table)(host, opponent)
    p1, p2 = await started_sockets(table, (host, opponent), fake_clock, 'id="clock"')
    await p2.send_json_to({"intent": "drop", "column": 0})
    error = await receive_until(p2, "ws-error")
    assert 'data-code="NOT_YOUR_TURN"' in error and words in error


def test_a_guest_to_move_is_named_as_a_guest_in_the_readers_language():
    """The words are kept as they were refused and worded where they are shown: the
    host renders a refusal in the language of the socket it answers (games/host.py)."""
    setup = setup_for(GAMES["viertris"], seed=5, seats=2)
    setup["players"][0].update(name="Ann <3", is_guest=True)
    live = GAMES["viertris"].live(setup)
    live.begin(0.0)
    with pytest.raises(IllegalIntent) as refused:
        live.apply(2, "drop:0", 1.0)
    words, code = refused.value.message, refused.value.code
    with translation.override("de"):
        assert "Du bist nicht am Zug. Am Zug ist Ann &lt;3 (Gast)." in error_fragment(words, code)
    with translation.override("en"):
        assert "It is not your turn: Ann &lt;3 (guest) is to move." in error_fragment(words, code)
