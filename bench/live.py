"""Live latency and fan-out: bot-driven TetriWar tables against a real server.

    python bench/live.py [--tables N] [--seconds S] [--rate R] [--seed S] [--bot-level L]
                         [--minutes M] [--cycle] [--scale-out [--shards K] [--workers W]]
                         [--proxy none|nginx] [--languages L] [--no-floor] [--server-cpus CPUS]
                         [--client-cpus CPUS] [--client ai|scripted|node] [--journal on|off]
                         [--press-from table|window]

``--journal off`` runs the servers without writing their games' inputs down as they come
(``GAME_JOURNAL=false``: a restart then aborts every game, games/journal.py), for what the
journal costs: ``journal_writes_per_table_minute`` counts the batches written over the
play window (one row each; a flush of every table's batches is one transaction).

Embedded (the default): starts one Daphne process (SQLite in a temporary file, the
in-memory channel layer, the table host inside Daphne). ``--scale-out``: creates a
scratch PostgreSQL database (``tetriwar_bench_<random>`` as postgres@127.0.0.1:5432,
dropped at the end), uses a Redis database of its own (``--redis-db``, flushed before
and after), and starts two Daphne processes, each hosting half of K shards
(``GAME_HOST_SHARDS``, default 2; ``HOSTED_SHARDS``), with a table's sockets routed to
the process hosting it, as the proxy of docs/operations.md does; with ``--workers W`` the tables are
hosted instead by W ``manage.py runworker game-host-…`` workers (K shards split over
them, default K = W) and the sockets of one table alternate between the two Daphnes.
It waits for every shard's heartbeat before playing.
``--proxy nginx``: every socket and request goes through Debian's nginx instead, serving
the site of docs/operations.md (config/nginx.py, bench/proxy.py: a master process of its own on a
loopback port, one worker, its configuration and logs in the run's temporary
directory), which routes a table's sockets to its host as operators run it; the
Daphnes trust it (``TRUSTED_PROXIES=127.0.0.1``), so the per-address limits still see
each table's own address. nginx's CPU is its own line (``proxy_cpu_s``), not the
server's; ``proxy_sockets_to_host`` counts, from its access log, the table sockets it
sent to the process hosting the table. The default, ``--proxy none``, connects each
socket straight to its Daphne.
Every server process gets its whole configuration from the environment the bench
sets (``bench/server.py``'s ``server_env``: ``DEBUG=false``, a random ``SECRET_KEY``,
``SECURE_SSL_REDIRECT=false``, ``ALLOWED_HOSTS``), so it runs the same whatever the
settings' defaults are; the per-address socket limits keep their defaults.

It opens N tables of 4 players and 1 spectator, each a real WebSocket over loopback
(in scale-out, on the Daphne hosting the table, or alternating: above), at most 16
handshakes at a time and each retried up to 5 times. Each table is one household: its
sockets and its HTTP requests come from a source address of its own,
``127.0.<1 + t // 250>.<1 + t % 250>`` (the whole of 127.0.0.0/8 is loopback), so the
server's per-address limits see five sockets an address, as they would from people.
Once every socket is open it starts every game through the site's own start button
(8 hosts pressing at once), and once every game runs it lets a bot play each seat at
human pace for S seconds: the play window. A table's players press keys from the
moment its game runs (``--press-from table``, the default), or, with ``--press-from
window``, from the moment every game runs and the window opens: at hundreds of tables
the tables already playing load the server so that the last starts take minutes (200
took 8), and the first games grow old meanwhile. Games last M minutes (default 15); with
``--cycle`` a table whose game ends (the results arrive) plays again: every player
marks ready and the host presses start, over HTTP.

The bots are the TetriWar computer player (``games/tetriwar/ai.py``, level L, default
medium) on the client side: each player keeps a mirror of its own board (20 visible
rows, falling piece, preview, bomb store, swapped controls) from the HTML fragments the
server pushes for its seat, rebuilds an engine position from it with ``Game.setup`` and
asks ``TetriWarAI.decide`` for the keys that place the piece. Keys are sent open loop,
as people press them: on a schedule of R keys a second per player (exponential gaps,
default 5) that never waits for the server's answer to the previous key, so a slow
server gets the same load as a fast one. When a key is due the bot sends the next key
of its plan; it plans again whenever the piece or field it sees is not one its plan
passes through (gravity, bombs, a new piece, or keys of its own still in flight), and
when the plan is used up but its last key (the drop) does not show yet it sends a
harmless left or right. ← and → go out as the page sends them (static/js/tetriwar.js):
a key-down (``hold_left``, the measured intent) and at once its key-up
(``release_left``), the server doing any auto-repeat; so every measured intent is a
key-down, and ``keydown_to_own_fragment_p50_ms``/``_p99_ms`` are the percentiles of
them all (the same figures as ``p50_ms``/``p99_ms``, under the name of the key
protocol). Now and then it presses Enter while its bomb store is not
empty. Between games (no piece to move) nothing is sent (``intents_skipped``).
That is ``--client ai``, the default. ``--client scripted`` is the lean load generator
(``Script``), for table counts where the bots' planning would fill the client's core:
the same schedule (R keys a second, exponential gaps, the same seeds) and the same
frames (← and → tapped, rotate, hard drop, Enter now and then while the store holds a
bomb), each piece a seeded pattern of 0-3 turns, up to 3 columns and a drop, with no
board mirror and no AI: a player reads only the acknowledgements, whether its game runs
(``data-remaining-ms``, the results), its bomb store and its Lines. ``--client node`` is
that lean client in Node (``bench/node/lean_client.mjs`` on the npm package ``ws``, which
``make install-dev`` installs), for the hundreds of tables whose frames fill a Python
client's core: every socket in one Node process pinned on the client CPUs, the same
frames on the same schedule (its Mersenne Twister seeded as ``random.Random`` is: a seed
presses the same keys) and the same measures, while this process still prepares the
tables, presses their start buttons and restarts them (``--cycle``) over HTTP
(``NodeRoom``). Its loop lag is Node's event-loop delay (``monitorEventLoopDelay`` on a
5 ms timer, less the 5 ms), ``client_cpu_s`` the Node process's CPU over the window and
``client_parent_cpu_s`` this process's beside it.

``--languages en,de,zh-hans`` (default ``en``, the site's language alone) spreads the
sockets over those languages, in turn (socket 5t + s of table t reads language
(5t + s) mod the count): each socket's WebSocket handshake carries the language menu's
cookie, so the server renders every change once per language present at the table.
The bots read their boards by markup, not words, in any language.

Prints ``name: value`` lines; ``lines_cleared_total`` adds up every player's final
Lines count (from its ``score-{seat}`` fragment), over every game. Latency is measured
from an intent sent to the sender's own fragment received: every intent carries a
sequence number and the host acknowledges each seat's latest key applied in the version
comment of the table's next frame (``<!--v12 a3:41 a1:7-->``; one frame a tick,
``LIVE_TICK_MS``, ``--tick-ms``): an ack of 41 answers every key of seat 3 up to 41,
each timed from its own send. ``own_ack_p50_ms``/``own_ack_p99_ms`` (the same as
``p50_ms``/``p99_ms``) are the sender's own socket's; ``opponent_p50_ms``/
``opponent_p99_ms`` the table's three other players' sockets', each of them timing each
key; ``spectator_p50_ms``/``spectator_p99_ms`` the spectator's (the last of the table's
sockets to see a key). All of them include up to one tick. ``frames_per_socket_s`` is the
frames every socket read a second and ``bytes_per_table_minute`` their bytes, per table.
Only intents sent inside the play window count. An intent not
acknowledged within 1 s is a timeout (``timeouts``, ``opponent_timeouts``,
``spectator_timeouts``) and is left out of the percentiles. A key that changes nothing
(into a wall, a refused bomb) has no frame of its own: the host handles a socket's
intents in order, so a key answered only by a later key's ack more than 1 s after it was
sent was passed over (``intents_without_effect``) when that later key was answered
within 1 s of being sent (``Keys``), and a timeout otherwise (the players go on pressing keys, unmeasured, for 1 s after the
window so that its last intents are decided, and a player whose measured keys are
still undecided then, for up to 3 s more, until an answered key decides them; the
answers to those count the same way; ``timeouts_at_stop`` counts the timeouts still
without any answer when their player stopped: late answers, lost keys, or keys that
changed nothing followed by no answered key in those seconds). The client takes the time as the frame comes out of its
socket, and freezes its own heap when the window opens, so that its garbage
collector's pauses are not counted as the server's; ``client_loop_lag_p99_ms`` says
how late its own event loop wakes a 5 ms sleep (bots planning, frames parsed): the
part of a latency that is the client's own queueing (``client_loop_lag_p99_ms_by_5s``:
over each 5 s of the window, beside ``p99_ms_by_5s``); ``client_cpu_s`` is the bench's
own CPU over the window, and ``client_limited`` (the line before ``disturbed``) says
``yes`` when the client, not the server, makes the figure: its loop lag p99 above half
of ``p99_ms``, or more than 0.8 of a core of client CPU over the window. ``bytes_per_update_median`` is
the size of the broadcasts one spectator receives. Server cost is measured over the
play window (from every table's game running to the end of play), summed over every
server process (Daphnes and workers) from ``/proc``: ``server_cpu_s_per_table_minute``
is user+system CPU seconds per table per minute of play, ``server_rss_mb_per_table``
the resident memory at the end of the window above a baseline taken once the servers
were up (and had answered one page each) and before any client connected, per table;
``server_rss_mb_growth_per_minute`` is the least-squares slope of the resident memory,
sampled every 10 s, over the second half of the window (with ``--cycle`` and a long
window: does anything leak as games end and start?).

The servers and the load generator run on CPUs of their own (``bench/machine.py``):
every server process the bench starts (Daphnes, workers) on ``--server-cpus``, the
bench's own process (the bots, their sockets) on ``--client-cpus``; by default the
first half of the machine's CPUs and the rest, on a 2-core machine CPU 0 and CPU 1
(``server_cpus``, ``client_cpus``; on one CPU both share it and the line says so).
In scale-out the machine's PostgreSQL and Redis, which the bench does not start, are
not pinned (``services_pinned: no``); their work for the bench (the Redis server, the
scratch database's backends) is ``services_cpu_s``. Over the play window the bench
reads every process on the machine from ``/proc``: ``others_cpu_s`` is the CPU of every
process not the bench's own (not it, its servers, or those services; kernel threads
apart, ``kernel_cpu_s``), ``others_top`` the busiest of them, ``load_avg_1m`` the load
at the window's end, and ``steal_s`` the CPU time the hypervisor took (``/proc/stat``).

After the servers stop, ``bench/floor.py`` runs at the same table count, rate, seconds
and CPU split (``--no-floor`` skips it), and with the site's own traffic as the
window showed it (``floor_traffic``): as many broadcasts a second a table that no
numbered key caused (``broadcasts_per_table_s`` less ``numbered_keys_per_table_s``:
gravity, the clocks; ``floor_ticks_per_table_s``) and updates of the site's median
size (``floor_bytes``): it sends what the site sent. ``floor_p99_ms`` (Daphne with no
site behind it, on the machine as it is at that moment) is then read next to the live p99s, with
``floor_others_cpu_s`` and ``floor_steal_s`` from its own window.
The last lines are ``tables``, ``p50_ms``, ``p99_ms``, ``spectator_p50_ms``,
``spectator_p99_ms``, ``timeouts``, ``floor_p99_ms``, ``bytes_per_update_median``,
``server_cpu_s_per_table_minute`` and ``server_rss_mb_per_table``, then
``client_limited`` and, last, ``disturbed``: ``yes`` when other processes and the hypervisor
took more than a tenth of a core over the play window (or over the floor's), and the
figures are not the server's alone.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import argparse  # noqa: E402
import asyncio  # noqa: E402
import collections  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402
from functools import lru_cache  # noqa: E402

from bench import machine, proxy, report  # noqa: E402
from bench.client import (  # noqa: E402
    connect,
    fetch,
    received_at,
    restart_table,
    source_address,
    stamped_connection,
    start_table,
)
from bench.report import figure, percentile  # noqa: E402
from bench.server import (  # noqa: E402
    REDIS,
    TETRIWAR_OPTIONS,
    ScratchDatabase,
    Servers,
    cpu_of,
    cpu_seconds,
    die_with_parent,
    django_setup,
    flush_redis,
    free_port,
    login,
    rss_mb,
    scale_out_sampler,
    server_env,
    stop_on_sigterm,
    wait_for_heartbeats,
    warm_up,
)
from games.tetriwar.ai import TetriWarAI, step  # noqa: E402
from games.tetriwar.constants import HIDDEN_ROWS  # noqa: E402
from games.tetriwar.engine import Game, Options, field  # noqa: E402

HEAD = re.compile(r"^<!--v(\d+)((?: a\d+:\d+)*)-->")
UNSHOWN = re.compile(r"^<!--a(\d+):(\d+)-->$")  # keys taken that changed nothing: the sender's alone
ACK = re.compile(r" a(\d+):(\d+)")
ERROR_CODE = re.compile(r'data-code="([A-Z_]*)"')
OPTIONS = dict(TETRIWAR_OPTIONS)  # the tables' options (--minutes)
SEATS = (1, 2, 3, 4)
ENTER_CHANCE = 0.1  # per key, while the bomb store is not empty: press Enter instead
ACK_TIMEOUT = 1.0  # seconds: an intent not acknowledged by then is a timeout
DECIDE_SECONDS = 3.0  # after the window and its second of answers, a player whose measured
#                       keys are still undecided goes on pressing keys this long at most
HARMLESS = ("left", "right")  # sent while the plan's last key (the drop) is in flight
# The page's key protocol (static/js/tetriwar.js): ← and → go down and come up, and the
# server repeats a held key itself. A bot taps them: key-down (measured), then key-up.
TAPPED = {"left": "left", "right": "right"}
SWAP = {"left": "right", "right": "left"}
INF = float("inf")
REVERSED = 10**9  # ``Player.control_until`` while ← and → are swapped (any ms ahead: a whole one)

# The markup of games/tetriwar/render.py, for one seat (a bot reads only its own).
CELL = re.compile(r"<i([^>]*)></i>")
RESULTS = 'id="results-title"'  # in the fragment of a game's end (results or aborted)
RESULTS_TITLE = re.compile(r'<h2 id="results-title">([^<]*)</h2>')


def _seat_patterns(seat: int) -> dict[str, re.Pattern]:
    return {
        "row": re.compile(rf'<div id="board-{seat}-row-(\d+)" class="fr"[^>]*>(.*?)</div>'),
        "piece": re.compile(
            rf'<div id="piece-{seat}" class="pc (?:none"|([IOJLSZT]) r(\d)" style="--x:(-?\d+);--y:(-?\d+)")'
        ),
        # The words around them are in the socket's language (--languages): the preview's
        # pieces end its label, a store holds bombs if its first child is one, and Lines is
        # the third number of a score.
        "next": re.compile(rf'<div id="next-{seat}" class="next" aria-label="[^"]*?((?:[IOJLSZT] ?)*)"'),
        "store": re.compile(rf'<div id="bombs-{seat}" class="store" aria-label="[^"]*"(?: hx-swap-oob="true")?>(<span)?'),
        "control": re.compile(rf'<div id="control-{seat}" class="flag( on)?"'),
        "score": re.compile(rf'<dl id="score-{seat}" class="stats".*?<dd>\d+</dd>.*?<dd>\d+</dd>.*?<dd>(\d+)</dd>'),
    }


PATTERNS = {seat: _seat_patterns(seat) for seat in SEATS}


@lru_cache(maxsize=8192)
def row_text(cells: str) -> str:
    """A field row's ten cells as engine text: ``.`` empty, ``X`` any block or bomb."""
    return "".join("X" if attrs else "." for attrs in CELL.findall(cells))


def ai_keys(ai: TetriWarAI, game: Game, seat: int, rows: list[str], piece: tuple[str, int, int, int],
            next_pieces: list[str], piece_no: int, reversed_keys: bool = False) -> list[str] | None:
    """The keys the AI presses to place ``piece`` (kind, rotation, x, visible y) on the
    board as a page shows it (the 20 visible ``rows``, the preview, whether ← and → are
    swapped), on the engine skeleton ``game`` rearranged for it (``Game.setup``); None
    when the piece overlaps the field as seen (an update is on its way). ``piece_no``
    tells a new piece: the AI keeps its choice while it is unchanged."""
    player = game.players[seat]
    player.bag.queue.clear()
    player.bag.dealt = piece_no
    player.control_until = REVERSED if reversed_keys else INF
    try:
        game.setup(seat, field=field(*rows), piece=piece, next=next_pieces)
    except ValueError:
        return None
    return [intent.name for intent in ai.decide(game, seat, game.now)]


class Bot:
    """One player's view of its own board, from the fragments, and the AI that plays it."""

    def __init__(self, seat: int, level: str, rng: random.Random) -> None:
        self.seat = seat
        self.rx = PATTERNS[seat]
        self.rng = rng
        self.ai = TetriWarAI(level, rng)
        # one engine skeleton per bot, rearranged by ``Game.setup`` for every plan
        self.game = Game(Options.from_dict(OPTIONS), 0, SEATS, 0)
        self.rows = ["." * 10] * 20  # the visible rows, top first
        self.field_version = 0
        self.piece: tuple[str, int, int, int] | None = None  # kind, rotation, x, visible y
        self.piece_no = 0  # pieces seen: one more whenever the preview changes
        self.next: list[str] = []
        self.store = False
        self.reversed = False
        self.lines = 0
        self.lines_banked = 0  # the Lines of this seat's finished games (--cycle)
        self.playing = False  # between the game's start and its results
        self.plan: list[str] = []  # key names for the current piece
        self.expected: list[tuple] = []  # the piece before each key of the plan
        self.plan_for: tuple[int, int] = (-1, -1)  # (piece_no, field_version) it was made on
        self.step = 0
        self.plans = 0
        self.harmless = 0  # keys sent while the plan's drop was in flight

    def read(self, message: str) -> None:
        """Update the mirror from one broadcast (only this seat's fragments)."""
        rx = self.rx
        changed = False
        rows = self.rows
        for index, cells in rx["row"].findall(message):
            text = row_text(cells)
            r = int(index)
            if rows[r] != text:
                rows[r] = text
                changed = True
        if changed:
            self.field_version += 1
        m = rx["piece"].search(message)
        if m is not None:
            kind = m.group(1)
            self.piece = None if kind is None else (kind, int(m.group(2)), int(m.group(3)), int(m.group(4)))
        m = rx["next"].search(message)
        if m is not None:
            self.next = m.group(1).split()
            self.piece_no += 1
        m = rx["store"].search(message)
        if m is not None:
            self.store = m.group(1) is not None
        m = rx["control"].search(message)
        if m is not None:
            self.reversed = m.group(1) is not None
        m = rx["score"].search(message)
        if m is not None:
            self.lines = int(m.group(1))
        if RESULTS in message:  # the game is over: keep its lines, wait for the next
            self.lines_banked += self.lines
            self.lines = 0
            self.piece = None
            self.playing = False
        elif "data-remaining-ms" in message:
            self.playing = True

    def key(self) -> dict | None:
        """The next frame to send, or None when there is nothing to press.

        Keys go out open loop, so the piece seen may lag the keys sent: the plan holds
        while the piece is one the plan passes through up to the next key."""
        if self.piece is None or not self.playing:
            return None
        if self.store and self.rng.random() < ENTER_CHANCE:
            return {"intent": "bomb"}
        step = self.step
        current = self.plan_for == (self.piece_no, self.field_version)
        if current and step >= len(self.plan) and self.plan and self.piece in self.expected:
            # the drop is on its way and the new piece not shown yet: a key that harms
            # nothing (the next plan starts from wherever it leaves the new piece)
            self.harmless += 1
            return {"intent": self.rng.choice(HARMLESS)}
        if not current or step >= len(self.plan) or self.piece not in self.expected[: step + 1]:
            self.replan()
            step = 0
            if not self.plan:
                return None
        self.step = step + 1
        return {"intent": self.plan[step]}

    def replan(self) -> None:
        """Ask the AI for every key that places the piece from where it is now."""
        self.plans += 1
        self.plan, self.expected, self.step = [], [], 0
        self.plan_for = (self.piece_no, self.field_version)
        kind, rotation, x, y = self.piece
        keys = ai_keys(self.ai, self.game, self.seat, self.rows, self.piece, self.next, self.piece_no,
                       self.reversed)
        if keys is None:  # the piece overlaps the field as seen: wait for the next update
            return
        masks = self.game.players[self.seat].field.masks
        state = (rotation, x, y + HIDDEN_ROWS)
        expected = [self.piece]
        for name in keys[:-1]:  # the piece before each key, as the engine moves it
            state = step(masks, kind, state, SWAP.get(name, name) if self.reversed else name)
            if state is None:
                break
            expected.append((kind, state[0], state[1], state[2] - HIDDEN_ROWS))
        self.plan, self.expected = keys, expected


class Script:
    """The lean client's player (``--client scripted``): the same frames as ``Bot`` on
    the same open-loop schedule, but no board mirror and no AI, so that the load
    generator's own work cannot make the figure at hundreds of tables. Each piece gets
    a seeded pattern (0-3 turns, up to 3 columns left or right, a hard drop), which
    keeps pieces moving and dropping across the width as the AI's do; a block out
    empties the field and the game goes on (RULES.md), as for the AI. It reads only
    what it must: whether the game runs (``data-remaining-ms``, the results), whether
    its bomb store holds one (for the occasional Enter) and its Lines."""

    harmless = 0  # the AI's keys sent while its drop was in flight: none here
    plans = 0

    def __init__(self, seat: int, rng: random.Random) -> None:
        self.seat = seat
        self.rng = rng
        self.rx = PATTERNS[seat]
        self.store_id = f'id="bombs-{seat}"'
        self.score_id = f'id="score-{seat}"'
        self.plan: list[str] = []
        self.store = False
        self.lines = 0
        self.lines_banked = 0
        self.playing = False

    def read(self, message: str) -> None:
        # a substring test first: most broadcasts carry neither fragment of this seat
        if self.store_id in message:
            m = self.rx["store"].search(message)
            if m is not None:
                self.store = m.group(1) is not None
        if self.score_id in message:
            m = self.rx["score"].search(message)
            if m is not None:
                self.lines = int(m.group(1))
        if RESULTS in message:
            self.lines_banked += self.lines
            self.lines = 0
            self.playing = False
            self.plan = []
        elif not self.playing and "data-remaining-ms" in message:  # a running game's page
            self.playing = True

    def key(self) -> dict | None:
        if not self.playing:
            return None
        if self.store and self.rng.random() < ENTER_CHANCE:
            return {"intent": "bomb"}
        if not self.plan:
            shift = self.rng.randint(-3, 3)
            self.plan = ["hard_drop", *(["left" if shift < 0 else "right"] * abs(shift)),
                         *(["rotate"] * self.rng.randrange(4))]  # popped from the end: turns first
        return {"intent": self.plan.pop()}


def key_frames(key: dict, seq: int) -> tuple[str, str | None]:
    """The frames a page sends for ``key`` (static/js/tetriwar.js), numbered ``seq``: ←
    and → as a key-down (the measured intent, with the number) and at once its key-up
    (unnumbered), every other key as one frame. bench/floor.py sends the same."""
    frame = dict(key, seq=seq)
    if frame["intent"] in TAPPED:
        direction = TAPPED[frame["intent"]]
        frame["intent"] = f"hold_{direction}"
        return json.dumps(frame), json.dumps({"intent": f"release_{direction}"})
    return json.dumps(frame), None


def journal_batches() -> int:
    """Batches of running games' inputs written so far (games/journal.py): one database
    write each, all of a flush in one transaction."""
    from django.db import connection

    from games.models import JournalBatch

    try:
        return JournalBatch.objects.count()
    finally:
        connection.close()  # a thread of the bench's own: no connection left open


JOURNAL_CPU = re.compile(r"^tetriwar_journal_cpu_seconds_total (\S+)$", re.M)


def journal_cpu_s(ports: list[int]) -> float:
    """The CPU seconds the servers' journals have spent so far (packing batches on the
    loop, writing them on their thread: games/journal.py), from their /metrics."""
    total = 0.0
    for port in ports:
        try:
            found = JOURNAL_CPU.search(fetch(f"http://127.0.0.1:{port}/metrics", timeout=5).decode())
        except OSError:
            return math.nan
        total += float(found.group(1)) if found else 0.0
    return total


def prepare(tables: int, env: dict[str, str], languages: tuple[str, ...] = ()) -> list[dict]:
    """Users, sessions and ready tables, written before the servers start."""
    django_setup(env)
    return make_tables(tables, languages)


def make_tables(tables: int, languages: tuple[str, ...] = ()) -> list[dict]:
    """N TetriWar tables of four seated, ready players, and a fifth user to watch each;
    their sockets' cookies (``ws_cookies``) name ``languages`` in turn (none: the
    site's language, no cookie)."""
    from django.conf import settings

    from lobby import services

    setups = []
    for t in range(tables):
        cookies = []
        ws_cookies = []
        refs = []
        for s in range(5):  # 4 players and a spectator
            _user, ref, cookie = login(f"bench{t}_{s}")
            cookies.append(cookie)
            language = languages[(5 * t + s) % len(languages)] if languages else settings.LANGUAGE_CODE
            if language not in dict(settings.LANGUAGES):
                raise SystemExit(f"--languages: the site does not speak {language!r}")
            ws_cookies.append(
                cookie if language == settings.LANGUAGE_CODE else f"{cookie}; {settings.LANGUAGE_COOKIE_NAME}={language}"
            )
            refs.append(ref)
        table = services.table_create(player=refs[0], game="tetriwar", options=OPTIONS, seats_total=4)
        for seat in (2, 3, 4):
            services.seat_take(table_id=table.pk, player=refs[seat - 1], number=seat)
        for seat in (1, 2, 3, 4):
            services.seat_ready(table_id=table.pk, player=refs[seat - 1], ready=True)
        setups.append({"table": table.pk, "cookies": cookies, "ws_cookies": ws_cookies, "address": source_address(t)})
    return setups


# --- the clients ----------------------------------------------------------------------

class Samples:
    """Latencies (ms), each with the time its intent was sent, so that a part of a
    run (bench/abuse.py's attacks) can be told from the rest."""

    def __init__(self) -> None:
        self.ms: list[float] = []
        self.sent: list[float] = []

    def add(self, sent_at: float, ms: float) -> None:
        self.ms.append(ms)
        self.sent.append(sent_at)

    def __len__(self) -> int:
        return len(self.ms)

    def between(self, start: float, end: float) -> list[float]:
        """The latencies of the intents sent in [start, end)."""
        return [ms for ms, sent in zip(self.ms, self.sent, strict=True) if start <= sent < end]


class Stats:
    def __init__(self) -> None:
        self.latencies = Samples()  # intent -> the sender's own fragment
        self.spectator_latencies = Samples()  # intent -> the table's spectator has it
        self.opponent_latencies = Samples()  # intent -> each other player of the table has it
        self.opponent_timeouts: list[float] = []  # … not at an opponent within 1 s
        self.window_frames = 0  # frames every socket (players, spectators) read in the window
        self.window_bytes = 0  # … and their bytes
        self.timeouts: list[float] = []  # send times of intents not acknowledged within 1 s
        self.timeouts_at_stop = 0  # of them, still without an answer when their player stopped
        self.spectator_timeouts: list[float] = []  # … not at the spectator within 1 s
        self.without_effect = 0  # passed over by the host: nothing to show, no ack
        self.skipped = 0  # due while there was no piece to move (between games)
        self.dropped: list[str] = []  # sockets the server closed during the run
        self.dropped_at: list[float] = []  # … and when
        self.loop_lags: list[float] = []
        self.loop_lag_at: list[float] = []  # when each of them was asked
        # --client node: the Node client's own loop delay (its histogram's p50 and p99, and
        # the p99 of each 5 s of the window), in place of the probes above
        self.loop_lag_reported: dict[float, float] | None = None
        self.loop_lag_p99_reported_by_5s: list[float] | None = None
        self.parent_cpu_s: float | None = None  # --client node: this process's CPU beside it
        self.update_bytes: list[int] = []
        self.window_broadcasts = 0  # broadcasts (a version head) that spectators read in the window
        self.sent = 0
        self.errors: collections.Counter[str] = collections.Counter()  # by the error's code
        self.bots: list[Bot] = []
        self.games_started = 0
        self.games_finished = 0
        self.games_aborted = 0
        self.start_errors: list[str] = []
        self.window_s = 0.0
        self.cpu_s = 0.0
        self.cpu_by_process: list[float] = []
        self.proxy_cpu_s = 0.0  # nginx's, with --proxy nginx
        self.client_cpu_s = 0.0
        self.journal_batches = 0  # batches of inputs written by the server over the window
        self.journal_cpu_s = 0.0  # the CPU its journal spent meanwhile (its own account)
        self.rss_end_mb = 0.0
        self.machine: machine.Reading | None = None  # every process's CPU over the play window
        self.tables_running_at_window = 0
        self.connected = 0
        self.greeted = 0  # sockets that had the server's first frame: their seat is known
        self.rss_samples: list[tuple[float, float]] = []
        self.connect_retries = 0
        self.connect_s = 0.0
        self.start_s = 0.0
        self.window_start = 0.0

    def stretches(self, seconds: float) -> list[tuple[float, float]]:
        """The window cut in ``seconds`` from its start, [start, end) each (a last
        stretch shorter than half a second left out)."""
        out = []
        start = self.window_start
        while start < self.window_start + self.window_s - 0.5:
            out.append((start, start + seconds))
            start += seconds
        return out

    def p99_by(self, seconds: float) -> list[float]:
        """The own fragment's p99 over each ``seconds`` of the window, by the intents
        sent in it (a timeout counted as 1000 ms): when the slowest intents were sent."""
        return [percentile(self.latencies.between(start, end) + [1000.0] * self.timeouts_between(start, end), 0.99)
                for start, end in self.stretches(seconds)]

    def loop_lag(self, q: float) -> float:
        """The ``q`` quantile of the client's own loop lag over the window (ms)."""
        if self.loop_lag_reported is not None:
            return self.loop_lag_reported.get(q, math.nan)
        return percentile(self.loop_lags, q)

    def loop_lag_p99_by(self, seconds: float) -> list[float]:
        """The client's own loop lag p99 over each ``seconds`` of the window, beside
        ``p99_by``: a slow stretch of the client shows in the same stretch here."""
        if self.loop_lag_p99_reported_by_5s is not None and seconds == NODE_LAG_STRETCH_S:
            return self.loop_lag_p99_reported_by_5s
        lags = list(zip(self.loop_lag_at, self.loop_lags, strict=True))
        return [percentile([lag for at, lag in lags if start <= at < end], 0.99)
                for start, end in self.stretches(seconds)]

    def timeouts_between(self, start: float, end: float) -> int:
        return sum(start <= sent < end for sent in self.timeouts)


class Window:
    """The play window: intents sent inside [start, until) are measured. Both are
    infinite until every game runs; then S seconds, or open-ended until ``close``
    (bench/abuse.py). Players go on pressing keys, unmeasured, for ACK_TIMEOUT after
    it, so that the fate of its last intents is known."""

    def __init__(self) -> None:
        self.start = INF
        self.until = INF

    def open(self, seconds: float = INF) -> None:
        self.start = time.perf_counter()
        self.until = self.start + seconds

    def close(self) -> None:
        self.until = time.perf_counter()

    def measures(self, sent_at: float) -> bool:
        return self.start <= sent_at < self.until

    @property
    def play_until(self) -> float:
        """Until when the players press keys and the sockets are read."""
        return self.until + ACK_TIMEOUT


RSS_EVERY = 10.0  # seconds between samples of the servers' resident memory


def growth_per_minute(samples: list[tuple[float, float]]) -> float | None:
    """Least-squares slope (MB a minute) of the samples of the second half of the
    window, once the first games have filled what fills once (imports, caches)."""
    if not samples:
        return None
    half = samples[-1][0] / 2
    tail = [(t, mb) for t, mb in samples if t >= half]
    if len(tail) < 3:
        return None
    mean_t = sum(t for t, _ in tail) / len(tail)
    mean_mb = sum(mb for _, mb in tail) / len(tail)
    slope = sum((t - mean_t) * (mb - mean_mb) for t, mb in tail) / sum((t - mean_t) ** 2 for t, _ in tail)
    return slope * 60


CONNECTING = 16  # WebSocket handshakes in flight at once: a burst of hundreds is refused
CONNECT_TRIES = 5


async def open_socket(ws_url: str, cookie: str, origin: str, gate: asyncio.Semaphore, stats: Stats,
                      address: str | None = None):
    """Connect as a browser would, from ``address``, a few at a time, retrying a
    refused handshake."""
    import websockets

    for attempt in range(1, CONNECT_TRIES + 1):
        try:
            async with gate:
                ws = await connect(ws_url, address=address, cookie=cookie, origin=origin, open_timeout=20,
                                   create_connection=stamped_connection())
            stats.connected += 1
            return ws
        except (OSError, TimeoutError, websockets.exceptions.WebSocketException):
            stats.connect_retries += 1
            if attempt == CONNECT_TRIES:
                raise
            await asyncio.sleep(0.5 * attempt)


class Track:
    """One table's measured intents in flight, by seat then seq (in the order sent):
    ``[sent_at, the sender has its ack]``, for the spectator (``sent``) and each other
    player (``seen_by``, by the watching seat) to time the same ack."""

    def __init__(self) -> None:
        self.sent: dict[int, dict[int, list]] = {seat: {} for seat in SEATS}
        self.seen_by: dict[int, dict[int, dict[int, list]]] = {
            watcher: {seat: {} for seat in SEATS if seat != watcher} for watcher in SEATS
        }

    def add(self, seat: int, seq: int, entry: list) -> None:
        self.sent[seat][seq] = entry
        for watcher, by_seat in self.seen_by.items():
            if watcher != seat:
                by_seat[seat][seq] = entry

    def missing_at_spectator(self) -> list[float]:
        """Intents the sender saw acknowledged and the spectator never did."""
        return [entry[0] for by_seq in self.sent.values() for entry in by_seq.values() if entry[1]]

    def missing_at_opponents(self) -> list[float]:
        """Intents the sender saw acknowledged and another player never did (once each)."""
        return [entry[0] for by_seat in self.seen_by.values() for by_seq in by_seat.values()
                for entry in by_seq.values() if entry[1]]


def answered_up_to(by_seq: dict[int, list], seq: int, received: float, samples: Samples,
                   timeouts: list[float], *, prompt: bool | None = None, mark: bool = False) -> int:
    """A socket read the ack of ``seq`` at ``received``: that key, and every earlier one of
    ``by_seq`` (``[sent_at, answered]`` by seq, in the order sent) still unanswered here,
    are answered (the host acknowledges each seat's latest key applied once per tick: an
    earlier key was applied by then, or passed over). Each is measured when answered
    within ACK_TIMEOUT. One that waited longer is a timeout, unless it was passed over and
    the server was not stalled: ``prompt``, whether key ``seq`` itself was answered in
    time (None: from its entry here), since an earlier key may have been sent more than a
    second before it (the gaps are exponential). ``mark``: the sender's own answers, which
    the table's other sockets should see too. Returns how many keys were passed over."""
    if prompt is None:
        entry = by_seq.get(seq)
        prompt = entry is not None and received - entry[0] <= ACK_TIMEOUT
    passed = 0
    while by_seq:
        number = next(iter(by_seq))
        if number > seq:
            break
        entry = by_seq.pop(number)
        if mark:
            entry[1] = True
        if received - entry[0] <= ACK_TIMEOUT:
            samples.add(entry[0], (received - entry[0]) * 1000)
        elif number != seq and prompt:
            passed += 1
        else:
            timeouts.append(entry[0])
    return passed


class Keys:
    """One player's measured keys and their answers, in the order sent."""

    def __init__(self, stats: Stats, track: Track, seat: int) -> None:
        self.stats = stats
        self.track, self.seat = track, seat  # the table's record of them, for its spectator and opponents
        self.pending: dict[int, list] = {}  # measured keys without their ack: [sent_at, answered]
        self.after: dict[int, float] = {}  # send times of keys pressed after the window

    def sent(self, seq: int, at: float, window: Window) -> None:
        if window.measures(at):
            entry = [at, False]
            self.pending[seq] = entry
            self.track.add(self.seat, seq, entry)
            self.stats.sent += 1
        elif at >= window.until:
            self.after[seq] = at

    def answered(self, seq: int, received: float) -> None:
        """The host acknowledged ``seq``: the seat's latest key applied, in the frame of
        its tick. It takes a socket's intents in order, so every key up to this one was
        handled by then: applied (its ack went with a later key of the same tick) or
        passed over (it changed nothing: a key into a wall is never acknowledged). All of
        them are answered now (``answered_up_to``)."""
        own = self.pending[seq][0] if seq in self.pending else self.after.get(seq)
        for number in [n for n in self.after if n <= seq]:
            del self.after[number]
        # whether this key was answered in time, measured or not (one pressed after the
        # window only decides the fate of the measured keys before it)
        prompt = own is not None and received - own <= ACK_TIMEOUT
        self.stats.without_effect += answered_up_to(
            self.pending, seq, received, self.stats.latencies, self.stats.timeouts, prompt=prompt, mark=True
        )

    def unshown(self, seq: int, received: float) -> None:
        """The host took every key up to ``seq`` and none of them since the last answer
        changed anything (``<!--a3:41-->``, to this socket alone): they are answered, and
        the table's other sockets will never see them."""
        taken = [n for n in self.pending if n <= seq]
        self.answered(seq, received)
        for by_seat in [self.track.sent, *self.track.seen_by.values()]:
            by_seq = by_seat.get(self.seat)
            if by_seq is not None:
                for number in taken:
                    by_seq.pop(number, None)

    def unanswered(self) -> None:
        """The player stopped: its measured keys still without an answer are timeouts."""
        self.stats.timeouts.extend(entry[0] for entry in self.pending.values())
        self.stats.timeouts_at_stop += len(self.pending)
        self.pending.clear()


def presses_at(due: float, window: Window, undecided: bool) -> bool:
    """Whether a player presses a key due at ``due``: up to the window's end and its
    second of answers; after it, while a measured key of theirs is still undecided
    (passed over, or lost: only a later answered key tells), DECIDE_SECONDS more at most."""
    return due < window.play_until or (undecided and due < window.play_until + DECIDE_SECONDS)


async def player(ws_url, cookie, origin, bot: Bot, rate, window: Window, stats: Stats, rng: random.Random,
                 started: asyncio.Event, gate: asyncio.Semaphore, address: str | None = None,
                 track: Track | None = None, go: asyncio.Event | None = None):
    """One player: its socket read from the start, its keys pressed once ``go`` is set
    (by default ``started``: its table's game runs)."""
    import websockets

    seat = bot.seat
    track = track or Track()
    keys = Keys(stats, track, seat)
    others = track.seen_by[seat]  # the other players' keys, as this socket sees them answered
    async with await open_socket(ws_url, cookie, origin, gate, stats, address) as ws:

        async def read():
            nonlocal greeted
            try:
                async for message in ws:
                    received = received_at(ws)
                    if not greeted:
                        greeted = True
                        stats.greeted += 1
                    if window.measures(received):
                        stats.window_frames += 1
                        stats.window_bytes += len(message)
                    head = HEAD.match(message)
                    if head is None:
                        unshown = UNSHOWN.match(message)
                        if unshown is not None and int(unshown.group(1)) == seat:
                            keys.unshown(int(unshown.group(2)), received)
                        elif "ws-error" in message:
                            code = ERROR_CODE.search(message)
                            stats.errors[code.group(1) if code else "?"] += 1
                        continue
                    bot.read(message)
                    if bot.playing:
                        started.set()
                    for acked_seat, acked_seq in ACK.findall(head.group(2)):
                        if int(acked_seat) == seat:
                            keys.answered(int(acked_seq), received)
                        elif int(acked_seat) in others:
                            answered_up_to(others[int(acked_seat)], int(acked_seq), received,
                                           stats.opponent_latencies, stats.opponent_timeouts)
            except websockets.exceptions.ConnectionClosed:
                pass  # the sender finds out when it next sends

        seq, greeted = 0, False
        reader = asyncio.create_task(read())
        try:
            await (go or started).wait()
            due = time.perf_counter()
            last = 0.0
            while True:  # open loop: keys are due on their schedule, answered or not
                due += rng.expovariate(rate)
                if not presses_at(due, window, bool(keys.pending)):
                    break
                delay = due - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                if not presses_at(time.perf_counter(), window, bool(keys.pending)):  # the window may close early
                    break
                frame = bot.key()  # None too between a game's results and the next game
                if frame is None:
                    stats.skipped += 1
                    continue
                seq += 1
                frame, key_up = key_frames(frame, seq)
                last = time.perf_counter()
                keys.sent(seq, last, window)
                await ws.send(frame)
                if key_up is not None:
                    await ws.send(key_up)
            until = max(window.play_until, last + ACK_TIMEOUT) if keys.pending else window.play_until
            await asyncio.sleep(max(0.0, until + 0.1 - time.perf_counter()))
        except websockets.exceptions.ConnectionClosed as closed:
            stats.dropped.append(f"seat {seat}: {closed}")
            stats.dropped_at.append(time.perf_counter())
        finally:
            reader.cancel()
            keys.unanswered()


async def spectator(ws_url, cookie, origin, window: Window, stats: Stats, gate: asyncio.Semaphore, on_results=None,
                    address: str | None = None, track: Track | None = None):
    import websockets

    sent = track.sent if track is not None else {}

    def read(message: str, received: float) -> None:
        if window.measures(received):
            stats.window_frames += 1
            stats.window_bytes += len(message)
        head = HEAD.match(message)
        if head is None:
            return
        if window.measures(received):
            stats.window_broadcasts += 1
        for acked_seat, acked_seq in ACK.findall(head.group(2)):
            by_seq = sent.get(int(acked_seat))
            if by_seq:
                answered_up_to(by_seq, int(acked_seq), received, stats.spectator_latencies,
                               stats.spectator_timeouts)
        if 'id="game"' not in message:
            stats.update_bytes.append(len(message.encode()))
        if RESULTS in message:
            m = RESULTS_TITLE.search(message)
            if m is not None and m.group(1) == "Game aborted":
                stats.games_aborted += 1
            else:
                stats.games_finished += 1
            if on_results is not None:
                on_results()

    async with await open_socket(ws_url, cookie, origin, gate, stats, address) as ws:

        async def reader() -> None:
            greeted = False
            try:
                async for message in ws:
                    if not greeted:
                        greeted = True
                        stats.greeted += 1
                    read(message, received_at(ws))
            except websockets.exceptions.ConnectionClosed as closed:
                stats.dropped.append(f"spectator: {closed}")
                stats.dropped_at.append(time.perf_counter())

        task = asyncio.create_task(reader())
        while not task.done():
            left = window.play_until + 0.1 - time.perf_counter()
            if left <= 0:
                break
            await asyncio.wait([task], timeout=min(left, 1.0))
        task.cancel()


class Room:
    """N live tables of bots and their spectators over real sockets: every socket
    connected, every game started and running (``open``), played until the window
    closes, and every client ended (``close``). A table's sockets go to the server
    hosting the table (``shards``: server n hosts the shards s with s % servers == n),
    or else alternate between the servers (``ports``); they come from the table's own
    source address."""

    in_process = True  # its clients play in this process (NodeRoom: in the Node client)

    def __init__(self, setups: list[dict], ports: list[int], *, rate: float, seed: int, level: str,
                 cycle: bool, shards: int | None = None, client: str = "ai", press_from: str = "table") -> None:
        self.setups = setups
        self.press_from = press_from
        self.every_running = asyncio.Event()  # every table runs, or 30 s went by: the window may open
        self.client = client
        self.ports = ports
        self.shards = shards
        self.rate = rate
        self.level = level
        self.cycle = cycle
        self.bases = [f"http://127.0.0.1:{port}" for port in ports]
        self.stats = Stats()
        self.window = Window()
        self.rng = random.Random(seed)
        self.tasks: list[asyncio.Task] = []
        self.tracks: list[Track] = []
        self.restarts: set[asyncio.Task] = set()
        self.pool = ThreadPoolExecutor(max_workers=8)  # start buttons pressed in parallel, as people do

    def server_of(self, t: int, socket: int = 0) -> int:
        """The server (an index into ``ports``) of socket ``socket`` of table ``t``."""
        if self.shards:
            return self.setups[t]["table"] % self.shards % len(self.ports)
        return (t + socket) % len(self.ports)

    def table_base(self, t: int) -> str:
        return self.bases[self.server_of(t)]

    async def restart(self, t: int, setup: dict) -> None:
        loop = asyncio.get_running_loop()
        error = await loop.run_in_executor(
            self.pool, restart_table, self.table_base(t), setup["table"], setup["cookies"], setup.get("address"))
        if error:
            self.stats.start_errors.append(f"table {setup['table']}: {error}")
        else:
            self.stats.games_started += 1

    def on_results(self, t: int, setup: dict):
        def results() -> None:
            if time.perf_counter() < self.window.until - 1:
                task = asyncio.create_task(self.restart(t, setup))
                self.restarts.add(task)
                task.add_done_callback(self.restarts.discard)
        return results

    async def start_games(self) -> None:
        """Every host presses start (8 at a time, as people do): ``games_started``,
        ``start_errors`` and ``start_s``."""
        stats, loop = self.stats, asyncio.get_running_loop()
        t0 = time.perf_counter()
        errors = await asyncio.gather(*(
            loop.run_in_executor(self.pool, start_table, self.table_base(t), setup["table"], setup["cookies"][0],
                                 setup.get("address"))
            for t, setup in enumerate(self.setups)
        ))
        for setup, error in zip(self.setups, errors, strict=True):
            if error:
                stats.start_errors.append(f"table {setup['table']}: {error}")
            else:
                stats.games_started += 1
        stats.start_s = time.perf_counter() - t0

    def window_opened(self) -> None:
        """The play window has just opened (``drive``): the clients here read it themselves."""

    async def open(self) -> None:
        """Connect every client, start every game, and wait (30 s at most) until every
        game runs; the window is still closed."""
        stats, ports = self.stats, self.ports
        gate = asyncio.Semaphore(CONNECTING)
        starts = []
        t0 = time.perf_counter()
        for t, setup in enumerate(self.setups):
            started = asyncio.Event()
            starts.append(started)
            track = Track()
            self.tracks.append(track)
            address = setup.get("address")
            urls = [f"ws://127.0.0.1:{ports[self.server_of(t, i)]}/ws/table/{setup['table']}/" for i in range(5)]
            origins = [self.bases[self.server_of(t, i)] for i in range(5)]
            for seat in SEATS:
                rng = random.Random(self.rng.random())
                bot = Script(seat, rng) if self.client == "scripted" else Bot(seat, self.level, rng)
                stats.bots.append(bot)
                self.tasks.append(asyncio.create_task(player(
                    urls[seat - 1], setup["ws_cookies"][seat - 1], origins[seat - 1], bot, self.rate, self.window,
                    stats, random.Random(self.rng.random()), started, gate, address, track,
                    self.every_running if self.press_from == "window" else None)))
            self.tasks.append(asyncio.create_task(spectator(
                urls[4], setup["ws_cookies"][4], origins[4], self.window, stats, gate,
                self.on_results(t, setup) if self.cycle else None, address, track)))

        # Every socket open and its seat known to the server (the server's first frame
        # follows that: lobby/consumers.py's on_connect) before any game starts.
        while stats.greeted < len(self.tasks) and not any(task.done() for task in self.tasks):
            await asyncio.sleep(0.05)
        for task in self.tasks:
            if task.done() and task.exception() is not None:
                raise task.exception()
        stats.connect_s = time.perf_counter() - t0
        await self.start_games()

        # The play window may open once every game runs (or 30 s after the last start).
        try:
            await asyncio.wait_for(asyncio.gather(*(s.wait() for s in starts)), timeout=30)
        except TimeoutError:
            pass
        stats.tables_running_at_window = sum(s.is_set() for s in starts)
        for started in starts:
            started.set()  # a table that never started: its players stop with the others
        self.every_running.set()

    async def close(self) -> None:
        """Once the window has closed: every client ended, pending restarts cancelled."""
        await asyncio.gather(*self.tasks)
        for task in list(self.restarts):  # a restart pressed just before the end
            task.cancel()
        await asyncio.gather(*self.restarts, return_exceptions=True)
        self.pool.shutdown(wait=False, cancel_futures=True)
        for track in self.tracks:
            self.stats.spectator_timeouts.extend(track.missing_at_spectator())
            self.stats.opponent_timeouts.extend(track.missing_at_opponents())


# --- the Node client (--client node) ---------------------------------------------------

NODE_CLIENT = ROOT / "bench" / "node" / "lean_client.mjs"
NODE_LAG_STRETCH_S = 5.0  # the stretches of its loop lag p99 (LAG_STRETCH_S there)


def node_client_missing() -> str | None:
    """Why ``--client node`` cannot run here, or None."""
    if shutil.which("node") is None:
        return "Node.js is not installed (apt-get install -y nodejs)"
    if not (NODE_CLIENT.parent / "node_modules" / "ws").is_dir():
        return "bench/node/node_modules/ws is missing (make install-dev, or npm ci --prefix bench/node)"
    return None


def mt_key(x: float) -> list[int]:
    """The key with which ``random.Random(x)`` seeds CPython's Mersenne Twister (the
    float's hash as an unsigned 64-bit number, in 32-bit words from the lowest): the
    Node client seeds its own with it and draws what this process would have drawn."""
    n = hash(x) % (1 << 64)
    words = []
    while True:
        words.append(n & 0xFFFFFFFF)
        n >>= 32
        if not n:
            return words


class Tally:
    """A player of the Node client, as its result tells it: what ``main`` reads of a bot."""

    harmless = 0

    def __init__(self, lines: int, lines_banked: int) -> None:
        self.lines = lines
        self.lines_banked = lines_banked


class NodeRoom(Room):
    """``--client node``: bench/node/lean_client.mjs plays every socket, the lean client's
    players and spectators (``Script``, ``player``, ``spectator``) in Node, on the client
    CPUs, while this process presses the tables' start buttons and restarts their games
    (``--cycle``) over HTTP as ``Room`` does. The program reads its plan from a file
    (each socket's URL, cookie, Origin, the table's address, the seat and the seeds
    ``Room`` would have drawn) and speaks by lines (see its header); at the end its
    one-line JSON result fills the same ``Stats``, its times moved onto this process's
    clock by the play window's start."""

    in_process = False

    def __init__(self, setups: list[dict], ports: list[int], *, rate: float, seed: int, cycle: bool,
                 shards: int | None, seconds: float, cpus: frozenset[int], folder: str,
                 press_from: str = "table") -> None:
        super().__init__(setups, ports, rate=rate, seed=seed, level="medium", cycle=cycle, shards=shards,
                         client="node", press_from=press_from)
        self.seconds, self.cpus, self.folder = seconds, cpus, folder
        self.proc: asyncio.subprocess.Process | None = None
        self.events: dict[str, asyncio.Future] = {}
        self.reader: asyncio.Task | None = None
        self.log_path = os.path.join(folder, "node-client.log")
        self.parent_cpu0 = 0.0

    def plan(self) -> dict:
        tables = []
        for t, setup in enumerate(self.setups):
            sockets = []
            for i in range(5):  # 4 players and the spectator, as Room.open opens them
                server = self.server_of(t, i)
                spec = {"url": f"ws://127.0.0.1:{self.ports[server]}/ws/table/{setup['table']}/",
                        "cookie": setup["ws_cookies"][i], "origin": self.bases[server], "seat": i + 1 if i < 4 else 0}
                if i < 4:  # Room.open's draws, in its order: the script's, then the schedule's
                    spec["script_seed"] = mt_key(self.rng.random())
                    spec["schedule_seed"] = mt_key(self.rng.random())
                sockets.append(spec)
            tables.append({"table": setup["table"], "address": setup.get("address"), "sockets": sockets})
        return {"rate": self.rate, "seconds": self.seconds, "ack_timeout": ACK_TIMEOUT,
                "decide_seconds": DECIDE_SECONDS, "enter_chance": ENTER_CHANCE, "connecting": CONNECTING,
                "connect_tries": CONNECT_TRIES, "open_timeout": 20, "start_timeout": 30,
                "press_from": self.press_from, "tables": tables}

    async def open(self) -> None:
        plan = os.path.join(self.folder, "node-plan.json")
        with open(plan, "w") as f:
            json.dump(self.plan(), f)
        loop = asyncio.get_running_loop()
        self.events = {name: loop.create_future() for name in ("connected", "running", "result")}
        with open(self.log_path, "w") as log:
            self.proc = await asyncio.create_subprocess_exec(
                shutil.which("node"), str(NODE_CLIENT), plan, cwd=ROOT, stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=log, limit=1 << 30,
                preexec_fn=machine.pin_at_exec(self.cpus, then=die_with_parent))
        self.reader = asyncio.create_task(self.read_events())
        connected = await self.events["connected"]
        stats = self.stats
        stats.connected, stats.connect_retries = connected["connected"], connected["retries"]
        stats.connect_s = connected["connect_s"]
        await self.start_games()
        self.say("started")
        stats.tables_running_at_window = (await self.events["running"])["tables_running"]

    def say(self, word: str) -> None:
        self.proc.stdin.write(f"{word}\n".encode())

    def window_opened(self) -> None:
        self.say("open")
        self.parent_cpu0 = cpu_of(os.getpid())

    async def read_events(self) -> None:
        failure = ""
        try:
            while line := await self.proc.stdout.readline():
                event = json.loads(line)
                kind = event.pop("event")
                if kind == "results" and self.cycle:
                    self.on_results(event["table"], self.setups[event["table"]])()
                elif kind == "failed":
                    failure = event["error"]
                elif kind in self.events and not self.events[kind].done():
                    self.events[kind].set_result(event)
        except asyncio.CancelledError:
            self.proc.terminate()  # the bench ends on an error: its client goes with it, not waited for
            raise
        finally:
            code = await self.proc.wait()
            for future in self.events.values():
                if not future.done():
                    with open(self.log_path, errors="replace") as f:
                        log = f.read()[-3000:]
                    future.set_exception(RuntimeError(
                        f"the Node client ended (exit {code}) before its result: {failure}\n{log}"))
                    future.exception()  # raised to whoever awaits it, and no warning if none does

    async def close(self) -> None:
        result = await self.events["result"]
        self.stats.parent_cpu_s = cpu_of(os.getpid()) - self.parent_cpu0
        await self.reader
        for task in list(self.restarts):  # a restart pressed just before the end
            task.cancel()
        await asyncio.gather(*self.restarts, return_exceptions=True)
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.take(result)

    def take(self, result: dict) -> None:
        """The Node client's result into ``Stats``, as ``Room`` would have counted it."""
        stats = self.stats
        start = result["window_start"]

        def here(times: list[float]) -> list[float]:  # the Node client's clock onto this one's
            return [stats.window_start + (at - start) for at in times]

        def number(value: float | None) -> float:
            return math.nan if value is None else value

        for name in ("latencies", "spectator_latencies", "opponent_latencies"):
            samples = getattr(stats, name)
            samples.ms, samples.sent = result[name]["ms"], here(result[name]["sent"])
        stats.timeouts = here(result["timeouts"])
        stats.opponent_timeouts = here(result["opponent_timeouts"])
        stats.spectator_timeouts = here(result["spectator_timeouts"])
        stats.dropped, stats.dropped_at = result["dropped"], here(result["dropped_at"])
        for name in ("timeouts_at_stop", "without_effect", "skipped", "update_bytes", "window_frames",
                     "window_bytes", "window_broadcasts", "sent", "games_finished", "games_aborted", "greeted",
                     "client_cpu_s"):
            setattr(stats, name, result[name])
        stats.errors = collections.Counter(result["errors"])
        stats.bots = [Tally(lines, banked) for lines, banked in result["lines"]]
        stats.loop_lag_reported = {0.5: number(result["loop_lag_p50_ms"]), 0.99: number(result["loop_lag_p99_ms"])}
        stats.loop_lag_p99_reported_by_5s = [number(lag) for lag in result["loop_lag_p99_ms_by_5s"]]


async def drive(setups, ports, seconds, rate, seed, level, cycle: bool, pids: list[int],
                shards: int | None = None, proxy_pids: list[int] | None = None,
                sampler: machine.Machine | None = None, client: str = "ai", client_cpus: frozenset[int] = frozenset(),
                folder: str = "", press_from: str = "table") -> Stats:
    """Connect every client (to its table's host, or alternating: Room; with ``client``
    ``node``, the Node client on ``client_cpus``, its plan and log in ``folder``: NodeRoom),
    start every game, play for S seconds once every game runs, and measure the servers (and,
    with ``sampler``, every process on the machine) over that play window."""
    if client == "node":
        room = NodeRoom(setups, ports, rate=rate, seed=seed, cycle=cycle, shards=shards, seconds=seconds,
                        cpus=client_cpus, folder=folder, press_from=press_from)
    else:
        room = Room(setups, ports, rate=rate, seed=seed, level=level, cycle=cycle, shards=shards, client=client,
                    press_from=press_from)
    stats, window = room.stats, room.window
    await room.open()
    # The client's own garbage collector must not stop every socket's reading at once:
    # its full collections (400 bots' engines and plans: ~100 ms every ~14 s at 100
    # tables) showed up as the slowest 1 % of intents. Everything made so far is frozen.
    gc.collect()
    gc.freeze()
    sampler = sampler or machine.Machine()
    machine_start = sampler.start()
    each0, client0 = [cpu_of(pid) for pid in pids], cpu_of(os.getpid())
    batches0 = await asyncio.to_thread(journal_batches)
    journal0 = await asyncio.to_thread(journal_cpu_s, ports)
    proxy0 = cpu_seconds(proxy_pids or [])
    window.open(seconds)
    room.window_opened()
    t0 = window.start
    # the Node client measures its own loop
    lag = asyncio.create_task(loop_lag(window, stats)) if room.in_process else None
    while time.perf_counter() < window.until:  # resident memory every 10 s of play
        stats.rss_samples.append((time.perf_counter() - t0, rss_mb(pids)))
        await asyncio.sleep(min(RSS_EVERY, max(0.0, window.until - time.perf_counter())))
    stats.window_s = time.perf_counter() - t0
    stats.window_start = t0
    stats.journal_batches = await asyncio.to_thread(journal_batches) - batches0
    stats.journal_cpu_s = await asyncio.to_thread(journal_cpu_s, ports) - journal0
    stats.cpu_by_process = [cpu_of(pid) - before for pid, before in zip(pids, each0, strict=True)]
    stats.cpu_s = sum(stats.cpu_by_process)
    stats.proxy_cpu_s = cpu_seconds(proxy_pids or []) - proxy0
    stats.client_cpu_s = cpu_of(os.getpid()) - client0
    stats.rss_end_mb = rss_mb(pids)
    stats.machine = sampler.between(machine_start, sampler.stop())
    if lag is not None:
        await lag
    await room.close()
    return stats


LAG_PROBE = 0.005  # seconds between the client's own loop-lag probes


async def loop_lag(window: Window, stats: Stats) -> None:
    """How late the client's event loop wakes a task that asked to sleep 5 ms: the part
    of a measured latency that is the client's own queueing (bots planning, frames
    parsed), not the server's."""
    while time.perf_counter() < window.until:
        asked = time.perf_counter()
        await asyncio.sleep(LAG_PROBE)
        stats.loop_lags.append((time.perf_counter() - asked - LAG_PROBE) * 1000)
        stats.loop_lag_at.append(asked)


CLIENT_LAG_SHARE = 0.5  # of the measured p99: above it, the client's own queueing makes the figure
CLIENT_CORE_SHARE = 0.8  # of one core over the window: its event loop (one thread) is near full


def client_limited(loop_lag_p99_ms: float, p99_ms: float, client_cpu_s: float, window_s: float) -> str:
    """``yes (why)`` when the load generator, not the server, makes the figure: its own
    event loop wakes late by more than half the measured p99, or it kept nearly a whole
    core busy over the window (its one event loop cannot go faster); else ``no``."""
    reasons = []
    if loop_lag_p99_ms == loop_lag_p99_ms and p99_ms == p99_ms and loop_lag_p99_ms > CLIENT_LAG_SHARE * p99_ms:
        reasons.append(f"client_loop_lag_p99_ms {loop_lag_p99_ms:.2f} > {CLIENT_LAG_SHARE} x p99_ms {p99_ms:.2f}")
    if window_s > 0 and client_cpu_s > CLIENT_CORE_SHARE * window_s:
        reasons.append(f"client_cpu_s {client_cpu_s:.2f} > {CLIENT_CORE_SHARE} of a core over {window_s:.1f} s")
    return f"yes ({'; '.join(reasons)})" if reasons else "no"


def floor_traffic(stats: Stats, tables: int) -> tuple[float, int] | None:
    """What the site sent in the window, as bench/floor.py's options: the broadcasts a
    second per table that no numbered key caused (``--ticks``: a table's broadcasts a
    second, as its spectator read them, less its numbered keys a second; gravity, bots,
    the clocks) and the median update's bytes (``--bytes``). None when nothing was
    read (the floor's defaults then)."""
    if not (stats.window_s > 0 and tables and stats.window_broadcasts and stats.update_bytes):
        return None
    per_table_s = tables * stats.window_s
    ticks = max(0.0, (stats.window_broadcasts - stats.sent) / per_table_s)
    return round(ticks, 2), round(statistics.median(stats.update_bytes))


def run_floor(tables: int, seconds: float, rate: float, seed: int, cpus: machine.Split,
              traffic: tuple[float, int] | None = None) -> dict[str, str]:
    """bench/floor.py at the same table count, rate, seconds and CPU split, in a process
    of its own (after the site's servers have stopped), with the site's own unprompted
    broadcasts and update size (``floor_traffic``): its ``name: value`` lines."""
    sent_like = [] if traffic is None else ["--ticks", str(traffic[0]), "--bytes", str(traffic[1])]
    try:
        out = subprocess.run(
            [sys.executable, str(ROOT / "bench" / "floor.py"), "--tables", str(tables), "--seconds", str(seconds),
             "--rate", str(rate), "--seed", str(seed), *sent_like, *cpus.args()],
            cwd=ROOT, capture_output=True, text=True, timeout=seconds + 180,
        )
    except subprocess.TimeoutExpired:
        print("floor: bench/floor.py did not finish", file=sys.stderr)
        return {}
    if out.returncode != 0:
        print(f"floor: bench/floor.py exited with {out.returncode}:\n{out.stderr[-2000:]}", file=sys.stderr)
    return report.figures_of(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--rate", type=float, default=5.0, help="intents a second per player")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bot-level", choices=("easy", "medium", "hard"), default="medium",
                        help="strength of the TetriWar AI playing every seat")
    parser.add_argument("--minutes", type=int, default=15, help="length of every game (the table option)")
    parser.add_argument("--cycle", action="store_true",
                        help="when a table's game ends, its players mark ready and its host starts the next")
    parser.add_argument("--scale-out", action="store_true",
                        help="PostgreSQL + Redis, two Daphne processes hosting the tables")
    parser.add_argument("--shards", type=int, default=0,
                        help="GAME_HOST_SHARDS (default 1; in scale-out 2, or --workers)")
    parser.add_argument("--workers", type=int, default=0,
                        help="scale-out: host the tables in W runworker workers instead of the Daphnes")
    parser.add_argument("--redis-db", type=int, default=7, help="scale-out: the Redis database (flushed)")
    parser.add_argument("--proxy", choices=("none", "nginx"), default="none",
                        help="nginx: every socket and request through Debian's nginx serving the site of docs/operations.md")
    parser.add_argument("--keep", action="store_true", help="keep the server's database (SQLite) and logs")
    parser.add_argument("--no-floor", action="store_true",
                        help="do not run bench/floor.py (same tables, rate and seconds) after the live run")
    parser.add_argument("--languages", default="en",
                        help="the sockets' languages, spread over them in turn (e.g. en,de,zh-hans)")
    parser.add_argument("--journal", choices=("on", "off"), default="on",
                        help="whether the server writes its games' inputs down as they come (GAME_JOURNAL)")
    parser.add_argument("--tick-ms", type=int, default=None,
                        help="the servers' LIVE_TICK_MS (default: the site's, 33; 0 sends every change at once)")
    parser.add_argument("--client", choices=("ai", "scripted", "node"), default="ai",
                        help="ai: bots that mirror their boards and plan with the AI; scripted: the same "
                             "schedule and frames, reading only the acknowledgements (many tables); node: "
                             "the scripted client in Node (bench/node/lean_client.mjs), for hundreds of tables")
    parser.add_argument("--press-from", choices=("table", "window"), default="table",
                        help="table: a table's players press keys once its game runs; window: once every "
                             "table runs (the window opens), so that slow starts on a loaded server neither "
                             "slow further nor age the first games (hundreds of tables)")
    machine.add_arguments(parser)
    args = parser.parse_args()
    cpus = machine.split_from(parser, args)
    languages = tuple(code.strip() for code in args.languages.split(",") if code.strip())
    if not languages:
        parser.error("--languages names at least one language")
    shards = args.shards or ((args.workers or 2) if args.scale_out else 1)
    if args.workers < 0 or shards < 1:
        parser.error("--shards must be at least 1, --workers at least 0")
    if args.scale_out and args.workers > shards:
        parser.error(f"--workers {args.workers} needs at least as many shards (--shards {shards})")
    if args.proxy == "nginx" and proxy.binary() is None:
        parser.error("--proxy nginx: nginx is not installed (apt-get install -y nginx)")
    if args.proxy == "nginx" and args.scale_out and not args.workers:
        try:
            proxy.site_config.socket_map(shards, 2)
        except ValueError as err:
            parser.error(f"--proxy nginx: {err}")
    if args.client == "node" and (missing := node_client_missing()):
        parser.error(f"--client node: {missing}")
    OPTIONS["minutes"] = args.minutes

    stop_on_sigterm()
    # The load generator on the client CPUs (its threads too); each server process takes
    # the server CPUs as it starts (Servers).
    machine.pin(os.getpid(), cpus.client)
    nginx = None
    routes = (0, 0)  # table sockets nginx sent to their host, of all it logged
    scratch = ScratchDatabase() if args.scale_out else None
    redis_url = f"{REDIS}/{args.redis_db}" if args.scale_out else ""
    sampler = scale_out_sampler(scratch)
    try:
        with Servers.scratch("tetriwar-bench-", cpus.server, keep=args.keep) as servers:
            if args.scale_out:
                scratch.create(migrated=True)
                flush_redis(redis_url)
            env = server_env(servers.tmp, database_url=scratch.url if scratch else "", redis_url=redis_url,
                             shards=shards, GAME_JOURNAL="true" if args.journal == "on" else "false")
            if args.tick_ms is not None:
                env["LIVE_TICK_MS"] = str(args.tick_ms)
            if args.proxy == "nginx":
                # nginx, whose X-Forwarded-For names each table's address
                env["TRUSTED_PROXIES"] = "127.0.0.1"
            setups = prepare(args.tables, env, languages)
            ports = [free_port() for _ in range(2 if args.scale_out else 1)]
            hosting = args.scale_out and not args.workers  # the Daphnes host the tables
            if args.scale_out:
                from django.utils import timezone

                since = timezone.now()
            for n, port in enumerate(ports):
                hosted = ",".join(str(s) for s in range(shards) if s % len(ports) == n) if hosting else ""
                servers.daphne(f"daphne{n + 1}", port, {**env, "HOSTED_SHARDS": hosted})
            if args.scale_out:
                for w in range(args.workers):
                    channels = [f"game-host-{s}" for s in range(shards) if s % args.workers == w]
                    servers.start(f"worker{w + 1}", ["manage.py", "runworker", *channels], env)
            for port in ports:
                servers.wait_for_port(port)
            if args.scale_out:
                wait_for_heartbeats(shards, since, servers)
            for port in ports:
                warm_up(f"http://127.0.0.1:{port}")
            client_ports, routed = ports, shards if hosting else None
            try:
                if args.proxy == "nginx":
                    nginx = proxy.Nginx(os.path.join(servers.tmp, "nginx"),
                                        [f"127.0.0.1:{port}" for port in ports], shards if hosting else 0,
                                        # a server process
                                        preexec_fn=machine.pin_at_exec(cpus.server, then=die_with_parent))
                    nginx.start()
                    warm_up(nginx.base)
                    client_ports, routed = [nginx.port], None  # nginx routes each socket
                rss_base = rss_mb(servers.pids)
                stats = asyncio.run(drive(
                    setups, client_ports, args.seconds, args.rate, args.seed, args.bot_level, args.cycle,
                    servers.pids, routed, nginx.pids if nginx else None, sampler, args.client, cpus.client,
                    servers.tmp, args.press_from,
                ))
                servers.check()
                if nginx:
                    nginx.check()
            except BaseException:
                if nginx:
                    sys.stderr.write(f"--- nginx errors ---\n{nginx.errors()}")
                raise
            finally:
                if nginx:
                    nginx.stop()  # its access log is complete once it has stopped
                    routes = nginx.socket_routes()
    finally:
        if scratch is not None:
            scratch.drop()
        if redis_url:
            flush_redis(redis_url)
    traffic = floor_traffic(stats, args.tables)
    floor = {} if args.no_floor else run_floor(args.tables, args.seconds, args.rate, args.seed, cpus, traffic)
    reading = stats.machine

    figure("mode", "scale-out" if args.scale_out else "embedded")
    figure("proxy", args.proxy)
    figure("client", args.client)
    figure("server_processes", len(servers.pids))
    if args.scale_out:
        figure("shards", shards)
        figure("workers", args.workers)
        figure("sockets_routed_to_host", str(hosting).lower())
    if nginx and hosting:
        figure("proxy_sockets_to_host", f"{routes[0]} of {routes[1]}")
    figure("languages", ",".join(languages))
    figure("live_tick_ms", args.tick_ms if args.tick_ms is not None else "33 (the site's default)")
    figure("seconds", args.seconds)
    figure("press_from", args.press_from)
    figure("minutes_per_game", args.minutes)
    figure("players", args.tables * 4)
    figure("spectators", args.tables)
    figure("intents_sent", stats.sent)
    figure("intents_acknowledged", len(stats.latencies))
    figure("intents_without_effect", stats.without_effect)
    figure("intents_harmless", sum(bot.harmless for bot in stats.bots))
    figure("intents_skipped", stats.skipped)
    figure("error_replies", stats.errors.total())
    for code, count in sorted(stats.errors.items()):
        figure(f"error_replies_{code}", count)
    figure("updates_seen_by_spectators", len(stats.update_bytes))
    if stats.window_s > 0 and args.tables:
        figure("broadcasts_per_table_s", stats.window_broadcasts / (args.tables * stats.window_s), ".2f")
        figure("numbered_keys_per_table_s", stats.sent / (args.tables * stats.window_s), ".2f")
    figure("lines_cleared_total", sum(bot.lines + bot.lines_banked for bot in stats.bots))
    figure("games_started", stats.games_started)
    if args.cycle:
        figure("games_finished", stats.games_finished)
        figure("games_aborted", stats.games_aborted)
    if stats.start_errors:
        figure("start_errors", f"{len(stats.start_errors)} ({stats.start_errors[0]})")
    figure("sockets_connected",
           f"{stats.connected} (retries {stats.connect_retries}, {stats.connect_s:.1f} s)")
    if stats.dropped:
        figure("sockets_dropped", f"{len(stats.dropped)} ({stats.dropped[0]})")
    figure("games_start_s", stats.start_s, ".1f")
    figure("tables_running_at_window_start", stats.tables_running_at_window)
    figure("window_s", stats.window_s, ".1f")
    report.cpu_split_figures(cpus)
    if args.scale_out:
        figure("services_pinned", "no (the machine's PostgreSQL and Redis: not started by the bench)")
    figure("journal", args.journal)
    if stats.window_s > 0 and args.tables:
        figure("journal_writes_per_table_minute", stats.journal_batches / (args.tables * stats.window_s / 60), ".1f")
        figure("journal_cpu_s", stats.journal_cpu_s, ".3f")
        figure("journal_cpu_share_of_server", stats.journal_cpu_s / stats.cpu_s if stats.cpu_s else math.nan, ".3f")
    figure("server_cpu_s", stats.cpu_s, ".2f")
    figure("server_cpu_s_by_process", " ".join(
        f"{name}={cpu:.2f}" for name, cpu in zip(servers.names, stats.cpu_by_process, strict=False)))
    if nginx:
        figure("proxy_cpu_s", stats.proxy_cpu_s, ".2f")
        if stats.window_s > 0 and args.tables:
            per_table_minute = stats.proxy_cpu_s / (args.tables * stats.window_s / 60)
            figure("proxy_cpu_s_per_table_minute", per_table_minute, ".3f")
    figure("client_cpu_s", stats.client_cpu_s, ".2f")
    if stats.parent_cpu_s is not None:  # --client node: the bench's own Python beside it
        figure("client_parent_cpu_s", stats.parent_cpu_s, ".2f")
    if args.scale_out:
        figure("services_cpu_s", f"{reading.services_cpu_s:.2f} (Redis, the scratch database's backends)")
    report.machine_figures(reading)
    figure("server_rss_mb_baseline", rss_base, ".1f")
    figure("server_rss_mb_end", stats.rss_end_mb, ".1f")
    if stats.rss_samples:
        figure("server_rss_mb_by_minute", " ".join(
            f"{mb:.1f}" for t, mb in stats.rss_samples if t % 60 < RSS_EVERY / 2 or 60 - t % 60 < RSS_EVERY / 2))
    slope = growth_per_minute(stats.rss_samples)
    figure("server_rss_mb_growth_per_minute",
           f"{slope:.2f} (second half of the window)" if slope is not None else "nan (window too short)")
    figure("client_loop_lag_p50_ms", stats.loop_lag(0.50), ".2f")
    figure("client_loop_lag_p99_ms", stats.loop_lag(0.99), ".2f")
    figure("spectator_timeouts", len(stats.spectator_timeouts))
    figure("p99_ms_by_5s", " ".join(f"{value:.1f}" for value in stats.p99_by(5.0)))
    figure("client_loop_lag_p99_ms_by_5s", " ".join(f"{value:.1f}" for value in stats.loop_lag_p99_by(5.0)))
    if floor:
        figure("floor_p50_ms", floor.get("p50_ms", "nan"))
        figure("floor_server_cpu_s_per_table_minute", floor.get("server_cpu_s_per_table_minute", "nan"))
        figure("floor_ticks_per_table_s", floor.get("ticks", "nan"))
        figure("floor_bytes", floor.get("bytes", "nan"))
        figure("floor_broadcasts_per_table_s", floor.get("broadcasts_per_table_s", "nan"))
        figure("floor_others_cpu_s", floor.get("others_cpu_s", "nan"))
        figure("floor_steal_s", floor.get("steal_s", "nan"))
    figure("keydown_to_own_fragment_p50_ms", percentile(stats.latencies.ms, 0.50), ".2f")
    figure("keydown_to_own_fragment_p99_ms", percentile(stats.latencies.ms, 0.99), ".2f")
    figure("tables", args.tables)
    figure("p50_ms", percentile(stats.latencies.ms, 0.50), ".2f")
    figure("p99_ms", percentile(stats.latencies.ms, 0.99), ".2f")
    figure("own_ack_p50_ms", percentile(stats.latencies.ms, 0.50), ".2f")
    figure("own_ack_p99_ms", percentile(stats.latencies.ms, 0.99), ".2f")
    figure("opponent_p50_ms", percentile(stats.opponent_latencies.ms, 0.50), ".2f")
    figure("opponent_p99_ms", percentile(stats.opponent_latencies.ms, 0.99), ".2f")
    figure("opponent_timeouts", len(stats.opponent_timeouts))
    figure("spectator_p50_ms", percentile(stats.spectator_latencies.ms, 0.50), ".2f")
    figure("spectator_p99_ms", percentile(stats.spectator_latencies.ms, 0.99), ".2f")
    if stats.window_s > 0 and args.tables:
        figure("frames_per_socket_s", stats.window_frames / (args.tables * 5 * stats.window_s), ".2f")
        figure("bytes_per_table_minute", f"{stats.window_bytes / (args.tables * stats.window_s / 60):.0f}")
    figure("timeouts", len(stats.timeouts))
    figure("timeouts_at_stop", stats.timeouts_at_stop)
    if not args.no_floor:
        figure("floor_p99_ms", floor.get("p99_ms", "nan"))
    figure("bytes_per_update_median",
           f"{statistics.median(stats.update_bytes):.0f}" if stats.update_bytes else "nan")
    if stats.window_s > 0 and args.tables:
        figure("server_cpu_s_per_table_minute", stats.cpu_s / (args.tables * stats.window_s / 60), ".3f")
    else:
        figure("server_cpu_s_per_table_minute", "nan")
    figure("server_rss_mb_per_table", (stats.rss_end_mb - rss_base) / args.tables, ".2f")
    figure("client_limited", client_limited(stats.loop_lag(0.99),
                                            percentile(stats.latencies.ms, 0.99), stats.client_cpu_s, stats.window_s))
    # last: whether the figures above hold (the floor beside them is part of them)
    floor_disturbed = floor.get("disturbed") == "yes"
    report.disturbed_figure(reading.disturbed or floor_disturbed)


if __name__ == "__main__":
    main()
