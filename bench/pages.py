"""HTTP throughput and latency of the lobby and table pages against a real server.

    python bench/pages.py [--seconds S] [--concurrency C] [--tables N] [--warmup W] [--seed S]
                          [--rate R]

Starts one Daphne process on the embedded default (SQLite in a temporary file, the
in-memory channel layer, DEBUG off, static files collected into a temporary
STATIC_ROOT, the environment of ``bench/live.py``: ``bench/server.py``) with N open TetriWar tables of
four seats, two of them taken. C visitors, each one keep-alive HTTP/1.1 connection
over loopback from an address of its own (127.0.<1 + i // 250>.<1 + i % 250>), loop GET requests back to back for S seconds (after W seconds of
warm-up that are not counted), which measures how many the server can answer; with
``--rate R`` they offer R requests a second in all instead (Poisson arrivals, R/C per
visitor), which measures the latency at that load: 30 % ``/lobby/`` and 70 %
``/lobby/table/<id>/`` at a
random one of the N tables. Half the visitors are anonymous, half carry the session
cookie of a logged-in user (sessions written to the database before the server
starts; most of these users hold a seat somewhere); every visitor keeps the cookies
the server sets, as a browser does.

The client is one asyncio event loop on the standard library's streams with a minimal
HTTP/1.1 response reader, so that one core drives the server on the other; it reports
its own CPU (``client_cpu_percent``) next to the server's (``server_cpu_percent``, from
``/proc/<pid>/stat``). A client near 100 % is the bottleneck, not the server.

Only 200 responses count as successes; anything else (another status, a reset or
timed-out connection) is an error. Latency is measured client-side from the request
written (with ``--rate``: from when it was due, so a slow answer also counts against
the requests queued behind it) to the last byte of the body read. If ``wrk`` is installed it is also run
against each page for comparison (the Python client's figures are the headline), and
against ``/healthz``, a view that does nothing: what Django and Daphne cost alone.

Prints ``name: value`` lines; the last two are ``p99_ms`` (all pages) and the headline
``requests_per_s`` (200 responses a second).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import argparse  # noqa: E402
import asyncio  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import resource  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

from bench.client import COOKIE, fetch, get_request, read_response, source_address  # noqa: E402
from bench.report import figure, figure_lines, percentile  # noqa: E402
from bench.server import (  # noqa: E402
    TETRIWAR_OPTIONS,
    Servers,
    cpu_of,
    django_setup,
    free_port,
    login,
    server_env,
)

LOBBY_SHARE = 0.3  # of requests; the rest are table pages
SEATED = 2  # seats taken at each 4-seat table
EXTRA_USERS = 4  # logged-in users who hold no seat
TIMEOUT = 10.0  # seconds for one response before the connection counts as failed


def prepare(tables: int, env: dict[str, str]) -> tuple[list[int], list[str]]:
    """Open tables with a few seated users and their sessions, before the server starts."""
    django_setup(env)
    from lobby import services

    table_ids: list[int] = []
    cookies: list[str] = []
    for t in range(tables):
        refs = []
        for s in range(SEATED):
            _user, ref, cookie = login(f"bench{t}_{s}")
            refs.append(ref)
            cookies.append(cookie)
        table = services.table_create(player=refs[0], game="tetriwar", options=TETRIWAR_OPTIONS, seats_total=4)
        for seat in range(2, SEATED + 1):
            services.seat_take(table_id=table.pk, player=refs[seat - 1], number=seat)
        table_ids.append(table.pk)
    for e in range(EXTRA_USERS):
        cookies.append(login(f"bench_watch{e}")[2])
    return table_ids, cookies


class Stats:
    def __init__(self) -> None:
        self.latencies: dict[tuple[str, str], list[float]] = {}  # (page, visitor kind) -> ms
        self.sizes: dict[str, list[int]] = {"lobby": [], "table": []}
        self.statuses: dict[int, int] = {}  # non-200 status -> count
        self.failures: dict[str, int] = {}  # exception name -> count
        self.recording = False

    def errors(self) -> int:
        return sum(self.statuses.values()) + sum(self.failures.values())


async def visitor(port, cookie, kind, tables, rng, until, stats: Stats, rate: float = 0.0,
                  address: str = "127.0.0.1") -> None:
    """Requests back to back (closed loop); or, with ``rate``, at Poisson arrivals of
    that many a second, each timed from when it was due, so that a slow answer also
    counts against the requests it held up (open loop, as wrk2 does)."""
    jar: dict[bytes, bytes] = {}
    due = time.perf_counter() + (rng.expovariate(rate) if rate else 0.0)
    if cookie:
        name, value = cookie.encode().split(b"=", 1)
        jar[name] = value
    conn = None
    while time.perf_counter() < until:
        if rng.random() < LOBBY_SHARE:
            page, path = "lobby", b"/lobby/"
        else:
            page, path = "table", b"/lobby/table/%d/" % rng.choice(tables)
        cookies = b"; ".join(k + b"=" + v for k, v in jar.items())
        request = get_request(path, port, b"tetriwar-bench", cookies=cookies)
        if rate:
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
            if time.perf_counter() >= until:
                break
        recording = stats.recording
        try:
            if conn is None:
                conn = await asyncio.wait_for(
                    asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0)), TIMEOUT)
            reader, writer = conn
            started = due if rate else time.perf_counter()
            due += rng.expovariate(rate) if rate else 0.0
            writer.write(request)
            status, head, body, close = await asyncio.wait_for(read_response(reader), TIMEOUT)
            elapsed = (time.perf_counter() - started) * 1000
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, ValueError) as err:
            if recording:
                stats.failures[type(err).__name__] = stats.failures.get(type(err).__name__, 0) + 1
            if conn is not None:
                conn[1].close()
            conn = None
            await asyncio.sleep(0.01)
            continue
        for name, value in COOKIE.findall(head):
            jar[name] = value
        if recording and stats.recording:  # the whole request inside the measured window
            if status == 200:
                stats.latencies.setdefault((page, kind), []).append(elapsed)
                stats.sizes[page].append(len(body))
            else:
                stats.statuses[status] = stats.statuses.get(status, 0) + 1
        if close:
            conn[1].close()
            conn = None
    if conn is not None:
        conn[1].close()


def client_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def drive(port, tables, cookies, concurrency, seconds, warmup, seed, server_pid, rate=0.0):
    stats = Stats()
    rng = random.Random(seed)
    logged_in = cookies[:]
    rng.shuffle(logged_in)
    start = time.perf_counter()
    until = start + warmup + seconds
    tasks = []
    for i in range(concurrency):
        kind = "anon" if i % 2 == 0 else "user"
        cookie = logged_in[(i // 2) % len(logged_in)] if kind == "user" else None
        tasks.append(asyncio.create_task(
            visitor(port, cookie, kind, tables, random.Random(rng.random()), until, stats, rate / concurrency,
                    source_address(i))))
    await asyncio.sleep(warmup)
    stats.recording = True
    t0, server0, client0 = time.perf_counter(), cpu_of(server_pid), client_cpu_seconds()
    await asyncio.sleep(max(0.0, until - time.perf_counter()))
    stats.recording = False
    t1, server1, client1 = time.perf_counter(), cpu_of(server_pid), client_cpu_seconds()
    await asyncio.gather(*tasks)
    measured = {"seconds": t1 - t0, "server_cpu": server1 - server0, "client_cpu": client1 - client0}
    return stats, measured


def run_wrk(port: int, table_id: int, cookie: str, concurrency: int, seconds: float) -> list[str]:
    """One wrk run a page (anonymous, then logged in on the table page); its req/s."""
    wrk = shutil.which("wrk")
    if wrk is None:
        return ["wrk: absent"]
    lines = []
    runs = [
        ("lobby", "/lobby/", []),
        ("table", f"/lobby/table/{table_id}/", []),
        ("table_user", f"/lobby/table/{table_id}/", ["-H", f"Cookie: {cookie}"]),
        # Django and Daphne alone: the full middleware, a view that does nothing
        ("healthz", "/healthz", []),
    ]
    for name, path, extra in runs:
        out = subprocess.run(
            [wrk, "-t1", f"-c{concurrency}", f"-d{max(1, int(seconds))}s", "--latency", *extra,
             f"http://127.0.0.1:{port}{path}"],
            capture_output=True, text=True, timeout=seconds + 30,
        ).stdout
        rps = re.search(r"Requests/sec:\s*([\d.]+)", out)
        p99 = re.search(r"^\s*99%\s+([\d.]+)(us|ms|s)\b", out, re.M)
        non2xx = re.search(r"Non-2xx or 3xx responses:\s*(\d+)", out)
        lines.append(f"wrk_{name}_requests_per_s: {rps.group(1) if rps else 'nan'}")
        if p99:
            scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}[p99.group(2)]
            lines.append(f"wrk_{name}_p99_ms: {float(p99.group(1)) * scale:.2f}")
        lines.append(f"wrk_{name}_non2xx: {non2xx.group(1) if non2xx else 0}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--concurrency", type=int, default=16, help="visitors, one connection each")
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--warmup", type=float, default=1.0, help="seconds of load before measuring")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rate", type=float, default=0.0,
                        help="open loop: offer this many requests a second in all (default: back to back)")
    parser.add_argument("--no-wrk", action="store_true", help="skip wrk even if it is installed")
    parser.add_argument("--keep", action="store_true", help="keep the server's database and log")
    args = parser.parse_args()
    if args.tables < 1 or args.concurrency < 1:
        parser.error("--tables and --concurrency must be at least 1")

    wrk_lines: list[str] = []
    with Servers.scratch("tetriwar-bench-http-", keep=args.keep) as servers:
        # What a page costs, not the per-address page budget (bench/abuse.py's "pages"):
        # wrk's connections all come from one address.
        env = server_env(servers.tmp, HTTP_REQUESTS_PER_SECOND="1000000", HTTP_REQUEST_BURST="1000000")
        tables, cookies = prepare(args.tables, env)
        port = free_port()
        server = servers.daphne("server", port, env)
        servers.wait_for_port(port)
        fetch(f"http://127.0.0.1:{port}/lobby/")  # answered (a status other than 200 raises)
        stats, measured = asyncio.run(drive(
            port, tables, cookies, args.concurrency, args.seconds, args.warmup, args.seed, server.pid, args.rate))
        if not args.no_wrk:
            wrk_lines = run_wrk(port, tables[0], cookies[0], args.concurrency, min(args.seconds, 10))

    seconds = measured["seconds"]
    every = [ms for values in stats.latencies.values() for ms in values]
    figure("tables", args.tables)
    figure("concurrency", args.concurrency)
    figure("offered_requests_per_s", f"{args.rate:.0f}" if args.rate else "as fast as answered")
    figure("seconds", seconds, ".2f")
    figure("requests", len(every))
    figure("errors", stats.errors())
    for status, count in sorted(stats.statuses.items()):
        figure(f"errors_status_{status}", count)
    for name, count in sorted(stats.failures.items()):
        figure(f"errors_{name}", count)
    for page in ("lobby", "table"):
        values = [ms for (p, _), v in stats.latencies.items() if p == page for ms in v]
        figure(f"{page}_requests", len(values))
        figure(f"{page}_p50_ms", percentile(values, 0.50), ".2f")
        figure(f"{page}_p99_ms", percentile(values, 0.99), ".2f")
        for kind in ("anon", "user"):
            figure(f"{page}_{kind}_p99_ms", percentile(stats.latencies.get((page, kind), []), 0.99), ".2f")
        if stats.sizes[page]:
            figure(f"{page}_bytes_median", statistics.median(stats.sizes[page]), ".0f")
    figure("server_cpu_percent", 100 * measured["server_cpu"] / seconds, ".1f")
    figure("client_cpu_percent", 100 * measured["client_cpu"] / seconds, ".1f")
    figure_lines(wrk_lines)
    figure("p50_ms", percentile(every, 0.50), ".2f")
    figure("p99_ms", percentile(every, 0.99), ".2f")
    figure("requests_per_s", len(every) / seconds, ".1f")


if __name__ == "__main__":
    main()
