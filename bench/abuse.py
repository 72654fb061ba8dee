"""Abuse: hostile clients beside honest live tables, one attack at a time.

    python bench/abuse.py [--tables N] [--seconds S] [--attacks flood,nested,…] [--rate R]
                          [--seed S] [--bot-level L] [--keep] [--server-cpus CPUS] [--client-cpus CPUS]
                          [--scale-out [--redis-db D]]

Starts the embedded server as ``bench/live.py`` does (one Daphne process, SQLite in a
temporary file, the in-memory layer, its whole configuration from the environment,
the per-address limits at their defaults) and plays N honest live tables (default
50) exactly as there: 4 bots and a spectator a table, each table from a loopback
address of its own, keys sent open loop, and a table whose game ends plays again.
A quiet window of S seconds (default 30) measures the honest tables alone
(``quiet_p99_ms``, ``quiet_server_cpu_s``); then each attack runs for S seconds beside
them, one at a time, each after a quiet window of its own (the first attack's is that
first one): the honest tables' own load moves as their games go on (lines raise the
level, the level quickens gravity, games end and start again), so an attack is set
against the honest tables just before it. Each attack comes from an address of its own (127.0.66.<k>, k = 1, 2, … in the order given), in a
process of its own (so that it does not slow the honest clients' event loop, only
the machine), followed by a few seconds to settle. The server runs on
``--server-cpus``, the honest client and every attack process on ``--client-cpus``
(``bench/machine.py``: by default the first half of the machine's CPUs and the rest,
on a 2-core machine CPU 0 and CPU 1), each attack process at the lowest priority
(nice 19), so that an attacker cannot starve the honest client of its CPUs.

``--scale-out`` runs the site as docs/operations.md does on several processes instead:
PostgreSQL (a scratch database of the run's own) and Redis (database ``--redis-db``, 8
by default, flushed), two Daphnes each hosting one of two shards' tables, a third
hosting none that serves the pages, the static files and the lobby, and nginx in front,
the site config/nginx.py writes with ``--pages``, whose limits per client address
(``limit_req``, ``limit_conn``) stand before the site's own; every one of them on the
server CPUs (PostgreSQL and Redis, which the bench does not start, are not pinned). The
honest tables and the attacks connect to nginx. The server's figures (CPU, memory,
threads) are those of the Daphnes and nginx together, its database connections
PostgreSQL's to the scratch database. ``chat`` is not run there (its books are read
from SQLite's file): the default attacks are the others.

The attacks, as a hostile client would make them; like one, an attacker whose socket
the server closes (or refuses) opens another after 0.2 s, until its S seconds are up:

- ``flood``: one anonymous socket on a live table sends ``{"intent":"left","seq":1}``
  as fast as it can.
- ``nested``: one socket for each kind of bad frame, each sending its frame about 20
  times a second (up to 30 new sockets a kind): ``"[" * 1000``
  (1000 bytes, under the frame-size limit: it reaches the JSON parser), ``{"a":``
  nested 1000 deep, a text frame of invalid UTF-8, a binary frame, a 1 MiB text frame,
  and a 256 KiB message sent as 8192 continuation frames.
- ``resync``: a spectator that never reads its socket (a raw TCP socket with a 4 KiB
  receive buffer: it reads the handshake's answer and nothing after) and sends
  ``{"action":"resync"}`` 60 times a second; every answer is a full table.
- ``pages``: 300 clients at once GET the lobby and table pages, a new connection each
  time, again and again (its "sockets" are those connections: closed when refused,
  cut off, or answered 429 or 503).
- ``churn``: table sockets opened and closed as fast as they go from one address (up to
  128 handshakes in flight, at most 200 a second).
- ``multisocket``: a signed-in player seated at a table started for the attack (it and
  a server bot; the user and its session are written to the database before the
  server starts, as for the honest players) opens 10 sockets and sends intents from all
  of them at full speed;
  ``multisocket_accepted_intents_per_s`` is how many of them a second the host
  acknowledged, over the S seconds.
- ``seq``: a seated player (the same way) sends intents 5 times a second whose ``seq``
  is negative, huge (2**62), a float or a string; ``seq_full_state_frames`` is how many
  full-state (resync-sized) frames it received while doing so.
- ``chat``: 12 signed-in writers (users and sessions written before the server
  starts), 6 behind the attack's one address and 6 each from an address of its own
  (127.0.67.<i>), each with a socket on the lobby and on two honest tables, where it
  is a spectator (the honest tables' spectators read what it writes there), say
  ``{"intent":"say","text":…}`` in turn with hostile texts: the longest a message may
  be (settings.CHAT_MAX_LENGTH), one character more, 1000 characters, markup and
  script, template tags, "Zalgo" (two dozen combining marks a letter), direction
  overrides and invisible characters, terminal escapes and bracket markup, as many
  emoji as a message holds, emoji sequences, empty and white space only. Half of the
  writers send as fast as they can, the other half just under their frame budget
  (0.9 × settings.WS_FRAMES_PER_SECOND) so that the edge keeps their sockets open and
  the chat's own budgets alone hold them back. ``chat_sent`` is the frames they sent;
  ``chat_refused`` the refusals by code (CHAT_FLOOD, MUTED, CHAT_TOO_LONG, CHAT_EMPTY;
  FLOOD: the socket closed by the edge; FRAME_TOO_LARGE: the 1000 characters, refused
  at the edge; any other code after them); ``chat_written`` the messages the server
  wrote (from the database's last message id, which counts past a room's trimmed
  history) beside
  ``chat_written_bound``, the most the budgets allow over the attack (a writer
  CHAT_BURST then CHAT_PER_MINUTE, an address CHAT_ADDRESS_BURST then
  CHAT_ADDRESS_PER_MINUTE; the flood mutes, after CHAT_STRIKES refusals, keep it
  nearer the bursts alone); ``chat_muted_accounts`` the writers whose account is muted
  (an address muted as a whole mutes no account), ``chat_mutes_logged`` the automatic
  mutes logged, and ``chat_unescaped_texts`` the messages the attackers received whose
  text still held ``<``, ``>`` or ``"`` (it must be 0).

For each attack it prints ``<attack>_p99_ms`` (honest tables, intent → own fragment,
intents sent during the attack; as in bench/live.py an intent without its ack within
1 s is a timeout, ``<attack>_timeouts``, and not part of it),
``<attack>_spectator_p99_ms`` (intent → the table's spectator has it; the quiet
window's is ``quiet_spectator_p99_ms``),
``<attack>_p99_with_timeouts_ms`` (the same p99 with every timeout counted as 1000 ms),
``<attack>_p99_ratio`` (that, over the same of the quiet window just before the attack,
``<attack>_quiet_p99_with_timeouts_ms``: an attack that starves the honest tables
cannot look good by leaving only its fast answers), ``<attack>_quiet_server_cpu_s``
(the server's CPU seconds in that quiet window, beside ``<attack>_server_cpu_s``: what
the attack added), ``<attack>_quiet_others_cpu_s`` and ``<attack>_quiet_steal_s``,
``<attack>_honest_sockets_dropped`` (honest sockets the server closed),
``<attack>_rss_growth_mb`` (the server's resident memory at the end of the attack
minus at its start, from ``/proc/<pid>/status``; an attack stops early if it passes
1.5 GB), ``<attack>_threads_after`` (the server's threads 3 s after the attack),
``<attack>_db_connections_after`` (SQLite: the server's open file descriptors on the
database file, from ``/proc/<pid>/fd``), ``<attack>_attackers_closed`` (attacking
sockets the server closed, refused at the handshake with an HTTP status, or hung up on
during it, out of those tried; the ways follow in brackets) and
``<attack>_tracebacks`` (new ``Traceback`` lines in the server's log, through the
settling time), with a few lines of the attack's own, and ``<attack>_server_cpu_s`` and
``<attack>_attacker_cpu_s`` (CPU seconds of each during the attack: the attacker shares
the client's CPUs with the honest tables, so a costly attack can still slow their
client), and ``<attack>_others_cpu_s`` (``quiet_others_cpu_s`` for the quiet window):
the CPU of every process on the machine not the bench's own (it, its server, its
attackers; kernel threads apart), from ``/proc``, with ``<attack>_steal_s``
(``quiet_steal_s``): what the hypervisor took, from ``/proc/stat``. Then, over the whole run,
``server_cpus``, ``client_cpus``, ``server_cpu_s``, ``client_cpu_s`` (the honest client
and the attackers), ``others_cpu_s``, ``others_top`` (the busiest of them),
``steal_s``, ``kernel_cpu_s``, ``load_avg_1m`` and ``disturbed_windows`` (the windows
where others and the hypervisor took more than a tenth of a core). At the end ``tracebacks_total``, the headline
``worst_p99_ratio`` and, last, ``disturbed``: ``yes`` when any window was, so that its
ratios are not the server's alone.

The server is expected to defend itself with a frame budget per player (over it: an
error frame ``data-code="FLOOD"``, then close code 4008), per-address caps on sockets
(over them: the handshake refused with HTTP 403), a bound on unsent bytes per socket
and a bounded pool of request threads; the figures show whether it does.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import argparse  # noqa: E402
import asyncio  # noqa: E402
import base64  # noqa: E402
import collections  # noqa: E402
import contextlib  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import resource  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import sqlite3  # noqa: E402
import time  # noqa: E402

from bench import machine, proxy  # noqa: E402
from bench.client import connect, get_request, read_response, start_table  # noqa: E402
from bench.live import ACK_TIMEOUT, ERROR_CODE, HEAD, OPTIONS, Room, loop_lag, make_tables  # noqa: E402
from bench.report import (  # noqa: E402
    cpu_split_figures,
    disturbed_figure,
    figure,
    figure_lines,
    machine_figures,
    percentile,
)
from bench.server import (  # noqa: E402
    PG,
    REDIS,
    ScratchDatabase,
    Servers,
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

ATTACKS = ("flood", "nested", "resync", "pages", "churn", "multisocket", "seq", "chat")
EMBEDDED_ONLY = ("chat",)  # its books are read from SQLite's file
SCALE_OUT_SHARDS = 2  # --scale-out: two Daphnes host a shard each, a third the pages
RSS_CAP_MB = 1536.0  # an attack that takes the server past this is stopped
SETTLED_AFTER = 3.0  # seconds of an attack's start left out of <attack>_settled_p99_ms
SETTLE = 3.0  # seconds between an attack's end and the threads / database counts
CHILD_GRACE = 30.0  # seconds an attack process may overrun before it is killed

RECONNECT_PAUSE = 0.2  # seconds before an attacker opens a socket again
NESTED_GAP = 0.05  # seconds between two bad frames of one socket (1 MiB: 0.1, fragmented: 0.5)
NESTED_RECONNECTS = 30  # new sockets a kind may open after the server closed its last
RESYNC_RATE = 60.0  # {"action":"resync"} frames a second from the reader-less spectator
RESYNC_RCVBUF = 4096  # bytes: its receive buffer (the kernel doubles it)
PAGE_CLIENTS = 300
PAGE_TIMEOUT = 10.0
CHURN_CONCURRENCY = 128  # handshakes in flight: a loaded server takes a second or more each
CHURN_MAX_RATE = 200.0  # handshakes a second at most, refused or not
MULTI_SOCKETS = 10
SEQ_RATE = 5.0
SEQ_VALUES = (-1, 2**62, 1.5, "7")
CHAT_WRITERS_SHARED = 6  # signed-in chat writers behind the attack's one address (a flat, a school)
CHAT_WRITERS_ALONE = 6  # … and each from an address of its own
CHAT_ALONE_ADDRESS = "127.0.67.{}"  # theirs (honest tables stop at 127.0.65, the attacks' own are 127.0.66)
CHAT_TABLE_SOCKETS = 2  # honest tables a chat writer watches and writes at, besides the lobby
CHAT_PACE = 0.9  # a paced chat writer's share of its frame budget (settings.WS_FRAMES_PER_SECOND)
CHAT_OVERLONG = 1000  # characters: the over-long message
CHAT_WRITER = "attacker_chat_{}"

ACK_ANY = re.compile(r" a(\d+):(-?\d+)")  # also the seqs an honest client never sends
PIECE = re.compile(r'<div id="piece-(\d+)" class="pc [IOJLSZT] ')  # a falling piece: the game runs
FULL_STATE = 'id="game"'  # in a full-state frame (a game's start, or a resync)
# The chat flood's refusals, always listed (FLOOD: its socket closed by the edge;
# FRAME_TOO_LARGE: the over-long message's frame, refused at the edge).
CHAT_REFUSALS = ("CHAT_FLOOD", "MUTED", "CHAT_TOO_LONG", "CHAT_EMPTY", "FLOOD", "FRAME_TOO_LARGE")


# --- the attacks (each in a process of its own) -----------------------------------------

class Tally:
    """What one attack's sockets met."""

    def __init__(self) -> None:
        self.sockets = 0  # opened, or tried: every handshake attempted
        self.closed = 0  # closed by the server, or refused at the handshake
        self.refused: collections.Counter[str] = collections.Counter()  # handshake status
        self.failed: collections.Counter[str] = collections.Counter()  # handshake errors
        self.close_codes: collections.Counter[str] = collections.Counter()
        self.errors: collections.Counter[str] = collections.Counter()  # error frames by code
        self.sent = 0
        self.received = 0

    def result(self) -> dict:
        return {
            "sockets": self.sockets, "closed": self.closed, "refused": dict(self.refused),
            "failed": dict(self.failed), "close_codes": dict(self.close_codes), "errors": dict(self.errors),
            "sent": self.sent, "received": self.received,
        }


class Attack:
    """The attack's configuration and clock, and whether it must stop early (SIGTERM)."""

    def __init__(self, config: dict) -> None:
        self.config = config
        self.port = config["port"]
        self.address = config["address"]
        self.stop = asyncio.Event()
        self.start = time.perf_counter()
        self.until = self.start + config["seconds"]
        self.tally = Tally()

    def running(self) -> bool:
        return time.perf_counter() < self.until and not self.stop.is_set()

    def left(self) -> float:
        return max(0.0, self.until - time.perf_counter())

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def table_url(self, table: int) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/table/{table}/"

    async def connect(self, table: int | str, cookie: str | None = None, on_message=None,
                      record: dict | None = None, address: str | None = None) -> Hostile | None:
        """One attacking socket on table ``table`` (or at the path ``table``, such as
        ``/ws/lobby/``), from the attack's address or ``address``; None if the handshake
        failed (refused with an HTTP status: the server closed it). ``record`` (a part of
        the attack's own books) counts the socket and its refusal too."""
        import websockets

        tally = self.tally
        tally.sockets += 1
        if record is not None:
            record["sockets"] += 1
        try:
            url = self.table_url(table) if isinstance(table, int) else f"ws://127.0.0.1:{self.port}{table}"
            ws = await connect(url, address=address or self.address, cookie=cookie, origin=self.origin,
                               open_timeout=10, close_timeout=1)
        except websockets.exceptions.InvalidStatus as err:
            tally.closed += 1
            tally.refused[str(err.response.status_code)] += 1
            if record is not None:
                record["closed"] += 1
            return None
        except websockets.exceptions.InvalidMessage:  # no HTTP answer: the server hung up
            tally.closed += 1
            tally.refused["dropped"] += 1
            if record is not None:
                record["closed"] += 1
            return None
        except (OSError, TimeoutError, websockets.exceptions.WebSocketException) as err:
            tally.failed[type(err).__name__] += 1
            return None
        return Hostile(ws, tally, on_message)


class Hostile:
    """An attacking socket whose replies are read in the background, and whether the
    server closed it (before the attack did)."""

    def __init__(self, ws, tally: Tally, on_message=None) -> None:
        self.ws = ws
        self.tally = tally
        self.ours = False
        self.by_server = False
        self.reader = asyncio.create_task(self.read(on_message))

    async def read(self, on_message) -> None:
        import websockets

        try:
            async for message in self.ws:
                self.tally.received += 1
                if isinstance(message, str):
                    if "ws-error" in message:
                        code = ERROR_CODE.search(message)
                        self.tally.errors[code.group(1) if code else "?"] += 1
                    if on_message is not None:
                        on_message(message)
        except websockets.exceptions.ConnectionClosed:
            pass
        self.ended()

    def ended(self) -> None:
        if not self.ours and not self.by_server:
            self.by_server = True
            self.tally.closed += 1
            self.tally.close_codes[str(self.ws.close_code)] += 1

    @property
    def open(self) -> bool:
        return not self.by_server

    async def send(self, data, **kwargs) -> bool:
        import websockets

        try:
            await self.ws.send(data, **kwargs)
        except websockets.exceptions.ConnectionClosed:
            await asyncio.sleep(0)  # let the reader see the close code
            self.ended()
            return False
        self.tally.sent += 1
        return True

    async def close(self) -> None:
        if not self.by_server:
            self.ours = True
        try:
            await asyncio.wait_for(self.ws.close(), 3)
        except Exception:
            self.ws.transport.abort()
        try:
            await asyncio.wait_for(self.reader, 3)
        except (Exception, asyncio.CancelledError):
            self.reader.cancel()


async def flood(attack: Attack) -> dict:
    """An anonymous socket on a live table sending small valid-looking frames flat out;
    when the server closes it, another (one at a time), as a hostile client would."""
    started = time.perf_counter()
    frame = '{"intent":"left","seq":1}'
    while attack.running():
        hostile = await attack.connect(attack.config["tables"][0])
        if hostile is not None:
            while attack.running() and hostile.open:
                if not await hostile.send(frame):
                    break
                if attack.tally.sent % 64 == 0:
                    await asyncio.sleep(0)  # let its reader take the replies
            await hostile.close()
        if attack.running():
            await asyncio.sleep(RECONNECT_PAUSE)
    seconds = time.perf_counter() - started
    return {"frames_per_s": attack.tally.sent / seconds if seconds else 0.0}


def nested_frames() -> dict[str, tuple]:
    """Each kind: (what to send, send's keyword arguments, seconds between two)."""
    fragments = ["f" * 32] * 8192  # 256 KiB in 8192 frames: a text message in fragments
    return {
        "brackets": ("[" * 1000, {}, NESTED_GAP),
        "objects": ('{"a":' * 1000 + "1" + "}" * 1000, {}, NESTED_GAP),
        "utf8": (b'{"intent":"left","x":"\xff\xfe\xc0\xaf"}', {"text": True}, NESTED_GAP),
        "binary": (bytes(range(256)) * 4, {}, NESTED_GAP),
        "huge": ("x" * (1 << 20), {}, 2 * NESTED_GAP),
        "fragments": (fragments, {}, 10 * NESTED_GAP),
    }


async def nested(attack: Attack) -> dict:
    """A socket for each kind of bad frame; a new one whenever the server closes it."""
    table = attack.config["tables"][0]
    per_kind: dict[str, dict] = {}

    async def send_kind(kind: str, data, kwargs: dict, gap: float) -> None:
        record = per_kind[kind] = {"sockets": 0, "closed": 0, "sent": 0}
        while attack.running() and record["sockets"] <= NESTED_RECONNECTS:
            hostile = await attack.connect(table, record=record)
            if hostile is not None:
                while attack.running() and hostile.open:
                    if not await hostile.send(data, **kwargs):
                        break
                    record["sent"] += 1
                    await asyncio.sleep(gap)
                await hostile.close()
                record["closed"] += hostile.by_server
            if attack.running():
                await asyncio.sleep(RECONNECT_PAUSE)

    await asyncio.gather(*(send_kind(kind, *spec) for kind, spec in nested_frames().items()))
    return {"kinds": {kind: f"{r['closed']}/{r['sockets']} closed, {r['sent']} sent" for kind, r in per_kind.items()}}


def client_frame(payload: bytes, opcode: int = 1) -> bytes:
    """One masked, final WebSocket frame from a client (RFC 6455 §5.2)."""
    mask = os.urandom(4)
    n = len(payload)
    if n < 126:
        head = bytes([0x80 | opcode, 0x80 | n])
    elif n < 65536:
        head = bytes([0x80 | opcode, 0x80 | 126]) + n.to_bytes(2, "big")
    else:
        head = bytes([0x80 | opcode, 0x80 | 127]) + n.to_bytes(8, "big")
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


TCP_ESTABLISHED = 1


async def resync(attack: Attack) -> dict:
    """A spectator that never reads (see ``unread_spectator``); when the server drops
    it, another, one at a time."""
    outcome: dict = {"tcp_states": collections.Counter()}
    while attack.running():
        await unread_spectator(attack, outcome)
        if attack.running():
            await asyncio.sleep(RECONNECT_PAUSE)
    outcome["tcp_states"] = dict(outcome["tcp_states"])
    return outcome


async def unread_spectator(attack: Attack, outcome: dict) -> None:
    """A raw socket with a tiny receive buffer that reads the handshake's answer (byte
    by byte, so not one byte more) and then only writes ``{"action":"resync"}``, until
    the attack ends or the server drops it (a send fails, or TCP leaves ESTABLISHED:
    CLOSE_WAIT once the server sent its FIN, CLOSE once it reset)."""
    tally, loop = attack.tally, asyncio.get_running_loop()
    table = attack.config["tables"][0]
    tally.sockets += 1
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RESYNC_RCVBUF)
    sock.bind((attack.address, 0))
    sock.setblocking(False)

    def tcp_state() -> int:
        return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]

    try:
        await asyncio.wait_for(loop.sock_connect(sock, ("127.0.0.1", attack.port)), 10)
        key = base64.b64encode(os.urandom(16)).decode()
        await loop.sock_sendall(sock, (
            f"GET /ws/table/{table}/ HTTP/1.1\r\nHost: 127.0.0.1:{attack.port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Origin: {attack.origin}\r\n\r\n"
        ).encode())
        answer = b""
        while b"\r\n\r\n" not in answer and len(answer) < 16384:
            byte = await asyncio.wait_for(loop.sock_recv(sock, 1), 10)
            if not byte:
                break
            answer += byte
        status = answer.split(b" ", 2)[1].decode() if answer.count(b" ") >= 2 else "none"
        if status != "101":
            tally.closed += 1
            tally.refused[status if status != "none" else "dropped"] += 1
            return
        frame = client_frame(b'{"action":"resync"}')
        due = time.perf_counter()
        dropped = False
        while attack.running():
            due += 1 / RESYNC_RATE
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            try:
                await asyncio.wait_for(loop.sock_sendall(sock, frame), max(0.05, attack.left()))
            except TimeoutError:
                outcome["send_blocked"] = outcome.get("send_blocked", 0) + 1  # the server stopped reading
                break
            except OSError:  # reset or broken pipe: the server dropped us
                dropped = True
                break
            tally.sent += 1
            if tally.sent % 15 == 0 and tcp_state() != TCP_ESTABLISHED:
                dropped = True
                break
        state = tcp_state()
        outcome["tcp_states"][str(state)] += 1
        if dropped or state != TCP_ESTABLISHED:
            tally.closed += 1
            tally.close_codes["tcp"] += 1
    except (OSError, TimeoutError) as err:
        tally.failed[type(err).__name__] += 1
    finally:
        sock.close()


async def pages(attack: Attack) -> dict:
    """300 clients at once, each GETting the lobby or a table page on a new connection,
    again and again."""
    tables = attack.config["tables"]
    tally = attack.tally
    statuses: collections.Counter[str] = collections.Counter()
    latencies: list[float] = []

    async def client(i: int) -> None:
        n = 0
        while attack.running():
            n += 1
            path = b"/lobby/" if (i + n) % 2 else b"/lobby/table/%d/" % tables[(i + n) % len(tables)]
            request = get_request(path, attack.port, b"tetriwar-abuse", close=True)
            writer = None
            started = time.perf_counter()
            tally.sockets += 1
            try:
                reader, writer = await asyncio.wait_for(asyncio.open_connection(
                    "127.0.0.1", attack.port, local_addr=(attack.address, 0)), PAGE_TIMEOUT)
                writer.write(request)
                status, _head, _body, _close = await asyncio.wait_for(read_response(reader), PAGE_TIMEOUT)
                statuses[str(status)] += 1
                latencies.append((time.perf_counter() - started) * 1000)
                if status in (429, 503):  # turned away
                    tally.closed += 1
                    tally.refused[str(status)] += 1
            except (OSError, TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as err:
                statuses[type(err).__name__] += 1
                if isinstance(err, ConnectionError | asyncio.IncompleteReadError):  # refused or cut off
                    tally.closed += 1
                    tally.close_codes[type(err).__name__] += 1
                await asyncio.sleep(0.05)
            finally:
                if writer is not None:
                    writer.close()

    await asyncio.gather(*(client(i) for i in range(PAGE_CLIENTS)))
    return {"requests": sum(statuses.values()), "answers": dict(statuses),
            "p99_ms": percentile(latencies, 0.99) if latencies else float("nan")}


async def churn(attack: Attack) -> dict:
    """Table sockets opened and closed at once, as fast as they go, from one address."""
    tables = attack.config["tables"]
    next_slot = time.perf_counter()
    opened = 0

    async def churner(i: int) -> None:
        nonlocal next_slot, opened
        n = 0
        while attack.running():
            slot = max(time.perf_counter(), next_slot)
            next_slot = slot + 1 / CHURN_MAX_RATE
            await asyncio.sleep(max(0.0, slot - time.perf_counter()))
            if not attack.running():
                break
            n += 1
            hostile = await attack.connect(tables[(i + n * CHURN_CONCURRENCY) % len(tables)])
            if hostile is not None:
                opened += 1
                await hostile.close()

    started = time.perf_counter()
    await asyncio.gather(*(churner(i) for i in range(CHURN_CONCURRENCY)))
    seconds = time.perf_counter() - started
    return {"handshakes_per_s": attack.tally.sockets / seconds, "opened_per_s": opened / seconds}


class SeatWatch:
    """What a seated attacker sees: the game running, the acks of its seat, full-state frames."""

    def __init__(self, seat: int = 1) -> None:
        self.seat = seat
        self.running = asyncio.Event()
        self.acked: set[int] = set()
        self.full_state = 0
        self.unparsed_heads = 0  # version comments an honest client's pattern cannot read
        self.counting = False

    def __call__(self, message: str) -> None:
        if not self.running.is_set() and any(int(seat) == self.seat for seat in PIECE.findall(message)):
            self.running.set()  # its own piece falls: past the countdown, intents count
        if not message.startswith("<!--v"):
            return
        if HEAD.match(message) is None:
            self.unparsed_heads += 1
        head = message[: message.find("-->")]
        for seat, seq in ACK_ANY.findall(head):
            if int(seat) == self.seat:
                self.acked.add(int(seq))
        if self.counting and FULL_STATE in message:
            self.full_state += 1


async def seated(attack: Attack, spec: dict, sockets: int, watch: SeatWatch) -> list[Hostile]:
    """The attacker's sockets on its own table, then its game started (by the attacker,
    its host, through the start button) and running."""
    hostiles = []
    for _ in range(sockets):
        hostile = await attack.connect(spec["table"], spec["cookie"], watch)
        if hostile is not None:
            hostiles.append(hostile)
    error = await asyncio.get_running_loop().run_in_executor(
        None, start_table, attack.origin, spec["table"], spec["cookie"], attack.address)
    if error:
        raise RuntimeError(f"the attack's table did not start: {error}")
    try:
        await asyncio.wait_for(watch.running.wait(), 10)
    except TimeoutError:
        raise RuntimeError("the attack's game did not run within 10 s") from None
    return hostiles


async def multisocket(attack: Attack) -> dict:
    """One seated player, ten sockets, intents from all of them at full speed; a socket
    the server closes is opened again (after 0.1 s), as a hostile client would."""
    spec = attack.config["multisocket"]
    watch = SeatWatch()
    hostiles = await seated(attack, spec, MULTI_SOCKETS, watch)
    opened_at_start = len(hostiles)
    started = attack.start = time.perf_counter()  # the attack proper: once the game runs
    attack.until = started + attack.config["seconds"]
    sent: set[int] = set()

    async def pound(i: int, hostile: Hostile | None) -> None:
        n = 0
        while attack.running():
            if hostile is None or not hostile.open:
                if hostile is not None:
                    await hostile.close()
                await asyncio.sleep(RECONNECT_PAUSE)
                hostile = await attack.connect(spec["table"], spec["cookie"], watch)
                continue
            n += 1
            seq = n * MULTI_SOCKETS + i  # unique over the sockets, and small as a browser's
            sent.add(seq)
            if not await hostile.send(json.dumps({"intent": "left" if n % 2 else "right", "seq": seq})):
                continue
            if n % 16 == 0:
                await asyncio.sleep(0)
        if hostile is not None:
            await asyncio.sleep(0.5)  # the last acks
            await hostile.close()

    slots = hostiles + [None] * (MULTI_SOCKETS - len(hostiles))
    await asyncio.gather(*(pound(i, hostile) for i, hostile in enumerate(slots)))
    seconds = attack.until - started
    accepted = len(watch.acked & sent)
    return {"sockets_open_at_start": opened_at_start, "accepted_intents": accepted,
            "accepted_intents_per_s": accepted / seconds if seconds else 0.0}


async def seq(attack: Attack) -> dict:
    """A seated player whose intents carry seqs no honest client sends, at human pace."""
    watch = SeatWatch()
    hostiles = await seated(attack, attack.config["seq"], 1, watch)
    attack.start = time.perf_counter()  # the attack proper: once the game runs
    attack.until = attack.start + attack.config["seconds"]
    watch.counting = True
    bad_acks = 0
    if hostiles:
        hostile = hostiles[0]
        n = 0
        due = time.perf_counter()
        while attack.running() and hostile.open:
            due += 1 / SEQ_RATE
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            n += 1
            value = SEQ_VALUES[n % len(SEQ_VALUES)]
            if not await hostile.send(json.dumps({"intent": "left" if n % 2 else "right", "seq": value})):
                break
        await asyncio.sleep(0.5)
        bad_acks = len([v for v in watch.acked if v < 0 or v >= 2**62])
        await hostile.close()
    return {"full_state_frames": watch.full_state, "acks_of_bad_seq": bad_acks,
            "unparsable_version_heads": watch.unparsed_heads}


def chat_texts(max_length: int) -> list[str]:
    """What the chat flood says, in turn: each a kind of text a hostile writer tries."""
    zalgo = "".join(  # every letter under 24 combining marks: cleaned, 2 stay
        letter + "".join(chr(0x300 + (7 * k + i) % 0x70) for k in range(24)) for i, letter in enumerate("he comes")
    )
    return [
        "x" * max_length,  # the longest a message may be
        "y" * (max_length + 1),  # one over: CHAT_TOO_LONG
        "z" * CHAT_OVERLONG,  # its frame over WS_MAX_FRAME_BYTES: refused at the edge
        "<script>alert(document.cookie)</script>",
        '<img src=x onerror="alert(1)"><div hx-swap-oob="innerHTML:body">owned</div>',
        "{{ request.user.password }} {% debug %} &lt;b&gt; &#60;i&#62; javascript:alert(1)",
        zalgo,
        "\u202egnp.exe\u202c \u2066isolated\u2069 hid\u200bden \u0007bell",  # bidi, invisible, a control
        "\u001b[31mred\u001b[0m [b]bold[/b] [url=x]",  # terminal escapes, bracket markup
        "\U0001f600" * max_length,  # as many emoji as a message may hold (4 bytes each in UTF-8)
        "\U0001f468\u200d\U0001f469\u200d\U0001f467 \U0001f3f3\ufe0f\u200d\U0001f308 \U0001f1eb\U0001f1f7 gg",
        "",
        " \t\n  \u3000 ",  # white space only: CHAT_EMPTY
        "\u200b\u202e\u2066\ufeff",  # only what cleaning removes: CHAT_EMPTY
    ]


def say_frame(text: str) -> str:
    # As a browser's JSON.stringify: characters as they are, not \u escapes.
    return json.dumps({"intent": "say", "text": text}, ensure_ascii=False)


def frame_cost(frame: str, cost_bytes: int) -> int:
    """Tokens the edge charges a frame (lobby/edge.py: 1, plus 1 per ``COST_BYTES`` characters)."""
    return 1 + len(frame) // cost_bytes


class Pace:
    """One writer's frames over all its sockets, at ``rate`` a second; no catching up
    after a pause (a burst would spend the budget the pace keeps under)."""

    def __init__(self, rate: float) -> None:
        self.gap = 1 / rate
        self.due = time.perf_counter()

    async def wait(self) -> None:
        now = time.perf_counter()
        self.due = max(self.due + self.gap, now)
        await asyncio.sleep(self.due - now)


CHAT_TEXT = re.compile(r'<span class="chat-text">(.*?)</span><span class="chat-actions">')
LIVE_CHAT = 'hx-swap-oob="beforeend:#chat-log"'  # a message as it is written (not a log's history)


async def chat(attack: Attack) -> dict:
    """Signed-in writers, some behind the attack's one address and some each from its
    own, each with a socket on the lobby and on CHAT_TABLE_SOCKETS honest tables (as a
    spectator), saying the texts of ``chat_texts`` in turn: half of them as fast as
    they can, half just under their frame budget (so that the edge keeps their sockets
    and only the chat's budget holds them back). A socket the server closes, or a
    handshake it refuses, is tried again after 0.2 s."""
    spec = attack.config["chat"]
    tables = attack.config["tables"]
    frames = [say_frame(text) for text in chat_texts(spec["max_length"])]
    mean_cost = sum(frame_cost(frame, spec["cost_bytes"]) for frame in frames) / len(frames)
    paced_rate = CHAT_PACE * spec["frames_per_second"] / mean_cost
    seen = {"live": 0, "texts": 0, "unescaped": 0}

    def on_message(message: str) -> None:
        seen["live"] += message.count(LIVE_CHAT)
        for text in CHAT_TEXT.findall(message):
            seen["texts"] += 1
            if "<" in text or ">" in text or '"' in text:  # escaped, none of these is left
                seen["unescaped"] += 1

    async def talk(writer: dict, target: int | str, first: int, pace: Pace | None, hostile: Hostile | None) -> None:
        n = first
        address = writer["address"] or attack.address
        while attack.running():
            if hostile is None or not hostile.open:
                if hostile is not None:
                    await hostile.close()
                    await asyncio.sleep(RECONNECT_PAUSE)
                hostile = await attack.connect(target, writer["cookie"], on_message, address=address)
                if hostile is None:
                    await asyncio.sleep(RECONNECT_PAUSE)
                continue
            if pace is not None:
                await pace.wait()
                if not attack.running():
                    break
            n += 1
            if not await hostile.send(frames[n % len(frames)]):
                continue
            if pace is None and n % 16 == 0:
                await asyncio.sleep(0)  # let the readers take the replies
        if hostile is not None:
            await hostile.close()

    sockets = []  # (writer, target, its first text, the writer's pace)
    for i, writer in enumerate(spec["writers"]):
        pace = Pace(paced_rate) if writer["paced"] else None
        targets: list[int | str] = ["/ws/lobby/"]
        targets += [tables[(i * CHAT_TABLE_SOCKETS + j) % len(tables)] for j in range(CHAT_TABLE_SOCKETS)]
        sockets += [(writer, target, 3 * i + j, pace) for j, target in enumerate(targets)]
    # Every writer's sockets open before the attack's clock starts: on a loaded machine
    # (this process runs niced) opening them could take the whole of a short attack.
    opened = await asyncio.gather(*(
        attack.connect(target, writer["cookie"], on_message, address=writer["address"] or attack.address)
        for writer, target, _first, _pace in sockets
    ))
    attack.start = time.perf_counter()
    attack.until = attack.start + attack.config["seconds"]
    await asyncio.gather(*(
        talk(writer, target, first, pace, hostile)
        for (writer, target, first, pace), hostile in zip(sockets, opened, strict=True)
    ))
    return {"writers": len(spec["writers"]), "paced_frames_per_s": paced_rate, "texts_received": seen["texts"],
            "live_messages_received": seen["live"], "unescaped": seen["unescaped"]}


ATTACK_RUNNERS = {
    "flood": flood, "nested": nested, "resync": resync, "pages": pages, "churn": churn,
    "multisocket": multisocket, "seq": seq, "chat": chat,
}


async def attack_main(name: str, config: dict) -> dict:
    # The lowest priority, on the client CPUs (inherited from the bench): an attacker
    # that wants more than its share of them must not starve the honest client.
    os.nice(19)
    attack = Attack(config)
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, attack.stop.set)
    outcome: dict = {}
    try:
        outcome = await ATTACK_RUNNERS[name](attack)
    except Exception as err:  # the attack could not be made: say why, with what it met
        outcome = {"error": f"{type(err).__name__}: {err}"}
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {"name": name, "start": attack.start, "end": time.perf_counter(), "stopped": attack.stop.is_set(),
            "cpu_s": usage.ru_utime + usage.ru_stime, **attack.tally.result(), **outcome}


# --- the parent: the server, the honest tables, the measurements -----------------------

def make_attack_table(username: str) -> dict:
    """A table started for an attack: the attacker (a signed-in user, its host) in seat
    1, ready, and a server bot in seat 2, so that the game runs whatever it does."""
    from lobby import services

    _user, ref, cookie = login(username)
    table = services.table_create(player=ref, game="tetriwar", options=OPTIONS, seats_total=2)
    services.bot_add(table_id=table.pk, player=ref, number=2, level="easy")
    services.seat_ready(table_id=table.pk, player=ref, ready=True)
    return {"table": table.pk, "cookie": cookie}


def make_chat_writers() -> dict:
    """The chat flood's writers (signed-in users and their sessions, written before the
    server starts), which address each writes from (None: the attack's own), and the
    server's budgets they run into."""
    from django.conf import settings

    from lobby.edge import COST_BYTES

    writers = []
    for i in range(CHAT_WRITERS_SHARED + CHAT_WRITERS_ALONE):
        _user, _ref, cookie = login(CHAT_WRITER.format(i))
        alone = i >= CHAT_WRITERS_SHARED
        writers.append({
            "username": CHAT_WRITER.format(i), "cookie": cookie, "paced": i % 2 == 0,
            "address": CHAT_ALONE_ADDRESS.format(i - CHAT_WRITERS_SHARED + 1) if alone else None,
        })
    budget = {name: getattr(settings, f"CHAT_{name.upper()}")
              for name in ("burst", "per_minute", "address_burst", "address_per_minute")}
    return {"writers": writers, "budget": budget, "max_length": settings.CHAT_MAX_LENGTH,
            "frames_per_second": settings.WS_FRAMES_PER_SECOND, "cost_bytes": COST_BYTES}


def chat_written_bound(spec: dict, seconds: float) -> int:
    """The most messages the chat's budgets let ``spec``'s writers write in ``seconds``:
    a writer CHAT_BURST, then CHAT_PER_MINUTE; an address at most CHAT_ADDRESS_BURST,
    then CHAT_ADDRESS_PER_MINUTE, however many write from it (the flood mutes come on
    top: they only lower it)."""
    budget = spec["budget"]
    per_writer = budget["burst"] + budget["per_minute"] * seconds / 60
    per_address = budget["address_burst"] + budget["address_per_minute"] * seconds / 60
    writers_at = collections.Counter(writer["address"] for writer in spec["writers"])
    return sum(int(min(per_address, n * per_writer)) for n in writers_at.values())


def chat_books(db_path: str, usernames: list[str]) -> dict:
    """What the database says of the chat: the last message's id (ids are never reused:
    AUTOINCREMENT, so written messages count even after a room's history was trimmed),
    the writers muted, and the mutes logged with no moderator (the flood's)."""
    from accounts.models import ModerationAction, User
    from lobby.models import ChatMessage

    with contextlib.closing(sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=10)) as db:
        last = db.execute("SELECT seq FROM sqlite_sequence WHERE name = ?", (ChatMessage._meta.db_table,)).fetchone()
        marks = ",".join("?" * len(usernames))
        muted = {name for (name,) in db.execute(
            f'SELECT username FROM "{User._meta.db_table}" WHERE muted_until IS NOT NULL AND username IN ({marks})',
            usernames)}
        mutes = db.execute(
            f'SELECT count(*) FROM "{ModerationAction._meta.db_table}" WHERE action = ? AND admin_id IS NULL',
            (ModerationAction.Action.MUTE.value,)).fetchone()[0]
    return {"last_id": last[0] if last else 0, "muted": muted, "mutes_logged": mutes}


def threads_of(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("Threads:"))


def database_fds(pid: int, path: str) -> int:
    """The process's open file descriptors on the SQLite file (one a connection)."""
    count = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") == path:
                count += 1
        except OSError:
            pass
    return count


def tracebacks(log_path: str) -> int:
    with open(log_path, errors="replace") as f:
        return sum("Traceback" in line for line in f)


class Server:
    """The server under test, its pids, logs, database and health: the one Daphne
    process (embedded), or in scale-out every Daphne and nginx in front of them (their
    CPU, memory and threads summed; the database's connections counted by PostgreSQL)."""

    def __init__(self, servers: Servers, db_path: str = "", *, nginx: proxy.Nginx | None = None,
                 database: str = "") -> None:
        self.procs = [proc for _name, proc, _log in servers.procs]
        self.log_paths = [log.name for _name, _proc, log in servers.procs]
        self.db_path = db_path  # SQLite's file (embedded)
        self.database = database  # PostgreSQL's database (scale-out)
        self.nginx = nginx

    @property
    def pids(self) -> list[int]:
        return [proc.pid for proc in self.procs] + (self.nginx.pids if self.nginx else [])

    @property
    def alive(self) -> bool:
        return all(proc.poll() is None for proc in self.procs) and (
            self.nginx is None or self.nginx.proc.poll() is None)

    def _read(self, measure, *args):
        try:
            return measure(*args) if self.alive else float("nan")
        except (OSError, StopIteration):  # it exited meanwhile
            return float("nan")

    def rss(self) -> float:
        return self._read(rss_mb, self.pids)

    def cpu(self) -> float:
        return self._read(cpu_seconds, self.pids)

    def threads(self) -> int | float:
        return self._read(lambda: sum(threads_of(pid) for pid in self.pids))

    def db_connections(self) -> int | float:
        if self.database:
            return self._read(postgres_connections, self.database)
        return self._read(lambda: sum(database_fds(proc.pid, self.db_path) for proc in self.procs))

    def tracebacks(self) -> int:
        return sum(tracebacks(path) for path in self.log_paths)


def postgres_connections(database: str) -> int:
    """The connections PostgreSQL has open to ``database``."""
    import psycopg

    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        return conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s", (database,)).fetchone()[0]


async def run_attack(name: str, index: int, config: dict, server: Server, tmp: str,
                     sampler: machine.Machine) -> dict:
    """One attack in a process of its own, watched: the server's memory (stopped past
    the cap), then its threads, database connections and new tracebacks; and what
    every other process on the machine used meanwhile."""
    config = {**config, "address": f"127.0.66.{index + 1}"}
    chat_spec = config["chat"]
    usernames = [writer["username"] for writer in chat_spec["writers"]]
    chat_before = chat_books(server.db_path, usernames) if name == "chat" else {}
    tracebacks_before = server.tracebacks()
    rss_before = server.rss()
    cpu_before = server.cpu()
    machine_before = sampler.mark()
    started = time.perf_counter()
    with open(os.path.join(tmp, f"attack-{name}.log"), "w") as log:
        child = await asyncio.create_subprocess_exec(
            sys.executable, str(Path(__file__).resolve()), "--run-attack", name, "--config", json.dumps(config),
            cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=log,
            preexec_fn=die_with_parent if sys.platform.startswith("linux") else None,
        )
        output = asyncio.create_task(child.stdout.read())
        peak, capped = rss_before, False
        deadline = started + config["seconds"] + CHILD_GRACE
        while child.returncode is None and time.perf_counter() < deadline:
            try:
                await asyncio.wait_for(asyncio.shield(child.wait()), 0.5)
            except TimeoutError:
                pass
            rss = server.rss()
            peak = max(peak, rss)
            if not capped and rss > RSS_CAP_MB:
                capped = True
                child.send_signal(signal.SIGTERM)  # it stops and reports what it met
                deadline = min(deadline, time.perf_counter() + 10)
            if not server.alive:
                break
        if child.returncode is None:
            child.kill()
            await child.wait()
        raw = await output
    ended = time.perf_counter()
    machine_reading = sampler.between(machine_before, sampler.mark())
    rss_after = server.rss()
    cpu_after = server.cpu()
    lines = raw.decode(errors="replace").strip().splitlines()
    try:
        result = json.loads(lines[-1])
    except (IndexError, ValueError):
        result = {"error": f"the attack process ended with {child.returncode} and no result (see its log)"}
    await asyncio.sleep(SETTLE)
    result.update(
        window=(result.get("start", started), result.get("end", ended)),
        rss_growth_mb=rss_after - rss_before, rss_peak_mb=peak, rss_capped=capped,
        server_cpu_s=cpu_after - cpu_before, machine=machine_reading,
        threads_after=server.threads(), db_connections_after=server.db_connections(),
        tracebacks=server.tracebacks() - tracebacks_before, server_alive=server.alive,
    )
    if name == "chat":  # what was written, from its first frame's possible arrival to now
        chat_after = chat_books(server.db_path, usernames)
        alone = [writer["username"] for writer in chat_spec["writers"] if writer["address"]]
        muted = chat_after["muted"]
        result.update(
            written=chat_after["last_id"] - chat_before["last_id"],
            written_bound=chat_written_bound(chat_spec, time.perf_counter() - started),
            muted_accounts=f"{len(muted)}/{len(usernames)} (alone {len(muted & set(alone))}/{len(alone)}, "
                           f"shared {len(muted - set(alone))}/{len(usernames) - len(alone)})",
            mutes_logged=chat_after["mutes_logged"] - chat_before["mutes_logged"],
        )
    return result


async def quiet_window(seconds: float, server: Server, sampler: machine.Machine) -> dict:
    """S seconds of the honest tables alone: their window, and what the server and the
    machine did meanwhile."""
    machine_before = sampler.mark()
    start = time.perf_counter()
    rss_before, cpu_before = server.rss(), server.cpu()
    await asyncio.sleep(seconds)
    return {"window": (start, time.perf_counter()), "rss_growth_mb": server.rss() - rss_before,
            "server_cpu_s": server.cpu() - cpu_before,
            "threads_after": server.threads(), "db_connections_after": server.db_connections(),
            "machine": sampler.between(machine_before, sampler.mark())}


async def run(args, port: int, server: Server, setups: list[dict], attack_tables: dict, tmp: str,
              sampler: machine.Machine):
    room = Room(setups, [port], rate=args.rate, seed=args.seed, level=args.bot_level, cycle=True)
    await room.open()
    gc.collect()
    gc.freeze()  # as bench/live.py: the client's collector pauses are not the server's
    room.window.open()  # open-ended: closed after the last attack
    lag = asyncio.create_task(loop_lag(room.window, room.stats))
    config = {"port": port, "seconds": args.seconds, "tables": [setup["table"] for setup in setups],
              **attack_tables}
    machine_start = sampler.start()
    quiet = await quiet_window(args.seconds, server, sampler)
    results = {}
    for index, name in enumerate(args.attacks):
        if not server.alive:
            break
        # The honest tables' own load moves as their games go on (levels rise, gravity
        # quickens, games end and start again): each attack is set against the quiet
        # window just before it, not against the first one alone.
        before = quiet if index == 0 else await quiet_window(args.seconds, server, sampler)
        results[name] = await run_attack(name, index, config, server, tmp, sampler)
        results[name]["quiet"] = before
    room.window.close()
    quiet["machine_overall"] = sampler.between(machine_start, sampler.stop())
    await lag
    await room.close()
    quiet["tracebacks_total"] = server.tracebacks()
    return room.stats, quiet, results


def closed_line(result: dict) -> str:
    sockets, closed = result.get("sockets", 0), result.get("closed", 0)
    how = []
    if result.get("refused"):
        how.append("refused " + " ".join(f"{status}×{n}" for status, n in sorted(result["refused"].items())))
    if result.get("close_codes"):
        how.append("close codes " + " ".join(f"{code}×{n}" for code, n in sorted(result["close_codes"].items())))
    if result.get("failed"):
        how.append("handshake failed " + " ".join(f"{e}×{n}" for e, n in sorted(result["failed"].items())))
    return f"{closed}/{sockets}" + (f" ({'; '.join(how)})" if how else "")


def p99_with_timeouts(values: list[float], timeouts: int) -> float:
    """The p99 of the honest intents, a timeout counting as ACK_TIMEOUT (1000 ms): an
    attack that starves the tables cannot look good by leaving only its fast answers."""
    return percentile(values + [ACK_TIMEOUT * 1000] * timeouts, 0.99)


def report(stats, quiet: dict, results: dict, attacks: list[str], rss_start: float, cpus: machine.Split,
           server_pids: list[int]) -> None:
    def latencies(window: tuple[float, float]) -> list[float]:
        return stats.latencies.between(*window)

    def p99_all_of(window: tuple[float, float]) -> float:
        return p99_with_timeouts(latencies(window), stats.timeouts_between(*window))

    quiet_values = latencies(quiet["window"])
    quiet_timeouts = stats.timeouts_between(*quiet["window"])
    quiet_p99 = percentile(quiet_values, 0.99)
    quiet_p99_all = p99_all_of(quiet["window"])
    figure("honest_tables", len(stats.bots) // 4)
    figure("honest_sockets_connected", stats.connected)
    figure("honest_games_started", stats.games_started)
    if stats.start_errors:
        figure("honest_start_errors", f"{len(stats.start_errors)} ({stats.start_errors[0]})")
    figure("honest_sockets_dropped", f"{len(stats.dropped)}" + (f" ({stats.dropped[0]})" if stats.dropped else ""))
    errors = " ".join(f"{c}×{n}" for c, n in sorted(stats.errors.items()))
    figure("honest_error_replies", f"{stats.errors.total()}" + (f" ({errors})" if errors else ""))
    if stats.loop_lags:
        figure("client_loop_lag_p99_ms", percentile(stats.loop_lags, 0.99), ".2f")
    figure("server_rss_mb_start", rss_start, ".1f")
    figure("quiet_intents", len(quiet_values))
    figure("quiet_p50_ms", percentile(quiet_values, 0.50), ".2f")
    figure("quiet_timeouts", quiet_timeouts)
    figure("quiet_p99_with_timeouts_ms", quiet_p99_all, ".2f")
    figure("honest_intents_without_effect", stats.without_effect)
    figure("quiet_rss_growth_mb", quiet["rss_growth_mb"], ".1f")
    figure("quiet_threads", quiet["threads_after"])
    figure("quiet_db_connections", quiet["db_connections_after"])
    figure("quiet_spectator_p99_ms", percentile(stats.spectator_latencies.between(*quiet["window"]), 0.99), ".2f")
    figure("quiet_others_cpu_s", quiet["machine"].others_cpu_s, ".2f")
    figure("quiet_steal_s", quiet["machine"].steal_s, ".2f")
    figure("quiet_server_cpu_s", quiet["server_cpu_s"], ".1f")
    figure("quiet_p99_ms", quiet_p99, ".2f")
    # The ratios compare windows: any of them disturbed, and they do not hold.
    disturbed = ["quiet"] if quiet["machine"].disturbed else []
    worst, worst_name = float("nan"), ""
    for name in attacks:
        result = results.get(name)
        if result is None:
            figure(name, "not run (the server had exited)")
            continue
        values = latencies(result["window"])
        timeouts = stats.timeouts_between(*result["window"])
        p99 = percentile(values, 0.99)
        p99_all = p99_with_timeouts(values, timeouts)
        # against the quiet window just before it (the first attack's is the first one)
        before = result.get("quiet", quiet)
        before_p99_all = p99_all_of(before["window"])
        ratio = p99_all / before_p99_all if before_p99_all > 0 else float("nan")
        if ratio == ratio and not ratio <= worst:
            worst, worst_name = ratio, name
        if "error" in result:
            figure(f"{name}_error", result["error"])
        if result.get("rss_capped"):
            figure(f"{name}_stopped", f"the server passed {RSS_CAP_MB:.0f} MB")
        if not result["server_alive"]:
            figure(f"{name}_server_exited", "yes")
        figure(f"{name}_honest_intents", len(values))
        share = 100 * timeouts / (timeouts + len(values)) if timeouts + len(values) else float("nan")
        figure(f"{name}_timeouts", f"{timeouts} ({share:.1f} % of the honest intents sent during the attack)")
        start, end = result["window"]
        figure(f"{name}_honest_sockets_dropped", sum(start <= t < end + SETTLE for t in stats.dropped_at))
        figure(f"{name}_p99_with_timeouts_ms", p99_all, ".2f")
        figure_lines(attack_lines(name, result))
        figure(f"{name}_rss_peak_mb", result["rss_peak_mb"], ".1f")
        figure(f"{name}_server_cpu_s", result["server_cpu_s"], ".1f")
        figure(f"{name}_quiet_server_cpu_s", before["server_cpu_s"], ".1f")
        figure(f"{name}_attacker_cpu_s", result.get("cpu_s", float("nan")), ".1f")
        if result.get("machine") is not None:
            figure(f"{name}_others_cpu_s", result["machine"].others_cpu_s, ".2f")
            figure(f"{name}_steal_s", result["machine"].steal_s, ".2f")
            if result["machine"].disturbed:
                disturbed.append(name)
        if before is not quiet:
            figure(f"{name}_quiet_others_cpu_s", before["machine"].others_cpu_s, ".2f")
            figure(f"{name}_quiet_steal_s", before["machine"].steal_s, ".2f")
            if before["machine"].disturbed:
                disturbed.append(f"{name}_quiet")
        spectators = stats.spectator_latencies.between(*result["window"])
        figure(f"{name}_spectator_p99_ms", percentile(spectators, 0.99), ".2f")
        # Without the attack's first seconds, when its sockets connect all at once: tells a
        # storm of handshakes (what churn and pages are) from what the attack's frames cost.
        settled = latencies((start + SETTLED_AFTER, end))
        figure(f"{name}_settled_p99_ms",
               f"{percentile(settled, 0.99):.2f} (after its first {SETTLED_AFTER:.0f} s)")
        figure(f"{name}_quiet_p99_with_timeouts_ms", before_p99_all, ".2f")
        figure(f"{name}_p99_ms", p99, ".2f")
        figure(f"{name}_p99_ratio", ratio, ".2f")
        figure(f"{name}_rss_growth_mb", result["rss_growth_mb"], ".1f")
        figure(f"{name}_threads_after", result["threads_after"])
        figure(f"{name}_db_connections_after", result["db_connections_after"])
        figure(f"{name}_attackers_closed", closed_line(result))
        figure(f"{name}_tracebacks", result["tracebacks"])
    overall = quiet["machine_overall"]  # from the quiet window's start to the last attack's settling
    cpu_split_figures(cpus)
    server_cpu_s = overall.cpu_of(server_pids)
    figure("server_cpu_s", server_cpu_s, ".2f")
    figure("client_cpu_s", f"{overall.ours_cpu_s - server_cpu_s:.2f} (the honest client and the attackers)")
    machine_figures(overall)
    if overall.disturbed and not disturbed:
        disturbed.append("overall")
    figure("disturbed_windows", ",".join(disturbed) or "none")
    figure("tracebacks_total", quiet["tracebacks_total"])
    figure("worst_attack", worst_name or "none")
    figure("worst_p99_ratio", worst, ".2f")
    disturbed_figure(bool(disturbed))  # last: whether the figures above hold


def attack_lines(name: str, result: dict) -> list[str]:
    """The attack's own figures."""
    errors = result.get("errors") or {}
    lines = [f"{name}_frames_sent: {result.get('sent', 0)}"]
    if errors:
        lines.append(f"{name}_error_frames: " + " ".join(f"{code}×{n}" for code, n in sorted(errors.items())))
    if name == "flood":
        lines.append(f"flood_frames_per_s: {result.get('frames_per_s', 0):.0f}")
    elif name == "nested":
        for kind, summary in (result.get("kinds") or {}).items():
            lines.append(f"nested_{kind}: {summary}")
    elif name == "resync":
        states = result.get("tcp_states") or {}
        names = {str(TCP_ESTABLISHED): "ESTABLISHED", "7": "CLOSE", "8": "CLOSE_WAIT"}
        lines.append("resync_tcp_states_at_end: " + (
            " ".join(f"{names.get(k, k)}×{n}" for k, n in sorted(states.items())) or "none"))
        if result.get("send_blocked"):
            lines.append(f"resync_sends_blocked: {result['send_blocked']}")
    elif name == "pages":
        lines = [f"pages_requests: {result.get('requests', 0)}",
                 "pages_answers: " + " ".join(f"{k}×{v}" for k, v in sorted((result.get("answers") or {}).items())),
                 f"pages_attack_p99_ms: {result.get('p99_ms', float('nan')):.0f}"]
    elif name == "churn":
        lines.append(f"churn_handshakes_per_s: {result.get('handshakes_per_s', 0):.1f}")
        lines.append(f"churn_opened_per_s: {result.get('opened_per_s', 0):.1f}")
    elif name == "multisocket":
        lines.append(f"multisocket_sockets_open_at_start: {result.get('sockets_open_at_start', 0)}")
        lines.append(f"multisocket_accepted_intents: {result.get('accepted_intents', 0)}")
        lines.append(f"multisocket_accepted_intents_per_s: {result.get('accepted_intents_per_s', 0):.1f}")
    elif name == "seq":
        lines.append(f"seq_acks_of_bad_seq: {result.get('acks_of_bad_seq', 0)}")
        lines.append(f"seq_unparsable_version_heads: {result.get('unparsable_version_heads', 0)}")
        lines.append(f"seq_full_state_frames: {result.get('full_state_frames', 0)}")
    elif name == "chat":
        refused = collections.Counter({code: 0 for code in CHAT_REFUSALS})
        refused.update(errors)
        lines.append(f"chat_writers: {result.get('writers', 0)}")
        lines.append(f"chat_paced_frames_per_s: {result.get('paced_frames_per_s', 0):.1f}")
        lines.append(f"chat_sent: {result.get('sent', 0)}")
        lines.append("chat_refused: " + " ".join(f"{code}×{n}" for code, n in refused.items()))
        lines.append(f"chat_written: {result.get('written', '?')}")
        lines.append(f"chat_written_bound: {result.get('written_bound', '?')}")
        lines.append(f"chat_muted_accounts: {result.get('muted_accounts', '?')}")
        lines.append(f"chat_mutes_logged: {result.get('mutes_logged', '?')}")
        lines.append(f"chat_live_messages_received: {result.get('live_messages_received', 0)}")
        lines.append(f"chat_unescaped_texts: {result.get('unescaped', 0)} of {result.get('texts_received', 0)}")
    return lines


def main() -> None:
    if "--run-attack" in sys.argv:  # an attack's own process (see run_attack)
        child = argparse.ArgumentParser()
        child.add_argument("--run-attack", choices=ATTACKS, required=True)
        child.add_argument("--config", required=True)
        child_args = child.parse_args()
        result = asyncio.run(attack_main(child_args.run_attack, json.loads(child_args.config)))
        print(json.dumps(result, default=str))
        return

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=50, help="honest live tables")
    parser.add_argument("--seconds", type=float, default=30.0, help="the quiet window, and each attack")
    parser.add_argument("--attacks", default=None,
                        help=f"comma-separated, of {', '.join(ATTACKS)} (default all; in scale-out all but chat)")
    parser.add_argument("--rate", type=float, default=5.0, help="honest intents a second per player")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bot-level", choices=("easy", "medium", "hard"), default="medium")
    parser.add_argument("--keep", action="store_true", help="keep the server's database and logs")
    parser.add_argument("--scale-out", action="store_true",
                        help="PostgreSQL + Redis, two Daphnes hosting the tables and one the pages, behind nginx")
    parser.add_argument("--redis-db", type=int, default=8, help="scale-out: the Redis database (flushed)")
    machine.add_arguments(parser)
    args = parser.parse_args()
    cpus = machine.split_from(parser, args)
    if args.attacks is None:
        args.attacks = ",".join(name for name in ATTACKS if not (args.scale_out and name in EMBEDDED_ONLY))
    args.attacks = [name.strip() for name in args.attacks.split(",") if name.strip()]
    unknown = [name for name in args.attacks if name not in ATTACKS]
    if unknown:
        parser.error(f"unknown attack(s) {', '.join(unknown)}; choose from {', '.join(ATTACKS)}")
    if args.tables < 1:
        parser.error("--tables must be at least 1")
    if args.scale_out:
        embedded = [name for name in args.attacks if name in EMBEDDED_ONLY]
        if embedded:
            parser.error(f"--scale-out: {', '.join(embedded)} reads its books from the SQLite database; "
                         "run it embedded")
        if proxy.binary() is None:
            parser.error("--scale-out: nginx is not installed (apt-get install -y nginx)")

    stop_on_sigterm()
    # The honest client and (inherited) every attack process on the client CPUs; the
    # server takes the server CPUs as it starts (Servers).
    machine.pin(os.getpid(), cpus.client)
    scratch = ScratchDatabase() if args.scale_out else None
    redis_url = f"{REDIS}/{args.redis_db}" if args.scale_out else ""
    sampler = scale_out_sampler(scratch)
    try:
        with Servers.scratch("tetriwar-abuse-", cpus.server, keep=args.keep) as servers:
            if scratch is None:
                env = server_env(servers.tmp)
            else:
                scratch.create(migrated=True)
                flush_redis(redis_url)
                # nginx, whose X-Forwarded-For names each client's address
                env = server_env(servers.tmp, database_url=scratch.url, redis_url=redis_url,
                                 shards=SCALE_OUT_SHARDS, TRUSTED_PROXIES="127.0.0.1")
            django_setup(env)
            setups = make_tables(args.tables)
            attack_tables = {name: make_attack_table(f"attacker_{name}") for name in ("multisocket", "seq")}
            attack_tables["chat"] = make_chat_writers()
            nginx = None
            try:
                if scratch is None:
                    port = free_port()
                    servers.daphne("daphne1", port, env)
                    servers.wait_for_port(port)
                    warm_up(f"http://127.0.0.1:{port}")
                    server = Server(servers, env["SQLITE_NAME"])
                else:
                    nginx = start_scale_out(servers, env, cpus)
                    port = nginx.port
                    server = Server(servers, nginx=nginx, database=scratch.name)
                rss_start = server.rss()
                stats, quiet, results = asyncio.run(
                    run(args, port, server, setups, attack_tables, servers.tmp, sampler))
                server_pids = server.pids
            except BaseException:
                if nginx is not None:
                    sys.stderr.write(f"--- nginx errors ---\n{nginx.errors()}")
                raise
            finally:
                if nginx is not None:
                    nginx.stop()
    finally:
        if scratch is not None:
            scratch.drop()
        if redis_url:
            flush_redis(redis_url)
    figure("mode", "scale-out" if args.scale_out else "embedded")
    figure("server_processes", " ".join(servers.names) + (" nginx" if args.scale_out else ""))
    report(stats, quiet, results, args.attacks, rss_start, cpus, server_pids)


def start_scale_out(servers: Servers, env: dict[str, str], cpus: machine.Split) -> proxy.Nginx:
    """The site as docs/operations.md runs it on several processes: two Daphnes each
    hosting one of the two shards' tables, a third hosting none that serves the pages,
    the static files and the lobby, and nginx in front (config/nginx.py's site, with its
    limits per client address), every one of them on the server CPUs."""
    from django.utils import timezone

    since = timezone.now()
    hosts = [free_port() for _ in range(SCALE_OUT_SHARDS)]
    pages = free_port()
    for n, port in enumerate(hosts):
        hosted = ",".join(str(s) for s in range(SCALE_OUT_SHARDS) if s % len(hosts) == n)
        servers.daphne(f"daphne{n + 1}", port, {**env, "HOSTED_SHARDS": hosted})
    servers.daphne("pages", pages, {**env, "HOSTED_SHARDS": ""})
    for port in [*hosts, pages]:
        servers.wait_for_port(port)
    wait_for_heartbeats(SCALE_OUT_SHARDS, since, servers)
    for port in [*hosts, pages]:
        warm_up(f"http://127.0.0.1:{port}")
    nginx = proxy.Nginx(os.path.join(servers.tmp, "nginx"), [f"127.0.0.1:{port}" for port in hosts],
                        SCALE_OUT_SHARDS, pages=[f"127.0.0.1:{pages}"],
                        preexec_fn=machine.pin_at_exec(cpus.server, then=die_with_parent))  # a server process
    nginx.start()
    warm_up(nginx.base)
    return nginx

if __name__ == "__main__":
    main()
