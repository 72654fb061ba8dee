"""The scale-out layer (config/layers.py PubSubChannelLayer) against a real Redis:
what arrives is decoded once and handed to attached handlers; the rest queues."""

from __future__ import annotations

import asyncio

import pytest

from config.layers import PubSubChannelLayer
from tests.needs import need, port_open

REDIS_URL = "redis://127.0.0.1:6379/12"  # a Redis database of this test's own


@pytest.fixture
async def layer():
    need(port_open("127.0.0.1", 6379), "Redis is not running on 127.0.0.1:6379")
    layer = PubSubChannelLayer(hosts=[REDIS_URL], prefix="test-direct")
    yield layer
    await layer.flush()


async def wait_for(predicate, seconds: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + seconds
    while not predicate():
        assert asyncio.get_running_loop().time() < deadline, "nothing arrived from Redis"
        await asyncio.sleep(0.01)


async def test_group_messages_reach_attached_handlers_and_the_rest_queues(layer):
    seen: list[tuple[str, dict]] = []

    def recorder(name):
        async def handler(message):
            seen.append((name, message))
        return handler

    attached, plain = await layer.new_channel(), await layer.new_channel()
    layer.attach(attached, recorder("attached"), ["game.fragment"])
    for channel in (attached, plain):
        await layer.group_add("table-9", channel)

    await layer.group_send("table-9", {"type": "game.fragment", "html": "<b>1</b>"})
    await wait_for(lambda: seen)
    assert seen == [("attached", {"type": "game.fragment", "html": "<b>1</b>"})]
    assert await asyncio.wait_for(layer.receive(plain), 5) == {"type": "game.fragment", "html": "<b>1</b>"}

    await layer.send(attached, {"type": "user.banned"})  # a type not attached: queued
    assert await asyncio.wait_for(layer.receive(attached), 5) == {"type": "user.banned"}
    assert len(seen) == 1

    layer.detach(attached)
    await layer.group_send("table-9", {"type": "game.fragment", "html": "<b>2</b>"})
    assert (await asyncio.wait_for(layer.receive(attached), 5))["html"] == "<b>2</b>"
    assert len(seen) == 1


async def test_messages_published_together_arrive_in_order(layer):
    seen: list[int] = []

    async def handler(message):
        seen.append(message["n"])

    channel = await layer.new_channel()
    layer.attach(channel, handler, ["game.fragment"])
    # Sent at once: they leave in one or a few pipelines, and each sender is
    # answered only once its message is on Redis.
    await asyncio.gather(*(layer.send(channel, {"type": "game.fragment", "n": n}) for n in range(200)))
    await wait_for(lambda: len(seen) == 200)
    assert seen == list(range(200))
