"""Each region's markup has one source: a region sent as a live update is, byte for
byte, the region the page shows for the same state (docs/architecture.md, "One source
per region"). TetriWar's hot regions come from games/tetriwar/render.py (bench/render.py
measured why), every other region from its game's template partials.
"""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from games.registry import GAMES
from games.tetriwar.events import (
    BombReceived,
    ControlChanged,
    FieldChanged,
    NextChanged,
    PieceChanged,
    PlayerLeft,
    ScoreChanged,
    StoreChanged,
)
from games.viertris.events import ScoreChanged as ViertrisScoreChanged
from games.viertris.events import TurnChanged
from tests.contract.test_game_contract import setup_for

VOID = {"br", "hr", "img", "input", "meta", "link", "source", "wbr", "col", "area", "base", "embed", "track"}
OOB = ' hx-swap-oob="true"'


class _Elements(HTMLParser):
    """The outer HTML of every element with an id, by id (the first of each)."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=False)
        self.html = html
        self.line_starts = [0]
        for line in html.splitlines(keepends=True):
            self.line_starts.append(self.line_starts[-1] + len(line))
        self.open: list[tuple[str, str | None, int]] = []
        self.found: dict[str, str] = {}
        self.feed(html)

    def _offset(self) -> int:
        line, column = self.getpos()
        return self.line_starts[line - 1] + column

    def handle_starttag(self, tag, attrs):
        if tag not in VOID:
            self.open.append((tag, dict(attrs).get("id"), self._offset()))

    def handle_endtag(self, tag):
        end = self._offset() + len(f"</{tag}>")
        while self.open:
            open_tag, element_id, start = self.open.pop()
            if open_tag == tag:
                if element_id and element_id not in self.found:
                    self.found[element_id] = self.html[start:end]
                return


def elements(html: str) -> dict[str, str]:
    return _Elements(html).found


def played(spec, seats: int, seconds: float):
    """A bots' game of ``spec`` at ``seconds`` after its start."""
    live = spec.live(setup_for(spec, seed=17, seats=seats, bot=spec.bot_levels[-1]))
    live.begin(0.0)
    due = {seat: 0.0 for seat in live.bot_seats}
    while not live.finished:
        seat = min(due, key=due.get)
        if due[seat] >= seconds:
            break
        _, delay = live.bot_act(seat, due[seat])
        due[seat] += max(delay, 0.001)
    live.advance(seconds)
    return live


def every_tetriwar_region(live) -> list:
    """The events that make a live update of every region of every board."""
    events = []
    for seat, p in live.game.players.items():
        reversed_now = p.reversed_until is not None and p.reversed_until > live.game.now
        events += [
            FieldChanged(seat, tuple(range(20))), PieceChanged(seat),
            ScoreChanged(seat, p.score, p.level, p.lines, p.eliminations), NextChanged(seat, tuple(p.bag.peek(3))),
            StoreChanged(seat, tuple(p.store)), BombReceived(seat, 1, "a", seat),
            ControlChanged(seat, reversed_now, p.reversed_until),
        ]
        if p.left:
            events.append(PlayerLeft(seat))
    return events


def assert_one_source(page_html: str, update_html: str, expected_ids: int) -> None:
    page, update = elements(page_html), elements(update_html)
    compared = 0
    for element_id, fragment in update.items():
        if not fragment.startswith(f'<{fragment[1:].split(" ", 1)[0]} id="{element_id}"'):
            continue  # an element inside a region: compared with its region
        assert OOB in fragment, element_id
        assert page[element_id] == fragment.replace(OOB, ""), element_id
        compared += 1
    assert compared >= expected_ids


@pytest.mark.parametrize(("seats", "seconds"), [(1, 0.5), (2, 12.0), (4, 40.0)])
def test_tetriwar_regions_are_the_same_on_the_page_and_in_a_live_update(seats, seconds):
    live = played(GAMES["tetriwar"], seats, seconds)
    if seats == 4:
        live.forfeit(3, seconds)  # a board whose player left
    page = live.render_full(seconds, 0.0)
    update = live.render_events(every_tetriwar_region(live))
    # per board: 20 rows, the piece and its ghost, score, next, bombs, feed, control
    assert_one_source(page, update, expected_ids=seats * 27)


@pytest.mark.parametrize("seconds", [0.5, 200.0])
def test_viertris_regions_are_the_same_on_the_page_and_in_a_live_update(seconds):
    live = played(GAMES["viertris"], 3, seconds)
    turn = live.game.turn or 1
    page = live.render_full(live.game.now, 0.0)
    update = live.render_events([ViertrisScoreChanged(turn, live.game.scores[turn]), TurnChanged(turn, 1e9)])
    assert_one_source(page, update, expected_ids=2)  # the scores and the clock
