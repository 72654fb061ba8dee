"""The edge, against a real Daphne process on loopback (embedded mode, SQLite):
start-up (a game left running taken up again), and what the server does to a hostile client."""

from __future__ import annotations

import asyncio
import os
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import websockets

from tests.needs import port_open

ROOT = Path(__file__).resolve().parents[2]

SETUP = """
from accounts import services as accounts
from lobby import services
from lobby.models import Watcher
from tests.personas import TETRIWAR_OPTIONS, ref

a = accounts.user_signup(username="anna", email="anna@example.com", password="a-Long-pass-42")
b = accounts.user_signup(username="bert", email="bert@example.com", password="a-Long-pass-42")
table = services.table_create(player=ref(a), game="tetriwar", options=dict(TETRIWAR_OPTIONS), seats_total=2, stake=100)
services.seat_take(table_id=table.pk, player=ref(b), number=2)
for user in (a, b):
    services.seat_ready(table_id=table.pk, player=ref(user), ready=True)
services.table_start(table_id=table.pk, player=ref(a))
spare = services.table_create(player=ref(b), game="tetriwar", options=dict(TETRIWAR_OPTIONS), seats_total=2)
Watcher.objects.create(table=table, channel_name="specific.gone!1", server="a-killed-process:1:0")
Watcher.objects.create(table=table, channel_name="specific.gone!2", server="")
print(table.pk, spare.pk)
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def daphne(env: dict[str, str], log_path: Path):
    """Start Daphne on a free port; yield the port and its process id; stop it, and check its log."""
    port = free_port()
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    deadline = time.time() + 30
    while not port_open("127.0.0.1", port):
        assert proc.poll() is None and time.time() < deadline, log_path.read_text()[-3000:]
        time.sleep(0.1)
    yield port, proc.pid
    proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)
    log.close()
    assert "Traceback" not in log_path.read_text()


@pytest.fixture(scope="module")
def database(tmp_path_factory):
    """A database where an earlier process died mid-game, with its open pages."""
    tmp = tmp_path_factory.mktemp("edge")
    env = {**os.environ, "DEBUG": "true", "SQLITE_NAME": str(tmp / "db.sqlite3"), "LOG_LEVEL": "INFO"}
    run = [sys.executable, "manage.py"]
    subprocess.run([*run, "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
    out = subprocess.run([*run, "shell", "-c", SETUP], cwd=ROOT, env=env, check=True, capture_output=True, text=True)
    table_id, spare_id = map(int, out.stdout.split()[-2:])
    db = sqlite3.connect(env["SQLITE_NAME"])
    assert db.execute("select count(*) from games_game where status='running'").fetchone() == (1,)
    assert db.execute("select count(*) from lobby_watcher").fetchone() == (2,)
    return {"env": env, "db": db, "table": table_id, "spare": spare_id, "tmp": tmp}


@pytest.fixture(scope="module")
def server(database):
    """The site with its default budgets, on that database, its threads beside the loop
    in the idle class as a server alone on its CPUs runs them (the tests' servers
    otherwise keep them in the normal class: pyproject.toml)."""
    env = {
        **database["env"], "BACKGROUND_THREADS_IDLE": "true", "WS_FRAMES_PER_SECOND": "40", "WS_FRAME_BURST": "80", "WS_FLOOD_COOLOFF_SECONDS": "3",
        "HTTP_REQUESTS_PER_SECOND": "2", "HTTP_REQUEST_BURST": "10", "HTTP_COOLOFF_SECONDS": "3",
    }
    for port, pid in daphne(env, database["tmp"] / "daphne.log"):
        yield {**database, "port": port, "pid": pid}


def wait_for(predicate, seconds: float) -> float:
    start = time.time()
    while not predicate():
        assert time.time() - start < seconds
        time.sleep(0.05)
    return time.time() - start


def test_at_start_up_games_left_running_are_resumed_and_stale_watchers_removed_at_once(server):
    db = server["db"]
    log = server["tmp"] / "daphne.log"
    # Nobody has connected: the process takes up the game left running as soon as it runs
    # (games/resume.py), its stakes still in the pot, and forgets the pages that died.
    wait_for(lambda: f"game resumed table={server['table']} " in log.read_text(), 5)
    wait_for(lambda: db.execute("select count(*) from lobby_watcher").fetchone() == (0,), 5)
    assert db.execute("select status from games_game").fetchall() == [("running",)]
    assert db.execute("select chips from accounts_user order by username").fetchall() == [(900,), (900,)]


def socket_url(server, table: str = "spare") -> str:
    return f"ws://127.0.0.1:{server['port']}/ws/table/{server[table]}/"


def origin(server) -> str:
    return f"http://127.0.0.1:{server['port']}"


async def _flood(server, address: str = "127.0.0.1", seconds: float = 10.0):
    """Frames as fast as the client can send them, until the server closes the socket
    (or, if it never does, ``seconds`` have gone): its close code, and how long it took."""
    async with websockets.connect(socket_url(server), origin=origin(server), local_addr=(address, 0)) as ws:
        started = time.time()
        try:
            while time.time() - started < seconds:
                for _ in range(200):
                    await ws.send('{"intent": "left", "seq": 1}')
                await asyncio.sleep(0)
            await asyncio.wait_for(ws.wait_closed(), 3)
        except websockets.ConnectionClosed:
            pass
        return ws.close_code, time.time() - started


async def _connects(server, address: str = "127.0.0.1") -> bool:
    try:
        async with websockets.connect(socket_url(server), origin=origin(server), local_addr=(address, 0)):
            return True
    except websockets.InvalidStatus:
        return False


def http_answer(server, address: str, path: str = "/") -> bytes:
    """What the server answers a page request from ``address`` with: its status line,
    or b"" when it closed the connection without answering."""
    with socket.create_connection(("127.0.0.1", server["port"]), timeout=5, source_address=(address, 0)) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        answer = b""
        try:
            while b"\r\n" not in answer:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                answer += chunk
        except ConnectionResetError:
            pass
        return answer.split(b"\r\n", 1)[0]


def test_an_address_refused_for_its_rate_is_closed_before_a_byte_is_read_until_it_may_connect(server):
    flooder, neighbour = "127.0.0.3", "127.0.0.4"
    code, _ = asyncio.run(_flood(server, flooder))
    assert code == 4008
    assert not asyncio.run(_connects(server, flooder))  # refused at the handshake (403): cooling off
    # Until the cool-off ends, the flooder's connections are closed unread, with no
    # answer at all; the neighbours' are answered as ever.
    assert http_answer(server, flooder) == b""
    assert http_answer(server, neighbour).startswith(b"HTTP/1.1 ")
    time.sleep(3.1)  # the cool-off (3 s here) is over
    assert asyncio.run(_connects(server, flooder))


def test_page_requests_over_an_addresss_budget_get_429_and_then_no_answer(server):
    address = "127.0.0.5"
    statuses = []
    while len(statuses) < 30 and not (statuses and b" 429 " in statuses[-1]):
        statuses.append(http_answer(server, address, "/static/missing.txt"))
    # the burst, and whatever refilled while it was spent, is answered by Django
    assert len(statuses) > 10 and all(s.startswith(b"HTTP/1.1 404") for s in statuses[:-1])
    assert b" 429 " in statuses[-1]  # over it: answered before Django, once
    assert http_answer(server, address, "/static/missing.txt") == b""  # then closed unread for the cool-off
    assert http_answer(server, "127.0.0.6", "/static/missing.txt").startswith(b"HTTP/1.1 ")
    time.sleep(3.1)  # the cool-off (3 s here) is over
    assert http_answer(server, address, "/static/missing.txt").startswith(b"HTTP/1.1 404")


def test_a_flooding_socket_is_closed_with_4008_and_its_address_cools_down(server):
    # The flood would go on for 10 s: the server cuts it short once its budget is spent.
    # How soon is a speed, for bench/abuse.py (its flood and what it costs the honest
    # tables), not for a test: on a loaded machine the client's own seconds count too.
    code, seconds = asyncio.run(_flood(server, "127.0.0.2"))
    assert code == 4008, f"the flood was not closed by the server (code {code} after {seconds:.1f} s)"
    assert seconds < 10
    assert not asyncio.run(_connects(server, "127.0.0.2"))  # refused (403) during the cool-off
    time.sleep(3.1)  # the cool-off (3 s here) is over
    assert asyncio.run(_connects(server, "127.0.0.2"))


async def _fragmented(server, size: int):
    async with websockets.connect(socket_url(server), origin=origin(server), max_size=None) as ws:
        chunk = "x" * 4096
        try:
            await ws.send(chunk for _ in range(size // 4096))
            await asyncio.wait_for(ws.wait_closed(), 3)
        except websockets.ConnectionClosed:
            pass
        return ws.close_code


def test_a_message_over_the_cap_in_many_fragments_is_dropped(server):
    # 256 KiB in 4 KiB fragments: under Daphne's own cap (1 MiB), over ours (64 KiB).
    # autobahn fails the connection by dropping it (1006), or says 1009.
    started = time.time()
    assert asyncio.run(_fragmented(server, 256 * 1024)) in (1006, 1009)
    assert time.time() - started < 2


def scheduling_policies(pid: int) -> dict[int, tuple[str, int]]:
    """Each thread of process ``pid``, by thread id: its name and scheduling policy."""
    return {
        int(task.name): ((task / "comm").read_text().strip(), os.sched_getscheduler(int(task.name)))
        for task in Path(f"/proc/{pid}/task").iterdir()
    }


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="the idle scheduling class is Linux's")
def test_the_page_and_database_threads_run_in_the_idle_class_and_the_event_loop_does_not(server):
    # A page: a request thread renders it; the database thread has reconciled at start-up.
    assert http_answer(server, "127.0.0.7").startswith(b"HTTP/1.1 200")
    policies = scheduling_policies(server["pid"])
    _, loop = policies.pop(server["pid"])  # Daphne's main thread runs the event loop
    assert loop == os.SCHED_OTHER
    # The rebuilds' thread (this server resumed a game as it started) and the journal's
    # (once it wrote) stay at the loop's priority: both are due at once.
    at_the_loops = {name: policy for name, policy in policies.values() if name in ("rebuild", "journal")}
    assert "rebuild" in at_the_loops and set(at_the_loops.values()) == {os.SCHED_OTHER}
    others = [policy for name, policy in policies.values() if name not in at_the_loops]
    assert len(others) >= 2  # a request thread and the database thread at least
    assert set(others) == {os.SCHED_IDLE}
