"""The embedded channel layer's direct delivery (config/layers.py)."""

from __future__ import annotations

import asyncio
import threading

import pytest
from channels.exceptions import ChannelFull

from config.layers import EmbeddedChannelLayer


@pytest.fixture
def layer():
    return EmbeddedChannelLayer(channel_capacity={"small*": 1})


async def test_attached_types_are_handed_over_at_once_and_others_queue(layer):
    seen = []

    async def handler(message):
        seen.append(message)

    channel = await layer.new_channel()
    layer.attach(channel, handler, ["game.fragment"])
    await layer.group_add("table-1", channel)
    await layer.group_send("table-1", {"type": "game.fragment", "html": "<b>1</b>"})
    await layer.send(channel, {"type": "game.fragment", "html": "<b>2</b>"})
    assert [m["html"] for m in seen] == ["<b>1</b>", "<b>2</b>"]  # no wake-up needed

    await layer.send(channel, {"type": "user.banned"})  # not attached: queued
    assert len(seen) == 2
    assert (await layer.receive(channel))["type"] == "user.banned"

    layer.detach(channel)
    await layer.group_send("table-1", {"type": "game.fragment", "html": "<b>3</b>"})
    assert len(seen) == 2
    assert (await layer.receive(channel))["html"] == "<b>3</b>"


async def test_a_failing_receiver_does_not_stop_the_others(layer):
    seen = []

    async def broken(message):
        raise RuntimeError("socket gone")

    async def fine(message):
        seen.append(message["html"])

    first, second = await layer.new_channel(), await layer.new_channel()
    layer.attach(first, broken, ["game.fragment"])
    layer.attach(second, fine, ["game.fragment"])
    for channel in (first, second):
        await layer.group_add("table-2", channel)
    await layer.group_send("table-2", {"type": "game.fragment", "html": "x"})
    await layer.send(first, {"type": "game.fragment", "html": "y"})  # logged, not raised
    assert seen == ["x"]


async def test_a_full_receiver_is_reported_to_the_sender(layer):
    async def full(message):
        raise ChannelFull("host")

    layer.attach("host-0", full, ["host.intent"])
    with pytest.raises(ChannelFull):
        await layer.send("host-0", {"type": "host.intent"})
    with pytest.raises(ChannelFull):  # and a plain queue at capacity too
        await layer.send("small-1", {"type": "x"})
        await layer.send("small-1", {"type": "x"})


async def test_a_sender_on_another_event_loop_goes_through_the_queue(layer):
    seen = []

    async def handler(message):
        seen.append(message)

    channel = await layer.new_channel()
    layer.attach(channel, handler, ["game.fragment"])

    def elsewhere() -> None:  # as async_to_sync outside the server would
        asyncio.run(layer.send(channel, {"type": "game.fragment", "html": "late"}))

    thread = threading.Thread(target=elsewhere)
    thread.start()
    thread.join()
    assert seen == []
    assert (await layer.receive(channel))["html"] == "late"
