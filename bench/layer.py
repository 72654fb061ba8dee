"""The embedded channel layer's cost per message, by how many sockets the process serves:
the measurement behind config/layers.py.

    python bench/layer.py [--sockets N,N,...] [--messages M]

For each N: N consumers wait in ``receive``, as every socket's consumer does, each in
a group of its own (as a player's user group) and in a table's group of five; M group
sends go to the tables in turn, as seat, chat and start news do. Prints, for Channels'
own ``InMemoryChannelLayer`` and for the site's ``PacedInMemoryChannelLayer``, the
event loop's microseconds per message delivered (``us_per_message_<layer>_<N>``), and
last, the headline: how many times more the plain layer costs than the paced one at the
largest N (``plain_over_paced``). One process, one thread: nothing else is measured.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from channels.layers import InMemoryChannelLayer  # noqa: E402

from bench.report import figure  # noqa: E402
from config.layers import PacedInMemoryChannelLayer  # noqa: E402

LAYERS = {"plain": InMemoryChannelLayer, "paced": PacedInMemoryChannelLayer}


async def deliver(layer: InMemoryChannelLayer, sockets: int, messages: int, timed: list[float] | None = None) -> int:
    """``sockets`` consumers waiting in ``receive``, each in a group of its own and a
    table's group of five; ``messages`` group sends to the tables in turn. Returns the
    messages delivered; the seconds from the first send to the last delivery go into
    ``timed``."""
    channels = [await layer.new_channel() for _ in range(sockets)]
    for i, channel in enumerate(channels):
        await layer.group_add(f"user-{i}", channel)
        await layer.group_add(f"table-{i // 5}", channel)
    got = 0

    async def consume(channel: str) -> None:
        nonlocal got
        while True:
            await layer.receive(channel)
            got += 1

    consumers = [asyncio.create_task(consume(channel)) for channel in channels]
    await asyncio.sleep(0)
    started = time.perf_counter()
    for k in range(messages):
        await layer.group_send(f"table-{k % (sockets // 5)}", {"type": "seat.changed", "html": "x" * 200})
    while got < 5 * messages:
        await asyncio.sleep(0)
    if timed is not None:
        timed.append(time.perf_counter() - started)
    for consumer in consumers:
        consumer.cancel()
    await asyncio.gather(*consumers, return_exceptions=True)
    return got


async def per_message_us(layer: InMemoryChannelLayer, sockets: int, messages: int) -> float:
    timed: list[float] = []
    got = await deliver(layer, sockets, messages, timed)
    return timed[0] / got * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sockets", default="250,500,1000", help="socket counts, comma-separated (default 250,500,1000)")
    parser.add_argument("--messages", type=int, default=400, help="group sends per count (default 400)")
    args = parser.parse_args()
    counts = sorted({int(n) for n in args.sockets.split(",")})
    if counts[0] < 5 or args.messages < 1:
        parser.error("at least 5 sockets and 1 message")
    figures: dict[tuple[str, int], float] = {}
    for sockets in counts:
        for name, layer in LAYERS.items():
            figures[name, sockets] = asyncio.run(per_message_us(layer(), sockets, args.messages))
            figure(f"us_per_message_{name}_{sockets}", figures[name, sockets], ".1f")
    largest = counts[-1]
    figure("sockets", largest)
    figure("plain_over_paced", figures["plain", largest] / figures["paced", largest], ".1f")


if __name__ == "__main__":
    main()
