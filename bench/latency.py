"""What a TetriWar player feels: key → own board in a real Chromium, behind a delaying proxy.

    python bench/latency.py [--delay MS ...] [--jitter MS ...] [--pieces N] [--seed S]
                            [--bombs off|manual|automatic] [--server URL] [--bot-level L]
                            [--server-cpus CPUS] [--client-cpus CPUS]

A loopback TCP proxy (asyncio, in this process; the machine's network is not touched)
sits between Chromium and the Daphne server and holds every chunk of bytes, in each
direction, for the one-way delay plus a random jitter of 0..J ms; a chunk is never
released before the one read before it on the same connection, so jitter never
reorders bytes. The round trip is twice the one-way delay.

For each case (every ``--delay`` with every ``--jitter``; default delays 0, 25, 50 and
100 ms, jitter 0) the bench opens a TetriWar practice table against the medium bot
(``lobby.services.practice_create``, the lobby's Practise button, with bombs off so
that nothing but the player's own keys moves the own board, or ``--bombs`` manual or
automatic, so that the bot's bombs land on it too; 15 minutes), starts it,
waits for the countdown and plays N pieces (default 50) with real key presses
(``page.keyboard.down``/``up``). A computer player (games/tetriwar/ai.py, hard) chooses
where each piece goes, from the board as the page shows it, so the stack stays low;
the bench presses its keys one at a time and waits for each to show:

- tap: ← or → held for 51–77 ms (uniform), then released;
- rotate: ↑; hard drop: Space;
- hold: on every third piece first, ← held until the piece touches the left wall.

Measured in the page: from the keydown event's ``timeStamp`` to the first animation
frame (``requestAnimationFrame`` after a ``MutationObserver`` saw the change,
``performance.now()``) in which the own board's piece (``#piece-<seat>``) shows the
change: a new column (tap), a new rotation (rotate), the piece locked (a row of the own
field changed, or a new piece) for a hard drop, the piece's leftmost cell in column 0
for a hold. ``hold_excess`` is the hold's time minus DAS + (n − 2)·ARR (n the columns
it moved, the account's handling). A tap that moved the piece two columns or more
(read from the board once a round trip, the jitter and DAS have passed) is a repeat
(``tap_repeats``). Corrections per 100 pieces come from
``window.TetriWarPredict.corrections`` when the page has it, else from the server's
``tetriwar_corrections_total`` on /metrics, else ``n/a``. With bombs on, the bombs
dropped on the own board are counted (``<case>_bombs_received``, each seen in the page's
queue of incoming bombs), and the target is no correction at all without jitter: each
bomb's dice come with its announcement, so the page lands it with the piece (issue 49).

The server runs on ``--server-cpus`` and the load generator (this process, its proxy
and Chromium) on ``--client-cpus`` (bench/machine.py: by default the first half of the
machine's CPUs and the rest, on a 2-core machine CPU 0 and CPU 1; on one CPU they
share it), printed as ``cpus_server`` and ``cpus_load``.
The case at 0 ms one-way is the floor (always run, first); its figures are printed as
``floor_*`` next to every other case's. Targets (issue 31) are printed beside the
figures, as ``<name>_target``. The last line is ``tap_p90_ms_at_100ms_oneway``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import argparse  # noqa: E402
import asyncio  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402

from bench import machine  # noqa: E402
from bench.client import fetch  # noqa: E402
from bench.report import figure, percentile  # noqa: E402
from bench.server import Servers, django_setup, free_port, login, server_env  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [  # as tests/browser/conftest.py launches it
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
DEFAULT_DELAYS = (0, 25, 50, 100)
TAP_MS = (51, 77)  # a short tap: must move exactly one column
TARGET_P90_MS = 16  # one frame at 60 Hz (issue 31), at 100 and 200 ms round trip
KEY_TIMEOUT_S = 5.0  # a key whose change never shows within this is a timeout
KEYS_PER_PIECE = 14  # then the bench hard-drops whatever the plan says
METRIC = re.compile(r"^tetriwar_corrections_total(?:\{[^}]*\})?\s+([0-9.e+]+)$", re.M)
KEY = {"left": "ArrowLeft", "right": "ArrowRight", "rotate": "ArrowUp", "hard_drop": " "}


# --- the proxy ---------------------------------------------------------------------------


class DelayProxy:
    """A loopback TCP proxy to ``target`` that delays each direction by ``delay_ms`` plus
    a random 0..``jitter_ms``, never reordering bytes. ``delay_ms`` and ``jitter_ms``
    may be changed while it runs (they apply to chunks read from then on)."""

    def __init__(self, target: tuple[str, int], delay_ms: float = 0, jitter_ms: float = 0, seed: int = 1,
                 chunk: int = 65536) -> None:
        self.target = target
        self.delay_ms = delay_ms
        self.jitter_ms = jitter_ms
        self.rng = random.Random(seed)
        self.chunk = chunk
        self.server: asyncio.base_events.Server | None = None
        self.port = 0
        self.connections = 0
        self._tasks: set[asyncio.Task] = set()

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> int:
        self.server = await asyncio.start_server(self._client, host, port)
        self.port = self.server.sockets[0].getsockname()[1]
        return self.port

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self.server is not None:
            await self.server.wait_closed()

    def _hold(self) -> float:
        """Seconds to hold the chunk read now."""
        jitter = self.rng.uniform(0, self.jitter_ms) if self.jitter_ms else 0.0
        return (self.delay_ms + jitter) / 1000

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        self._tasks.add(task)
        self.connections += 1
        up_writer = None
        pipes: list[asyncio.Task] = []
        try:
            try:
                up_reader, up_writer = await asyncio.open_connection(*self.target)
            except OSError:
                return
            # Each direction half-closes on its own end of stream (the other may still be
            # sending); a broken side ends both.
            pipes = [asyncio.create_task(self._pipe(reader, up_writer)),
                     asyncio.create_task(self._pipe(up_reader, writer))]
            await asyncio.wait(pipes, return_when=asyncio.FIRST_EXCEPTION)
        except asyncio.CancelledError:
            pass  # the proxy closes: end quietly (asyncio would report a cancelled client)
        finally:
            for pipe in pipes:
                pipe.cancel()
            await asyncio.gather(*pipes, return_exceptions=True)
            for side in (writer, up_writer):
                if side is not None:
                    side.close()
            self._tasks.discard(task)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Bytes from ``reader`` to ``writer``, each chunk released at
        max(its arrival + delay + jitter, the previous chunk's release); at the end of
        ``reader``'s stream, once every chunk is out, an end of stream to ``writer``.
        Raises when either side breaks."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue()

        async def release() -> None:
            while True:
                at, data = await queue.get()
                wait = at - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                if data is None:
                    break
                writer.write(data)
                await writer.drain()
            if writer.can_write_eof():
                writer.write_eof()

        sender = asyncio.create_task(release())
        sender.add_done_callback(lambda done: done.cancelled() or done.exception())  # read: no warning
        last = 0.0
        try:
            while True:
                data = await reader.read(self.chunk)
                if sender.done():
                    sender.result()  # the writing side broke: raise its error
                at = max(last, loop.time() + self._hold())
                last = at
                queue.put_nowait((at, data or None))
                if not data:
                    break
            await sender
        finally:
            sender.cancel()


class ProxyThread:
    """A DelayProxy on an event loop of its own thread (Playwright's sync API owns the
    main thread's)."""

    def __init__(self, target: tuple[str, int], seed: int) -> None:
        self.loop = asyncio.new_event_loop()
        self.proxy = DelayProxy(target, seed=seed)
        self.thread = threading.Thread(target=self.loop.run_forever, name="delay-proxy", daemon=True)
        self.thread.start()
        self.port = asyncio.run_coroutine_threadsafe(self.proxy.start(), self.loop).result(10)

    def set(self, delay_ms: float, jitter_ms: float) -> None:
        def change() -> None:
            self.proxy.delay_ms, self.proxy.jitter_ms = delay_ms, jitter_ms

        self.loop.call_soon_threadsafe(change)

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self.proxy.close(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


# --- measuring in the page ---------------------------------------------------------------

# Runs before the page's own scripts. ``arm(mode)`` says what the next keydown is for;
# the MutationObserver resolves it in the first animation frame after the own board
# shows the change.
PAGE_SCRIPT = """
(() => {
  const EXTENT = %s;  // kind -> per rotation [leftmost, rightmost] cell column in the box
  const S = { armed: null, next: 1, open: new Map(), done: new Map(), fieldGen: 0, waiters: new Map() };
  window.__latency = S;
  function seat() {
    const panel = document.getElementById("seat-panel");
    return Number((panel && panel.dataset.mySeat) || 0);
  }
  function piece() {
    const el = document.getElementById("piece-" + seat());
    if (!el) return null;
    const k = /\\b([IOJLSZT]) r(\\d)\\b/.exec(el.className);
    const p = /--x:\\s*(-?\\d+);\\s*--y:\\s*(-?\\d+)/.exec(el.getAttribute("style") || "");
    if (!k || !p) return null;
    const kind = k[1], r = Number(k[2]), x = Number(p[1]), y = Number(p[2]);
    return { kind, r, x, y, left: x + EXTENT[kind][r][0], right: x + EXTENT[kind][r][1] };
  }
  S.piece = piece;
  S.state = () => {
    const s = seat(), rows = [];
    for (let i = 0; i < 20; i++) {
      const row = document.getElementById(`board-${s}-row-${i}`);
      rows.push(row ? [...row.children].map((c) => (c.attributes.length ? "X" : ".")).join("") : "..........");
    }
    const next = document.getElementById("next-" + s);
    const m = next && /((?:[IOJLSZT] ?)*)$/.exec(next.getAttribute("aria-label") || "");
    const clock = document.getElementById("clock");
    return { seat: s, rows, piece: piece(), next: m ? m[1].trim().split(/\\s+/).filter(Boolean) : [],
             fieldGen: S.fieldGen, stopped: !!(clock && clock.hasAttribute("data-stopped")),
             over: !!document.querySelector("#game.over"),
             corrections: (window.TetriWarPredict && typeof window.TetriWarPredict.corrections === "number")
               ? window.TetriWarPredict.corrections : null,
             incoming: (window.TetriWarPredict && window.TetriWarPredict.board)
               ? window.TetriWarPredict.board.incoming.map((e) => e.slice(0, 3).join(":")) : [] };
  };
  S.arm = (mode) => { const id = S.next++; S.armed = { id, mode }; return id; };
  function changed(m) {
    const now = piece();
    const b = m.before;
    if (m.mode === "drop") return S.fieldGen !== m.fieldGen || !now || !b || now.kind !== b.kind || now.y < b.y;
    if (!now || !b) return false;
    if (now.kind !== b.kind || now.y < b.y) { m.lost = true; return true; }  // a new piece: not this key's
    if (m.mode === "tap") return now.x !== b.x;
    if (m.mode === "rotate") return now.r !== b.r;
    if (m.mode === "hold") return now.left === 0;
    return false;
  }
  function finish(m) {
    S.open.delete(m.id);
    requestAnimationFrame(() => {
      m.frame = performance.now();
      m.ms = m.frame - m.t0;
      m.after = piece();
      S.done.set(m.id, m);
      const w = S.waiters.get(m.id);
      if (w) { S.waiters.delete(m.id); w(m); }
    });
  }
  function check() {
    for (const m of [...S.open.values()]) if (!m.seen && changed(m)) { m.seen = true; finish(m); }
  }
  addEventListener("keydown", (e) => {
    if (e.repeat || !S.armed) return;
    const m = { id: S.armed.id, mode: S.armed.mode, key: e.key, t0: e.timeStamp, before: piece(),
                fieldGen: S.fieldGen };
    S.armed = null;
    S.open.set(m.id, m);
    check();  // a page that moves the piece in its own keydown handler (after this one)
    queueMicrotask(check);
  }, true);
  addEventListener("keyup", (e) => {
    for (const m of [...S.open.values(), ...S.done.values()])
      if (m.key === e.key && m.up === undefined) m.up = e.timeStamp - m.t0;
  }, true);
  const observer = new MutationObserver((records) => {
    const s = seat();
    for (const r of records) {
      const t = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      if (t && t.closest && t.closest(`#board-${s} .field`)) { S.fieldGen++; break; }
    }
    check();
  });
  function observe() {
    observer.observe(document.documentElement, { subtree: true, childList: true, attributes: true,
                                                 characterData: true });
  }
  if (document.documentElement) observe(); else addEventListener("DOMContentLoaded", observe);
  S.wait = (id, ms) => new Promise((resolve) => {
    if (S.done.has(id)) return resolve(S.done.get(id));
    const timer = setTimeout(() => { S.waiters.delete(id); S.open.delete(id); resolve(null); }, ms);
    S.waiters.set(id, (m) => { clearTimeout(timer); resolve(m); });
  });
})();
"""


def page_script() -> str:
    from games.tetriwar.pieces import CELLS

    extent = {
        kind: [[min(c for _, c in CELLS[kind][r]), max(c for _, c in CELLS[kind][r])] for r in range(4)]
        for kind in CELLS
    }
    return PAGE_SCRIPT % json.dumps(extent)


# --- the player --------------------------------------------------------------------------


class Planner:
    """Where the piece goes: the TetriWar AI on the board as the page shows it."""

    def __init__(self, seed: int) -> None:
        from games.tetriwar.ai import TetriWarAI
        from games.tetriwar.engine import Game, Options

        options = {"minutes": 15, "start_level": 1, "lines_per_level": 10, "bombs": "off", "pairs": False}
        self.ai = TetriWarAI("hard", random.Random(seed))
        self.game = Game(Options.from_dict(options), 0, (1, 2), 0)

    def keys(self, state: dict, piece_no: int) -> list[str]:
        from bench.live import ai_keys  # bench/live.py's bots plan the same way

        p = state["piece"]
        if p is None:
            return []
        piece = (p["kind"], p["r"], p["x"], p["y"])
        return ai_keys(self.ai, self.game, 1, state["rows"], piece, state["next"], piece_no) or []


class Case:
    """One delay and jitter: the figures of one game."""

    def __init__(self, delay: float, jitter: float) -> None:
        self.delay, self.jitter = delay, jitter
        self.ms: dict[str, list[float]] = {"tap": [], "rotate": [], "drop": [], "hold_excess": []}
        self.hold_ms: list[float] = []
        self.taps_short = 0  # taps of 51–77 ms as the page saw them, that moved
        self.tap_repeats = 0
        self.timeouts = 0
        self.lost = 0
        self.pieces = 0
        self.corrections: float | None = None
        self.received: set[str] = set()  # bombs seen coming to the own board: due:bomb:sender

    @property
    def name(self) -> str:
        return f"{self.delay:g}ms" + (f"_j{self.jitter:g}" if self.jitter else "")


def play_case(page, case: Case, pieces: int, handling: tuple[int, int], rng: random.Random, planner: Planner,
              metrics) -> None:
    das, arr = handling
    # one round trip, the jitter both ways and DAS: a repeat the server made shows by then
    settle = (2 * (case.delay + case.jitter) + 80) / 1000

    def look() -> dict:
        seen = page.evaluate("__latency.state()")
        case.received.update(seen["incoming"])
        return seen

    state = look()
    corrections0 = state["corrections"]
    metric0 = metrics()
    for n in range(pieces):
        if state["stopped"] or state["over"]:
            print(f"{case.name}: the game ended after {n} pieces", file=sys.stderr)
            break
        piece_no = n + 1
        if n % 3 == 0 and state["piece"] and state["piece"]["left"] >= 2:
            columns = state["piece"]["left"]
            m = press(page, "hold", "ArrowLeft", hold_until_done=True)
            if m is None:
                case.timeouts += 1
            elif m.get("lost"):
                case.lost += 1
            else:
                case.hold_ms.append(m["ms"])
                case.ms["hold_excess"].append(m["ms"] - (das + (columns - 2) * arr))
            state = look()
        for _ in range(KEYS_PER_PIECE):
            plan = planner.keys(state, piece_no)
            name = plan[0] if plan else "hard_drop"
            if name in ("left", "right"):
                before = state["piece"]
                m = press(page, "tap", KEY[name], hold_ms=rng.uniform(*TAP_MS))
                time.sleep(settle)
                state = look()
                if m is not None and not m.get("lost"):
                    case.ms["tap"].append(m["ms"])
                    after = state["piece"]
                    if after and before and after["kind"] == before["kind"] and after["y"] >= before["y"]:
                        case.taps_short += 1
                        if abs(after["x"] - before["x"]) >= 2:
                            case.tap_repeats += 1
                    continue
            else:
                mode = "rotate" if name == "rotate" else "drop"
                m = press(page, mode, KEY[name])
                if m is not None and not m.get("lost"):
                    case.ms[mode].append(m["ms"])
                state = look()
                if mode == "drop" and m is not None:
                    break
            if m is None:
                case.timeouts += 1
            else:
                case.lost += m.get("lost", False)
            if m is None or m.get("lost"):
                break  # the piece this plan was for has gone
        else:
            m = press(page, "drop", " ")
            if m is not None:
                case.ms["drop"].append(m["ms"])
            state = look()
        case.pieces += 1
        # the next piece shows: never press for it before it does
        if state["piece"] is None:
            page.wait_for_function("() => __latency.piece()", timeout=KEY_TIMEOUT_S * 1000)
            state = look()
    if corrections0 is not None and state["corrections"] is not None:
        case.corrections = state["corrections"] - corrections0
    else:
        metric1 = metrics()
        if metric0 is not None and metric1 is not None:
            case.corrections = metric1 - metric0


def press(page, mode: str, key: str, *, hold_ms: float = 20, hold_until_done: bool = False) -> dict | None:
    """One key press measured in the page: the measurement, or None (no change showed)."""
    mid = page.evaluate("(mode) => __latency.arm(mode)", mode)
    page.keyboard.down(key)
    if hold_until_done:
        m = page.evaluate("([id, ms]) => __latency.wait(id, ms)", [mid, KEY_TIMEOUT_S * 1000])
        page.keyboard.up(key)
        return m
    time.sleep(hold_ms / 1000)
    page.keyboard.up(key)
    return page.evaluate("([id, ms]) => __latency.wait(id, ms)", [mid, KEY_TIMEOUT_S * 1000])


# --- the server and the data -------------------------------------------------------------


def make_tables(count: int, bot_level: str, bombs: str = "off") -> list[dict]:
    """One user, session and ready practice table (against a bot, ``bombs`` as asked) per
    case, written before the server starts."""
    from games.tetriwar.handling import DEFAULT_HANDLING
    from lobby import services
    from lobby.models import Table

    tables = []
    for n in range(count):
        user, ref, cookie = login(f"latency{n}")
        table = services.practice_create(player=ref, game="tetriwar")
        options = {**table.options, "bombs": bombs, "minutes": 15}
        Table.objects.filter(pk=table.pk).update(options=options)
        bots = list(table.seats.exclude(bot_level="").values_list("bot_level", flat=True))
        if bot_level and bots != [bot_level]:
            table.seats.exclude(bot_level="").update(bot_level=bot_level)
            bots = [bot_level] * len(bots)
        name, value = cookie.split("=", 1)
        handling = user.handling or {}
        tables.append({
            "path": table.get_absolute_url(), "cookie": (name, value), "bots": bots,
            "das": int(handling.get("das", DEFAULT_HANDLING.das)), "arr": int(handling.get("arr", DEFAULT_HANDLING.arr)),
        })
    return tables


def metrics_reader(base: str):
    def read() -> float | None:
        try:
            text = fetch(f"{base}/metrics", timeout=5).decode()
        except (OSError, ValueError):
            return None
        values = METRIC.findall(text)
        return sum(float(v) for v in values) if values else None

    return read


# --- the run -----------------------------------------------------------------------------


def run_cases(base: str, proxy: ProxyThread, tables: list[dict], cases: list[Case], args, metrics) -> None:
    from playwright.sync_api import sync_playwright

    script = page_script()
    planner = Planner(args.seed)
    rng = random.Random(args.seed)
    proxied = f"http://127.0.0.1:{proxy.port}"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
        try:
            for case, table in zip(cases, tables, strict=True):
                proxy.set(case.delay, case.jitter)
                context = browser.new_context(viewport={"width": 1366, "height": 768})
                name, value = table["cookie"]
                context.add_cookies([{"name": name, "value": value, "url": proxied}])
                context.add_init_script(script)
                page = context.new_page()
                page.set_default_timeout(30_000 + 20 * (case.delay + case.jitter))
                page.goto(proxied + table["path"])
                page.get_by_role("button", name="Start the game").click()
                # the countdown, then the own piece
                page.wait_for_function(
                    "() => { const c = document.getElementById('clock');"
                    " return c && /^\\d+:\\d\\d$/.test(c.textContent.trim()) && __latency.piece(); }",
                    timeout=60_000,
                )
                started = time.monotonic()
                play_case(page, case, args.pieces, (table["das"], table["arr"]), rng, planner, metrics)
                print(f"{case.name}: {case.pieces} pieces in {time.monotonic() - started:.0f} s", file=sys.stderr)
                context.close()
        finally:
            browser.close()


def report(cases: list[Case], handling: tuple[int, int], bots: list[str], bombs: str = "off") -> None:
    das, arr = handling
    floor = next(c for c in cases if c.delay == 0 and c.jitter == 0)
    figure("handling_das_ms", das)
    figure("handling_arr_ms", arr)
    figure("opponent", f"{','.join(bots)} bot, bombs {bombs}")
    for kind in ("tap", "rotate", "drop"):
        figure(f"floor_{kind}_p50_ms", percentile(floor.ms[kind], 0.5), ".1f")
        figure(f"floor_{kind}_p90_ms", percentile(floor.ms[kind], 0.9), ".1f")
    figure("floor_hold_excess_p90_ms", percentile(floor.ms["hold_excess"], 0.9), ".1f")
    for case in cases:
        n = case.name
        rtt = 2 * case.delay
        judged = rtt in (100, 200)
        figure(f"{n}_round_trip_ms", rtt, "g")
        figure(f"{n}_jitter_ms", f"0..{case.jitter:g}")
        figure(f"{n}_pieces", case.pieces)
        for kind in ("tap", "rotate", "drop"):
            values = case.ms[kind]
            figure(f"{n}_{kind}_count", len(values))
            figure(f"{n}_{kind}_p50_ms", percentile(values, 0.5), ".1f")
            figure(f"{n}_{kind}_p90_ms", percentile(values, 0.9), ".1f")
            if judged:
                figure(f"{n}_{kind}_p90_target", f"<= {TARGET_P90_MS}")
        figure(f"{n}_hold_count", len(case.hold_ms))
        figure(f"{n}_hold_p50_ms", percentile(case.hold_ms, 0.5), ".1f")
        figure(f"{n}_hold_p90_ms", percentile(case.hold_ms, 0.9), ".1f")
        figure(f"{n}_hold_excess_p50_ms", percentile(case.ms["hold_excess"], 0.5), ".1f")
        figure(f"{n}_hold_excess_p90_ms", percentile(case.ms["hold_excess"], 0.9), ".1f")
        if judged:
            figure(f"{n}_hold_excess_target", f"<= {arr} (one ARR over DAS + (n-2)*ARR)")
        figure(f"{n}_tap_repeats", f"{case.tap_repeats} of {case.taps_short}")
        if case.jitter:
            figure(f"{n}_tap_repeats_target", "0")
        per100 = "n/a" if case.corrections is None else f"{100 * case.corrections / max(1, case.pieces):.2f}"
        figure(f"{n}_corrections_per_100_pieces", per100)
        if bombs != "off":
            figure(f"{n}_bombs_received", len(case.received))
        if bombs != "off" and not case.jitter:
            figure(f"{n}_corrections_target", "0 (bombs land by their dice, sent with them)")
        elif judged:
            figure(f"{n}_corrections_target", "<= 1")
        figure(f"{n}_timeouts", case.timeouts)
        figure(f"{n}_lost_keys", case.lost)
    headline = [c for c in cases if c.delay == 100]
    value = percentile(headline[0].ms["tap"], 0.9) if headline else float("nan")
    figure("tap_p90_ms_at_100ms_oneway", value, ".1f")


def delays(values: list[str] | None, default: tuple[int, ...]) -> list[float]:
    if not values:
        return [float(v) for v in default]
    out = []
    for value in values:
        out.extend(float(v) for v in value.replace(",", " ").split())
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--delay", action="append", nargs="+", metavar="MS",
                        help="one-way delay in ms, repeatable or a list (default 0 25 50 100)")
    parser.add_argument("--jitter", action="append", nargs="+", metavar="MS",
                        help="maximum random extra delay per chunk in ms, repeatable or a list (default 0)")
    parser.add_argument("--pieces", type=int, default=50, help="pieces played per case (default 50)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bot-level", default="medium")
    parser.add_argument("--bombs", choices=("off", "manual", "automatic"), default="off",
                        help="the table's bombs (default off: only the player's keys move the own board)")
    parser.add_argument("--server", default="",
                        help="the server's base URL, sharing this environment's database "
                             "(default: start a Daphne on SQLite in a temporary folder)")
    parser.add_argument("--chromium", default=CHROMIUM)
    machine.add_arguments(parser)
    args = parser.parse_args()
    cpus = machine.split_from(parser, args)
    one_way = delays([v for group in args.delay or [] for v in group], DEFAULT_DELAYS)
    jitters = delays([v for group in args.jitter or [] for v in group], (0,))
    cases = [Case(0, 0)] + [Case(d, j) for d in one_way for j in jitters if (d, j) != (0, 0)]

    with Servers.scratch("tetriwar-bench-latency-", cpus.server) as servers:
        if args.server:
            base = args.server.rstrip("/")
            import django

            django.setup()
        else:
            env = server_env(servers.tmp)
            django_setup(env)
        tables = make_tables(len(cases), args.bot_level, args.bombs)
        if not args.server:
            port = free_port()
            servers.daphne("daphne", port, env)
            servers.wait_for_port(port, 60)
            base = f"http://127.0.0.1:{port}"
        # this process first (every thread of it), so that the proxy's thread and Chromium inherit it
        machine.pin(os.getpid(), cpus.client)
        host, _, port_text = base.split("://", 1)[1].partition(":")
        proxy = ProxyThread((host, int(port_text or 80)), args.seed)
        try:
            figure("cpus_server", "n/a (--server)" if args.server else machine.cpus_text(cpus.server))
            figure("cpus_load", f"{machine.cpus_text(cpus.client)} (this process, its proxy and Chromium)")
            figure("cases", " ".join(c.name for c in cases))
            run_cases(base, proxy, tables, cases, args, metrics_reader(base))
            report(cases, (tables[0]["das"], tables[0]["arr"]), tables[0]["bots"], args.bombs)
        finally:
            proxy.close()


if __name__ == "__main__":
    main()
