"""The floor under bench/live.py: the same traffic through Daphne with no site behind it.

    python bench/floor.py [--tables N] [--seconds S] [--rate R] [--bytes B] [--ticks T]
                          [--server-cpus CPUS] [--client-cpus CPUS]

Starts one Daphne process serving ``bench/floor_app.py``, a bare ASGI application (no
Django, no Channels: a dict of tables and a loop over their sockets), and drives it
with the traffic of ``bench/live.py``'s lean client (``--client scripted``: the same
keys on the same schedule, in the same frames): N tables of 4 players and 1 spectator
(each table's sockets from a loopback address of its own, as there), every player
pressing R keys a second (exponential gaps, default 5), ← and → as a numbered key-down
and its key-up, every key answered by a broadcast of B bytes (default 237, the
median update of a live TetriWar table) to the table's five sockets, plus T broadcasts
a second per table that no frame caused (default 2: gravity; ``bench/live.py`` passes
the site's own, and its median update's bytes, read in the same run). The window opens
once every socket is connected and closes before they close, as ``bench/live.py``'s
play window: neither counts the handshakes. Whatever the site does
above this (sessions, consumers, the channel layer, the game, the HTML) costs more
than this; what this costs, the site cannot go below with Daphne. The server gets the
environment ``bench/live.py`` gives the site's (``bench/server.py``'s ``server_env``): the site's transport
(``config/transport.py``) takes its limits from the site's settings.

The server runs on ``--server-cpus`` and this process, the load, on ``--client-cpus``
(``bench/machine.py``; by default as ``bench/live.py``'s, which passes its own split);
over the window every other process on the machine is read from ``/proc``
(``others_cpu_s``, ``others_top``, ``load_avg_1m``), and the hypervisor's share from
``/proc/stat`` (``steal_s``).

Prints ``name: value`` lines (``ticks``, ``bytes`` and ``broadcasts_per_table_s``, the
broadcasts a spectator read a second, among them), ending with ``tables``, ``p50_ms``, ``p99_ms`` (frame →
the sender's own broadcast), ``server_cpu_s_per_table_minute`` and, last,
``disturbed`` (``yes`` when other processes and the hypervisor took more than a tenth of
a core over the window).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import argparse  # noqa: E402
import asyncio  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import time  # noqa: E402

from websockets.exceptions import ConnectionClosed  # noqa: E402

from bench import machine, report  # noqa: E402
from bench.client import connect, source_address  # noqa: E402
from bench.live import Script, key_frames  # noqa: E402
from bench.report import figure, percentile  # noqa: E402
from bench.server import Servers, cpu_seconds, free_port, rss_mb, server_env  # noqa: E402

ACK = re.compile(r"^<!--v\d+ a(\d+):(\d+)")


class Window:
    """The floor's window: it opens once every socket is connected (as bench/live.py's,
    so that neither counts the handshakes), and lasts S seconds."""

    def __init__(self, sockets: int, seconds: float, on_open) -> None:
        self.waiting = sockets
        self.seconds = seconds
        self.on_open = on_open
        self.opened = asyncio.Event()
        self.until = float("inf")

    async def connected(self) -> None:
        """One more socket is open; returns once they all are and the window runs."""
        self.waiting -= 1
        if self.waiting == 0:
            self.on_open()
            self.until = time.monotonic() + self.seconds
            self.opened.set()
        await self.opened.wait()


async def player(url: str, address: str, seat: int, rate: float, window: Window, rng: random.Random, lat: list,
                 counts: dict):
    # from the table's own address, as bench/live.py connects
    async with connect(url, address=address, compression=None) as ws:
        sent: dict[int, float] = {}
        seq = 0

        async def read() -> None:
            try:
                async for message in ws:
                    counts["received"] += 1
                    m = ACK.match(message)
                    if m and int(m.group(1)) == seat:
                        t0 = sent.pop(int(m.group(2)), None)
                        if t0 is not None and time.monotonic() < window.until:
                            lat.append((time.perf_counter() - t0) * 1000)
            except ConnectionClosed:
                pass  # the sender counts it

        await window.connected()
        reader = asyncio.create_task(read())
        script = Script(seat, rng)  # bench/live.py's lean client: the same keys, the same frames
        script.playing = True
        try:
            while time.monotonic() < window.until:
                await asyncio.sleep(rng.expovariate(rate))
                seq += 1
                frame, key_up = key_frames(script.key(), seq)
                sent[seq] = time.perf_counter()
                await ws.send(frame)
                if key_up is not None:
                    await ws.send(key_up)
                counts["sent"] += 1
        except ConnectionClosed:
            counts["dropped"] += 1  # the server closed it (a client too slow to read is cut off)
        finally:
            reader.cancel()


async def spectator(url: str, address: str, window: Window, counts: dict) -> None:
    async with connect(url, address=address, compression=None) as ws:
        await window.connected()
        while time.monotonic() < window.until:
            try:
                await asyncio.wait_for(ws.recv(), max(0.01, window.until - time.monotonic()))
                counts["spectator_updates"] += 1
            except TimeoutError:
                break
            except ConnectionClosed:
                counts["dropped"] += 1
                break


async def drive(port: int, tables: int, seconds: float, rate: float, seed: int, on_open, on_close
                ) -> tuple[list, dict]:
    """Every table's sockets; once they are all open, ``on_open()``, S seconds of play,
    ``on_close()`` (before the sockets close: their closing is not the window's)."""
    lat: list[float] = []
    counts = {"sent": 0, "received": 0, "spectator_updates": 0, "dropped": 0}
    window = Window(tables * 5, seconds, on_open)

    async def close() -> None:
        await window.opened.wait()
        await asyncio.sleep(max(0.0, window.until - time.monotonic()))
        on_close()

    jobs = [close()]
    for table in range(tables):
        base = f"ws://127.0.0.1:{port}/ws/{table}/"
        address = source_address(table)
        jobs.append(spectator(base + "0", address, window, counts))
        for seat in (1, 2, 3, 4):
            rng = random.Random(f"{seed}:{table}:{seat}")
            jobs.append(player(base + str(seat), address, seat, rate, window, rng, lat, counts))
    await asyncio.gather(*jobs)
    return lat, counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--rate", type=float, default=5.0, help="frames a second per player")
    parser.add_argument("--bytes", type=int, default=237, help="size of one broadcast")
    parser.add_argument("--ticks", type=float, default=2.0, help="broadcasts a second per table that no frame caused")
    parser.add_argument("--seed", type=int, default=1)
    machine.add_arguments(parser)
    args = parser.parse_args()
    cpus = machine.split_from(parser, args)
    machine.pin(os.getpid(), cpus.client)  # the load generator; the server takes its CPUs as it starts

    port = free_port()
    with Servers.scratch("tetriwar-bench-floor-", cpus.server) as servers:
        # The site's transport (config/transport.py) reads its limits from the site's
        # settings: the server gets the environment bench/live.py gives the site's.
        env = server_env(servers.tmp, FLOOR_BYTES=str(args.bytes), FLOOR_TICKS=str(args.ticks),
                         PYTHONPATH=str(ROOT))
        server = servers.daphne("floor", port, env, "bench.floor_app:application")
        servers.wait_for_port(port)
        rss0 = rss_mb([server.pid])
        sampler = machine.Machine()
        opened: dict = {}

        def on_open() -> None:  # every socket is connected: the window starts
            opened.update(machine=sampler.start(), cpu=cpu_seconds([server.pid]), at=time.monotonic())

        def on_close() -> None:  # … and ends, before the sockets close
            opened.update(reading=sampler.between(opened["machine"], sampler.stop()),
                          cpu_s=cpu_seconds([server.pid]) - opened["cpu"], window=time.monotonic() - opened["at"])

        lat, counts = asyncio.run(drive(port, args.tables, args.seconds, args.rate, args.seed, on_open, on_close))
        window, cpu, reading = opened["window"], opened["cpu_s"], opened["reading"]
        rss = rss_mb([server.pid])
    figure("frames_sent", counts["sent"])
    figure("frames_answered", len(lat))
    figure("updates_seen_by_spectators", counts["spectator_updates"])
    figure("ticks", args.ticks, "g")
    figure("bytes", args.bytes)
    figure("broadcasts_per_table_s", counts["spectator_updates"] / (args.tables * window), ".2f")
    figure("sockets_dropped", counts["dropped"])
    figure("window_s", window, ".1f")
    report.cpu_split_figures(cpus)
    figure("server_cpu_s", cpu, ".2f")
    figure("client_cpu_s", reading.cpu_of([os.getpid()]), ".2f")
    report.machine_figures(reading)
    figure("server_rss_mb_per_table", (rss - rss0) / args.tables, ".2f")
    figure("tables", args.tables)
    figure("p50_ms", percentile(lat, 0.50), ".2f")
    figure("p99_ms", percentile(lat, 0.99), ".2f")
    figure("server_cpu_s_per_table_minute", cpu / args.tables / (window / 60), ".3f")
    report.disturbed_figure(reading.disturbed)  # last: whether the figures above hold


if __name__ == "__main__":
    main()
