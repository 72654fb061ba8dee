"""Block-Killer in a browser: three players and a spectator, through an attack, the
defence and the counter-attack, by keyboard at a desktop size and by touch at a phone's.

The game's seed is fixed (``games.services.new_seed``, set before the test server
forks), so the deal is known: the test works out each play with the bot's own search
on a copy of the engine, then makes it the way a person does: the attack button,
garbage cards clicked onto the stack, each block card clicked and moved with the arrow
keys (or the touch pad) and dropped, and Enter (or Done) to send the play."""

from __future__ import annotations

import random
import re

import pytest
from playwright.sync_api import expect

from games import services as game_services
from games.blockkiller.bot import BlockKillerBot
from games.blockkiller.engine import Game, Intent, Options
from tests.browser.test_tetriwar_game import log_in
from tests.personas import ref

pytestmark = pytest.mark.browser
TIMEOUT = 15_000
OPTIONS = {"turn_seconds": 300, "mini": False, "no_mercy": False}
SIZES = [(1366, 768), (390, 844)]
SEED = 142  # seat 1 begins and attacks seat 2 for 4; seat 2 defends with 5: a counter of 1
NAMES = {1: "hostess", 2: "opponent", 3: "thirdwheel"}
KEYS = {"L": ("ArrowLeft", "left"), "R": ("ArrowRight", "right"), "D": ("ArrowDown", "down"), "U": ("ArrowUp", "rotate"),
        "C": ("z", "rotate_ccw")}


@pytest.fixture
def fixed_seed(monkeypatch):
    """Requested before ``live_server_url``: the server process is forked with it."""
    monkeypatch.setattr(game_services, "new_seed", lambda: SEED)


@pytest.fixture
def seated_url(fixed_seed, live_server_url, host, opponent, outsider, make_user):
    from lobby import services

    third = make_user("thirdwheel")
    table = services.table_create(player=ref(host), game="blockkiller", options=OPTIONS, seats_total=3)
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    services.seat_take(table_id=table.pk, player=ref(third), number=3)
    return f"{live_server_url}{table.get_absolute_url()}"


def the_exchange() -> list[tuple[int, Intent]]:
    """The bots' first exchange of this deal: the attack, then the defence."""
    game = Game(Options(**OPTIONS), SEED, [1, 2, 3], 0.0)
    bot = BlockKillerBot(random.Random(0))
    plays, now = [], 0.0
    while not game.exchanges:
        seat = game.acting
        intent = bot.choose(game, seat)
        now += 1.0
        game.apply(seat, intent, now)
        plays.append((seat, intent))
    exchange = game.exchanges[0]
    assert (exchange.seat, exchange.defender, exchange.attack, exchange.defence) == (1, 2, 4, 5)
    assert (exchange.to_defender, exchange.to_attacker) == (0, 1)
    return plays


def press(page, key: str, touch: bool) -> None:
    """A game key: on the keyboard, or the touch pad's button."""
    if touch:
        page.locator(f'.bk-key[data-key="{key}"]').tap()
    else:
        page.keyboard.press({"left": "ArrowLeft", "right": "ArrowRight", "down": "ArrowDown", "rotate": "ArrowUp",
                             "rotate_ccw": "z", "drop": " ", "done": "Enter", "cancel": "Escape"}[key])


def make(page, seat: int, intent: Intent, touch: bool, placed: list[int]) -> None:
    role = "attack" if seat == 1 else "defence"  # in this exchange seat 1 attacks seat 2
    play = page.locator(f"#bk-play-{role}")
    click = (lambda loc: loc.tap()) if touch else (lambda loc: loc.click())
    if intent.name == "attack":
        click(page.get_by_role("button", name=re.compile(f"Attack {NAMES[intent.target]}")))
        expect(page.locator("#bk-turn")).to_have_attribute("data-phase", "attack")
    elif intent.name == "stack":
        rows: list[str] = []
        for row in intent.stack:
            for i, (card, flipped) in enumerate(row):
                click(page.locator(f'#bk-hand .bk-garbage[data-card="{card}"]'))
                if i == 0:
                    rows.append(str(card))
                else:
                    rows[-1] += f"+{card}" + ("f" if flipped else "")
                expect(play).to_have_attribute("data-stack", ",".join(rows))
            if row[0][1]:  # a flipped row: choose it on the field, then F
                index = (19 - (len(rows) - 1)) * 10
                click(play.locator(".bk-field > i").nth(index))
                page.keyboard.press("f")
                rows[-1] = rows[-1].replace(str(row[0][0]), f"{row[0][0]}f", 1)
                expect(play).to_have_attribute("data-stack", ",".join(rows))
    elif intent.name == "place":
        click(page.locator(f'#bk-hand .bk-block[data-card="{intent.card}"]'))
        expect(play).to_have_attribute("data-piece", re.compile("."))
        for key in intent.keys:
            press(page, KEYS[key][1], touch)
        press(page, "drop", touch)
        placed[0] += 1
        expect(play).to_have_attribute("data-locked", str(placed[0]))
        expect(play).not_to_have_attribute("data-piece", re.compile("."))
    elif intent.name == "done":
        press(page, "done", touch)
        placed[0] = 0
    else:
        raise AssertionError(f"not in this test's exchange: {intent}")


@pytest.mark.parametrize("size", SIZES, ids=["desktop", "phone"])
def test_an_attack_a_defence_and_a_counter_with_a_spectator(seated_url, live_server_url, browser, screenshot, size):
    touch = size[0] < 600
    plays = the_exchange()
    pages = {}
    for name in ("hostess", "opponent", "thirdwheel", "outsider"):
        context = browser.new_context(viewport={"width": size[0], "height": size[1]}, has_touch=touch, is_mobile=touch)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT)
        log_in(page, live_server_url, name)
        page.goto(seated_url)
        pages[name] = page
    by_seat = {seat: pages[name] for seat, name in NAMES.items()}
    watcher = pages["outsider"]
    for page in by_seat.values():
        page.get_by_role("button", name="I'm ready").click()
        expect(page.locator(".seat.mine .ready-mark")).to_be_visible()
    by_seat[1].get_by_role("button", name="Start the game").click()
    for page in pages.values():
        expect(page.locator("#bk-turn")).to_have_attribute("data-phase", "play")
        expect(page.locator(".bk-status")).to_have_count(3)
    # The hand is its player's alone: five block cards for the one who drew, none shown to the watcher.
    expect(by_seat[1].locator("#bk-hand .bk-block")).to_have_count(5)
    expect(by_seat[2].locator("#bk-hand .bk-block")).to_have_count(4)
    expect(watcher.locator("#bk-hand .bk-card")).to_have_count(0)
    expect(by_seat[2].locator(".bk-act").first).to_be_disabled()  # not their turn

    placed = [0]
    for seat, intent in plays:
        make(by_seat[seat], seat, intent, touch, placed)
        if intent.name == "done" and seat == 1:
            for page in pages.values():
                expect(page.locator("#bk-turn")).to_have_attribute("data-phase", "defend")
            # everyone sees the attack that was sent, and what the defender faces
            expect(watcher.locator("#bk-play-attack .bk-att strong")).to_have_text("4")
            expect(watcher.locator("#bk-play-defence")).to_contain_text("incoming 4")
            screenshot(by_seat[2], f"blockkiller-defending-{size[0]}")
    for page in pages.values():
        expect(page.locator("#bk-log")).to_contain_text("opponent defends with 5 against 4: opponent draws 0, hostess draws 1")
    expect(watcher.locator("#bk-play-defence .bk-att strong")).to_have_text("5")
    expect(watcher.locator("#bk-play-attack .bk-field > i.g, #bk-play-attack .bk-field > i.I")).not_to_have_count(0)
    assert watcher.evaluate("document.documentElement.scrollWidth") <= size[0]  # nothing sticks out sideways
    for role in ("attack", "defence"):
        box = watcher.locator(f"#bk-play-{role} .bk-field").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= size[0] and box["height"] >= 200
    screenshot(watcher, f"blockkiller-exchange-spectator-{size[0]}")

    # Two of the three leave: the game ends at once, the last one in wins.
    for page in (by_seat[2], by_seat[3]):
        page.once("dialog", lambda dialog: dialog.accept())
        page.get_by_role("button", name="Leave the game").click()
    for page in pages.values():
        expect(page.locator("#results-title")).to_have_text("Results")
        expect(page.locator("#clock")).to_have_text("Game over")
    expect(watcher.locator("#results tbody tr").first).to_contain_text("hostess")
    screenshot(watcher, f"blockkiller-finished-{size[0]}")
