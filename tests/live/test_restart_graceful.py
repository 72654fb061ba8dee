"""A deploy loses no game (issue 50, point 3): SIGTERM to a real Daphne process mid-game.
It takes no new socket, tells every page that the server restarts and the game goes on,
writes every input it applied (the last one too, not yet due for its batch), lets go
and exits within 5 s; the next process resumes the game where it stood, and it ends
once, its pot paid once."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import websockets

from bench.client import start_table
from games.core.log import InputLog
from games.journal import stored
from tests.live.test_restart_killed import seen
from tests.live.test_server_edge import free_port
from tests.needs import port_open

ROOT = Path(__file__).resolve().parents[2]
STOPPED_WITHIN_S = 5.0  # issue 50: a graceful stop exits within 5 s

SETUP = """
import json
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from accounts import services as accounts
from lobby import services
from tests.personas import TETRIWAR_OPTIONS, ref

def cookie(user):
    store = SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = settings.SESSION_AUTH_BACKEND
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    return f"{settings.SESSION_COOKIE_NAME}={store.session_key}"

a = accounts.user_signup(username="anna", email="anna@example.com", password="a-Long-pass-42")
b = accounts.user_signup(username="bert", email="bert@example.com", password="a-Long-pass-42")
table = services.table_create(player=ref(a), game="tetriwar", options=dict(TETRIWAR_OPTIONS), seats_total=2, stake=100, ip="10.0.0.1")
services.seat_take(table_id=table.pk, player=ref(b), number=2, ip="10.0.0.2")
for user in (a, b):
    services.seat_ready(table_id=table.pk, player=ref(user), ready=True)
print(json.dumps({"table": table.pk, "cookies": [cookie(a), cookie(b)]}))
"""


@pytest.fixture
def database(tmp_path):
    env = {**os.environ, "DEBUG": "true", "SQLITE_NAME": str(tmp_path / "db.sqlite3"), "LOG_LEVEL": "INFO"}
    run = [sys.executable, "manage.py"]
    subprocess.run([*run, "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
    out = subprocess.run([*run, "shell", "-c", SETUP], cwd=ROOT, env=env, check=True, capture_output=True, text=True)
    return {"env": env, "tmp": tmp_path, **json.loads(out.stdout.strip().splitlines()[-1])}


@pytest.fixture
def daphnes():
    """``start_daphne``, every process it started killed at the end if it still runs
    (a test that failed half-way leaves no server behind)."""
    started: list[subprocess.Popen] = []

    def start(env: dict[str, str], log_path: Path) -> tuple[subprocess.Popen, int]:
        return start_daphne(env, log_path, started)

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def start_daphne(env: dict[str, str], log_path: Path, started: list | None = None) -> tuple[subprocess.Popen, int]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"],
        cwd=ROOT, env=env, stdout=open(log_path, "w"), stderr=subprocess.STDOUT,
    )
    if started is not None:
        started.append(proc)
    deadline = time.monotonic() + 30
    while not port_open("127.0.0.1", port):
        assert proc.poll() is None and time.monotonic() < deadline, log_path.read_text()[-3000:]
        time.sleep(0.1)
    return proc, port


async def connect(port: int, table: int, cookie: str):
    return await websockets.connect(
        f"ws://127.0.0.1:{port}/ws/table/{table}/",
        additional_headers={"Cookie": cookie, "Origin": f"http://127.0.0.1:{port}"},
    )


def written(db_path: Path, table: int) -> InputLog:
    db = sqlite3.connect(db_path)
    try:
        rows = db.execute(
            "select b.data from games_journalbatch b join games_game g on g.id = b.game_id"
            " where g.table_id = ? order by b.seq", (table,),
        ).fetchall()
    finally:
        db.close()
    return stored([bytes(data) for (data,) in rows])[0]


def test_sigterm_mid_game_writes_every_input_tells_the_pages_and_the_next_process_resumes(database, daphnes):
    env, table, cookies = database["env"], database["table"], database["cookies"]
    db_path = Path(env["SQLITE_NAME"])
    first, port = daphnes(env, database["tmp"] / "first.log")

    async def before() -> float:
        a = await connect(port, table, cookies[0])
        b = await connect(port, table, cookies[1])
        assert await asyncio.to_thread(start_table, f"http://127.0.0.1:{port}", table, cookies[0]) is None
        for ws in (a, b):
            await seen(ws, "data-remaining-ms")
        await a.send(json.dumps({"intent": "hard_drop", "seq": 1}))
        await seen(a, "a1:1")
        # At once: the drop is not yet due for its batch; a graceful stop writes it all the same.
        first.send_signal(signal.SIGTERM)
        stopped = time.monotonic()
        for ws in (a, b):
            assert "The server is restarting: your game will continue." in await seen(ws, "restarting")
        try:
            late = await connect(port, table, cookies[0])
        except (OSError, websockets.InvalidStatus, websockets.InvalidHandshake):
            pass  # refused, or the process already gone
        else:
            with pytest.raises(websockets.ConnectionClosed):
                while True:
                    assert 'id="game"' not in await asyncio.wait_for(late.recv(), 5)
        return stopped

    stopped = asyncio.run(before())
    first.wait(timeout=30)
    assert time.monotonic() - stopped < STOPPED_WITHIN_S, "the server did not stop within 5 s"
    assert first.returncode == 0
    assert "Traceback" not in (database["tmp"] / "first.log").read_text()
    assert [text for _, seat, text in written(db_path, table)] == ["hard_drop"]

    second, port = daphnes(env, database["tmp"] / "second.log")

    async def after() -> None:
        a = await connect(port, table, cookies[0])
        b = await connect(port, table, cookies[1])
        for ws in (a, b):
            await seen(ws, "The server restarted: the game goes on in")
        await seen(b, "data-remaining-ms")  # the countdown is over
        await b.send(json.dumps({"intent": "left", "seq": 1}))
        await seen(b, "a2:1")
        await a.send(json.dumps({"intent": "forfeit"}))
        for ws in (a, b):
            await seen(ws, 'id="results-title"')
            await ws.close()

    asyncio.run(after())
    db = sqlite3.connect(db_path)
    try:
        games = db.execute("select id, status from games_game where table_id = ?", (table,)).fetchall()
        assert [status for _, status in games] == ["finished"]
        entries = json.loads(db.execute("select entries from games_gamelog where game_id = ?", (games[0][0],)).fetchone()[0])
        assert [entry[1:] for entry in entries] == [[1, "hard_drop"], [2, "left"], [1, "forfeit"]]
        pots = db.execute(
            "select count(*) from accounts_chiptransaction where reason = 'pot' and note = ?", (f"Game #{games[0][0]}",)
        ).fetchone()
        assert pots == (1,)
        assert sum(chips for (chips,) in db.execute("select chips from accounts_user")) == 2000
        assert not db.execute("select count(*) from games_journalbatch").fetchone()[0]
    finally:
        db.close()
    second.send_signal(signal.SIGTERM)
    second.wait(timeout=30)
    assert "Traceback" not in (database["tmp"] / "second.log").read_text()
