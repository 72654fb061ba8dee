"""Live latency and fan-out: bot-driven TetriWar tables against a real server.

    python bench/live.py [--tables N] [--seconds S] [--rate R] [--seed S] [--bot-level L]

Starts one Daphne process on the embedded default (SQLite in a temporary file, the
in-memory channel layer, the table host inside Daphne), opens N tables of 4 players
and 1 spectator, each a real WebSocket over loopback, starts every game through the
site's own start button, and lets a bot play each seat at human pace (R keys a second
per player, exponential gaps, default 5) for S seconds.

The bots are the TetriWar computer player (``games/tetriwar/ai.py``, level L, default
medium) on the client side: each player keeps a mirror of its own board (20 visible
rows, falling piece, preview, bomb store, swapped controls) from the HTML fragments the
server pushes for its seat, rebuilds an engine position from it with ``Game.setup`` and
asks ``TetriWarAI.decide`` for the keys that place the piece. It presses them one at a
time, each after the previous one was acknowledged, and plans again whenever the piece
or field it sees is not what the plan expects (gravity, bombs, a new piece). Now and
then it presses Enter while its bomb store is not empty.

Prints ``name: value`` lines; ``lines_cleared_total`` adds up every player's final
Lines count (from its ``score-{seat}`` fragment). Latency is measured from an intent
sent to the sender's own fragment received: every intent carries a sequence number
and the host acknowledges it in the version comment of the broadcast it causes
(``<!--v12 a3:41 a1:7-->``). ``bytes_per_update_median`` is the size of the broadcasts
one spectator receives. The last lines are ``tables``, ``p50_ms``, ``p99_ms`` and
``bytes_per_update_median``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from functools import lru_cache
from http.cookiejar import CookieJar
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games.tetriwar.ai import TetriWarAI, step  # noqa: E402
from games.tetriwar.constants import HIDDEN_ROWS  # noqa: E402
from games.tetriwar.engine import Game, Options, field  # noqa: E402

HEAD = re.compile(r"^<!--v(\d+)((?: a\d+:\d+)*)-->")
ACK = re.compile(r" a(\d+):(\d+)")
OPTIONS = {"minutes": 15, "start_level": 1, "lines_per_level": 10, "bombs": "manual", "pairs": False}
SEATS = (1, 2, 3, 4)
ENTER_CHANCE = 0.1  # per key, while the bomb store is not empty: press Enter instead
ACK_WAIT = 0.5  # seconds a bot waits for its previous key's ack (a key that changes
# nothing, e.g. into a wall, is never acknowledged) before it looks at its board again
SWAP = {"left": "right", "right": "left"}
INF = float("inf")
REVERSED = 1e9  # ``Player.control_until`` while ← and → are swapped (any time ahead)

# The markup of games/tetriwar/render.py, for one seat (a bot reads only its own).
CELL = re.compile(r"<i([^>]*)></i>")


def _seat_patterns(seat: int) -> dict[str, re.Pattern]:
    return {
        "row": re.compile(rf'<div id="board-{seat}-row-(\d+)" class="fr"[^>]*>(.*?)</div>'),
        "piece": re.compile(
            rf'<div id="piece-{seat}" class="pc (?:none"|([IOJLSZT]) r(\d)" style="--x:(-?\d+);--y:(-?\d+)")'
        ),
        "next": re.compile(rf'<div id="next-{seat}" class="next" aria-label="Next: ([A-Z ]*)"'),
        "store": re.compile(rf'<div id="bombs-{seat}" class="store" aria-label="Bomb store: ([^"]*)"'),
        "control": re.compile(rf'<div id="control-{seat}" class="flag( on)?"'),
        "score": re.compile(rf'<dl id="score-{seat}" class="stats".*?<dt>Lines</dt><dd>(\d+)</dd>'),
    }


PATTERNS = {seat: _seat_patterns(seat) for seat in SEATS}


@lru_cache(maxsize=8192)
def row_text(cells: str) -> str:
    """A field row's ten cells as engine text: ``.`` empty, ``X`` any block or bomb."""
    return "".join("X" if attrs else "." for attrs in CELL.findall(cells))


class Bot:
    """One player's view of its own board, from the fragments, and the AI that plays it."""

    def __init__(self, seat: int, level: str, rng: random.Random) -> None:
        self.seat = seat
        self.rx = PATTERNS[seat]
        self.rng = rng
        self.ai = TetriWarAI(level, rng)
        # one engine skeleton per bot, rearranged by ``Game.setup`` for every plan
        self.game = Game(Options.from_dict(OPTIONS), 0, SEATS, 0.0)
        self.rows = ["." * 10] * 20  # the visible rows, top first
        self.field_version = 0
        self.piece: tuple[str, int, int, int] | None = None  # kind, rotation, x, visible y
        self.piece_no = 0  # pieces seen: one more whenever the preview changes
        self.next: list[str] = []
        self.store = False
        self.reversed = False
        self.lines = 0
        self.plan: list[str] = []  # key names for the current piece
        self.expected: list[tuple] = []  # the piece before each key of the plan
        self.plan_for: tuple[int, int] = (-1, -1)  # (piece_no, field_version) it was made on
        self.step = 0
        self.plans = 0

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
            self.store = m.group(1) != "empty"
        m = rx["control"].search(message)
        if m is not None:
            self.reversed = m.group(1) is not None
        m = rx["score"].search(message)
        if m is not None:
            self.lines = int(m.group(1))

    def key(self) -> dict | None:
        """The next frame to send, or None when there is nothing to press."""
        if self.piece is None:
            return None
        if self.store and self.rng.random() < ENTER_CHANCE:
            return {"intent": "bomb"}
        step = self.step
        if (
            self.plan_for != (self.piece_no, self.field_version)
            or step >= len(self.expected)
            or self.expected[step] != self.piece
        ):
            self.replan()
            step = 0
            if not self.expected:
                return None
        self.step = step + 1
        return {"intent": self.plan[step]}

    def replan(self) -> None:
        """Ask the AI for every key that places the piece from where it is now."""
        self.plans += 1
        self.plan, self.expected, self.step = [], [], 0
        self.plan_for = (self.piece_no, self.field_version)
        kind, rotation, x, y = self.piece
        game, seat = self.game, self.seat
        player = game.players[seat]
        player.bag.queue.clear()
        player.bag.dealt = self.piece_no  # the AI keeps its choice while this is unchanged
        player.control_until = REVERSED if self.reversed else INF
        try:
            game.setup(seat, field=field(*self.rows), piece=self.piece, next=self.next)
        except ValueError:  # the piece overlaps the field as seen: wait for the next update
            return
        keys = [intent.name for intent in self.ai.decide(game, seat, game.now)]
        masks = player.field.masks
        state = (rotation, x, y + HIDDEN_ROWS)
        expected = [self.piece]
        for name in keys[:-1]:  # the piece before each key, as the engine moves it
            state = step(masks, kind, state, SWAP.get(name, name) if self.reversed else name)
            if state is None:
                break
            expected.append((kind, state[0], state[1], state[2] - HIDDEN_ROWS))
        self.plan, self.expected = keys, expected


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_env(db_path: str, port: int) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        SQLITE_NAME=db_path,
        STATIC_ROOT=os.path.join(os.path.dirname(db_path), "static"),
        DEBUG="false",
        SECRET_KEY="bench-" + "x" * 60,
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_SSL_REDIRECT="false",
        LOG_LEVEL="WARNING",
    )
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    return env


def prepare(tables: int, db_path: str, port: int) -> list[dict]:
    """Users, sessions and ready tables, written before the server starts."""
    os.environ.update(server_env(db_path, port))
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore
    from django.core.management import call_command

    from accounts.identity import PlayerRef
    from accounts.models import User
    from lobby import services

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    call_command("migrate", verbosity=0)
    call_command("collectstatic", verbosity=0, interactive=False)
    setups = []
    for t in range(tables):
        cookies = []
        users = []
        for s in range(5):  # 4 players and a spectator
            user = User.objects.create_user(f"bench{t}_{s}", password="bench-pass-123")
            store = SessionStore()
            store[SESSION_KEY] = str(user.pk)
            store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
            store[HASH_SESSION_KEY] = user.get_session_auth_hash()
            store.create()
            cookies.append(f"{settings.SESSION_COOKIE_NAME}={store.session_key}")
            users.append(user)
        refs = [PlayerRef(user_id=u.pk, guest_token="", name=u.username) for u in users]
        table = services.table_create(player=refs[0], game="tetriwar", options=OPTIONS, seats_total=4)
        for seat in (2, 3, 4):
            services.seat_take(table_id=table.pk, player=refs[seat - 1], number=seat)
        for seat in (1, 2, 3, 4):
            services.seat_ready(table_id=table.pk, player=refs[seat - 1], ready=True)
        setups.append({"table": table.pk, "cookies": cookies})
    return setups


def start_table(base: str, table_id: int, cookie: str) -> None:
    """Press the host's start button, as the browser does (with its CSRF token)."""
    jar = CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.addheaders = [("Cookie", cookie)]
    opener.open(f"{base}/lobby/table/{table_id}/").read()
    token = next(c.value for c in jar if c.name == "csrftoken")
    request = urllib.request.Request(
        f"{base}/lobby/table/{table_id}/start/",
        data=urllib.parse.urlencode({"csrfmiddlewaretoken": token}).encode(),
        headers={"Cookie": f"{cookie}; csrftoken={token}", "Origin": base, "HX-Request": "true"},
    )
    opener.open(request).read()


class Stats:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.update_bytes: list[int] = []
        self.sent = 0
        self.errors = 0
        self.bots: list[Bot] = []


async def player(ws_url, cookie, origin, bot: Bot, rate, until, stats: Stats, rng: random.Random, started: asyncio.Event):
    import websockets

    seat = bot.seat
    pending: dict[int, float] = {}
    acked = asyncio.Event()
    async with websockets.connect(ws_url, additional_headers={"Cookie": cookie, "Origin": origin}, max_size=None) as ws:

        async def read():
            async for message in ws:
                head = HEAD.match(message)
                if head is None:
                    if "ws-error" in message:
                        stats.errors += 1
                    continue
                if "data-remaining-ms" in message:
                    started.set()
                bot.read(message)
                received = time.perf_counter()
                for acked_seat, acked_seq in ACK.findall(head.group(2)):
                    if int(acked_seat) == seat:
                        sent_at = pending.pop(int(acked_seq), None)
                        if sent_at is not None:
                            stats.latencies.append((received - sent_at) * 1000)
                        if int(acked_seq) == seq:
                            acked.set()

        seq = 0
        reader = asyncio.create_task(read())
        await started.wait()
        while time.perf_counter() < until:
            await asyncio.sleep(rng.expovariate(rate))
            if not acked.is_set():  # look at the board only once the last key shows on it
                try:
                    await asyncio.wait_for(acked.wait(), timeout=ACK_WAIT)
                except TimeoutError:
                    pass
            frame = bot.key()
            if frame is None:
                continue
            seq += 1
            frame["seq"] = seq
            acked.clear()
            pending[seq] = time.perf_counter()
            await ws.send(json.dumps(frame))
            stats.sent += 1
        reader.cancel()


async def spectator(ws_url, cookie, origin, until, stats: Stats):
    import websockets

    async with websockets.connect(ws_url, additional_headers={"Cookie": cookie, "Origin": origin}, max_size=None) as ws:
        while time.perf_counter() < until:
            try:
                message = await asyncio.wait_for(ws.recv(), timeout=max(0.01, until - time.perf_counter()))
            except TimeoutError:
                break
            if HEAD.match(message) and 'id="game"' not in message:
                stats.update_bytes.append(len(message.encode()))


async def drive(setups, port, seconds, rate, seed, level) -> Stats:
    base = f"http://127.0.0.1:{port}"
    origin = base
    stats = Stats()
    rng = random.Random(seed)
    tasks = []
    starts = []
    t_connect = time.perf_counter()
    until = t_connect + 3 + 3.5 + seconds  # connections, the 3 s countdown, then play
    for setup in setups:
        url = f"ws://127.0.0.1:{port}/ws/table/{setup['table']}/"
        started = asyncio.Event()
        starts.append(started)
        for seat in SEATS:
            bot = Bot(seat, level, random.Random(rng.random()))
            stats.bots.append(bot)
            tasks.append(asyncio.create_task(player(
                url, setup["cookies"][seat - 1], origin, bot, rate, until, stats,
                random.Random(rng.random()), started)))
        tasks.append(asyncio.create_task(spectator(url, setup["cookies"][4], origin, until, stats)))
    await asyncio.sleep(2)  # let every socket connect
    loop = asyncio.get_running_loop()
    for setup in setups:
        await loop.run_in_executor(None, start_table, base, setup["table"], setup["cookies"][0])
    await asyncio.gather(*tasks, return_exceptions=False)
    return stats


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--rate", type=float, default=5.0, help="intents a second per player")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bot-level", choices=("easy", "medium", "hard"), default="medium",
                        help="strength of the TetriWar AI playing every seat")
    parser.add_argument("--keep", action="store_true", help="keep the server's database and log")
    args = parser.parse_args()

    tmp = tempfile.mkdtemp(prefix="tetriwar-bench-")
    db_path = os.path.join(tmp, "bench.sqlite3")
    port = free_port()
    setups = prepare(args.tables, db_path, port)
    server_log = open(os.path.join(tmp, "server.log"), "w")
    server = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"],
        cwd=ROOT, env=server_env(db_path, port), stdout=server_log, stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        stats = asyncio.run(drive(setups, port, args.seconds, args.rate, args.seed, args.bot_level))
    except BaseException:
        server_log.flush()
        with open(server_log.name) as log:
            sys.stderr.write("--- server log (last lines) ---\n" + "".join(line for line in log.readlines() if "WSCONNECT" not in line and "WSDISCONNECT" not in line)[-6000:])
        raise
    finally:
        server.terminate()
        try:
            server.wait(timeout=5)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        server_log.close()
        if args.keep:
            print(f"kept: {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)

    print(f"seconds: {args.seconds}")
    print(f"players: {args.tables * 4}")
    print(f"spectators: {args.tables}")
    print(f"intents_sent: {stats.sent}")
    print(f"intents_acknowledged: {len(stats.latencies)}")
    print(f"error_replies: {stats.errors}")
    print(f"updates_seen_by_spectators: {len(stats.update_bytes)}")
    print(f"lines_cleared_total: {sum(bot.lines for bot in stats.bots)}")
    print(f"tables: {args.tables}")
    if not stats.latencies:
        print("p50_ms: nan\np99_ms: nan\nbytes_per_update_median: nan")
        return
    print(f"p50_ms: {percentile(stats.latencies, 0.50):.2f}")
    print(f"p99_ms: {percentile(stats.latencies, 0.99):.2f}")
    print(f"bytes_per_update_median: {statistics.median(stats.update_bytes):.0f}")


if __name__ == "__main__":
    main()
