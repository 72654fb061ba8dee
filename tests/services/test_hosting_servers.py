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

import pytest

from tests.services.test_scale_out import (
    SHORT_GAME_LOG,
    assert_saved_once,
    chips,
    connect,
    play_a_short_game,
    post,
    receive_until,
    running_cluster,
)

pytestmark = pytest.mark.services


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with running_cluster(tmp_path_factory.mktemp("hosting"), GAME_HOST_SHARDS="2") as cluster:
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


def test_a_killed_hosting_server_has_its_games_aborted_by_the_other(cluster):
    setup = cluster.setup_table("hosted_killed")
    home, away = servers_of(setup["table"])

    async def play():
        a = await connect(cluster, home, setup["table"], setup["cookies"][0])
        b = await connect(cluster, away, setup["table"], setup["cookies"][1])
        await start_game(cluster, setup, home, [a, b])
        assert chips(cluster, setup["users"][:2]) == [900, 900]
        cluster.kill(home)
        message = await receive_until(b, "Game aborted", timeout=20)
        assert "stakes returned" in message
        await b.close()

    try:
        asyncio.run(play())
    finally:
        cluster.daphne(home, HOSTED_SHARDS=home[1])
    assert chips(cluster, setup["users"][:2]) == [1000, 1000]
    assert cluster.query("select status from games_game where table_id = %s", setup["table"]) == [
        ("aborted",)
    ]
