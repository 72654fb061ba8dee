"""A replay's controls within reach while the boards are watched (issue 49, point 21): on
a phone the boards come first, and with many seats (twelve at Third Option) the controls
under them were 1,200 px down; play, the steps, the seek bar and the time now stay at
the screen's foot, over no board once it is scrolled to. On a desktop the controls stay
one card above the boards, as before."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_tetriwar_game import TIMEOUT
from tests.personas import ref

pytestmark = pytest.mark.browser

PHONE = (390, 844)
DESKTOP = (1366, 768)
# (kind, seats): the most seats of the game that has the most, the fewest, and a
# real-time game of four.
GAMES_SHOWN = [("thirdoption", 12), ("thirdoption", 2), ("tetriwar", 4)]
BOARDS = "#game [id^='to-seat-'], #game [id^='player-']"

# Why the element is not wholly on screen, below the top bar where it stays on screen,
# and under nothing else at its centre (the page's own point of view), or "".
REACHABLE = """(selector) => {
  const el = document.querySelector(selector);
  if (!el) return `${selector} is not there`;
  const bar = document.querySelector(".topbar");
  const covered = bar && getComputedStyle(bar).position === "sticky" ? bar.getBoundingClientRect().bottom : 0;
  const box = el.getBoundingClientRect();
  if (box.top < covered - 0.5) return `${selector}'s top at ${Math.round(box.top)}, above ${Math.round(covered)}`;
  if (box.bottom > innerHeight + 0.5) return `${selector}'s bottom at ${Math.round(box.bottom)}, below ${innerHeight}`;
  const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  if (!hit || !(hit === el || el.contains(hit))) return `${selector} is under ${hit && hit.outerHTML.slice(0, 60)}`;
  return "";
}"""

# The last board's bottom and the top of what covers the screen's foot (the controls'
# bar where it stays there, else the screen's foot).
LAST_BOARD_AND_THE_BAR = """(selector) => {
  const boards = document.querySelectorAll(selector);
  const last = boards[boards.length - 1];
  last.scrollIntoView({block: "end"});
  const deck = document.querySelector(".replay-deck");
  const fixed = deck && getComputedStyle(deck).position === "fixed";
  return {count: boards.length, bottom: last.getBoundingClientRect().bottom,
          foot: fixed ? deck.getBoundingClientRect().top : innerHeight};
}"""


# Why ``selector`` is not under the last board, or once scrolled to (as a reader does, to
# its foot: what comes into view from below), not reachable; or "".
UNDER_THE_BOARDS_AND_REACHED = f"""([selector, boards]) => {{
  const el = document.querySelector(selector);
  const all = document.querySelectorAll(boards);
  if (el.getBoundingClientRect().top < all[all.length - 1].getBoundingClientRect().bottom) return `${{selector}} is above the last board`;
  el.scrollIntoView({{block: "end"}});
  return ({REACHABLE})(selector);
}}"""


def recorded_game(host, kind: str, seats: int, seed: int) -> str:
    """A game of ``kind`` with ``seats`` seats, the host and bots, played to its end by
    bots and recorded by the services; its replay page's path."""
    from games import services as game_services
    from games.models import Game
    from games.registry import GAMES
    from lobby import services
    from tests.contract.test_game_contract import bots_game

    spec = GAMES[kind]
    table = services.table_create(player=ref(host), game=kind, options=spec.options_form.defaults(), seats_total=seats)
    for number in range(2, seats + 1):
        services.bot_add(table_id=table.pk, player=ref(host), number=number, level=spec.bot_levels[0])
    services.seat_ready(table_id=table.pk, player=ref(host), ready=True)
    services.table_start(table_id=table.pk, player=ref(host))
    Game.objects.filter(table=table).update(seed=seed)
    game = Game.objects.get(table=table)
    live = bots_game(spec, seed=seed, seats=seats, setup=game_services.setup_of(game))
    game_services.game_finish(game_id=game.pk, finished=live.finished_game())
    return f"/games/{game.pk}/replay/"


@pytest.fixture
def replay_paths(settings, host) -> dict[tuple[str, int], str]:
    settings.TABLES_PER_HOST = 10
    return {(kind, seats): recorded_game(host, kind, seats, seed=41) for kind, seats in GAMES_SHOWN}


def open_replay(browser, url: str, size: tuple[int, int]):
    width, height = size
    touch = width < 1024
    page = browser.new_context(viewport={"width": width, "height": height}, has_touch=touch, is_mobile=touch).new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(url)
    expect(page.locator("#game")).to_be_visible()
    page.wait_for_load_state("load")
    return page


def test_on_a_phone_play_and_seek_stay_in_reach_from_the_first_board_to_the_last(
    live_server_url, replay_paths, browser, screenshot
):
    problems = []
    for (kind, seats), path in replay_paths.items():
        what = f"a {seats}-seat {kind} replay"
        page = open_replay(browser, live_server_url + path, PHONE)
        expect(page.locator(BOARDS)).to_have_count(seats)
        game = page.locator("#game").bounding_box()
        if game["y"] > PHONE[1] / 2:
            problems.append(f"{what}: the boards begin at {game['y']:.0f} px")
        for control in ("#replay-play", "#replay-seek", "#replay-back", "#replay-forward", "#replay-now"):
            if why := page.evaluate(REACHABLE, control):
                problems.append(f"{what}, at load: {why}")
        screenshot(page, f"replay-controls-{kind}-{seats}-390x844")

        seen = page.evaluate(LAST_BOARD_AND_THE_BAR, BOARDS)
        if seen["bottom"] > seen["foot"] + 0.5:
            problems.append(
                f"{what}: scrolled to, the last board ends at {seen['bottom']:.0f} px, under the controls from {seen['foot']:.0f}"
            )
        for control in ("#replay-play", "#replay-seek"):
            if why := page.evaluate(REACHABLE, control):
                problems.append(f"{what}, at the last board: {why}")
        # They work from there: a step on, and the boards show the next moment.
        page.locator("#replay-forward").click()
        expect(page.locator("#replay-caption")).not_to_have_text("The start.")

        # The rest stays under the boards (the speeds, the link at this moment, the
        # moments), and scrolled to it is clear of the bar at the foot.
        for other in ("[data-speed='2']", "#replay-copy", ".replay-moments summary"):
            if why := page.evaluate(UNDER_THE_BOARDS_AND_REACHED, [other, BOARDS]):
                problems.append(f"{what}: {why}")
        page.locator("#replay-copy").click()
        expect(page.locator("#replay-link")).to_be_visible()
        if why := page.evaluate(REACHABLE, "#replay-link-text"):
            problems.append(f"{what}, the link asked for: {why}")
        page.context.close()
    assert not problems, "\n".join(problems)


def test_on_a_desktop_the_controls_are_one_card_above_the_boards(live_server_url, replay_paths, browser):
    problems = []
    for (kind, seats), path in replay_paths.items():
        what = f"a {seats}-seat {kind} replay"
        page = open_replay(browser, live_server_url + path, DESKTOP)
        card = page.locator("#replay").bounding_box()
        for control in ("#replay-play", "#replay-seek", "[data-speed='4']", "#replay-copy", "#replay-now", "#replay-caption"):
            box = page.locator(control).bounding_box()
            inside = card["y"] <= box["y"] and box["y"] + box["height"] <= card["y"] + card["height"]
            if not inside:
                problems.append(f"{what}: {control} is not in the controls' card")
            if why := page.evaluate(REACHABLE, control):
                problems.append(f"{what}: {why}")
        # One row: the steps and play, the speeds, the time and the link's button.
        tops = {c: page.locator(c).bounding_box() for c in ("#replay-play", "[data-speed='1']", "#replay-now", "#replay-copy")}
        middles = [box["y"] + box["height"] / 2 for box in tops.values()]
        if max(middles) - min(middles) > 4:
            problems.append(f"{what}: the controls' first row is not one row: {middles}")
        if card["height"] > 155:  # 153 px before the controls were split in two for phones
            problems.append(f"{what}: the controls' card is {card['height']:.0f} px tall")
        if page.locator("#game").bounding_box()["y"] < card["y"] + card["height"]:
            problems.append(f"{what}: the boards are not under the controls")
        page.context.close()
    assert not problems, "\n".join(problems)
