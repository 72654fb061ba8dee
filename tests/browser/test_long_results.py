"""Twelve results at the end of a 12-seat Third Option game (issue 49, point 10): at
1366×768 they fit the screen whole; on a phone the list scrolls inside its panel; at
both the reader's own row is marked "you" and is in view, with Rematch above it."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_tetriwar_endings import IN_VIEW
from tests.browser.test_tetriwar_game import TIMEOUT, log_in
from tests.personas import ref

pytestmark = pytest.mark.browser

SEATS = 12
OWN_SEAT = 9
SEED = 6  # a game where seat 9 ends last: its row at the bottom of the list

# Why the row is not in view inside its scrolling list (under the list's sticky
# headings, above its bottom), or "".
IN_ITS_LIST = """(row) => {
  const list = row.closest(".results-scroll");
  const head = list.querySelector("thead").getBoundingClientRect();
  const box = row.getBoundingClientRect(), shown = list.getBoundingClientRect();
  if (box.top < head.bottom - 0.5) return `its top at ${Math.round(box.top)}, under the headings to ${Math.round(head.bottom)}`;
  if (box.bottom > shown.bottom + 0.5) return `its bottom at ${Math.round(box.bottom)}, below the list's ${Math.round(shown.bottom)}`;
  return "";
}"""


@pytest.fixture
def twelve_results_url(live_server_url, host):
    """A 12-seat Third Option table after its first game: the host in seat 9, bots in
    the others, the game played to its end by bots and recorded by the services."""
    from games import services as game_services
    from games.models import Game
    from games.registry import GAMES
    from lobby import services
    from lobby.models import Seat
    from tests.contract.test_game_contract import bots_game

    spec = GAMES["thirdoption"]
    table = services.table_create(
        player=ref(host), game="thirdoption", options=spec.options_form.defaults(), seats_total=SEATS
    )
    Seat.objects.filter(table=table, number=1).update(number=OWN_SEAT)  # the host sat down in seat 9
    for number in set(range(1, SEATS + 1)) - {OWN_SEAT}:
        services.bot_add(table_id=table.pk, player=ref(host), number=number, level=spec.bot_levels[0])
    services.seat_ready(table_id=table.pk, player=ref(host), ready=True)
    services.table_start(table_id=table.pk, player=ref(host))
    Game.objects.filter(table=table).update(seed=SEED)
    game = Game.objects.get(table=table)
    live = bots_game(spec, seed=SEED, seats=SEATS, setup=game_services.setup_of(game))
    place = next(s.place for s in live.game.outcome().standings if OWN_SEAT in s.seats)
    assert place >= 9, f"the reader's row is to be far down the list, not {place}th"
    game_services.game_finish(game_id=game.pk, finished=live.finished_game())
    return f"{live_server_url}{table.get_absolute_url()}"


@pytest.mark.parametrize("size", [(1366, 768), (390, 844)], ids=["desktop", "phone"])
def test_twelve_results_show_the_readers_row_in_view_with_rematch(
    live_server_url, twelve_results_url, browser, screenshot, size
):
    width, height = size
    touch = width < 1024
    page = browser.new_context(viewport={"width": width, "height": height}, has_touch=touch, is_mobile=touch).new_page()
    page.set_default_timeout(TIMEOUT)
    log_in(page, live_server_url, "hostess")
    page.goto(twelve_results_url)
    rows = page.locator("#results tbody tr")
    expect(rows).to_have_count(SEATS)
    own = page.locator("#results tr.me")
    expect(own).to_have_count(1)
    expect(own).to_have_attribute("data-seats", str(OWN_SEAT))
    expect(own).to_have_attribute("aria-current", "true")
    expect(own).to_contain_text("hostess (you)", use_inner_text=True)
    # nobody else's row says "you"
    expect(page.locator("#results tr:not(.me) .you-mark")).to_have_count(SEATS - 1)
    for mark in page.locator("#results tr:not(.me) .you-mark").all():
        expect(mark).to_be_hidden()
    expect(page.get_by_role("button", name="Rematch").first).to_be_visible()
    screenshot(page, f"long-results-{width}x{height}")
    assert page.evaluate(IN_VIEW, "[data-results-next] [data-rematch]") == ""
    assert own.evaluate(IN_ITS_LIST) == ""
    assert page.evaluate(IN_VIEW, "#results tr.me") == ""
    if not touch:  # on a desktop the whole list fits the screen, nothing to scroll
        assert page.evaluate(IN_VIEW, "#results") == ""
        assert page.evaluate("() => { const l = document.querySelector('.results-scroll');"
                             " return l.scrollHeight <= l.clientHeight; }")
