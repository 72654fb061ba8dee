"""bench/server.py: the servers of a benchmark's run are always stopped and their folder
removed, their logs shown when the run fails, and their environment is their whole
configuration. Small stand-in processes play the servers."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from bench.server import Servers, free_port, server_env

SLEEPER = ["-c", "import time; time.sleep(60)"]


def test_the_servers_of_a_run_are_stopped_and_their_folder_removed():
    with Servers.scratch("tetriwar-test-servers-") as servers:
        server = servers.start("sleeper", SLEEPER, dict(os.environ))
        folder = Path(servers.tmp)
        assert server.poll() is None and folder.is_dir()
    assert server.poll() is not None
    assert not folder.exists()


def test_a_failed_run_shows_its_servers_logs_and_keeps_its_folder_when_asked(capsys):
    with pytest.raises(RuntimeError, match="the bench failed"), \
            Servers.scratch("tetriwar-test-servers-", keep=True) as servers:
        servers.start("talker", ["-c", "print('listening, then a traceback')"], dict(os.environ)).wait(30)
        raise RuntimeError("the bench failed")
    err = capsys.readouterr().err
    assert "--- talker log (last lines) ---\nlistening, then a traceback" in err
    assert f"kept: {servers.tmp}" in err and Path(servers.tmp, "talker.log").exists()
    shutil.rmtree(servers.tmp)


def test_waiting_for_a_server_that_exited_says_so():
    with Servers.scratch("tetriwar-test-servers-") as servers:
        servers.start("quitter", ["-c", "raise SystemExit(3)"], dict(os.environ)).wait(30)
        with pytest.raises(RuntimeError, match="quitter exited with 3"):
            servers.wait_for_port(free_port(), seconds=10)


def test_the_servers_environment_is_their_whole_configuration(monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "postgresql://elsewhere/db")
    monkeypatch.setenv("REDIS_URL", "redis://elsewhere/0")
    env = server_env("/scratch", HTTP_REQUEST_BURST="9")
    assert (env["DEBUG"], env["SQLITE_NAME"], env["HTTP_REQUEST_BURST"]) == ("false", "/scratch/bench.sqlite3", "9")
    assert "DATABASE_URL" not in env and "REDIS_URL" not in env  # SQLite and the in-memory layer
    assert server_env("/scratch", redis_url="redis://127.0.0.1:6379/7")["REDIS_URL"] == "redis://127.0.0.1:6379/7"
    assert server_env("/scratch")["SECRET_KEY"] != env["SECRET_KEY"]  # a key of its own for each run
    assert env["PATH"] == os.environ["PATH"]  # the rest of this environment, as it is
