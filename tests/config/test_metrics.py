"""/metrics (config/metrics.py, config/urls.py): who may read it, and what the live
path counts on it: intent latency, live tables, open sockets, refused frames, the
host's queue depth."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY

from config.asgi import application
from games.models import Game
from lobby import services
from tests.live.conftest import HOST, ORIGIN, open_socket, receive_until
from tests.live.test_tetriwar_table import seat_everyone, start_game, three_sockets

ROOT = Path(__file__).resolve().parent.parent.parent
PUBLIC = "203.0.113.7"  # an address of the wide world (TEST-NET-3)
NAMES = (
    "tetriwar_intent_latency_seconds",
    "tetriwar_live_tables",
    "tetriwar_open_websockets",
    "tetriwar_frames_refused_total",
    "tetriwar_host_queue_depth",
)
live = pytest.mark.django_db(transaction=True)


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def eventually(check, timeout: float = 2.0) -> None:
    """The host observes after its broadcast has gone out, so a socket may read the
    broadcast a moment before the metric moves."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "the metric did not move"
        await asyncio.sleep(0.01)


# --- who may read /metrics --------------------------------------------------------------
@pytest.mark.parametrize("address", ["127.0.0.1", "::1", "::ffff:127.0.0.1"])
def test_a_scraper_on_this_machine_reads_every_metric(client, db, address):
    response = client.get("/metrics", REMOTE_ADDR=address)
    assert response.status_code == 200
    assert response["Content-Type"] == CONTENT_TYPE_LATEST
    text = response.content.decode()
    for name in NAMES:
        assert f"# TYPE {name} " in text


def test_an_outsider_does_not_learn_that_metrics_exist(client, db, outsider):
    assert client.get("/metrics", REMOTE_ADDR=PUBLIC).status_code == 404
    client.force_login(outsider)
    assert client.get("/metrics", REMOTE_ADDR=PUBLIC).status_code == 404


def test_staff_read_metrics_from_anywhere(client, make_user):
    moderator = make_user("moderator")
    moderator.is_staff = True
    moderator.save(update_fields=["is_staff"])
    client.force_login(moderator)
    response = client.get("/metrics", REMOTE_ADDR=PUBLIC)
    assert response.status_code == 200
    assert "# TYPE tetriwar_live_tables gauge" in response.content.decode()


def test_a_forwarded_for_header_makes_nobody_local_unless_a_trusted_proxy_sends_it(client, db, settings):
    # Anybody may claim to forward for 127.0.0.1: not believed.
    assert client.get("/metrics", REMOTE_ADDR=PUBLIC, HTTP_X_FORWARDED_FOR="127.0.0.1").status_code == 404
    # A proxy on this machine forwards a visitor: the visitor is not local.
    settings.TRUSTED_PROXIES = ["127.0.0.1"]
    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR=PUBLIC).status_code == 404
    # A scraper beside it, straight to the server, is.
    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 200


# --- what the live path counts ----------------------------------------------------------
@pytest.fixture
def table(host, opponent):
    return seat_everyone(host, opponent)


@live
async def test_an_acknowledged_intent_is_timed_from_the_host_to_its_broadcast(
    table, host, opponent, outsider, fake_clock
):
    sockets = await three_sockets(table, host, opponent, outsider)
    await start_game(table, fake_clock, sockets)
    count, total = (sample(f"tetriwar_intent_latency_seconds_{s}", kind="tetriwar") for s in ("count", "sum"))
    waited = sample("tetriwar_host_queue_depth_sum")
    await sockets[0].send_json_to({"intent": "left", "seq": 7})
    await receive_until(sockets[0], r"a1:7\b")
    await eventually(lambda: sample("tetriwar_intent_latency_seconds_count", kind="tetriwar") == count + 1)
    assert 0 < sample("tetriwar_intent_latency_seconds_sum", kind="tetriwar") - total < 1.0
    # The host found that intent waiting in the table's inbox.
    assert sample("tetriwar_host_queue_depth_sum") >= waited + 1
    for ws in sockets:
        await ws.disconnect()


@live
async def test_a_game_is_a_live_table_until_it_ends_and_its_start_and_abort_are_logged(
    table, host, opponent, outsider, admin_user, fake_clock, caplog
):
    caplog.set_level(logging.INFO, logger="games.host")
    before = sample("tetriwar_live_tables")
    sockets = await three_sockets(table, host, opponent, outsider)
    await start_game(table, fake_clock, sockets)
    assert sample("tetriwar_live_tables") == before + 1
    await database_sync_to_async(services.table_close)(table_id=table.pk, reason="Rude names", by=admin_user)
    await receive_until(sockets[2], "Game aborted")
    await eventually(lambda: sample("tetriwar_live_tables") == before)
    game = await database_sync_to_async(Game.objects.get)(table=table)
    lines = [record.getMessage() for record in caplog.records if record.name == "games.host"]
    fields = f"table={table.pk} game={game.pk} kind=tetriwar"
    assert f"game started {fields}" in lines
    assert any(line.startswith(f"game aborted {fields} reason=") and "Rude names" in line for line in lines)
    for ws in sockets:
        await ws.disconnect()


@live
async def test_open_websockets_are_counted_while_they_are_open():
    before = sample("tetriwar_open_websockets")
    sockets = [await open_socket("/ws/lobby/") for _ in range(3)]
    assert sample("tetriwar_open_websockets") == before + 3
    for ws in sockets:
        await ws.disconnect()
    await eventually(lambda: sample("tetriwar_open_websockets") == before)


@live
async def test_each_refused_frame_is_counted_once_by_its_code(
    table, host, opponent, outsider, fake_clock, settings
):
    sockets = await three_sockets(table, host, opponent, outsider)
    await start_game(table, fake_clock, sockets)
    player1, _, spectator = sockets
    for ws, text, code in [
        (player1, "[[[[", "BAD_FRAME"),  # games/wire.py
        (player1, '{"intent": "left", "seq": -1}', "BAD_SEQ"),  # games/wire.py
        (player1, "x" * (settings.WS_MAX_FRAME_BYTES + 1), "FRAME_TOO_LARGE"),  # lobby/edge.py
        (spectator, '{"intent": "left"}', "SPECTATOR"),  # the consumer (lobby/ws.py)
    ]:
        before = sample("tetriwar_frames_refused_total", code=code)
        await ws.send_to(text_data=text)
        assert f'data-code="{code}"' in await receive_until(ws, "ws-error")
        assert sample("tetriwar_frames_refused_total", code=code) == before + 1
    for ws in sockets:
        await ws.disconnect()


@live
async def test_a_socket_refused_for_its_address_is_counted(settings):
    settings.WS_MAX_SOCKETS_PER_ADDRESS = 1

    async def from_public(scope, receive, send):
        return await application({**scope, "client": (PUBLIC, 40000)}, receive, send)

    before = sample("tetriwar_frames_refused_total", code="ADDRESS_OPEN")
    first, second = (
        WebsocketCommunicator(from_public, "/ws/lobby/", headers=[HOST, ORIGIN]) for _ in range(2)
    )
    assert (await first.connect())[0]
    assert not (await second.connect())[0]
    assert sample("tetriwar_frames_refused_total", code="ADDRESS_OPEN") == before + 1
    await first.disconnect()


# --- several processes ------------------------------------------------------------------
def _python(code: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_in_multiprocess_mode_every_process_counts_and_only_live_ones_are_open(tmp_path):
    count_one = (
        "from config import metrics\n"
        "metrics.FRAMES_REFUSED.labels('BAD_FRAME').inc()\n"
        "metrics.OPEN_WEBSOCKETS.inc()\n"
    )
    report = (
        "from prometheus_client import generate_latest\nprint(generate_latest(metrics.registry()).decode())\n"
    )
    first = _python(count_one, PROMETHEUS_MULTIPROC_DIR=str(tmp_path))  # then exits
    assert first.returncode == 0, first.stderr
    second = _python(count_one + report, PROMETHEUS_MULTIPROC_DIR=str(tmp_path))
    assert second.returncode == 0, second.stderr
    assert 'tetriwar_frames_refused_total{code="BAD_FRAME"} 2.0' in second.stdout  # both processes
    assert "tetriwar_open_websockets 1.0" in second.stdout  # the one still alive


def test_start_up_fails_when_the_multiprocess_directory_is_missing(tmp_path):
    done = _python(
        "from config import settings", DEBUG="true", PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "missing")
    )
    assert done.returncode != 0
    assert "PROMETHEUS_MULTIPROC_DIR" in done.stderr and "is not a directory" in done.stderr
