"""Block-Killer by touch alone (issue #30): at 390 × 844, with taps only and no key
pressed, an attack and a defence are played, a stacked garbage row is flipped, moved
and taken back to hand, Back takes one step back and "Call off the attack" calls the
whole attack off; a double tap sends once; a picked piece is on screen as it enters;
the player whose turn it is reads "Your turn"; a spectator sees no controls.

The deal is the fixed one of test_blockkiller_game.py (seed 142): the plays are the
bots' own, made the way a person makes them."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from games.blockkiller.cards import BLOCK_KIND
from tests.browser.test_blockkiller_game import (  # noqa: F401 (fixtures)
    KEYS,
    NAMES,
    TIMEOUT,
    fixed_seed,
    seated_url,
    the_exchange,
)
from tests.browser.test_tetriwar_game import log_in

pytestmark = pytest.mark.browser
PHONE = (390, 844)


def double_tap(page, locator) -> None:
    """A double tap whose second tap comes before the first is answered: the button is
    activated twice at once (taps through the touchscreen are each answered by a local
    server before the next one lands, so they would not show a second send)."""
    # One evaluation finds, scrolls and taps the button: a push that replaces the hand
    # between a separate scroll and the taps would leave the scroll a detached button.
    locator.evaluate('button => { button.scrollIntoView({block: "nearest"}); button.click(); button.click(); }')


def tap_row(play, row: int) -> None:
    """Choose a garbage row (0 = the lowest) by tapping it on the field."""
    play.locator(".bk-field > i").nth((19 - row) * 10 + 5).tap()


def row_button(page, name: str):
    return page.locator(f'.bk-row-act[data-row-act="{name}"]')


def place(page, play, card: int, keys: str, placed: int, double: bool = False) -> None:
    block = page.locator(f'#bk-hand .bk-block[data-card="{card}"]')
    if double:
        double_tap(page, block)  # the piece enters once
    else:
        block.tap()
    expect(play).to_have_attribute("data-piece", re.compile("."))
    # the piece is on screen the moment it is picked, in the rows where it enters
    cells = play.locator(".pc")
    expect(cells).to_have_count(1 if BLOCK_KIND[card] == "M" else 4)
    for i in range(cells.count()):
        expect(cells.nth(i)).to_be_in_viewport()
    for key in keys:
        page.locator(f'.bk-key[data-key="{KEYS[key][1]}"]').tap()
    page.locator('.bk-key[data-key="drop"]').tap()
    expect(play).to_have_attribute("data-locked", str(placed))
    expect(play).not_to_have_attribute("data-piece", re.compile("."))


def test_an_attack_and_a_defence_by_taps_alone(seated_url, live_server_url, browser, screenshot):  # noqa: F811
    plays = the_exchange()
    pages = {}
    for name in ("hostess", "opponent", "thirdwheel", "outsider"):
        context = browser.new_context(viewport={"width": PHONE[0], "height": PHONE[1]}, has_touch=True, is_mobile=True)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT)
        log_in(page, live_server_url, name)
        page.goto(seated_url)
        pages[name] = page
    by_seat = {seat: pages[name] for seat, name in NAMES.items()}
    hostess, opponent, watcher = by_seat[1], by_seat[2], pages["outsider"]
    for page in by_seat.values():
        page.get_by_role("button", name="I'm ready").tap()
        expect(page.locator(".seat.mine .ready-mark")).to_be_visible()
    hostess.get_by_role("button", name="Start the game").tap()
    for page in pages.values():
        expect(page.locator("#bk-turn")).to_have_attribute("data-phase", "play")

    # "Your turn" for the player whose turn it is; the others read her name.
    expect(hostess.locator("#bk-turn .bk-words")).to_have_text("Your turn: attack someone or pass.", use_inner_text=True)
    expect(opponent.locator("#bk-turn .bk-words")).to_have_text("hostess attacks someone or passes.", use_inner_text=True)
    expect(watcher.locator("#bk-turn .bk-words")).to_have_text("hostess attacks someone or passes.", use_inner_text=True)
    # The number on an attack button says what it is.
    attack_opponent = hostess.get_by_role("button", name="Attack opponent · holds 4 garbage cards")
    expect(attack_opponent).to_be_visible()
    # A spectator sees no controls at all; a player waiting for their turn sees theirs.
    expect(watcher.locator("#bk-turn .bk-act")).not_to_have_count(0)
    expect(watcher.locator("#game button:visible")).to_have_count(0)
    expect(opponent.locator(".bk-pad")).to_be_visible()
    screenshot(watcher, "blockkiller-touch-spectator")

    attack, stack, pieces, done = plays[0], plays[1], plays[2:6], plays[6]
    assert attack[1].text == "attack:2" and stack[1].text == "stack:91,100,149,120,185" and done[1].text == "done"
    play = hostess.locator("#bk-play-attack")
    hand = hostess.locator("#bk-hand")

    # A double tap attacks once (the second tap used to be refused, in raw words).
    double_tap(hostess, attack_opponent)
    expect(hostess.locator("#bk-turn")).to_have_attribute("data-phase", "attack")
    expect(hostess.locator("#bk-turn .bk-words")).to_contain_text("Your turn: attack opponent.")
    # "Call off the attack" takes the whole attack back: the garbage back in hand.
    hand.locator('.bk-garbage[data-card="100"]').tap()
    expect(play).to_have_attribute("data-stack", "100")
    hostess.get_by_role("button", name="Call off the attack").tap()
    expect(hostess.locator("#bk-turn")).to_have_attribute("data-phase", "play")
    expect(hand.locator('.bk-garbage[data-card="100"]')).to_be_visible()
    double_tap(hostess, attack_opponent)
    expect(hostess.locator("#bk-turn")).to_have_attribute("data-phase", "attack")

    # The garbage, by taps: a row moved down, a row chosen on the field and flipped
    # (and flipped back), a row taken back to hand, and Back taking one step back.
    for card, expected in (("100", "100"), ("91", "100,91")):
        hand.locator(f'.bk-garbage[data-card="{card}"]').tap()
        expect(play).to_have_attribute("data-stack", expected)
    row_button(hostess, "down").tap()  # the top row, chosen, goes under the other
    expect(play).to_have_attribute("data-stack", "91,100")
    hand.locator('.bk-garbage[data-card="149"]').tap()
    expect(play).to_have_attribute("data-stack", "91,100,149")
    tap_row(play, 0)
    expect(play.locator(".bk-field > i.sel")).to_have_count(10)
    row_button(hostess, "flip").tap()
    expect(play).to_have_attribute("data-stack", "91f,100,149")
    screenshot(hostess, "blockkiller-touch-stacking")
    row_button(hostess, "up").tap()
    expect(play).to_have_attribute("data-stack", "100,91f,149")
    row_button(hostess, "flip").tap()
    expect(play).to_have_attribute("data-stack", "100,91,149")
    row_button(hostess, "down").tap()
    expect(play).to_have_attribute("data-stack", "91,100,149")
    hand.locator('.bk-garbage[data-card="185"]').tap()
    expect(play).to_have_attribute("data-stack", "91,100,149,185")
    row_button(hostess, "remove").tap()  # the top row, back to hand
    expect(play).to_have_attribute("data-stack", "91,100,149")
    expect(hand.locator('.bk-garbage[data-card="185"]')).to_be_visible()
    for card, expected in (("120", "91,100,149,120"), ("185", "91,100,149,120,185")):
        hand.locator(f'.bk-garbage[data-card="{card}"]').tap()
        expect(play).to_have_attribute("data-stack", expected)
    hostess.locator('.bk-key[data-key="back"]').tap()  # one step back: the top row, not the attack
    expect(play).to_have_attribute("data-stack", "91,100,149,120")
    expect(hostess.locator("#bk-turn")).to_have_attribute("data-phase", "attack")
    hand.locator('.bk-garbage[data-card="185"]').tap()
    expect(play).to_have_attribute("data-stack", "91,100,149,120,185")

    # The pieces, each on screen as it enters; Back puts a falling piece back.
    first = pieces[0][1]
    hand.locator(f'.bk-block[data-card="{first.card}"]').tap()
    expect(play).to_have_attribute("data-piece", re.compile("."))
    hostess.locator('.bk-key[data-key="back"]').tap()
    expect(play).not_to_have_attribute("data-piece", re.compile("."))
    expect(play).to_have_attribute("data-stack", "91,100,149,120,185")
    for placed, (_, intent) in enumerate(pieces, start=1):
        place(hostess, play, intent.card, intent.keys, placed)
        if placed == 1:
            expect(hostess.locator(".bk-calloff")).to_be_hidden()  # placed pieces stay placed
    screenshot(hostess, "blockkiller-touch-attack")
    double_tap(hostess, hostess.locator('.bk-key[data-key="done"]'))
    for page in pages.values():
        expect(page.locator("#bk-turn")).to_have_attribute("data-phase", "defend")
    expect(opponent.locator("#bk-turn .bk-words")).to_have_text("Your turn: defend against hostess's attack of 4.", use_inner_text=True)
    expect(hostess.locator("#bk-turn .bk-words")).to_have_text("opponent defends against hostess's attack of 4.", use_inner_text=True)

    # The defence, by taps: no call-off for a defence.
    defence = plays[7:]
    play = opponent.locator("#bk-play-defence")
    hand = opponent.locator("#bk-hand")
    assert defence[0][1].text == "stack:142,106,173,124"
    rows: list[str] = []
    for card in ("142", "106", "173", "124"):
        hand.locator(f'.bk-garbage[data-card="{card}"]').tap()
        rows.append(card)
        expect(play).to_have_attribute("data-stack", ",".join(rows))
    expect(opponent.locator(".bk-calloff")).to_be_hidden()
    for placed, (_, intent) in enumerate(defence[1:-1], start=1):
        place(opponent, play, intent.card, intent.keys, placed, double=placed == 1)
    opponent.locator('.bk-key[data-key="done"]').tap()

    for page in pages.values():
        expect(page.locator("#bk-log")).to_contain_text("opponent defends with 5 against 4: opponent draws 0, hostess draws 1")
        # said once, in the exchange's line
        expect(page.locator("#bk-log li", has_text="draws 1 garbage card")).to_have_count(0)
    expect(watcher.locator("#game button:visible")).to_have_count(0)
    screenshot(opponent, "blockkiller-touch-defended")
    # Nothing a player did was refused: the double taps sent once.
    for page in by_seat.values():
        expect(page.locator("#ws-error")).to_have_text("")
