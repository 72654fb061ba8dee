"""Scale-out with the tables hosted by the Daphne servers themselves (HOSTED_SHARDS):
two servers on PostgreSQL and Redis, each hosting one of two shards. A table's
sockets on its host's server get everything in hand (games/hub.py); sockets on the
other server get the same through Redis.

Skips without PostgreSQL (127.0.0.1:5432) or Redis (127.0.0.1:6379), except under
CI=true, where it must run.
"""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from tests.services.test_scale_out import (
    SHORT_GAME_LOG,
    assert_saved_once,
    connect,
    forfeit_and_see_the_results,
    play_a_short_game,
    post,
    receive_until,
    running_cluster,
    written,
)

pytestmark = pytest.mark.services


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with running_cluster(tmp_path_factory.mktemp("hosting"), GAME_HOST_SHARDS="2", GAME_HOST_ORPHAN_SECONDS="60") as cluster:
        cluster.daphne("s0", HOSTED_SHARDS="0")
        cluster.daphne("s1", HOSTED_SHARDS="1")
        for name in ("s0", "s1"):
            cluster.wait_for_heartbeat(name)
        yield cluster


def servers_of(table: int) -> tuple[str, str]:
    """The server hosting the table (table id % 2 shards), and the other one."""
    return ("s0", "s1") if table % 2 == 0 else ("s1", "s0")


async def start_game(cluster, setup, server, sockets):
    await asyncio.to_thread(
        post, cluster, server, f"/lobby/table/{setup['table']}/start/", setup["cookies"][0]
    )
    for ws in sockets:
        await receive_until(ws, "data-remaining-ms", timeout=15)


@pytest.mark.parametrize("name", ["even", "odd"])
def test_players_on_the_hosting_server_and_the_other_play_one_table(cluster, name):
    # Two tables, so that each server hosts one and is "the other" for the other.
    setup = cluster.setup_table(f"hosted_{name}")
    home, away = servers_of(setup["table"])

    async def play():
        a = await connect(cluster, home, setup["table"], setup["cookies"][0])
        b = await connect(cluster, away, setup["table"], setup["cookies"][1])
        watcher = await connect(cluster, away, setup["table"], setup["cookies"][2])
        # The start button pressed on the server that does not host the table.
        await start_game(cluster, setup, away, [a, b, watcher])
        await play_a_short_game(a, b, watcher)

    asyncio.run(play())
    assert_saved_once(cluster, setup, SHORT_GAME_LOG)


def test_each_server_sends_the_table_in_each_readers_language(cluster):
    """A Chinese player on the hosting server, an English player and a German watcher on
    the other: what crosses Redis carries the languages read there (games/hub.py)."""
    setup = cluster.setup_table("hosted_languages")
    home, away = servers_of(setup["table"])
    table, cookies = setup["table"], setup["cookies"]

    async def play():
        chinese = await connect(cluster, home, table, cookies[0] + "; django_language=zh-hans")
        english = await connect(cluster, away, table, cookies[1])
        german = await connect(cluster, away, table, cookies[2] + "; django_language=de")
        await start_game(cluster, setup, away, [chinese, english, german])
        await chinese.send(json.dumps({"intent": "hard_drop", "seq": 1}))
        heads = {await receive_until(ws, r"a1:1\b") for ws in (chinese, english, german)}
        assert len({head.split("-->", 1)[0] for head in heads}) == 1  # one version, one ack
        await chinese.send(json.dumps({"intent": "forfeit"}))
        results = [await receive_until(ws, 'id="results-title"', timeout=15) for ws in (chinese, english, german)]
        assert ">结果<" in results[0] and ">Results<" in results[1] and ">Ergebnisse<" in results[2]
        for ws in (chinese, english, german):
            await ws.close()

    asyncio.run(play())


def test_a_killed_hosting_server_resumes_its_games_when_it_comes_back_and_the_others_never_pause(cluster):
    """SIGKILL of the server hosting one table, then that server again: the table's
    game goes on from what was written (its player on the other server told, counted
    down, playing on), while the other server's table never stops answering."""
    killed = cluster.setup_table("hosted_killed")
    home, away = servers_of(killed["table"])
    other = cluster.setup_table("hosted_alive")
    while servers_of(other["table"])[0] != away:  # a table the surviving server hosts
        other = cluster.setup_table(f"hosted_alive_{other['table']}")

    async def play():
        a = await connect(cluster, away, killed["table"], killed["cookies"][0])
        b = await connect(cluster, away, killed["table"], killed["cookies"][1])
        await start_game(cluster, killed, away, [a, b])
        c = await connect(cluster, away, other["table"], other["cookies"][0])
        d = await connect(cluster, away, other["table"], other["cookies"][1])
        await start_game(cluster, other, away, [c, d])
        await a.send(json.dumps({"intent": "hard_drop", "seq": 1}))
        for ws in (a, b):
            await receive_until(ws, r"a1:1\b")
        await written(cluster, killed["table"], 1)
        cluster.kill(home)
        # While the killed table's host is away, the other table plays on at once.
        started = time.monotonic()
        for seq in range(1, 4):
            await c.send(json.dumps({"intent": "left", "seq": seq}))
            await receive_until(c, rf"a1:{seq}\b", timeout=2)
        assert time.monotonic() - started < 2
        cluster.daphne(home, HOSTED_SHARDS=home[1])
        await receive_until(b, "The server restarted", timeout=30)
        await receive_until(b, "data-remaining-ms", timeout=15)
        await b.send(json.dumps({"intent": "left", "seq": 1}))
        await receive_until(b, r"a2:1\b")
        await forfeit_and_see_the_results(a, (a, b))
        await forfeit_and_see_the_results(c, (c, d))

    asyncio.run(play())
    assert_saved_once(cluster, killed, [[1, "hard_drop"], [2, "left"], [1, "forfeit"]])
