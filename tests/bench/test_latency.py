"""bench/latency.py: its delaying proxy alone (bytes in order, each held at least the
delay, jitter never reordering), and a short run of the whole bench in Chromium.
No timing thresholds: what is measured is the bench's business, not the tests'."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from bench.latency import DelayProxy
from tests.bench.runs import run_bench
from tests.needs import need_chromium


@contextlib.asynccontextmanager
async def _proxied(server, **options):
    """A connection through a DelayProxy (``options``) to an upstream that ``server``
    serves: (reader, writer), all of it closed afterwards (the proxy within 30 s)."""
    upstream = await asyncio.start_server(server, "127.0.0.1", 0)
    proxy = DelayProxy(upstream.sockets[0].getsockname()[:2], **options)
    reader, writer = await asyncio.open_connection("127.0.0.1", await proxy.start())
    try:
        yield reader, writer
    finally:
        writer.close()
        await asyncio.wait_for(proxy.close(), 30)
        upstream.close()
        await upstream.wait_closed()


async def _through_proxy(delay_ms: float, jitter_ms: float, messages: int = 60):
    """Messages sent each way through the proxy, in small bursts: what arrived and when."""
    loop = asyncio.get_running_loop()
    arrived: dict[str, list[tuple[float, bytes]]] = {"up": [], "down": []}
    sent: dict[str, list[tuple[float, bytes]]] = {"up": [], "down": []}

    async def collect(reader, direction):
        while data := await reader.read(65536):
            arrived[direction].append((loop.time(), data))

    def message(direction, i):
        return f"{direction}:{i:04d};".encode()

    async def send(writer, direction):
        for i in range(messages):
            data = message(direction, i)
            sent[direction].append((loop.time(), data))
            writer.write(data)
            await writer.drain()
            await asyncio.sleep(0.002 if i % 5 else 0.015)
        writer.write_eof()

    server_done = asyncio.Event()

    async def server(reader, writer):
        await asyncio.gather(collect(reader, "up"), send(writer, "down"))
        writer.close()
        server_done.set()

    async with _proxied(server, delay_ms=delay_ms, jitter_ms=jitter_ms, seed=7) as (reader, writer):
        await asyncio.wait_for(asyncio.gather(send(writer, "up"), collect(reader, "down")), 30)
        await asyncio.wait_for(server_done.wait(), 30)
    return sent, arrived


def _arrival_of_each(sent, arrived):
    """For each message sent, the time its last byte arrived."""
    stream = b"".join(data for _, data in arrived)
    assert stream == b"".join(data for _, data in sent)  # every byte, in order
    times, end, at = [], 0, iter(arrived)
    received = 0
    current = None
    for _, data in sent:
        end += len(data)
        while received < end:
            current = next(at)
            received += len(current[1])
        times.append(current[0])
    return times


@pytest.mark.parametrize(("delay_ms", "jitter_ms"), [(0, 0), (40, 0), (30, 60)])
async def test_the_proxy_delays_each_direction_and_keeps_the_bytes_in_order(delay_ms, jitter_ms):
    sent, arrived = await _through_proxy(delay_ms, jitter_ms)
    for direction in ("up", "down"):
        times = _arrival_of_each(sent[direction], arrived[direction])
        for (at, data), got in zip(sent[direction], times, strict=True):
            # never early (a millisecond for the event loop's clock resolution)
            assert got - at >= delay_ms / 1000 - 0.001, (direction, data, got - at)
        assert times == sorted(times)


async def test_jitter_varies_the_delay_but_never_reorders():
    sent, arrived = await _through_proxy(0, 80, messages=80)
    for direction in ("up", "down"):
        times = _arrival_of_each(sent[direction], arrived[direction])
        held = [got - at for (at, _), got in zip(sent[direction], times, strict=True)]
        assert max(held) > min(held)  # the jitter is there (bytes still in order: above)


async def test_one_side_ending_its_stream_leaves_the_other_direction_open():
    """The client sends and half-closes at once; the upstream answers only after it has
    seen that end. Every byte of the answer still arrives (a proxy that closes the whole
    connection on one side's end cuts it, as a full run once did under load)."""
    answer = [f"down:{i:04d};".encode() for i in range(20)]
    upstream_error: list[BaseException] = []

    async def server(reader, writer):
        try:
            assert await reader.read() == b"hello"  # to its end of stream
            for data in answer:
                writer.write(data)
                await writer.drain()
                await asyncio.sleep(0.005)
            writer.write_eof()
        except Exception as error:  # noqa: BLE001 - reported by the test below
            upstream_error.append(error)
        finally:
            writer.close()

    async with _proxied(server) as (reader, writer):
        writer.write(b"hello")
        writer.write_eof()
        got = await asyncio.wait_for(reader.read(), 30)
    assert upstream_error == []
    assert got == b"".join(answer)


async def test_a_broken_side_ends_the_connection():
    """When the upstream resets, the client's side is closed too rather than left open."""
    async def server(reader, writer):
        await reader.read(5)
        writer.transport.abort()

    async with _proxied(server) as (reader, writer):
        writer.write(b"hello")
        await writer.drain()
        assert await asyncio.wait_for(reader.read(), 30) == b""


@pytest.mark.browser
def test_a_short_run_of_the_whole_bench():
    need_chromium()
    run = run_bench("latency.py", "--pieces", "3", "--delay", "0", "50", timeout=600)
    lines = run.figures
    for case in ("0ms", "50ms"):
        assert lines[f"{case}_pieces"] == "3", run.stdout
        for kind in ("tap", "rotate", "drop"):
            assert f"{case}_{kind}_p90_ms" in lines
        assert f"{case}_corrections_per_100_pieces" in lines
    assert float(lines["50ms_drop_count"]) >= 1, run.stdout
    assert lines["floor_drop_p50_ms"] != "nan", run.stdout
    assert run.stdout.splitlines()[-1].startswith("tap_p90_ms_at_100ms_oneway: "), run.stdout
