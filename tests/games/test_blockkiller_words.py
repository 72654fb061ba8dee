"""What Block-Killer's page says and shows (issue #30): "Your turn: …" to the player
whose turn it is and their name to the others, what the number on an attack button is,
a picked piece on screen as it enters, each exchange's draws said once, and the
create form's words on the turn clock as the game plays it."""

from __future__ import annotations

import random
import re

import pytest
from django.utils import translation

from games.blockkiller.bot import BlockKillerBot
from games.blockkiller.forms import BlockKillerOptionsForm
from games.blockkiller.live import BlockKillerLive

SETUP = {
    "kind": "blockkiller",
    "options": {"turn_seconds": 120, "mini": False, "no_mercy": False},
    "seed": 142,  # seat 1 begins; the bots' first exchange ends with a counter of 1
    "players": [{"seat": 1, "name": "hostess"}, {"seat": 2, "name": "opponent"}, {"seat": 3, "name": "thirdwheel"}],
}


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


def started() -> BlockKillerLive:
    table = BlockKillerLive(SETUP)
    table.begin(0.0)
    table.render_full(0.0, 0.0)
    return table


def region(html: str, element_id: str) -> str:
    start = html.index(f'id="{element_id}"')
    return html[start:html.index("</section>" if element_id.startswith("bk-play") else "</div>\n</div>", start)]


def test_the_player_whose_turn_it_is_reads_your_turn_and_the_others_read_their_name():
    table = started()
    turn = region(table.render_full(0.0, 0.0), "bk-turn")
    assert re.search(r'<span class="bk-them">hostess attacks someone or passes.</span>', turn)
    assert re.search(r'<span class="bk-you" hidden>Your turn: attack someone or pass.</span>', turn)
    table.apply(1, "attack:2", 1.0)
    turn = region(table.render_full(1.0, 0.0), "bk-turn")
    assert "Your turn: attack opponent." in turn and "hostess attacks opponent." in turn


def test_your_turn_is_said_in_the_players_language():
    table = started()
    with translation.override("de"):
        turn = region(table.render_full(0.0, 0.0), "bk-turn")
    assert '<span class="bk-you" hidden>Du bist dran: Greif jemanden an oder passe.</span>' in turn
    assert '<span class="bk-them">hostess greift jemanden an oder passt.</span>' in turn


def test_an_attack_button_says_what_its_number_is():
    table = started()
    turn = region(table.render_full(0.0, 0.0), "bk-turn")
    buttons = re.findall(r'<button[^>]*data-act="attack"[^>]*>(.*?)</button>', turn)
    assert len(buttons) == 2
    for button in buttons:
        text = re.sub(r"<[^>]+>", "", button)
        assert re.fullmatch(r"Attack \w+ · holds 4 garbage cards", text), text


def test_a_picked_piece_is_on_screen_as_it_enters():
    table = started()
    table.apply(1, "attack:2", 1.0)
    for card in table.game.players[1].blocks:
        table.apply(1, f"piece:{card}", 2.0)
        play = region(table.render_full(2.0, 0.0), "bk-play-attack")
        kind = table.game.draft.piece.kind
        shown = len(re.findall(r'<i class="pc [A-Z]">', play))
        assert shown == (1 if kind == "M" else 4), kind
        table.apply(1, "back", 3.0)


def test_an_exchanges_draws_are_said_once():
    table = started()
    bot = BlockKillerBot(random.Random(0))
    now = 1.0
    while not table.game.exchanges:
        seat = table.game.acting
        table.render_events(table.apply(seat, bot.choose(table.game, seat).text, now))
        now += 1.0
    lines = [str(line) for line in table.log_lines]
    exchange = next(i for i, line in enumerate(lines) if "Exchange" in line)
    assert lines[exchange].endswith("opponent draws 0, hostess draws 1")
    assert not [line for line in lines if "draws 1 garbage card" in line]


def test_the_create_form_says_a_play_under_way_is_called_off_when_time_runs_out():
    help_text = str(BlockKillerOptionsForm().fields["turn_seconds"].help_text)
    assert "called off" in help_text and "as it stands" not in help_text
