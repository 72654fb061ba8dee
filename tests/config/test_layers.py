"""The embedded channel layer sweeps expired entries at a pace, not per message
(config/layers.py)."""

from __future__ import annotations

import asyncio

import pytest
from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer, get_channel_layer

from bench.layer import deliver
from config import layers
from config.layers import SWEEP_SECONDS, PacedInMemoryChannelLayer, check
from tests.live.conftest import FakeClock


@pytest.fixture
def clock(monkeypatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(layers, "clock", fake)
    return fake


@pytest.fixture
def sweeps(monkeypatch) -> list[int]:
    """How many times Channels' own sweep ran."""
    counted: list[int] = []
    sweep = InMemoryChannelLayer._clean_expired

    def counting(self) -> None:
        counted.append(1)
        sweep(self)

    monkeypatch.setattr(InMemoryChannelLayer, "_clean_expired", counting)
    return counted


async def test_messages_to_many_sockets_sweep_once_within_the_pace(clock, sweeps):
    assert await deliver(PacedInMemoryChannelLayer(), sockets=500, messages=40) == 200
    assert len(sweeps) == 1


async def test_channels_own_layer_sweeps_on_every_receive_and_group_send(sweeps):
    """What the paced layer saves: the plain layer sweeps all 500 sockets' entries on
    each of these 240 calls, and more (every consumer's first wait)."""
    assert await deliver(InMemoryChannelLayer(), sockets=500, messages=40) == 200
    assert len(sweeps) >= 40 + 200


async def test_the_sweep_runs_again_once_the_pace_allows(clock, sweeps):
    layer = PacedInMemoryChannelLayer()
    await layer.send("a.inmemory!x", {"type": "one"})
    await layer.receive("a.inmemory!x")
    await layer.send("a.inmemory!x", {"type": "two"})
    clock.t += SWEEP_SECONDS / 2
    await layer.receive("a.inmemory!x")
    assert len(sweeps) == 1
    clock.t += SWEEP_SECONDS / 2
    await layer.group_send("nobody", {"type": "three"})
    assert len(sweeps) == 2


async def test_an_expired_message_is_dropped_at_the_next_sweep(clock):
    layer = PacedInMemoryChannelLayer(expiry=0.01)
    await layer.group_add("table-1", "gone.inmemory!x")
    await layer.group_send("table-1", {"type": "unread"})  # swept first, then sent
    await asyncio.sleep(0.05)  # expired now, by the wall clock Channels' expiry reads
    await layer.group_send("table-2", {"type": "other"})  # within the pace: no sweep
    assert "gone.inmemory!x" in layer.channels
    clock.t += SWEEP_SECONDS
    await layer.group_send("table-2", {"type": "other"})
    # Channels' own sweep: the message dropped, its channel out of every group.
    assert "gone.inmemory!x" not in layer.channels
    assert "table-1" not in layer.groups or "gone.inmemory!x" not in layer.groups["table-1"]


async def test_the_paced_layer_behaves_as_channels_own(clock):
    layer = PacedInMemoryChannelLayer(capacity=2)
    await layer.group_add("table-1", "a.inmemory!x")
    await layer.group_add("table-1", "b.inmemory!y")
    await layer.group_send("table-1", {"type": "hello", "n": 1})
    assert await layer.receive("a.inmemory!x") == {"type": "hello", "n": 1}
    assert await layer.receive("b.inmemory!y") == {"type": "hello", "n": 1}
    await layer.group_discard("table-1", "b.inmemory!y")
    await layer.group_send("table-1", {"type": "hello", "n": 2})
    assert await layer.receive("a.inmemory!x") == {"type": "hello", "n": 2}
    assert "b.inmemory!y" not in layer.channels
    await layer.send("c.inmemory!z", {"type": "one"})
    await layer.send("c.inmemory!z", {"type": "two"})
    with pytest.raises(ChannelFull):
        await layer.send("c.inmemory!z", {"type": "three"})


def test_the_embedded_site_runs_on_the_paced_layer(settings):
    settings.CHANNEL_LAYERS = {"default": settings.EMBEDDED_CHANNEL_LAYER}
    from channels.layers import channel_layers

    channel_layers.backends.pop("default", None)
    try:
        assert type(get_channel_layer()) is PacedInMemoryChannelLayer
    finally:
        channel_layers.backends.pop("default", None)


@pytest.mark.parametrize("method", ["receive", "group_send"])
def test_the_check_fails_loudly_when_channels_stops_sweeping_there(monkeypatch, method):
    async def unswept(self, *args):
        return None

    monkeypatch.setattr(InMemoryChannelLayer, method, unswept)
    with pytest.raises(RuntimeError, match=method):
        check()


def test_the_check_fails_loudly_when_channels_renames_its_sweep(monkeypatch):
    monkeypatch.delattr(InMemoryChannelLayer, "_clean_expired")
    with pytest.raises(RuntimeError, match="_clean_expired"):
        check()


def test_the_check_passes_on_the_channels_installed():
    check()
