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
environment ``bench/live.py`` gives the site's (``server_env``): the site's transport
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
import shutil  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

from websockets.exceptions import ConnectionClosed  # noqa: E402

from bench import machine  # noqa: E402
from bench.live import (  # noqa: E402
    Script,
    cpu_seconds,
    die_with_parent,
    free_port,
    key_frames,
    percentile,
    rss_mb,
    server_env,
    source_address,
)

ACK = re.compile(r"^<!--v\d+ a(\d+):(\d+)")


def connect(url: str, address: str):
    import websockets

    # from the table's own address, as bench/live.py connects (no proxy: loopback only)
    return websockets.connect(url, max_size=None, compression=None, proxy=None, local_addr=(address, 0))


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
    async with connect(url, address) as ws:
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
    async with connect(url, address) as ws:
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
    # The site's transport (config/transport.py) reads its limits from the site's
    # settings: the server gets the environment bench/live.py gives the site's.
    tmp = tempfile.mkdtemp(prefix="tetriwar-bench-floor-")
    env = dict(
        server_env(tmp), FLOOR_BYTES=str(args.bytes), FLOOR_TICKS=str(args.ticks), PYTHONPATH=str(ROOT)
    )
    log = open(os.path.join(tmp, "server.log"), "w")
    server = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "bench.floor_app:application"],
        env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
        preexec_fn=machine.pin_at_exec(cpus.server, then=die_with_parent) if sys.platform.startswith("linux") else None,
    )
    try:
        import socket

        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                time.sleep(0.1)
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
    except BaseException:
        log.flush()
        with open(log.name, errors="replace") as f:
            lines = [line for line in f if "WSCONNECT" not in line and "WSDISCONNECT" not in line]
        sys.stderr.write("--- floor server log (last lines) ---\n" + "".join(lines)[-4000:])
        raise
    finally:
        server.terminate()
        server.wait(10)
        log.close()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"frames_sent: {counts['sent']}")
    print(f"frames_answered: {len(lat)}")
    print(f"updates_seen_by_spectators: {counts['spectator_updates']}")
    print(f"ticks: {args.ticks:g}")
    print(f"bytes: {args.bytes}")
    print(f"broadcasts_per_table_s: {counts['spectator_updates'] / (args.tables * window):.2f}")
    print(f"sockets_dropped: {counts['dropped']}")
    print(f"window_s: {window:.1f}")
    for line in cpus.lines():
        print(line)
    print(f"server_cpu_s: {cpu:.2f}")
    print(f"client_cpu_s: {reading.cpu_of([os.getpid()]):.2f}")
    print(f"others_cpu_s: {reading.others_cpu_s:.2f}")
    print(f"others_top: {reading.others_top()}")
    print(f"steal_s: {reading.steal_s:.2f}")
    print(f"kernel_cpu_s: {reading.kernel_cpu_s:.2f}")
    print(f"load_avg_1m: {reading.load_avg_1m:.2f}")
    print(f"server_rss_mb_per_table: {(rss - rss0) / args.tables:.2f}")
    print(f"tables: {args.tables}")
    print(f"p50_ms: {percentile(lat, 0.50):.2f}")
    print(f"p99_ms: {percentile(lat, 0.99):.2f}")
    print(f"server_cpu_s_per_table_minute: {cpu / args.tables / (window / 60):.3f}")
    print(f"disturbed: {'yes' if reading.disturbed else 'no'}")  # last: whether the figures above hold


if __name__ == "__main__":
    main()
