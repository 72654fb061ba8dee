"""Only one process hosts a table at a time (issue 50): the shard's lease
(games/services.py ``lease_take``). Two servers told to host the same shard race for
it as they start; the one that loses waits, its sockets playing through the winner, and
takes the shard over when the winner dies, resuming its games from what was written.

Skips without PostgreSQL (127.0.0.1:5432) or Redis (127.0.0.1:6379), except under
CI=true, where it must run. A cluster of its own (not the hosting servers' module's:
one cluster runs at a time, tests/services/test_scale_out.py ``running_cluster``)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time

import pytest

from tests.needs import port_open
from tests.services.test_hosting_servers import start_game
from tests.services.test_scale_out import (
    ROOT,
    assert_saved_once,
    connect,
    forfeit_and_see_the_results,
    free_port,
    receive_until,
    running_cluster,
    written,
)

pytestmark = pytest.mark.services


def test_two_servers_racing_for_one_shard_host_it_one_at_a_time_and_the_next_takes_it_over(tmp_path_factory):
    """Two servers told to host the same shard start together: the lease goes to one,
    which alone hosts the shard's tables (the other's sockets play through it). Killed,
    its lease runs out and the other takes the shard over, resuming its game."""
    with running_cluster(
        tmp_path_factory.mktemp("race"), GAME_HOST_SHARDS="1", GAME_HOST_ORPHAN_SECONDS="60", LOG_LEVEL="INFO"
    ) as cluster:
        env = {**cluster.env, "HOSTED_SHARDS": "0"}
        ports = {name: free_port() for name in ("r1", "r2")}
        procs = {
            name: subprocess.Popen(
                [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "config.asgi:application"],
                cwd=ROOT, env=env, stdout=open(cluster.logs / f"{name}.log", "a"), stderr=subprocess.STDOUT,
            )
            for name, port in ports.items()
        }
        cluster.procs.update(procs)
        cluster.ports.update(ports)
        for name, port in ports.items():
            deadline = time.monotonic() + 30
            while not port_open("127.0.0.1", port):
                assert time.monotonic() < deadline and procs[name].poll() is None, (cluster.logs / f"{name}.log").read_text()[-2000:]
                time.sleep(0.1)
        deadline = time.monotonic() + 30
        while not cluster.query("select holder from games_hostheartbeat where shard = 0 and holder <> ''"):
            assert time.monotonic() < deadline, "nobody took the shard"
            time.sleep(0.1)
        holder = cluster.query("select pid from games_hostheartbeat where shard = 0")[0][0]
        winner = next(name for name, proc in procs.items() if proc.pid == holder)
        loser = next(name for name in procs if name != winner)
        setup = cluster.setup_table("raced")

        async def play():
            a = await connect(cluster, loser, setup["table"], setup["cookies"][0])
            b = await connect(cluster, winner, setup["table"], setup["cookies"][1])
            await start_game(cluster, setup, loser, [a, b])
            await a.send(json.dumps({"intent": "hard_drop", "seq": 1}))
            for ws in (a, b):
                await receive_until(ws, r"a1:1\b")
            await written(cluster, setup["table"], 1)
            cluster.kill(winner)
            await receive_until(a, "The server restarted", timeout=30)
            await receive_until(a, "data-remaining-ms", timeout=15)
            await a.send(json.dumps({"intent": "left", "seq": 2}))
            await receive_until(a, r"a1:2\b")
            await forfeit_and_see_the_results(a, (a,))

        asyncio.run(play())
        logs = {name: (cluster.logs / f"{name}.log").read_text() for name in procs}
        assert logs[winner].count(f"game started table={setup['table']} ") == 1
        assert f"game started table={setup['table']} " not in logs[loser]
        assert f"game resumed table={setup['table']} " in logs[loser]
        assert_saved_once(cluster, setup, [[1, "hard_drop"], [1, "left"], [1, "forfeit"]])
