"""Scale-out, proven with real processes: two Daphne servers and one table-host
worker on PostgreSQL and Redis, players of one table on different servers.

Skips without PostgreSQL (127.0.0.1:5432) or Redis (127.0.0.1:6379), except under
CI=true, where it must run.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path

import pytest

from bench.server import ScratchDatabase
from tests.needs import need, port_open

pytestmark = pytest.mark.services
ROOT = Path(__file__).resolve().parents[2]
PG = os.environ.get("TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432")
REDIS_DB = 11  # a Redis database of this test's own
# Redis pub/sub, the channel layer, is one space for all of a server's databases: two
# clusters at once (on two pytest-xdist workers) would hear each other's tables and
# game-host channels. One cluster at a time runs on this machine (running_cluster).
CLUSTER_LOCK = Path(tempfile.gettempdir()) / "tetriwar-test-cluster.lock"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    def __init__(self, env: dict[str, str], logs: Path) -> None:
        self.env = env
        self.logs = logs
        self.procs: dict[str, subprocess.Popen] = {}
        self.ports: dict[str, int] = {}

    def start(
        self, name: str, args: list[str], port: int | None = None, env: dict[str, str] | None = None
    ) -> None:
        log = open(self.logs / f"{name}.log", "a")
        self.procs[name] = subprocess.Popen(
            [sys.executable, *args], cwd=ROOT, env=env or self.env, stdout=log, stderr=log
        )
        if port:
            self.ports[name] = port
            deadline = time.time() + 30
            while not port_open("127.0.0.1", port):
                assert time.time() < deadline, (
                    f"{name} did not start: {(self.logs / f'{name}.log').read_text()[-2000:]}"
                )
                assert self.procs[name].poll() is None, (self.logs / f"{name}.log").read_text()[-3000:]
                time.sleep(0.1)

    def daphne(self, name: str, **settings: str) -> None:
        port = self.ports.get(name) or free_port()
        args = ["-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"]
        self.start(name, args, port, env={**self.env, **settings})

    def worker(self) -> None:
        self.start("worker", ["manage.py", "runworker", "game-host-0"])
        self.wait_for_heartbeat()

    def wait_for_heartbeat(self, name: str = "worker") -> None:
        import psycopg

        deadline = time.time() + 30
        while time.time() < deadline:
            with psycopg.connect(self.env["DATABASE_URL"]) as conn:
                row = conn.execute(
                    "select count(*) from games_hostheartbeat where beat_at > now() - interval '2 seconds' and pid = %s",
                    (self.procs[name].pid,),
                ).fetchone()
            if row[0]:
                return
            time.sleep(0.2)
        raise AssertionError(f"{name} never beat: " + (self.logs / f"{name}.log").read_text()[-2000:])

    def kill(self, name: str) -> None:
        proc = self.procs.pop(name)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)

    @contextlib.contextmanager
    def frozen(self, *names: str):
        """The named processes stand still (SIGSTOP) inside the block, and go on after it:
        their sockets stay open and what was sent to them waits."""
        for name in names:
            self.procs[name].send_signal(signal.SIGSTOP)
        try:
            yield
        finally:
            for name in names:
                self.procs[name].send_signal(signal.SIGCONT)

    def stop(self) -> None:
        for name in list(self.procs):
            proc = self.procs.pop(name)
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def logs_tail(self, chars: int = 1500) -> str:
        return "\n".join(f"--- {log.name}:\n{log.read_text()[-chars:]}" for log in sorted(self.logs.glob("*.log")))

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.ports[name]}"

    def setup_table(self, name: str, stake: int = 100, minutes: int = 3) -> dict:
        done = subprocess.run(
            [sys.executable, "tests/services/cluster_setup.py", "table", name, str(stake), str(minutes)],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout.strip().splitlines()[-1])

    def query(self, sql: str, *params):
        import psycopg

        with psycopg.connect(self.env["DATABASE_URL"]) as conn:
            return conn.execute(sql, params).fetchall()


@contextlib.contextmanager
def running_cluster(tmp: Path, **settings: str):
    """A scratch PostgreSQL database and Redis database, and a Cluster on them (no
    process started yet); everything is stopped and dropped at the end."""
    need(port_open("127.0.0.1", 5432), "PostgreSQL is not running at 127.0.0.1:5432")
    need(port_open("127.0.0.1", 6379), "Redis is not running at 127.0.0.1:6379")
    import redis

    with open(CLUSTER_LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # until another worker's cluster has stopped
        database = ScratchDatabase(PG, prefix="tetriwar_scale_")
        database.create(migrated=True)  # a copy of the database migrated once for these migrations
        redis.Redis(host="127.0.0.1", port=6379, db=REDIS_DB).flushdb()
        env = {
            **os.environ,
            "DATABASE_URL": database.url,
            "REDIS_URL": f"redis://127.0.0.1:6379/{REDIS_DB}",
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DEBUG": "true",
            "LOG_LEVEL": os.environ.get("CLUSTER_LOG_LEVEL", "WARNING"),
            **settings,
        }
        cluster = Cluster(env, tmp)
        try:
            yield cluster
        finally:
            cluster.stop()
            database.drop()
            redis.Redis(host="127.0.0.1", port=6379, db=REDIS_DB).flushdb()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with running_cluster(tmp_path_factory.mktemp("cluster"), GAME_HOST_ORPHAN_SECONDS="5") as cluster:
        cluster.worker()
        cluster.daphne("d1")
        cluster.daphne("d2")
        yield cluster


# --- clients --------------------------------------------------------------------------


async def connect(cluster: Cluster, server: str, table: int, cookie: str):
    import websockets

    base = cluster.url(server)
    return await websockets.connect(
        f"ws://127.0.0.1:{cluster.ports[server]}/ws/table/{table}/",
        additional_headers={"Cookie": cookie, "Origin": base},
    )


async def receive_until(ws, pattern: str, timeout: float = 10.0) -> str:
    seen: list[str] = []

    async def wait():
        while True:
            message = await ws.recv()
            if re.search(pattern, message):
                return message
            seen.append(message)

    try:
        return await asyncio.wait_for(wait(), timeout)
    except TimeoutError:
        last = " | ".join(m[:160] for m in seen[-3:])
        raise AssertionError(f"no frame matching {pattern!r} in {timeout} s ({len(seen)} others; the last: {last})") from None


def post(cluster: Cluster, server: str, path: str, cookie: str, data: dict | None = None) -> None:
    base = cluster.url(server)
    jar = CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.addheaders = [("Cookie", cookie)]
    opener.open(f"{base}/lobby/").read()
    token = next(c.value for c in jar if c.name == "csrftoken")
    request = urllib.request.Request(
        f"{base}{path}",
        data=urllib.parse.urlencode({"csrfmiddlewaretoken": token, **(data or {})}).encode(),
        headers={"Cookie": f"{cookie}; csrftoken={token}", "Origin": base, "HX-Request": "true"},
    )
    body = opener.open(request).read().decode()
    assert "message error" not in body, body


async def start_game(cluster, setup, sockets):
    await asyncio.to_thread(post, cluster, "d1", f"/lobby/table/{setup['table']}/start/", setup["cookies"][0])
    for ws in sockets:
        await receive_until(ws, "data-remaining-ms", timeout=15)


async def forfeit_and_see_the_results(leaver, sockets) -> None:
    """One of the two players leaves: only one side remains, so the game ends; every
    socket gets the results, then each closes."""
    await leaver.send(json.dumps({"intent": "forfeit"}))
    for ws in sockets:
        assert "Results" in await receive_until(ws, 'id="results-title"', timeout=15)
    for ws in sockets:
        await ws.close()


# The input log of play_a_short_game.
SHORT_GAME_LOG = [[1, "hard_drop"], [2, "left"], [1, "forfeit"]]


async def play_a_short_game(a, b, watcher) -> None:
    """Seat 1 (``a``) drops, seat 2 (``b``) moves, seat 1 leaves: each step reaches all
    three sockets, wherever each is connected (SHORT_GAME_LOG)."""
    sockets = (a, b, watcher)
    await a.send(json.dumps({"intent": "hard_drop", "seq": 1}))
    for ws in sockets:
        assert 'id="board-1-row-19"' in await receive_until(ws, r"a1:1\b")
    await b.send(json.dumps({"intent": "left", "seq": 1}))
    for ws in sockets:
        await receive_until(ws, r"a2:1\b")
    await forfeit_and_see_the_results(a, sockets)


def assert_saved_once(cluster, setup, log: list) -> None:
    """The table's one game is finished, with this input log, its pot paid once, and
    no chip made or lost."""
    games = cluster.query("select id, status from games_game where table_id = %s", setup["table"])
    assert [status for _, status in games] == ["finished"]
    entries = cluster.query("select entries from games_gamelog where game_id = %s", games[0][0])[0][0]
    assert [entry[1:] for entry in entries] == log
    pots = cluster.query(
        "select count(*) from accounts_chiptransaction where reason = 'pot' and note = %s",
        f"Game #{games[0][0]}",
    )
    assert pots == [(1,)]
    assert sum(chips(cluster, setup["users"])) == 3000


def chips(cluster, user_ids):
    rows = dict(cluster.query("select id, chips from accounts_user where id = any(%s)", list(user_ids)))
    return [rows[pk] for pk in user_ids]


# --- the tests --------------------------------------------------------------------------


def test_players_on_two_servers_play_one_table_and_the_game_is_saved_once(cluster):
    setup = cluster.setup_table("proof")

    async def play():
        a = await connect(cluster, "d1", setup["table"], setup["cookies"][0])
        b = await connect(cluster, "d2", setup["table"], setup["cookies"][1])
        watcher = await connect(cluster, "d2", setup["table"], setup["cookies"][2])
        await start_game(cluster, setup, [a, b, watcher])
        await a.send(json.dumps({"intent": "hard_drop", "seq": 1}))
        for ws in (b, watcher):  # on the other server
            fragment = await receive_until(ws, r"a1:1\b")
            assert 'id="board-1-row-19"' in fragment
        await forfeit_and_see_the_results(a, (a, b, watcher))  # the game ends, saved once

    asyncio.run(play())
    assert_saved_once(cluster, setup, [[1, "hard_drop"], [1, "forfeit"]])


def test_a_killed_worker_that_does_not_come_back_has_its_games_aborted_and_the_stakes_returned(cluster):
    """Nobody hosts the shard for GAME_HOST_ORPHAN_SECONDS (5 s here): a server's watchdog
    aborts its games, stakes back, and tells their pages."""
    setup = cluster.setup_table("killed")

    async def play():
        a = await connect(cluster, "d1", setup["table"], setup["cookies"][0])
        b = await connect(cluster, "d2", setup["table"], setup["cookies"][1])
        await start_game(cluster, setup, [a, b])
        assert chips(cluster, setup["users"][:2]) == [900, 900]
        cluster.kill("worker")
        for ws in (a, b):
            message = await receive_until(ws, "Game aborted", timeout=30)
            assert "stakes returned" in message
        for ws in (a, b):
            await ws.close()

    try:
        asyncio.run(play())
    finally:
        cluster.worker()
    assert chips(cluster, setup["users"][:2]) == [1000, 1000]
    assert cluster.query("select status from games_game where table_id = %s", setup["table"]) == [
        ("aborted",)
    ]


def journal_entries(cluster, table: int) -> int:
    """How many inputs of the table's running game are written down (games/journal.py)."""
    from games.core.log import InputLog

    rows = cluster.query(
        "select b.data from games_journalbatch b join games_game g on g.id = b.game_id "
        "where g.table_id = %s order by b.seq", table,
    )
    return sum(len(InputLog.unpack(bytes(data))[0]) for (data,) in rows)


async def written(cluster, table: int, entries: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while journal_entries(cluster, table) < entries:
        assert time.monotonic() < deadline, f"table {table}: {entries} inputs never written"
        await asyncio.sleep(0.05)


def test_a_restarted_worker_resumes_the_games_left_running(cluster):
    """SIGKILL, then the worker again: it takes its shard's lease at once (its holder is
    gone from this machine), rebuilds the game from what was written, and the pages that
    stayed open on the servers are told, counted down, and play on. Nothing is lost but
    what was not yet written; the game ends once, its pot paid once."""
    setup = cluster.setup_table("restarted")

    async def play():
        a = await connect(cluster, "d1", setup["table"], setup["cookies"][0])
        b = await connect(cluster, "d2", setup["table"], setup["cookies"][1])
        await start_game(cluster, setup, [a, b])
        await a.send(json.dumps({"intent": "hard_drop", "seq": 1}))
        for ws in (a, b):
            await receive_until(ws, r"a1:1\b")
        await written(cluster, setup["table"], 1)
        # The servers' watchdogs stand still meanwhile (however long the worker's start
        # takes on a loaded machine): it is the worker that finds the game.
        with cluster.frozen("d1", "d2"):
            cluster.kill("worker")
            cluster.worker()
        for ws in (a, b):
            page = await receive_until(ws, "The server restarted", timeout=20)
        await receive_until(b, "data-remaining-ms", timeout=15)  # the countdown is over
        await b.send(json.dumps({"intent": "left", "seq": 1}))
        for ws in (a, b):  # (the new worker's first key: its code still cold)
            await receive_until(ws, r"a2:1\b", timeout=20)
        await forfeit_and_see_the_results(a, (a, b))
        return page

    try:
        asyncio.run(play())
    except AssertionError as error:  # what the processes said, beside the frame missed
        raise AssertionError(f"{error}\n{cluster.logs_tail()}") from None
    assert_saved_once(cluster, setup, [[1, "hard_drop"], [2, "left"], [1, "forfeit"]])


def test_a_killed_server_drops_only_its_sockets_and_players_continue_through_the_other(cluster):
    setup = cluster.setup_table("failover")

    async def play():
        a = await connect(cluster, "d1", setup["table"], setup["cookies"][0])
        b = await connect(cluster, "d2", setup["table"], setup["cookies"][1])
        await start_game(cluster, setup, [a, b])
        await b.send(json.dumps({"intent": "hard_drop", "seq": 1}))
        await receive_until(a, r"a2:1\b")
        cluster.kill("d2")
        import websockets

        with pytest.raises(websockets.exceptions.ConnectionClosed):  # b's socket is gone
            await asyncio.wait_for(receive_until(b, "never"), 5)
        # a, on the other server, plays on.
        await a.send(json.dumps({"intent": "left", "seq": 2}))
        await receive_until(a, r"a1:2\b")
        # b comes back through d1, gets the board back and plays on.
        b2 = await connect(cluster, "d1", setup["table"], setup["cookies"][1])
        full = await receive_until(b2, 'id="game"')
        assert re.search(r'id="board-2-row-19" class="fr">(<i></i>)*<i class=\w', full)
        await b2.send(json.dumps({"intent": "rotate", "seq": 3}))
        await receive_until(a, r"a2:3\b")
        for ws in (a, b2):
            await ws.close()

    try:
        asyncio.run(play())
    finally:
        cluster.daphne("d2")
    assert cluster.query("select status from games_game where table_id = %s", setup["table"]) == [
        ("running",)
    ]


def test_chat_crosses_servers_and_the_spectators_room_stays_with_the_spectators(cluster):
    setup = cluster.setup_table("chat")

    async def talk():
        a = await connect(cluster, "d1", setup["table"], setup["cookies"][0])
        b = await connect(cluster, "d2", setup["table"], setup["cookies"][1])
        watcher = await connect(cluster, "d1", setup["table"], setup["cookies"][2])
        for ws in (a, b, watcher):  # each socket opens with the table's chat
            await receive_until(ws, 'id="chat-log"')
        await a.send(json.dumps({"intent": "say", "text": "hello from d1 <b>"}))
        for ws in (b, watcher):
            assert "hello from d1 &lt;b&gt;" in await receive_until(ws, "chat-msg")
        await start_game(cluster, setup, [a, b, watcher])
        await watcher.send(json.dumps({"intent": "say", "text": "psst, spectators only"}))
        assert "chat-spectators" in await receive_until(watcher, "psst")
        await b.send(json.dumps({"intent": "say", "text": "gg from d2"}))
        assert "gg from d2" in await receive_until(watcher, "gg from d2")
        for ws in (a, b):  # the players on both servers: up to the player's message, no spectators' room
            heard = []
            while "gg from d2" not in (heard[-1] if heard else ""):
                heard.append(await asyncio.wait_for(ws.recv(), 10))
            assert not any("psst" in message for message in heard)
        # A reconnect on the other server finds the table's messages in its log.
        await a.close()
        again = await connect(cluster, "d2", setup["table"], setup["cookies"][0])
        log = await receive_until(again, 'id="chat-log"')
        assert "hello from d1" in log and "gg from d2" in log and "psst" not in log
        for ws in (again, b, watcher):
            await ws.close()

    asyncio.run(talk())
    rooms = cluster.query("select room from lobby_chatmessage where table_id = %s order by id", setup["table"])
    assert rooms == [("table",), ("spectators",), ("table",)]
