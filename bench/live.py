"""Live latency and fan-out: bot-driven TetriWar tables against a real server.

    python bench/live.py [--tables N] [--seconds S] [--rate R] [--seed S]

Starts one Daphne process on the embedded default (SQLite in a temporary file, the
in-memory channel layer, the table host inside Daphne), opens N tables of 4 players
and 1 spectator, each a real WebSocket over loopback, starts every game through the
site's own start button, and lets a random-intent driver press keys at human pace
(R intents a second per player, default 5) for S seconds.

Prints ``name: value`` lines. Latency is measured from an intent sent to the
sender's own fragment received: every intent carries a sequence number and the
host acknowledges it in the version comment of the broadcast it causes
(``<!--v12 a3:41 a1:7-->``). ``bytes_per_update_median`` is the size of the broadcasts
one spectator receives. The last lines are ``tables``, ``p50_ms``, ``p99_ms`` and
``bytes_per_update_median``.
"""

from __future__ import annotations

import argparse
import asyncio
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
from http.cookiejar import CookieJar
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

HEAD = re.compile(r"^<!--v(\d+)((?: a\d+:\d+)*)-->")
ACK = re.compile(r" a(\d+):(\d+)")
OPTIONS = {"minutes": 15, "start_level": 1, "lines_per_level": 10, "bombs": "manual", "pairs": False}
# The random driver's key mix: mostly moves, some drops, the odd bomb.
INTENTS = ["left", "right", "rotate", "left", "right", "rotate", "hard_drop", "soft_drop_on", "soft_drop_off", "bomb"]


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


async def player(ws_url, cookie, origin, seat, rate, until, stats: Stats, rng: random.Random, started: asyncio.Event):
    import websockets

    pending: dict[int, float] = {}
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
                received = time.perf_counter()
                for acked_seat, acked_seq in ACK.findall(head.group(2)):
                    if int(acked_seat) == seat:
                        sent_at = pending.pop(int(acked_seq), None)
                        if sent_at is not None:
                            stats.latencies.append((received - sent_at) * 1000)

        reader = asyncio.create_task(read())
        await started.wait()
        seq = 0
        while time.perf_counter() < until:
            await asyncio.sleep(rng.expovariate(rate))
            seq += 1
            pending[seq] = time.perf_counter()
            await ws.send(f'{{"intent": "{rng.choice(INTENTS)}", "seq": {seq}}}')
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


async def drive(setups, port, seconds, rate, seed) -> Stats:
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
        for seat in (1, 2, 3, 4):
            tasks.append(asyncio.create_task(player(
                url, setup["cookies"][seat - 1], origin, seat, rate, until, stats,
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
        stats = asyncio.run(drive(setups, port, args.seconds, args.rate, args.seed))
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
    print(f"tables: {args.tables}")
    if not stats.latencies:
        print("p50_ms: nan\np99_ms: nan\nbytes_per_update_median: nan")
        return
    print(f"p50_ms: {percentile(stats.latencies, 0.50):.2f}")
    print(f"p99_ms: {percentile(stats.latencies, 0.99):.2f}")
    print(f"bytes_per_update_median: {statistics.median(stats.update_bytes):.0f}")


if __name__ == "__main__":
    main()
