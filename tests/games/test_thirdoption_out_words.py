"""Third Option's log says why a player is out (games/thirdoption/live.py): when neither
revealed card fits and the deck has no third option left to deal, a line says so, in
the reader's language, before the line that puts them out."""

from __future__ import annotations

import pytest
from django.utils import translation

from games.registry import GAMES
from tests.contract.test_game_contract import setup_for
from tests.unit.thirdoption.test_thirdoption_rule_edges import I3_SLOT, ISOLATED


def live_with_names(seats: int):
    setup = setup_for(GAMES["thirdoption"], seed=3, seats=seats)
    for player, name in zip(setup["players"], ("Ann", "Bea", "Cy"), strict=False):
        player["name"] = name
    live = GAMES["thirdoption"].live(setup)
    live.begin(0.0)
    return live


def logged(live, events) -> list[str]:
    before = len(live.log_lines)
    live.render_events(events)
    return [str(line) for line in live.log_lines[before:]]


def test_a_player_out_because_the_deck_is_empty_is_told_why():
    live = live_with_names(3)
    # Neither revealed card fits Bea or Cy; the one card left in the deck goes to Bea.
    events = live.game.setup(grids={2: I3_SLOT, 3: I3_SLOT}, deck=["O4", "T4", "I3"])
    lines = logged(live, events)
    assert lines[1:] == [
        "Bea gets a third option",
        "Cy gets no third option: the deck is empty",
        "Cy is out: a free square to place",
    ]


def test_a_player_out_because_their_third_option_does_not_fit_reads_no_such_line():
    live = live_with_names(2)
    events = live.game.setup(grids={1: ISOLATED}, deck=["O4", "T4", "2", "I5", "L4"])
    lines = logged(live, events)
    assert lines[1:] == ["Ann gets a third option, which does not fit", "Ann is out: a free square to place"]


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("de", "Cy bekommt keine dritte Option: Der Kartenstapel ist leer"),
        ("es", "Cy no recibe tercera opción: el mazo está vacío"),
        ("zh-hans", "Cy 没有获得第三选项：牌堆已空"),
    ],
)
def test_the_empty_deck_line_is_worded_in_the_readers_language(language, words):
    live = live_with_names(3)
    live.render_events(live.game.setup(grids={2: I3_SLOT, 3: I3_SLOT}, deck=["O4", "T4", "I3"]))
    with translation.override(language):
        assert words in [str(line) for line in live.log_lines]
        assert words in live.render_full(live.game.now, live.start)  # the page's log, as a resync shows it
