"""The site's pages at six screen sizes, from a small phone to a large desktop: nothing
sticks out sideways, the page's heading (and a table's game area) is on screen, and no
control lies off the screen's sides (and on a narrow screen a running game comes before
the table's panels); the ``browser`` fixture fails the test on any
console error or warning and any Content-Security-Policy violation.

Pages: the public ones signed out (home, lobby, sign-up, log-in, the games, each game's
rules, the leaderboards, a player's profile), then signed in (home, lobby, one's profile
and keys, a leaderboard with one's own row), a waiting table of each game as its host
sees it, and a running practice game of each game (and Te-Trix solo) as its player sees
it, started from the lobby. A full-page screenshot of each running game at each size is
saved as tests/artifacts/layout-<game>-<width>x<height>.png."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

from games.registry import GAMES
from tests.browser.test_tetriwar_game import log_in
from tests.personas import ref

pytestmark = pytest.mark.browser
TIMEOUT = 15_000
SIZES = [(320, 568), (390, 844), (768, 1024), (880, 1000), (1366, 768), (1920, 1080)]
ONE_COLUMN = 900  # up to this width a table's panels go under its game (static/css/site.css)
KINDS = list(GAMES)

PUBLIC_PAGES = [
    "/",
    "/lobby/",
    "/accounts/signup/",
    "/accounts/login/",
    "/games/",
    *(f"/games/{kind}/how-to-play/" for kind in KINDS),
    "/games/leaderboard/",
    *(f"/games/leaderboard/{kind}/" for kind in KINDS),
    "/accounts/players/opponent/",
]
SIGNED_IN_PAGES = [
    "/",
    "/lobby/",
    "/accounts/profile/",
    "/accounts/profile/keys/",
    "/accounts/players/opponent/",
    "/games/leaderboard/tetriwar/",
]

# A running game as its player sees it: what shows that it runs (after the countdown),
# and the player's own board, which must be wholly on screen.
RUNNING = {
    "tetriwar": (("#board-1 .fr", 20), "#board-1"),
    "viertris": (("#vt-board .vt-final", 1), "#vt-board"),
    "thirdoption": (("#to-round .to-card", 2), "#to-board-1"),
    "blockkiller": ((".bk-status", 3), "#bk-arena"),
    "tetrix": ((".tx-sheet", 2), "#tx-sheet-1"),
    "tetrix-solo": ((".tx-sheet", 1), "#tx-sheet-1"),
}
COUNTDOWNS = ".countdown, .vt-countdown, .to-countdown, .bk-countdown, .tx-countdown"
# The table page's socket is open (htmx's ws extension keeps it in ``htmx-internal-data``):
# the page is live, as a person sees it before they press Start.
SOCKET_OPEN = """() => {
  const socket = document.getElementById("table-socket");
  const data = socket && socket["htmx-internal-data"];
  return Boolean(data && data.webSocket && data.webSocket.socket && data.webSocket.socket.readyState === 1);
}"""

# What sticks out sideways: the page's width, and the innermost elements past its right edge.
OVERFLOW = """(width) => {
  const name = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "")
    + (el.classList.length ? "." + [...el.classList].join(".") : "");
  const past = (el) => el.getBoundingClientRect().right > width + 0.5;
  const clipped = (el) => {  // inside a box that clips or scrolls it (absolutely placed ones may escape)
    if (["absolute", "fixed"].includes(getComputedStyle(el).position)) return false;
    for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
      if (getComputedStyle(up).overflowX !== "visible") return true;
    }
    return false;
  };
  const culprits = [...document.body.querySelectorAll("*")]
    .filter((el) => past(el) && !clipped(el) && ![...el.children].some(past))
    .slice(0, 6)
    .map((el) => `${name(el)} (right ${Math.round(el.getBoundingClientRect().right)})`);
  return {scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth, culprits};
}"""

# Controls of the page's main part (buttons, fields, button-like links) that lie past a side
# of the screen, but for those inside a box that scrolls sideways by design.
CONTROLS_OFF_SCREEN = """(width) => {
  const scrolls = (el) => {
    for (let up = el.parentElement; up; up = up.parentElement) {
      const o = getComputedStyle(up).overflowX;
      if (o === "auto" || o === "scroll") return true;
    }
    return false;
  };
  return [...document.querySelectorAll(
    "main button, main select, main input:not([type=hidden]), main textarea, main .btn")]
    .filter((el) => {
      const r = el.getBoundingClientRect();
      return r.width > 1 && r.height > 1 && getComputedStyle(el).visibility !== "hidden"
        && (r.left < -0.5 || r.right > width + 0.5) && !scrolls(el);
    })
    .map((el) => `${el.tagName.toLowerCase()} "${(el.innerText || el.name || el.id).trim().slice(0, 40)}"`
      + ` at ${Math.round(el.getBoundingClientRect().left)}..${Math.round(el.getBoundingClientRect().right)}`);
}"""

# Text wider than its own box (a word in a column too narrow for it), where nothing clips
# it: it runs under what stands beside it, unreadable. Boxes whose own text it is only.
TEXT_OUT_OF_ITS_BOX = """() => {
  const ownText = (el) => [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.data.trim());
  return [...document.querySelectorAll("body *")]
    .filter((el) => {
      const style = getComputedStyle(el);
      return ownText(el) && style.display !== "inline" && style.overflowX === "visible"
        && el.scrollWidth > el.clientWidth + 1 && el.checkVisibility();
    })
    .map((el) => `${el.tagName.toLowerCase()} "${el.innerText.trim().replace(/\\s+/g, " ").slice(0, 40)}"`
      + ` is ${el.scrollWidth} px wide in a box of ${el.clientWidth}`);
}"""


# The text of the section around a control that is not visible (or of the whole main).
SHOWN_INSTEAD = """(selector) => {
  const el = document.querySelector(selector);
  const around = el ? el.closest("section, main") : document.querySelector("#table-status, main");
  const text = around ? around.innerText.replace(/\\s+/g, " ").trim().slice(0, 300) : "nothing";
  if (!el) return `absent; around it: ${text}`;
  // Why it counts as hidden: its box, and the first of it and its ancestors without one.
  const r = el.getBoundingClientRect();
  let why = "";
  for (let up = el; up && up !== document.documentElement; up = up.parentElement) {
    const style = getComputedStyle(up);
    if (style.display === "none" || style.visibility !== "visible") {
      why = ` ${up.tagName.toLowerCase()}${up.id ? "#" + up.id : ""} has display ${style.display},`
        + ` visibility ${style.visibility}`;
      break;
    }
  }
  return `present but hidden: ${Math.round(r.width)}×${Math.round(r.height)} at ${Math.round(r.x)},`
    + `${Math.round(r.y)},${why} checkVisibility ${el.checkVisibility()}, page ${document.visibilityState};`
    + ` around it: ${text}`;
}"""


# The box of the first element of a selector if it is shown (rendered: no display: none,
# no visibility: hidden on it or above it; and with a size), as the page itself sees it;
# else null. One look: the element found and its box measured in the same turn of the
# page, which a live push replacing the element cannot come between.
SHOWN = """(selector) => {
  const el = document.querySelector(selector);
  if (!el) return null;
  const r = el.getBoundingClientRect();
  if (!el.checkVisibility({ visibilityProperty: true }) || r.width <= 0 || r.height <= 0) return null;
  return { x: r.x, y: r.y, width: r.width, height: r.height };
}"""


# While a control is waited for: what changes on the page (ids, classes, attributes,
# children added or removed, with ms since the watch began) and how many animation frames
# it draws, so that a control found not shown says what the page did meanwhile.
WATCH = """() => {
  if (window.__watch) { window.__watch.observer.disconnect(); window.__watch.done = true; }
  const w = window.__watch = { t0: performance.now(), frames: 0, log: [], done: false };
  const tick = () => { if (w.done) return; w.frames += 1; requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  const name = (n) => n.nodeType === 1 ? n.tagName.toLowerCase() + (n.id ? "#" + n.id : "") : n.nodeName;
  w.observer = new MutationObserver((records) => {
    for (const r of records) {
      if (w.log.length >= 60) w.log.shift();
      w.log.push(`${Math.round(performance.now() - w.t0)}ms ${r.type} ${name(r.target)}`
        + (r.attributeName ? ` [${r.attributeName}]` : "")
        + (r.addedNodes.length ? ` +${[...r.addedNodes].map(name).join(",")}` : "")
        + (r.removedNodes.length ? ` -${[...r.removedNodes].map(name).join(",")}` : ""));
    }
  });
  w.observer.observe(document.body, { subtree: true, childList: true, attributes: true });
}"""
WATCHED = """() => {
  const w = window.__watch;
  if (!w) return "no watch";
  w.observer.disconnect();
  w.done = true;
  return `${w.frames} frames in ${Math.round(performance.now() - w.t0)} ms, focus ${document.hasFocus()}; `
    + `last changes: ${w.log.slice(-12).join("; ") || "none"}`;
}"""


def shown_box(page, selector: str, timeout_s: float = TIMEOUT / 1000) -> dict | None:
    """The box of the first ``selector`` if it is shown, or comes to be within the tests'
    timeout (a live push may be replacing it this instant: it must be back), looked at by
    the page's own script, the element and its box in one look. Looking with Playwright
    (its visibility, then ``bounding_box()`` on the element found again) came apart in full
    runs: a waiting table's Start button was found shown, then its box asked of the element
    that a push of the seat panel had just replaced (None), while the page showed the new
    one. A control that is not shown still fails."""
    deadline = time.monotonic() + timeout_s
    box = page.evaluate(SHOWN, selector)
    if box is not None:
        return box
    page.evaluate(WATCH)
    while (box := page.evaluate(SHOWN, selector)) is None:
        if time.monotonic() > deadline:
            return None
        page.wait_for_timeout(50)  # between two looks: the condition is what is waited for
    return box


def layout_problems(page, width: int, what: str, *boxes: str) -> list[str]:
    """What is wrong with the page's layout at ``width``: an empty list when nothing."""
    problems = []
    seen = page.evaluate(OVERFLOW, width)
    if seen["scrollWidth"] > min(seen["innerWidth"], width):
        problems.append(
            f"{what}: sticks out sideways, {seen['scrollWidth']} px wide in {seen['innerWidth']}"
            f" (past the edge: {', '.join(seen['culprits'])})"
        )
    for selector in ("main h1", *boxes):
        box = shown_box(page, selector)
        if box is None:
            # what the page shows there instead, to tell a push of the wrong role's panels
            # from one still on its way
            shown = page.evaluate(SHOWN_INSTEAD, selector)
            problems.append(f"{what}: {selector} is not visible ({shown}; meanwhile {page.evaluate(WATCHED)})")
        elif box["x"] < -0.5 or box["x"] + box["width"] > width + 0.5:
            problems.append(
                f"{what}: {selector} lies at {box['x']:.0f}..{box['x'] + box['width']:.0f}, off the screen"
            )
    problems.extend(
        f"{what}: {control} is off the screen" for control in page.evaluate(CONTROLS_OFF_SCREEN, width)
    )
    problems.extend(f"{what}: the text of {text}" for text in page.evaluate(TEXT_OUT_OF_ITS_BOX))
    return problems


def load(page, url: str, what: str) -> None:
    response = page.goto(url)
    assert response is not None and response.ok, f"{what}: {response and response.status}"
    page.wait_for_load_state("load")


def visit(page, url: str, width: int, what: str) -> list[str]:
    load(page, url, what)
    return layout_problems(page, width, what)


@pytest.fixture
def _room_to_host(settings):
    """The player hosts a waiting table of every game and six running practice tables at
    once, more than the abuse limit lets one account (requested before the server forks)."""
    settings.TABLES_PER_HOST = 20


@pytest.fixture
def waiting_tables(_room_to_host, live_server_url, host, opponent, third) -> dict[str, str]:
    """Data first (no ORM calls once Playwright's event loop runs): scored games of every
    game between three players, so the leaderboards and profiles have rows; and a waiting
    table of every game at its most seats, hosted by ``host`` with ``opponent`` seated."""
    from lobby import services
    from tests.games.test_leaderboard import play

    stake_table = services.table_create(
        player=ref(third),
        game="tetriwar",
        options=GAMES["tetriwar"].options_form.defaults(),
        seats_total=2,
        stake=10,
    )
    for kind in KINDS:
        play(stake_table, (host, 1, 10, 10), (opponent, 2, -5, -10), kind=kind)
        play(stake_table, (opponent, 1, 10, 20), (host, 2, -5, -10), (third, 3, -8, -10), kind=kind)
    urls = {}
    for kind, spec in GAMES.items():
        table = services.table_create(
            player=ref(host), game=kind, options=spec.options_form.defaults(), seats_total=spec.max_seats
        )
        services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
        urls[kind] = f"{live_server_url}{table.get_absolute_url()}"
    return urls


# The sizes by kind of device: a page is opened once at the first size of its kind and
# looked at in each (its window resized, as a phone turned or a window dragged).
DEVICES = {
    "touch": [size for size in SIZES if size[0] < 1024],  # phones and tablets
    "desktop": [size for size in SIZES if size[0] >= 1024],
}
NEXT_FRAME = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"


def at_every_size(page, sizes, what: str, *boxes: str, running: str | None = None, screenshot=None) -> list[str]:
    """The layout's problems at each size of ``sizes``, the page resized to each in turn
    (and laid out again: two frames, for what fits itself on a resize)."""
    problems = []
    for width, height in sizes:
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate(NEXT_FRAME)
        problems += [f"{problem} (at {width}×{height})" for problem in layout_problems(page, width, what, *boxes)]
        if running and width <= ONE_COLUMN:  # one column: the game first, the seats and status under it
            game_top = page.locator("#game-area").bounding_box()["y"]
            seats_top = page.locator("#seat-panel").bounding_box()["y"]
            if game_top > seats_top:
                problems.append(f"{what}: the game is under the panels, at {game_top:.0f} px (at {width}×{height})")
        if screenshot and running:
            # The click on "Start the game" scrolled the page down: the screenshot shows it from the top.
            page.evaluate("window.scrollTo(0, 0)")
            screenshot(page, f"layout-{running}-{width}x{height}")
    return problems


@pytest.mark.parametrize("device", DEVICES)
def test_every_page_fits_the_screen(waiting_tables, live_server_url, browser, screenshot, device):
    sizes = DEVICES[device]
    width, height = sizes[0]
    touch = device == "touch"
    context = browser.new_context(
        viewport={"width": width, "height": height}, has_touch=touch, is_mobile=touch
    )
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    problems: list[str] = []

    def look(url: str, what: str, *boxes: str) -> None:
        nonlocal problems
        page.set_viewport_size({"width": width, "height": height})
        load(page, url, what)
        if boxes:
            expect(page.locator(boxes[-1])).to_be_visible()
        problems += at_every_size(page, sizes, what, *boxes)

    for path in PUBLIC_PAGES:
        look(live_server_url + path, f"{path} (signed out)")

    log_in(page, live_server_url, "hostess")
    for path in SIGNED_IN_PAGES:
        look(live_server_url + path, f"{path} (signed in)")

    for kind, url in waiting_tables.items():
        look(url, f"a waiting {kind} table", "#game-area", "#start-button")

    # A practice game of each, and Te-Trix solo, each started from the lobby in a page of
    # its own: their countdowns run together.
    games = {}
    for name, button in [
        *((kind, f"Practise {spec.name} against a bot") for kind, spec in GAMES.items()),
        ("tetrix-solo", "Play Te-Trix solo"),
    ]:
        game_page = context.new_page()
        game_page.set_default_timeout(TIMEOUT)
        game_page.goto(f"{live_server_url}/lobby/")
        game_page.get_by_role("button", name=button, exact=True).click()
        game_page.wait_for_url(re.compile(r"/tables?/\d+"))
        game_page.wait_for_function(SOCKET_OPEN)
        game_page.get_by_role("button", name="Start the game").click()
        expect(game_page.locator("#table-status")).to_contain_text("A game is being played.")
        games[name] = game_page
    for name, game_page in games.items():
        # looked at as a person looks at a tab: in front (the others in the background
        # stop drawing, as a browser's hidden tabs do; six games drawn at once in software
        # took a screenshot 4 s)
        game_page.bring_to_front()
        (shows, count), board = RUNNING[name]
        expect(game_page.locator(shows)).to_have_count(count)
        expect(game_page.locator(COUNTDOWNS)).to_have_count(0)
        expect(game_page.locator("#clock")).not_to_have_text(re.compile(r"^\s*(Get ready…)?\s*$"))
        problems += at_every_size(
            game_page, sizes, f"a running {name} game", "#game-area", board, running=name, screenshot=screenshot
        )
        game_page.close()

    assert not problems, f"{device}:\n" + "\n".join(problems)


# --- a replay --------------------------------------------------------------------------------------
REPLAY_SIZES = [(390, 844), (1366, 768)]


@pytest.fixture
def replay_path(host, kind) -> str:
    """A bots' game of ``kind`` recorded by the services (before the browser starts: its
    event loop refuses the database), and its replay page's path."""
    from tests.games.test_replays import recorded_bots_game

    return f"/games/{recorded_bots_game(host, kind, seed=41).pk}/replay/"


@pytest.mark.parametrize("size", REPLAY_SIZES, ids=[f"{w}x{h}" for w, h in REPLAY_SIZES])
@pytest.mark.parametrize("kind", KINDS)
def test_a_replay_fits_the_screen_with_its_boards_first_and_its_link_box_shut(
    replay_path, live_server_url, browser, screenshot, kind, size
):
    """A replay at a phone's and a desktop's size: nothing sideways, its controls on
    screen; on the phone the boards come first, in view, the controls under them; the
    box of the link at this moment shows only once the link is asked for."""
    width, height = size
    touch = width < 1024
    page = browser.new_context(viewport={"width": width, "height": height}, has_touch=touch, is_mobile=touch).new_page()
    page.set_default_timeout(TIMEOUT)
    what = f"a {kind} replay"
    problems = visit(page, live_server_url + replay_path, width, what)
    expect(page.locator("#game")).to_be_visible()
    problems += layout_problems(page, width, what, "#game-area", "#replay", "#replay-play", "#replay-seek")
    screenshot(page, f"layout-replay-{kind}-{width}x{height}")

    game = page.locator("#game").bounding_box()
    controls = page.locator("#replay").bounding_box()
    if width <= ONE_COLUMN:
        if game["y"] > controls["y"]:
            problems.append(f"{what}: the boards are under the controls, at {game['y']:.0f} px")
        if game["y"] > height / 2:
            problems.append(f"{what}: the boards begin at {game['y']:.0f} px, not in view on a {height} px screen")
        # A moment picked in the list under everything shows the boards again, not the controls alone.
        page.locator(".replay-moments summary").click()
        page.locator(".replay-moments a[data-i]").nth(1).click()
        expect(page.locator("#replay-caption")).not_to_have_text("The start.")
        shown = page.evaluate("""() => {
          const bar = document.querySelector(".topbar");
          const covered = getComputedStyle(bar).position === "sticky" ? bar.getBoundingClientRect().bottom : 0;
          return [document.getElementById("game").getBoundingClientRect().top, covered];
        }""")
        if not shown[1] - 1 <= shown[0] < height / 2:
            problems.append(f"{what}: a moment picked in the list leaves the boards' top at {shown[0]:.0f} px")
        page.evaluate("window.scrollTo(0, 0)")

    link = page.locator("#replay-link")
    if link.is_visible():
        problems.append(f"{what}: the box of the link at this moment shows before it is asked for")
    page.locator("#replay-copy").click()
    expect(link).to_be_visible()
    expect(page.locator("#replay-link-text")).to_have_value(re.compile(r"/replay/\?t="))
    assert not problems, f"at {width}×{height}:\n" + "\n".join(problems)


# --- the end of a game (issue 30): the results and the one thing to do next, in view -------
END_SIZES = [(390, 844), (1366, 768)]


@pytest.fixture
def games_to_end(_room_to_host, live_server_url, host, opponent, third) -> dict[str, str]:
    """A table of every game with only people at it, all ready: the host and one other
    (Block-Killer, for three or more: two others). When the others leave, the game ends."""
    from lobby import services

    urls = {}
    for kind, spec in GAMES.items():
        players = (host, opponent, third)[: max(2, spec.min_seats)]
        table = services.table_create(
            player=ref(host), game=kind, options=spec.options_form.defaults(), seats_total=len(players)
        )
        for number, user in enumerate(players[1:], start=2):
            services.seat_take(table_id=table.pk, player=ref(user), number=number)
        for user in players:
            services.seat_ready(table_id=table.pk, player=ref(user), ready=True)
        urls[kind] = (f"{live_server_url}{table.get_absolute_url()}", len(players))
    return urls


# The results' headings with a word broken over two lines ("PLAC/E"): more lines than words.
HEADINGS_ON_MORE_THAN_ONE_LINE = """() => [...document.querySelectorAll("#results th")].filter((th) => {
  const range = document.createRange();
  range.selectNodeContents(th);
  const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
  return tops.size > th.innerText.trim().split(/\\s+/).length;
}).map((th) => th.innerText)"""


# The bottom of the top bar where it stays on screen (sticky), else 0: what it covers.
COVERED_BY_THE_BAR = """() => {
  const bar = document.querySelector(".topbar");
  return bar && getComputedStyle(bar).position === "sticky" ? bar.getBoundingClientRect().bottom : 0;
}"""


def in_view(page, selector: str) -> str | None:
    """Why ``selector`` is not wholly on the screen as it stands (no scrolling), under
    nothing that stays on screen (the sticky top bar), or None."""
    box = page.locator(selector).first.bounding_box()
    viewport = page.viewport_size
    if box is None:
        return f"{selector} is not shown"
    if box["y"] < -0.5 or box["y"] + box["height"] > viewport["height"] + 0.5:
        return f"{selector} lies at {box['y']:.0f}..{box['y'] + box['height']:.0f}, off the screen"
    covered = page.evaluate(COVERED_BY_THE_BAR)
    if box["y"] < covered - 0.5:
        return f"{selector} lies at {box['y']:.0f}, under the top bar (to {covered:.0f})"
    return None


def expect_the_end_offers_rematch(page) -> None:
    """The results, and one thing to do next: Rematch (not I'm ready, nor Start)."""
    expect(page.locator("#results-title")).to_have_text("Results")
    expect(page.locator("[data-rematch]")).to_be_visible()
    expect(page.get_by_role("button", name="I'm ready")).to_have_count(0)
    expect(page.locator("#start-button")).to_have_count(0)


def end_problems(page, width: int, what: str) -> list[str]:
    """What is wrong with the end of a game on screen: its results or Rematch out of view,
    or the page's layout."""
    whys = (in_view(page, "#results-title"), in_view(page, "[data-rematch]"))
    found = [f"{what}: {why}" for why in whys if why]
    return found + layout_problems(page, width, what, "#results")


@pytest.mark.parametrize("size", END_SIZES, ids=[f"{w}x{h}" for w, h in END_SIZES])
def test_the_end_of_every_game_shows_its_results_and_rematch_in_view(
    games_to_end, live_server_url, browser, screenshot, size
):
    """Every game at once, each in a tab of its players (one signed-in browser each): their
    countdowns, their ends and their rematches run together, and each is checked alone."""
    width, height = size
    touch = width < 1024
    problems: list[str] = []
    people = {}
    for name in ("hostess", "opponent", "thirdwheel"):
        context = browser.new_context(viewport={"width": width, "height": height}, has_touch=touch, is_mobile=touch)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT)
        log_in(page, live_server_url, name)
        people[name] = page
    spare = dict(people)  # each one's signed-in tab goes to their first table
    tables: dict[str, list] = {}
    for kind, (url, count) in games_to_end.items():
        pages = []
        for name in ("hostess", "opponent", "thirdwheel")[:count]:
            page = spare.pop(name, None) or people[name].context.new_page()
            page.set_default_timeout(TIMEOUT)
            page.goto(url)
            pages.append(page)
        tables[kind] = pages

    for pages in tables.values():
        for page in pages:
            page.wait_for_function(SOCKET_OPEN)
        pages[0].get_by_role("button", name="Start the game").click()
    for pages in tables.values():
        for page in pages:
            expect(page.locator("#table-status")).to_contain_text("A game is being played.")
            expect(page.locator(COUNTDOWNS)).to_have_count(0)
    for pages in tables.values():
        host_page, others = pages[0], pages[1:]
        # The player scrolled to play, as on a phone: the end must come into view by itself.
        host_page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        for page in others:  # the others leave: the host is left alone, and the game ends
            page.once("dialog", lambda dialog: dialog.accept())
            page.get_by_role("button", name="Leave the game").click()
    for kind, pages in tables.items():
        host_page = pages[0]
        expect_the_end_offers_rematch(host_page)
        for page in pages[1:]:  # who left gave the seat up: the results, and a seat offered
            expect(page.locator("#results-title")).to_have_text("Results")
            expect(page.locator("#sit-top")).to_be_visible()
        host_page.bring_to_front()
        problems += end_problems(host_page, width, f"the end of {kind}")
        broken = host_page.evaluate(HEADINGS_ON_MORE_THAN_ONE_LINE)
        problems += [f"the end of {kind}: the heading {text!r} breaks over lines" for text in broken]
        screenshot(host_page, f"layout-end-{kind}-{width}x{height}")

    # Reloaded after the end (or opened again: Back, another tab), the page still shows
    # the results and offers the rematch, as it did (not a spinner saying the game will
    # appear when the host starts it). Scrolled down first: the browser puts back a
    # reloaded page's scroll, which had the boards above the results.
    for kind, pages in tables.items():
        host_page = pages[0]
        host_page.bring_to_front()
        host_page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        host_page.reload()
        expect_the_end_offers_rematch(host_page)
        expect(host_page.locator("#results tbody tr")).to_have_count(len(pages))
        problems += end_problems(host_page, width, f"the end of {kind}, reloaded")
        screenshot(host_page, f"layout-end-reloaded-{kind}-{width}x{height}")

    # The rematch: the ones who left stayed at the table, sit down again, and play again
    # when everybody asked.
    for pages in tables.values():
        for page in pages[1:]:
            page.locator("#sit-top").click()
            expect(page.locator("[data-rematch]")).to_be_visible()
        for page in pages:
            page.locator("[data-rematch]").click()
    for kind, pages in tables.items():
        for page in pages:
            expect(page.locator("#table-status")).to_contain_text("A game is being played.")
            expect(page.locator("#results-title")).to_have_count(0)
        # The page reloaded with the results placed them itself; playing again, a reload
        # puts its scroll back as any page's.
        assert pages[0].evaluate("history.scrollRestoration") == "auto", kind
    assert not problems, f"at {width}×{height}:\n" + "\n".join(problems)
