"""Layer sends from synchronous code (config/sends.py): under a server they are queued
for its loop, in order, and the database's thread does not wait for the loop to run them."""

from __future__ import annotations

import asyncio
import threading

import pytest
from channels.layers import get_channel_layer

from config import sends


@pytest.fixture
async def served():
    sends.serve_from()
    yield sends.outbox()
    sends._outbox = None


async def test_a_thread_sends_without_waiting_for_a_busy_loop_and_in_order(served):
    layer = get_channel_layer()
    channel = await layer.new_channel()
    done = threading.Event()

    def database_thread_work():
        for n in range(100):
            sends.send(channel, {"type": "n", "n": n})
        done.set()

    threading.Thread(target=database_thread_work).start()
    # The loop is busy (it does not turn) until the thread is done: with async_to_sync the
    # thread would wait for it, and this would time out.
    assert done.wait(timeout=5)
    received = [(await layer.receive(channel))["n"] for _ in range(100)]
    assert received == list(range(100))
    await asyncio.wait_for(served.drained(), 1)


async def test_a_send_that_fails_is_counted_and_the_next_still_goes(served, caplog):
    from config.metrics import LAYER_SENDS_FAILED

    layer = get_channel_layer()
    channel = await layer.new_channel()
    before = LAYER_SENDS_FAILED._value.get()

    def work():
        sends.send("not a valid channel name!", {"type": "x"})
        sends.group_send("g", {"type": "y"})
        sends.send(channel, {"type": "after"})

    await asyncio.get_running_loop().run_in_executor(None, work)
    assert (await asyncio.wait_for(layer.receive(channel), 2))["type"] == "after"
    assert LAYER_SENDS_FAILED._value.get() == before + 1
    assert "failed" in caplog.text


def test_without_a_server_loop_a_send_waits_for_the_layer():
    """Management commands and tests without Daphne: sent at once, as before."""
    from asgiref.sync import async_to_sync

    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    assert sends.outbox() is None
    sends.send(channel, {"type": "now"})
    assert async_to_sync(layer.receive)(channel)["type"] == "now"
