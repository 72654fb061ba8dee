"""A restart loses no game (issue 50): live tables of every game on a real Daphne, the
server killed (SIGKILL) and started again, then stopped gracefully (SIGTERM) and started
again, as a supervisor restarts a crashed server and a deploy restarts a healthy one.

    python bench/restart.py [--tables N] [--kinds K,K,…] [--staked M] [--play S] [--rate R]
                            [--seed S] [--keep] [--server-cpus CPUS] [--client-cpus CPUS]

Embedded: one Daphne process on SQLite (in a temporary folder) and the in-memory layer,
its whole configuration in its environment (bench/server.py ``server_env``, with
``LOG_LEVEL=INFO`` for the line ``game resumed table=… game=…``); each server after it
starts on the same port and database. The bench's own Django (``django_setup``) writes
the data before the first server starts and reads the database throughout.

The tables: for each kind of ``--kinds`` (default all five), N tables (default 50) with
a bot in every seat (as many seats as the game needs, at least two: the lowest bot
level, the game's default options; TetriWar's 15 minutes, so that no game ends during
the run), each watched by its host over a WebSocket (the host is not seated); the
bots' moves are real inputs, applied and written down by the host as a person's are.
Besides them, M TetriWar tables (``--staked``, default N) of four signed-in players
with a stake of 100 chips each, played by bench/live.py's scripted client
(``Script``: R keys a second per player, default 5, open loop, ← and → tapped as a
key-down and its key-up): the tables at which inputs lost can be seen, and chips
counted. Every socket and request of a table comes from a loopback address of its own
(bench/client.py ``source_address``). Every game starts through its host's start
button over HTTP (8 presses at a time; the kinds whose bots end a game soonest, in a
minute or so, last); once every game has written its first inputs (or is over), they
play S seconds (default 5), then:

1. SIGKILL: the Daphne is killed; once it is gone, each game's stored inputs are read
   (``JournalBatch`` rows unpacked with games.journal ``stored``) and the games still
   running counted; a new Daphne starts on the same port and database. Every page
   reconnects as the site's pages do (htmx's WebSocket extension with the site's delays,
   static/js/socket_retry.js: after an abnormal close or a service restart, again after
   a delay drawn from 0 to 0.5 s for each of the first 20 retries in a row, then from
   0 to 1, 2 … 16 s; after a close for a table that is gone, never).
2. The bench waits (30 s at most) until every game that was running has written an
   input after the restart, or is no longer running; then S seconds of play.
3. SIGTERM: the same with a graceful stop (the process refuses new sockets, stops
   its tables, tells their pages, writes their inputs and exits:
   ``sigterm_exit_s`` is from the signal to its exit), then a new Daphne as above.

Before the restarts: ``server_cpu_share_before_stop``, the server's CPU seconds a second
over the S seconds of play before the SIGKILL (1.0: its core is full; the restart's
work comes on top of it).

What each restart prints, with the prefix ``sigkill_`` or ``sigterm_``:

- ``down_s``: from the signal to the new server accepting connections (``boot_s``:
  from the new process's start to that moment, Django's import included).
- ``resume_p50_s`` / ``resume_p99_s`` / ``resume_max_s``: for each game that was running,
  the seconds from the restart (the moment the new server first accepts a TCP
  connection on its port) to its first input applied after it. The new server rebuilds
  the games one at a time, and each table counts down 3 s from its rebuild (its line
  ``game resumed``, whose appearance in the log the bench notes, read every 20 ms; a
  table with players, the staked ones, once their pages are back or 10 s after the
  rebuild: its line ``game counts down``) and goes on with its engine's clock where its
  last write left it (the stored batches' clock); its first input after that is the
  first entry of the first batch the new server writes for it (a batch number past those
  stored before). So: the seconds to that line, plus the 3 s, plus the engine time from
  that clock to that entry (TetriWar's engine counts ms, the others s).
  ``waited_for_pages_p50_s`` / ``_max_s``: from a staked table's rebuild to its countdown. At the staked tables this agrees, to a
  few tens of ms, with ``staked_first_ack_max_s``: from the restart to the first
  acknowledgement one of its players received, the latest table's. ``written_p50_s`` /
  ``written_p99_s``: the same to the ``written_at`` of that batch, when the input was
  safe from the next crash (a flush every 250 ms, and the database's own queue: the
  gap between the two figures is that queue). ``rebuilt_first_s`` / ``rebuilt_last_s``:
  the first and last game's rebuild line. A game that writes nothing within 30 s of the
  restart and still runs counts as infinitely slow
  (``tables_without_input_after_restart``). ``resume_max_s_by_kind`` and
  ``written_max_s_by_kind``: the slowest game of each kind (``tetriwar_staked``: the
  staked tables); the turn-based games' bots take their time over a move after the
  countdown as they do after a game's start, and that time is in their figures.
- ``server_tracebacks``: ``Exception inside application`` in the new server's log;
  ``sockets_dropped_after_restart``: sockets opened to the new server that closed
  before the next stop (or a second after the wait, for the last), each reopened.
- ``games_running_at_stop``: running when the server went; ``games_resumed``: named in
  the new server's log (``game resumed table=… game=…``) by the end of the wait;
  ``games_lost``: of those that were running, the ones aborted since
  (``games_aborted``) and the ones still running but not resumed when the wait ended
  (``games_not_resumed_in_the_wait``: perhaps later, but not within 30 s); a game that
  finished meanwhile is not lost (``games_finished_meanwhile``).
- Inputs lost: which inputs the engine applied before the stop but were not stored
  can only be seen at the staked tables, from the players' side. A player's
  intents are numbered and a socket's are handled in order; an intent that changed
  something is acknowledged in the broadcast of its change; every applied intent, a
  key-up too, is an entry of the game's log. So every frame a socket sent up to its
  last acknowledged one, less the refusals (``ws-error``) it had received by then, was
  applied (``inputs_applied_seen``: a lower bound of what was applied). For each seat,
  ``inputs_lost_seen`` is how many of those its stored entries lack (entries stored
  at this stop less those stored at the last: the resumed game began with exactly
  those): a count of inputs certainly lost, itself a lower bound (inputs applied after
  a seat's last acknowledgement are not seen). ``inputs_lost_seen_max_per_table``: the
  most at one table; ``tables_losing_more_than_their_largest_batch``: staked tables
  that lost, as seen, more than the largest batch they ever wrote (the issue's bound is
  one batch). At the all-bot tables nobody outside the server knows what was
  applied: ``inputs_stored_at_stop`` is every table's stored entries, and
  ``largest_batch_entries`` the most entries one table wrote in one batch (250 ms of
  play) over the whole run so far, the size of the one batch a SIGKILL may lose.
- ``tables_told``: tables whose pages were told, after the restart, "The server
  restarted: the game goes on in N s" (and for SIGTERM ``pages_told_restarting``: the
  sockets told "The server is restarting: your game will continue." before it went).

Before the restarts: ``games_over_before_the_first_stop`` (bots' games that ended
before it: they are in no restart's figures), ``first_input_after_start_max_s_by_kind``, for each kind the
slowest game's seconds from its start button (``started_at``) to its first batch
written, the measure of ``written_max_s_by_kind`` for a fresh start (its 3 s
countdown, its bots' first moves): their baseline. ``error_replies_<CODE>``
counts the refusals the pages received, with those before the first restart, between
the two and after the second (``NOT_STARTED``: the scripted players press keys during
the countdowns too, as people do).

Chips are counted over every user (``accounts_user.chips``) plus the pots of running
games, before the games start and after each restart: ``chips_conserved`` is ``yes``
if every count equals the first (``chips_difference``: the last count less the first).

The last lines: ``tables`` (all of them), ``games_lost`` (both restarts),
``inputs_lost`` (``inputs_lost_seen`` of both), ``chips_conserved``,
``sigterm_exit_s``, ``resume_p50_s``, and last ``resume_p99_s``: the worse of the
two restarts' (each is printed above with its prefix). The issue's targets: no game
lost, at most one batch of inputs lost per table, p99 of 5 s at most.
The server runs on ``--server-cpus``, the bench and its clients on ``--client-cpus``
(bench/machine.py); the machine is not watched (no ``disturbed`` line).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import argparse  # noqa: E402
import asyncio  # noqa: E402
import collections  # noqa: E402
import datetime  # noqa: E402
import math  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402

from bench import machine, report  # noqa: E402
from bench.client import connect, source_address, start_table  # noqa: E402
from bench.live import ACK, ERROR_CODE, HEAD, RESULTS, RESULTS_TITLE, Script, key_frames  # noqa: E402
from bench.report import figure, percentile  # noqa: E402
from bench.server import (  # noqa: E402
    TETRIWAR_OPTIONS,
    Servers,
    cpu_seconds,
    django_setup,
    free_port,
    login,
    server_env,
    stop_on_sigterm,
)

KINDS = ("tetriwar", "viertris", "thirdoption", "blockkiller", "tetrix")
STAKE = 100  # chips a seat at a staked table
CHIPS = 1000  # each player's chips before the run
# A page's socket tries again as htmx's WebSocket extension (hx-ws 2) does with the
# site's delays (static/js/socket_retry.js): after a close of one of these codes, a delay
# drawn from 0 to RETRY_FLAT_S before each of the first RETRY_FLAT retries in a row, then
# from 0 to RETRY_FLAT_S * 2**min(n - RETRY_FLAT, RETRY_MAX_DOUBLINGS) ("full jitter");
# after any other close (4404: no such table) never.
RETRY_CODES = frozenset({1006, 1011, 1012, 1013})
RETRY_FLAT_S = 0.5
RETRY_FLAT = 20
RETRY_MAX_DOUBLINGS = 5
# The kinds whose bots end their games soonest (a minute or so) are started last, so that
# as many games as possible still run at the first stop.
START_ORDER = ("tetriwar", "blockkiller", "viertris", "tetrix", "thirdoption")
RESUME_WAIT_SECONDS = 30.0  # after a restart, the longest the bench waits for every game's next input
START_WAIT_SECONDS = 60.0  # after the start buttons, the longest it waits for every game's first input
STOP_WAIT_SECONDS = 15.0  # after SIGTERM, the longest it waits for the process to exit
POLL_SECONDS = 0.1
# The pages' news of a restart (templates/games/reconnect.html), in the site's language
RESTARTING = "The server is restarting: your game will continue."
RESUMING = "The server restarted: the game goes on in"
RESUMED_LINE = re.compile(r"game resumed table=(\d+) game=(\d+)")
# A rebuilt game with players waits for their pages before its countdown (games/host.py)
COUNTDOWN_LINE = re.compile(r"game counts down table=(\d+) game=(\d+)")
NOT_RESUMED_LINE = re.compile(r"game (\d+) could not be resumed")


# --- the tables, written before the first server starts --------------------------------------

@dataclass
class Conn:
    """One socket of a page, from its open to its close: the restart phase it was opened
    in (0 before the first restart, 1 between them, 2 after), the frames it sent (the
    count at each numbered one, by its number), and what came back."""

    phase: int
    frames: int = 0
    frames_at: dict[int, int] = field(default_factory=dict)
    acked_frames: int = 0  # frames sent up to and including the last acknowledged one
    errors: int = 0
    errors_at_ack: int = 0  # refusals received before that acknowledgement
    greeted: bool = False  # the server's first frame came
    first_ack_at: float | None = None  # when its first acknowledgement came (perf_counter)
    told_restarting: bool = False
    told_resuming: bool = False

    def applied_seen(self) -> int:
        """Frames of this socket that the engine certainly applied (and logged)."""
        return max(0, self.acked_frames - self.errors_at_ack)


@dataclass
class Page:
    """A page open at a table: a player (``seat``, played by ``script``) or the host
    watching (``seat`` None). It reconnects whenever its socket goes."""

    cookie: str
    seat: int | None = None
    script: Script | None = None
    rng: random.Random | None = None
    seq: int = 0  # the player's intents are numbered across its sockets
    conns: list[Conn] = field(default_factory=list)


@dataclass
class Setup:
    table_id: int
    kind: str
    staked: bool
    address: str
    host_cookie: str
    pages: list[Page]
    game_id: int = 0


def bots_table(kind: str, host_ref) -> int:
    """A friendly table of ``kind`` with a bot in every seat (as tests/live/test_restart_killed.py
    makes them): created by its host, whose seat is then given to a bot too."""
    from games.registry import GAMES
    from lobby import services
    from lobby.models import Seat

    spec = GAMES[kind]
    options = spec.options_form.defaults()
    if kind == "tetriwar":
        options.update(TETRIWAR_OPTIONS)  # 15 minutes: no game ends during the run
    seats = max(2, spec.min_seats)
    table = services.table_create(player=host_ref, game=kind, options=options, seats_total=seats)
    Seat.objects.filter(table=table).delete()
    for number in range(1, seats + 1):
        services.bot_add(table_id=table.pk, player=host_ref, number=number, level=spec.bot_levels[0])
    return table.pk


def staked_table(t: int, rng: random.Random) -> Setup:
    """A TetriWar table of four signed-in players, each with CHIPS chips, at a stake of
    STAKE, every seat ready; its players are scripted."""
    from accounts.models import ChipTransaction
    from accounts.services import chips_change
    from lobby import services

    users = [login(f"restart_staked{t}_{s}") for s in range(1, 5)]
    for user, _ref, _cookie in users:
        chips_change(user=user, delta=CHIPS, reason=ChipTransaction.Reason.SIGNUP)
    refs = [ref for _user, ref, _cookie in users]
    table = services.table_create(player=refs[0], game="tetriwar", options=dict(TETRIWAR_OPTIONS), seats_total=4,
                                  stake=STAKE)
    for seat in (2, 3, 4):
        services.seat_take(table_id=table.pk, player=refs[seat - 1], number=seat)
    for seat in (1, 2, 3, 4):
        services.seat_ready(table_id=table.pk, player=refs[seat - 1], ready=True)
    pages = [Page(cookie, seat, Script(seat, random.Random(rng.random())), random.Random(rng.random()))
             for seat, (_user, _ref, cookie) in enumerate(users, start=1)]
    return Setup(table.pk, "tetriwar", True, "", users[0][2], pages)


def make_tables(kinds: list[str], tables: int, staked: int, seed: int) -> list[Setup]:
    rng = random.Random(seed)
    setups = []
    for kind in kinds:
        for t in range(tables):
            _user, ref, cookie = login(f"restart_{kind}{t}")
            setups.append(Setup(bots_table(kind, ref), kind, False, "", cookie, [Page(cookie)]))
    for t in range(staked):
        setups.append(staked_table(t, rng))
    for n, setup in enumerate(setups):
        setup.address = source_address(n)
    return setups


# --- the database, read by the bench (each call on a thread, its connection closed after) ----

def games_of(table_ids: list[int]) -> dict[int, int]:
    from games.models import Game

    return dict(Game.objects.filter(table_id__in=table_ids).values_list("table_id", "pk"))


def statuses(game_ids: list[int]) -> dict[int, str]:
    from games.models import Game

    return dict(Game.objects.filter(pk__in=game_ids).values_list("pk", "status"))


@dataclass
class Stored:
    """A game's stored inputs: its batches, its entries by seat, and its largest batch."""

    batches: int = 0
    entries: int = 0
    by_seat: collections.Counter = field(default_factory=collections.Counter)
    largest_batch: int = 0
    clock: float | None = None  # the engine's clock at the last write


def stored_inputs(game_ids: list[int]) -> dict[int, Stored]:
    from games.core.log import InputLog
    from games.models import JournalBatch

    out = {game_id: Stored() for game_id in game_ids}
    rows = JournalBatch.objects.filter(game_id__in=game_ids).order_by("game_id", "seq")
    for game_id, data in rows.values_list("game_id", "data").iterator():
        kept = out[game_id]
        batch, _, kept.clock = InputLog.unpack(bytes(data))
        kept.batches += 1
        kept.entries += len(batch)
        kept.largest_batch = max(kept.largest_batch, len(batch))
        for _t, seat, _text in batch:
            kept.by_seat[seat] += 1
    return out


def first_new_batches(after: dict[int, int], since: datetime.datetime) -> dict[int, tuple[datetime.datetime, float]]:
    """For each game of ``after`` (game id → batches stored before the restart), the
    first batch numbered past those, if one is written: when it was written, and the
    engine's time of its first entry."""
    from games.core.log import InputLog
    from games.models import JournalBatch

    first: dict[int, tuple[int, datetime.datetime, bytes]] = {}
    rows = JournalBatch.objects.filter(game_id__in=list(after), written_at__gte=since)
    for game_id, seq, written_at, data in rows.values_list("game_id", "seq", "written_at", "data"):
        if seq >= after[game_id] and (game_id not in first or seq < first[game_id][0]):
            first[game_id] = (seq, written_at, data)
    return {game_id: (written_at, InputLog.unpack(bytes(data))[0][0][0])
            for game_id, (_seq, written_at, data) in first.items()}


def first_inputs_after_start(game_ids: list[int]) -> dict[int, float]:
    """For each game, the seconds from its start (the start button's ``started_at``)
    to its first batch's ``written_at``: the same measure as a resume's, for a fresh start."""
    from games.models import Game, JournalBatch

    started = dict(Game.objects.filter(pk__in=game_ids).values_list("pk", "started_at"))
    rows = JournalBatch.objects.filter(game_id__in=game_ids, seq=0).values_list("game_id", "written_at")
    return {game_id: (written_at - started[game_id]).total_seconds() for game_id, written_at in rows}


def chips_total() -> int:
    """Every user's chips and the pots of the running games."""
    from django.db.models import Sum

    from accounts.models import User
    from games.models import Game

    chips = User.objects.aggregate(total=Sum("chips"))["total"] or 0
    pots = Game.objects.filter(status=Game.Status.RUNNING).aggregate(total=Sum("pot"))["total"] or 0
    return chips + pots


def db(read):
    """``read`` as a coroutine: on a thread, its database connection closed after."""
    async def call(*args):
        def run():
            from django.db import connection

            try:
                return read(*args)
            finally:
                connection.close()

        return await asyncio.to_thread(run)

    return call


# --- the pages ------------------------------------------------------------------------------

class Room:
    """Every table's pages, on the one server of the moment (same port throughout)."""

    def __init__(self, setups: list[Setup], port: int, rate: float, seed: int) -> None:
        self.setups = setups
        self.rng = random.Random(seed)  # the pages' reconnection delays
        self.port = port
        self.base = f"http://127.0.0.1:{port}"
        self.rate = rate
        self.phase = 0
        self.restarted = 0.0  # when the last server started to accept connections (perf_counter)
        self.closing = False
        self.tasks: list[asyncio.Task] = []
        self.errors: collections.Counter[tuple[str, int]] = collections.Counter()  # by code and phase
        self.aborted_seen: set[int] = set()  # tables whose pages were shown "Game aborted"

    def open(self) -> None:
        for setup in self.setups:
            for page in setup.pages:
                self.tasks.append(asyncio.create_task(self.page(setup, page)))

    async def close(self) -> None:
        self.closing = True
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)

    async def page(self, setup: Setup, page: Page) -> None:
        import websockets

        url = f"ws://127.0.0.1:{self.port}/ws/table/{setup.table_id}/"
        retries = 0
        while not self.closing:
            try:
                ws = await connect(url, address=setup.address, cookie=page.cookie, origin=self.base, open_timeout=10)
            except (OSError, TimeoutError, websockets.exceptions.WebSocketException):
                await asyncio.sleep(self.retry_delay(retries))
                retries += 1
                continue
            retries = 0
            conn = Conn(self.phase)
            page.conns.append(conn)
            keys = asyncio.create_task(self.keys(page, conn, ws)) if page.script is not None else None
            try:
                async for message in ws:
                    self.read(setup, page, conn, message)
            except websockets.exceptions.ConnectionClosed:
                pass
            finally:
                if keys is not None:
                    keys.cancel()
                    await asyncio.gather(keys, return_exceptions=True)
                await ws.close()
            if ws.close_code not in RETRY_CODES:
                return  # the page gives up, as htmx's does
            await asyncio.sleep(self.retry_delay(retries))
            retries += 1

    def retry_delay(self, retries: int) -> float:
        doublings = min(max(retries - RETRY_FLAT, 0), RETRY_MAX_DOUBLINGS)
        return self.rng.uniform(0, RETRY_FLAT_S * 2**doublings)

    def read(self, setup: Setup, page: Page, conn: Conn, message: str) -> None:
        conn.greeted = True
        if RESTARTING in message:
            conn.told_restarting = True
        if RESUMING in message:
            conn.told_resuming = True
        head = HEAD.match(message)
        if head is None:
            if "ws-error" in message:
                conn.errors += 1
                code = ERROR_CODE.search(message)
                self.errors[code.group(1) if code else "?", conn.phase] += 1
            return
        if page.script is not None:
            page.script.read(message)
            for seat, seq in ACK.findall(head.group(2)):
                if int(seat) == page.seat:
                    frames = conn.frames_at.get(int(seq), 0)
                    if conn.first_ack_at is None:
                        conn.first_ack_at = time.perf_counter()
                    if frames > conn.acked_frames:
                        conn.acked_frames, conn.errors_at_ack = frames, conn.errors
        if RESULTS in message:
            title = RESULTS_TITLE.search(message)
            if title is not None and title.group(1) == "Game aborted":
                self.aborted_seen.add(setup.table_id)

    async def keys(self, page: Page, conn: Conn, ws) -> None:
        """The player's keys, open loop (R a second, exponential gaps), as bench/live.py's
        scripted client sends them, while its socket lasts."""
        import websockets

        due = time.perf_counter()
        try:
            while True:
                due = max(due + page.rng.expovariate(self.rate), time.perf_counter() - 1.0)
                delay = due - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                key = page.script.key()
                if key is None:
                    continue
                page.seq += 1
                frame, key_up = key_frames(key, page.seq)
                conn.frames += 1
                conn.frames_at[page.seq] = conn.frames
                await ws.send(frame)
                if key_up is not None:
                    conn.frames += 1
                    await ws.send(key_up)
        except websockets.exceptions.ConnectionClosed:
            pass


# --- the server and its restarts --------------------------------------------------------------

@dataclass
class Restart:
    """What one restart did (``kind``: sigkill or sigterm)."""

    kind: str
    running: list[int] = field(default_factory=list)  # games running when the server went
    exit_s: float = math.nan  # SIGTERM: from the signal to the process's exit
    down_s: float = math.nan
    boot_s: float = math.nan
    resume_s: dict[int, float] = field(default_factory=dict)  # game → seconds to its next input applied
    written_s: dict[int, float] = field(default_factory=dict)  # game → seconds to its next input written
    rebuilt_s: dict[int, float] = field(default_factory=dict)  # game → seconds to its "game resumed" line
    waited_s: dict[int, float] = field(default_factory=dict)  # game with players → from its rebuild to its countdown
    first_ack_s: dict[int, float] = field(default_factory=dict)  # staked table's game → seconds to an ack
    tracebacks: int = 0  # "Exception inside application" in the new server's log
    dropped: int = 0  # sockets opened after the restart that closed before the next stop
    resumed: set[int] = field(default_factory=set)  # games named in the new server's log
    not_resumed_logged: set[int] = field(default_factory=set)
    after: dict[int, str] = field(default_factory=dict)  # game → status once the wait ended
    stored: dict[int, Stored] = field(default_factory=dict)  # game → its inputs stored at the stop
    lost_seen: dict[int, int] = field(default_factory=dict)  # staked table's game → inputs lost, seen
    applied_seen: int = 0
    largest_batch: int = 0
    tables_told: int = 0
    pages_told_restarting: int = 0
    pages: int = 0

    @property
    def aborted(self) -> list[int]:
        return [g for g in self.running if self.after.get(g) == "aborted"]

    @property
    def not_resumed(self) -> list[int]:
        """Still running once the wait ended, yet not resumed by the new server."""
        return [g for g in self.running if self.after.get(g) == "running" and g not in self.resumed]

    @property
    def lost(self) -> list[int]:
        return self.aborted + self.not_resumed

    @property
    def finished(self) -> list[int]:
        return [g for g in self.running if self.after.get(g) == "finished"]

    def seconds(self, games: set[int] | None = None, written: bool = False) -> list[float]:
        """Each game's resume time (of ``games`` only, if given), to its first input
        applied (or ``written``); a game still running and never heard from: infinite."""
        times = self.written_s if written else self.resume_s
        return [times.get(g, math.inf) for g in self.running
                if (g in times or self.after.get(g) == "running") and (games is None or g in games)]

    def over_a_batch(self) -> int:
        """Staked tables that lost (as seen) more inputs than their largest batch held."""
        return sum(lost > self.stored[g].largest_batch for g, lost in self.lost_seen.items())


class Site:
    """The Daphne of the moment on ``port``: started, killed or stopped, started again."""

    def __init__(self, servers: Servers, port: int, env: dict[str, str]) -> None:
        self.servers = servers
        self.port = port
        self.env = env
        self.proc: subprocess.Popen | None = None
        self.log = ""
        self.started = 0

    async def start(self) -> tuple[float, datetime.datetime]:
        """A new Daphne; returns once it accepts connections: the seconds it took and
        that moment (wall clock, as the server's ``written_at``)."""
        self.started += 1
        name = f"daphne{self.started}"
        self.log = os.path.join(self.servers.tmp, f"{name}.log")
        t0 = time.perf_counter()
        self.proc = self.servers.daphne(name, self.port, self.env)
        deadline = t0 + 60
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{name} exited with {self.proc.returncode}")
            try:
                _reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
            except OSError:
                if time.perf_counter() > deadline:
                    raise RuntimeError(f"{name}: no server on port {self.port} after 60 s") from None
                await asyncio.sleep(0.02)
                continue
            at = datetime.datetime.now(datetime.UTC)
            writer.close()
            return time.perf_counter() - t0, at

    async def stop(self, how: signal.Signals) -> float:
        """Send ``how`` and wait for the process to end: the seconds it took."""
        t0 = time.perf_counter()
        self.proc.send_signal(how)
        try:
            await asyncio.to_thread(self.proc.wait, STOP_WAIT_SECONDS)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            await asyncio.to_thread(self.proc.wait)
            raise RuntimeError(f"the server did not exit within {STOP_WAIT_SECONDS:.0f} s of {how.name}") from None
        return time.perf_counter() - t0

    def tracebacks(self) -> int:
        with open(self.log, errors="replace") as f:
            return f.read().count("Exception inside application")

    def resumed_games(self) -> tuple[set[int], set[int]]:
        """Games the current server's log says it resumed, and could not resume."""
        with open(self.log, errors="replace") as f:
            text = f.read()
        return ({int(m.group(2)) for m in RESUMED_LINE.finditer(text)},
                {int(m.group(1)) for m in NOT_RESUMED_LINE.finditer(text)})

    async def watch_resumed(self, seen: dict[int, float], counting: dict[int, float], until: float) -> None:
        """Note when each ``game resumed`` line appears in the current server's log
        (``time.perf_counter``, read every 20 ms), until ``until``; and in ``counting``
        each ``game counts down`` line (a game with players, that waited for their pages)."""
        offset, rest = 0, ""
        while time.perf_counter() < until:
            with open(self.log, errors="replace") as f:
                f.seek(offset)
                text = f.read()
                offset = f.tell()
            now = time.perf_counter()
            lines = (rest + text).split("\n")
            rest = lines.pop()
            for line in lines:
                m = RESUMED_LINE.search(line)
                if m is not None:
                    seen.setdefault(int(m.group(2)), now)
                m = COUNTDOWN_LINE.search(line)
                if m is not None:
                    counting.setdefault(int(m.group(2)), now)
            await asyncio.sleep(0.02)


async def restart(site: Site, room: Room, how: signal.Signals, game_ids: list[int], staked: list[Setup],
                  before: dict[int, Stored], per_second: dict[int, float]) -> Restart:
    """Stop the server with ``how``, read what it left, start a new one and wait until
    every game that was running goes on (or RESUME_WAIT_SECONDS)."""
    from games.host import COUNTDOWN_SECONDS

    result = Restart("sigkill" if how == signal.SIGKILL else "sigterm")
    room.phase += 1  # sockets opened from now on are the next server's
    phase = room.phase - 1
    t0 = time.perf_counter()
    exit_s = await site.stop(how)
    if how == signal.SIGTERM:
        result.exit_s = exit_s
    status = await db(statuses)(game_ids)
    result.running = [g for g in game_ids if status.get(g) == "running"]
    result.stored = await db(stored_inputs)(game_ids)
    result.largest_batch = max((kept.largest_batch for kept in result.stored.values()), default=0)
    pages = [(setup, page) for setup in room.setups for page in setup.pages]
    result.pages = len(pages)
    result.pages_told_restarting = sum(any(c.told_restarting for c in page.conns if c.phase == phase)
                                       for _setup, page in pages)
    lost_and_applied = inputs_lost_seen(staked, phase, result.stored, before)
    result.lost_seen = {game: lost for game, (lost, _applied) in lost_and_applied.items()}
    result.applied_seen = sum(applied for _lost, applied in lost_and_applied.values())

    result.boot_s, restarted_at = await site.start()
    restarted = room.restarted = time.perf_counter()
    result.down_s = restarted - t0
    rebuilt: dict[int, float] = {}
    counting: dict[int, float] = {}
    watching = asyncio.create_task(site.watch_resumed(rebuilt, counting, restarted + RESUME_WAIT_SECONDS))
    batches_at_stop = {g: result.stored[g].batches for g in result.running}
    deadline = time.perf_counter() + RESUME_WAIT_SECONDS
    since = restarted_at - datetime.timedelta(seconds=1)
    while True:
        first = await db(first_new_batches)(batches_at_stop, since)
        status = await db(statuses)(result.running)
        waiting = [g for g in result.running if g not in first and status.get(g) == "running"]
        if not waiting or time.perf_counter() > deadline:
            break
        await asyncio.sleep(POLL_SECONDS)
    result.written_s = {g: (at - restarted_at).total_seconds() for g, (at, _t) in first.items()}
    watching.cancel()
    await asyncio.gather(watching, return_exceptions=True)
    result.rebuilt_s = {g: at - restarted for g, at in rebuilt.items()}
    result.waited_s = {g: at - rebuilt[g] for g, at in counting.items() if g in rebuilt}
    # The first input applied, by the engine's clock: a resumed table counts down
    # COUNTDOWN_SECONDS from its "game resumed" line (a table with players: from its
    # "game counts down" line, once their pages are back) and goes on with its engine at
    # the clock of its last write; its first new entry came that much engine time later.
    begun = {g: counting.get(g, at) - restarted for g, at in rebuilt.items()}
    result.resume_s = {
        g: begun[g] + COUNTDOWN_SECONDS + (t - result.stored[g].clock) / per_second[g]
        for g, (_at, t) in first.items() if g in begun and result.stored[g].clock is not None
    }
    result.after = status
    result.resumed, result.not_resumed_logged = site.resumed_games()
    result.tracebacks = site.tracebacks()
    result.tables_told = sum(
        any(c.told_resuming for page in setup.pages for c in page.conns if c.phase == room.phase)
        for setup in room.setups if setup.game_id in result.running
    )
    return result


def inputs_lost_seen(staked: list[Setup], phase: int, stored: dict[int, Stored],
                     before: dict[int, Stored]) -> dict[int, tuple[int, int]]:
    """For each staked table's game: the inputs its players saw applied in ``phase``
    that its stored entries lack, and how many they saw applied (the module's docstring)."""
    out = {}
    for setup in staked:
        lost = applied = 0
        now, then = stored.get(setup.game_id, Stored()), before.get(setup.game_id, Stored())
        for page in setup.pages:
            seen = sum(conn.applied_seen() for conn in page.conns if conn.phase == phase)
            kept = now.by_seat[page.seat] - then.by_seat[page.seat]
            lost += max(0, seen - kept)
            applied += seen
        out[setup.game_id] = (lost, applied)
    return out


def engine_per_second(kind: str) -> float:
    """The engine's time units a second (TetriWar counts milliseconds, the others seconds)."""
    from games.registry import GAMES

    return getattr(GAMES[kind].live, "per_second", 1)


def after_and_dropped(result: Restart, room: Room, staked: list[Setup]) -> None:
    """What the pages saw after ``result``'s restart, up to now: each staked table's first
    acknowledgement after it, and the sockets that closed (and opened again) since."""
    phase = room.phase
    for setup in staked:
        acks = [c.first_ack_at for page in setup.pages for c in page.conns if c.phase == phase and c.first_ack_at]
        if acks:
            result.first_ack_s[setup.game_id] = min(acks) - room.restarted
    result.dropped = sum(max(0, sum(c.phase == phase for c in page.conns) - 1)
                         for setup in room.setups for page in setup.pages)


async def drive(site: Site, setups: list[Setup], play: float, rate: float, seed: int) -> dict:
    room = Room(setups, site.port, rate, seed)
    out: dict = {"chips": []}
    pool = ThreadPoolExecutor(max_workers=8)  # start buttons pressed in parallel, as people do
    loop = asyncio.get_running_loop()
    try:
        await site.start()
        out["chips"].append(await db(chips_total)())
        room.open()
        deadline = time.perf_counter() + 60
        pages = sum(len(setup.pages) for setup in setups)
        while sum(bool(p.conns) and p.conns[-1].greeted for s in setups for p in s.pages) < pages:
            if time.perf_counter() > deadline:
                raise RuntimeError("not every page's socket was greeted within 60 s")
            await asyncio.sleep(0.05)
        in_order = sorted(setups, key=lambda setup: START_ORDER.index(setup.kind))
        errors = await asyncio.gather(*(
            loop.run_in_executor(pool, start_table, room.base, setup.table_id, setup.host_cookie, setup.address)
            for setup in in_order
        ))
        out["start_errors"] = [f"table {s.table_id}: {e}" for s, e in zip(in_order, errors, strict=True) if e]
        games = await db(games_of)([setup.table_id for setup in setups])
        for setup in setups:
            setup.game_id = games.get(setup.table_id, 0)
        game_ids = [setup.game_id for setup in setups if setup.game_id]
        out["games_started"] = len(game_ids)
        # Every game plays once it has written its first inputs (or is over already).
        deadline = time.perf_counter() + START_WAIT_SECONDS
        out["first_input_s"] = {}
        while True:
            out["first_input_s"].update(await db(first_inputs_after_start)(game_ids))
            status = await db(statuses)(game_ids)
            waiting = [g for g in game_ids if g not in out["first_input_s"] and status.get(g) == "running"]
            if not waiting or time.perf_counter() > deadline:
                break
            await asyncio.sleep(0.2)
        out["games_playing"] = len(out["first_input_s"])
        staked = [setup for setup in setups if setup.staked and setup.game_id]
        per_second = {setup.game_id: engine_per_second(setup.kind) for setup in setups}
        # How full the server's core is before the restart: a restart's work (every page
        # back, every game rebuilt) comes on top of it.
        cpu_before, at = cpu_seconds([site.proc.pid]), time.perf_counter()
        await asyncio.sleep(play)
        out["server_cpu_share_before_stop"] = (cpu_seconds([site.proc.pid]) - cpu_before) / (time.perf_counter() - at)
        killed = await restart(site, room, signal.SIGKILL, game_ids, staked, {}, per_second)
        out["chips"].append(await db(chips_total)())
        await asyncio.sleep(play)
        after_and_dropped(killed, room, staked)
        termed = await restart(site, room, signal.SIGTERM, game_ids, staked, killed.stored, per_second)
        out["chips"].append(await db(chips_total)())
        await asyncio.sleep(1.0)
        after_and_dropped(termed, room, staked)
        out["restarts"] = [killed, termed]
        out["errors"] = room.errors
        out["aborted_seen"] = len(room.aborted_seen)
    finally:
        await room.close()
        pool.shutdown(wait=False, cancel_futures=True)
    return out


def worse(values) -> float:
    """The larger of these figures, NaN (no game to measure) only if all are."""
    known = [value for value in values if not math.isnan(value)]
    return max(known) if known else math.nan


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=50, help="all-bot tables of each kind")
    parser.add_argument("--kinds", default=",".join(KINDS), help="the kinds of the all-bot tables")
    parser.add_argument("--staked", type=int, default=None,
                        help="TetriWar tables of four scripted players at a stake (default: --tables)")
    parser.add_argument("--play", type=float, default=5.0, help="seconds of play before each restart")
    parser.add_argument("--rate", type=float, default=5.0, help="keys a second per scripted player")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the server's database (SQLite) and logs")
    machine.add_arguments(parser)
    args = parser.parse_args()
    cpus = machine.split_from(parser, args)
    kinds = [kind.strip() for kind in args.kinds.split(",") if kind.strip()]
    unknown = set(kinds) - set(KINDS)
    if unknown:
        parser.error(f"--kinds: no such game {sorted(unknown)} (the games: {','.join(KINDS)})")
    staked = args.tables if args.staked is None else args.staked
    if args.tables < 0 or staked < 0 or not (args.tables * len(kinds) + staked):
        parser.error("at least one table (--tables, --staked)")

    stop_on_sigterm()
    machine.pin(os.getpid(), cpus.client)
    with Servers.scratch("tetriwar-restart-", cpus.server, keep=args.keep) as servers:
        env = server_env(servers.tmp, LOG_LEVEL="INFO")  # the "game resumed" lines
        django_setup(env)
        setups = make_tables(kinds, args.tables, staked, args.seed)
        site = Site(servers, free_port(), env)
        out = asyncio.run(drive(site, setups, args.play, args.rate, args.seed))

    killed, termed = out["restarts"]
    by_kind: dict[str, set[int]] = {}  # the tables' games by kind, the staked tables apart
    for setup in setups:
        by_kind.setdefault("tetriwar_staked" if setup.staked else setup.kind, set()).add(setup.game_id)
    report.cpu_split_figures(cpus)
    figure("kinds", ",".join(kinds))
    figure("bot_tables_per_kind", args.tables)
    figure("staked_tables", staked)
    figure("play_s", args.play)
    figure("games_started", out["games_started"])
    if out["start_errors"]:
        figure("start_errors", f"{len(out['start_errors'])} ({out['start_errors'][0]})")
    figure("games_that_wrote_inputs_before_the_first_stop", out["games_playing"])
    figure("games_over_before_the_first_stop", out["games_started"] - len(killed.running))
    figure("server_cpu_share_before_stop", f"{out['server_cpu_share_before_stop']:.2f}")
    errors = out["errors"]
    figure("error_replies", sum(errors.values()))
    for code in sorted({code for code, _phase in errors}):
        by_phase = [errors[code, phase] for phase in range(3)]
        figure(f"error_replies_{code}", f"{sum(by_phase)} ({' '.join(map(str, by_phase))} before, between, after)")
    figure("first_input_after_start_max_s_by_kind", " ".join(
        f"{label}={max((out['first_input_s'][g] for g in games if g in out['first_input_s']), default=math.nan):.2f}"
        for label, games in by_kind.items()))
    figure("tables_shown_game_aborted", out["aborted_seen"])
    for r in (killed, termed):
        p = r.kind
        figure(f"{p}_games_running_at_stop", len(r.running))
        if p == "sigterm":
            figure(f"{p}_exit_s", r.exit_s, ".2f")
            figure(f"{p}_pages_told_restarting", f"{r.pages_told_restarting} of {r.pages}")
        figure(f"{p}_boot_s", r.boot_s, ".2f")
        figure(f"{p}_down_s", r.down_s, ".2f")
        figure(f"{p}_games_resumed", len(set(r.running) & r.resumed))
        figure(f"{p}_games_not_resumed_logged", len(set(r.running) & r.not_resumed_logged))
        figure(f"{p}_games_finished_meanwhile", len(r.finished))
        figure(f"{p}_games_aborted", len(r.aborted))
        figure(f"{p}_games_not_resumed_in_the_wait", len(r.not_resumed))
        figure(f"{p}_games_lost", len(r.lost))
        figure(f"{p}_tables_told", f"{r.tables_told} of {len(r.running)}")
        figure(f"{p}_tables_without_input_after_restart", sum(math.isinf(s) for s in r.seconds()))
        figure(f"{p}_inputs_stored_at_stop", sum(kept.entries for kept in r.stored.values()))
        figure(f"{p}_largest_batch_entries", r.largest_batch)
        figure(f"{p}_inputs_applied_seen", r.applied_seen)
        figure(f"{p}_inputs_lost_seen", sum(r.lost_seen.values()))
        figure(f"{p}_inputs_lost_seen_max_per_table", max(r.lost_seen.values(), default=0))
        figure(f"{p}_tables_losing_more_than_their_largest_batch", r.over_a_batch())
        figure(f"{p}_resume_max_s_by_kind", " ".join(
            f"{label}={max(r.seconds(games), default=math.nan):.2f}" for label, games in by_kind.items()))
        figure(f"{p}_written_max_s_by_kind", " ".join(
            f"{label}={max(r.seconds(games, written=True), default=math.nan):.2f}"
            for label, games in by_kind.items()))
        figure(f"{p}_staked_first_ack_max_s", max(r.first_ack_s.values(), default=math.nan), ".2f")
        figure(f"{p}_server_tracebacks", r.tracebacks)
        figure(f"{p}_sockets_dropped_after_restart", r.dropped)
        figure(f"{p}_rebuilt_first_s", min(r.rebuilt_s.values(), default=math.nan), ".2f")
        figure(f"{p}_rebuilt_last_s", max(r.rebuilt_s.values(), default=math.nan), ".2f")
        waited = sorted(r.waited_s.values())
        figure(f"{p}_waited_for_pages_p50_s", percentile(waited, 0.5), ".2f")
        figure(f"{p}_waited_for_pages_max_s", max(waited, default=math.nan), ".2f")
        figure(f"{p}_written_p50_s", percentile(r.seconds(written=True), 0.50), ".2f")
        figure(f"{p}_written_p99_s", percentile(r.seconds(written=True), 0.99), ".2f")
        figure(f"{p}_resume_p50_s", percentile(r.seconds(), 0.50), ".2f")
        figure(f"{p}_resume_p99_s", percentile(r.seconds(), 0.99), ".2f")
        figure(f"{p}_resume_max_s", max(r.seconds(), default=math.nan), ".2f")
    chips = out["chips"]
    figure("chips_counts", " ".join(str(c) for c in chips))
    figure("chips_difference", chips[-1] - chips[0])
    figure("tables", len(setups))
    figure("games_lost", len(killed.lost) + len(termed.lost))
    figure("inputs_lost", sum(killed.lost_seen.values()) + sum(termed.lost_seen.values()))
    figure("chips_conserved", "yes" if len(set(chips)) == 1 else "no")
    figure("sigterm_exit_s", termed.exit_s, ".2f")
    figure("resume_p50_s", worse(percentile(r.seconds(), 0.50) for r in (killed, termed)), ".2f")
    figure("resume_p99_s", worse(percentile(r.seconds(), 0.99) for r in (killed, termed)), ".2f")


if __name__ == "__main__":
    main()
