"""What Te-Trix says in words (issues #30, #49): a game that ends as "The board is full."
says what happened instead, whose sheet, in the results and in the log of rounds; a solo table's clocks are said
where its options are (the table's line, the option's help, the rules page)."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import translation

from games.registry import GAMES
from games.tetrix import constants as C
from games.tetrix.engine import Intent
from games.tetrix.events import Arranged
from games.tetrix.forms import TetrixOptionsForm
from tests.contract.test_game_contract import setup_for
from tests.unit.tetrix.tetrix_helpers import full_but

SPEC = GAMES["tetrix"]
DICE = "ooxs"  # a T as drawn: its nose ○, then ○ ✕ □
NO_ROOM = ["sssssss"] * 3 + ["sss.sss"] + ["sssssss"] * 3  # one empty cell: no shape fits


def live_game(seats: int, solo: bool = False):
    setup = setup_for(SPEC, seed=7, seats=seats)
    setup["options"]["solo"] = solo
    live = SPEC.live(setup)
    live.begin(0.0)
    return live


def played(live, seat: int, intent: Intent) -> None:
    live.render_events(live.game.apply(seat, intent, live.game.now))


def ending(live) -> tuple[str, str]:
    """The results panel, and the last line of the log of rounds."""
    assert live.game.finished
    return live.render_results(None), str(live.log_lines[-1])


def test_the_end_says_who_had_no_room_for_the_shape():
    live = live_game(3)
    live.render_events(live.game.setup(sheets={2: NO_ROOM}, roller=1, dice=DICE))
    played(live, 1, Intent.arrange("T", DICE))
    played(live, 1, Intent.write(0, 0, 0))
    played(live, 3, Intent.write(0, 0, 0))
    results, last = ending(live)
    assert "Player 2 had no room for the T." in results and "The board is full." not in results
    assert last == "Player 2 had no room for the T."


def test_the_end_says_who_filled_their_sheet():
    live = live_game(2)
    # seat 1 has two empty cells, (0, 0) and (0, 1): the T's foot fills them, the rest hangs over
    live.render_events(live.game.setup(sheets={1: full_but((0, 0), (0, 1))}, roller=1, dice=DICE))
    played(live, 1, Intent.arrange("T", DICE))
    played(live, 2, Intent.write(0, 0, 0))
    played(live, 1, Intent.write(0, -1, -1))
    assert live.game.sheets[1].is_full()
    results, last = ending(live)
    assert "Player 1 filled the whole sheet." in results and "The board is full." not in results
    assert last == "Player 1 filled the whole sheet."


def test_the_end_of_a_solo_game_says_no_shape_fits_on_the_sheet():
    live = live_game(1, solo=True)
    live.render_events(live.game.setup(sheets={1: NO_ROOM}, crossed={1: 8}))
    results, last = ending(live)
    assert "No shape fits on your sheet any more." in results and "The board is full." not in results
    assert last == "No shape fits on your sheet any more."


@pytest.mark.parametrize("language", ["de", "es", "zh-hans"])
def test_whose_sheet_is_said_in_every_language(language):
    live = live_game(3)
    live.render_events(live.game.setup(sheets={2: NO_ROOM}, roller=1, dice=DICE))
    played(live, 1, Intent.arrange("T", DICE))
    played(live, 1, Intent.write(0, 0, 0))
    played(live, 3, Intent.write(0, 0, 0))
    with translation.override(language):
        results, last = ending(live)
        said = translation.gettext("The board is full.")
    assert last != "Player 2 had no room for the T." and "Player 2" in last and "T" in last
    assert last in results and said not in results


@pytest.mark.parametrize("timeout", [False, True], ids=["arranged", "by-the-clock"])
@pytest.mark.parametrize("shape", list(C.TETROMINOES))
def test_the_log_names_the_shape_arranged_without_an_article(shape, timeout):
    """"a O", "a I" read wrong (issue 49, point 20): "shape O" reads right for every
    letter, and in every language with no article that hangs on the letter."""
    live = live_game(2)
    (line,) = live._log_entries([Arranged(1, shape, DICE, timeout=timeout)])
    said = f"Player 1 arranged shape {shape}: ○ ○ ✕ □"
    assert str(line) == (f"{said} (time)" if timeout else said)


def test_a_solo_table_says_it_runs_both_clocks():
    line = TetrixOptionsForm.describe({"solo": True, "arrange_seconds": 45, "write_seconds": 90})
    assert line == "solo · 45 s to arrange · 90 s to write"
    assert "clocks to arrange and to write" in str(TetrixOptionsForm.base_fields["solo"].help_text)
    with translation.override("de"):
        assert "45" in TetrixOptionsForm.describe({"solo": True, "arrange_seconds": 45, "write_seconds": 90})


def test_the_rules_page_says_a_solo_game_runs_the_clocks(client):
    rules = client.get(reverse("games:how_to_play", args=["tetrix"])).content.decode()
    assert "You roll and arrange every round, on the same clocks as at any table" in rules
    assert "both clocks run in it too" in rules
