"""A finished game played back in the browser (templates/games/replay.html,
static/js/replay.js): for every kind, a bots' game recorded by the services is opened at
its replay page, played, paused, stepped, sought, and opened at a moment by its link; the
boards shown are the server's frames for those moments."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from games.registry import GAMES
from games.replays import Replay, recorded
from tests.games.test_replays import recorded_bots_game

pytestmark = pytest.mark.browser

WIDE = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
CASES = [(kind, WIDE) for kind in sorted(GAMES)] + [("tetriwar", PHONE), ("blockkiller", PHONE)]


class _Cells(HTMLParser):
    """What a frame shows, in a number a browser's page can be asked for too: the cells
    and pieces drawn with a class (filled), inside the game area."""

    def __init__(self) -> None:
        super().__init__()
        self.filled = 0

    def handle_starttag(self, tag, attrs) -> None:
        if tag == "i" and dict(attrs).get("class"):
            self.filled += 1


def filled_cells(html: str) -> int:
    parser = _Cells()
    parser.feed(html)
    return parser.filled


FILLED_IN_PAGE = "() => document.querySelectorAll('#game i[class]').length"


def remaining_ms(html: str) -> str | None:
    m = re.search(r'id="clock"[^>]*data-remaining-ms="(\d+)"', html)
    return m.group(1) if m else None


def clock_text(t: float) -> str:
    minutes, seconds = divmod(t, 60)
    return f"{int(minutes)}:{seconds:04.1f}"


@pytest.fixture
def replay_url(live_server_url, host, kind):
    """A bots' game of ``kind`` recorded by the services, before the browser starts (its
    event loop would refuse the database), and the replay the server will show."""
    game = recorded_bots_game(host, kind, seed=41)
    return f"{live_server_url}/games/{game.pk}/replay/", Replay.of(recorded(game))


@pytest.mark.parametrize("kind, viewport", CASES, ids=[f"{k}-{v['width']}" for k, v in CASES])
def test_a_replay_plays_pauses_steps_seeks_and_opens_at_a_moment(replay_url, browser, screenshot, kind, viewport):
    from playwright.sync_api import expect

    url, replay = replay_url
    page = browser.new_context(viewport=viewport).new_page()
    page.goto(url)
    expect(page.locator("#game")).to_be_visible()
    expect(page.locator("h1")).to_contain_text(GAMES[kind].name)
    assert page.evaluate(FILLED_IN_PAGE) == filled_cells(replay.render(0))
    width = viewport["width"]

    # Play: the moment moves on and the boards change; Space pauses.
    start_html = page.locator("#game").inner_html()
    page.locator("#replay-play").click()
    expect(page.locator("#replay-play")).to_have_text("Pause")
    expect(page.locator("#replay-now")).not_to_have_text("0:00.0")
    page.wait_for_function("(before) => document.getElementById('game').innerHTML !== before", arg=start_html)
    page.keyboard.press("Space")
    expect(page.locator("#replay-play")).to_have_text("Play")
    screenshot(page, f"replay-{kind}-{width}-playing")

    # Step: → shows the next moment, its words under the seek bar.
    shown = page.locator("#replay-caption").text_content()
    page.keyboard.press("ArrowRight")
    expect(page.locator("#replay-caption")).not_to_have_text(shown)
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowRight")

    # Seek: the range input set to a moment shows the server's frame of that moment.
    t = round(replay.duration * 0.6, 1)
    page.locator("#replay-seek").fill(str(t))
    expect(page.locator("#replay-now")).to_have_text(clock_text(t))
    expected = replay.render(t)
    page.wait_for_function(f"() => ({FILLED_IN_PAGE})() === {filled_cells(expected)}")
    if remaining_ms(expected) is not None:
        expect(page.locator("#clock")).to_have_attribute("data-remaining-ms", remaining_ms(expected))

    # A link at a moment opens there.
    m = replay.moments[len(replay.moments) // 2]
    page.goto(f"{url}?t={m.t}")
    expect(page.locator("#replay-now")).to_have_text(clock_text(m.t))
    expected = replay.render(m.t)
    assert page.evaluate(FILLED_IN_PAGE) == filled_cells(expected)
    if remaining_ms(expected) is not None:
        expect(page.locator("#clock")).to_have_attribute("data-remaining-ms", remaining_ms(expected))
    expect(page.locator("#replay-caption")).to_have_text(m.label)
    page.locator("#replay-copy").click()
    expect(page.locator("#replay-link-text")).to_have_value(re.compile(rf"replay/\?t={re.escape(str(m.t))}$"))
    screenshot(page, f"replay-{kind}-{width}")
