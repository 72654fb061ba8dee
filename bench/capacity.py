"""Capacity: how many TetriWar tables one core holds, by a sweep of bench/live.py.

    python bench/capacity.py [--tables 25,50,100,150,200] [--seconds S] [--modes embedded,scale-out]
                             [--limit-ms L] [--client scripted|node] [--server-cpus CPUS] [--client-cpus CPUS]

For each mode and each table count, runs ``bench/live.py --client scripted --no-floor``
(the lean load generator; ``--client node``, its Node twin, for hundreds of tables; pinned as there: the server on ``--server-cpus``, by default
CPU 0 of this 2-core machine, the load on the others) and reads its ``name: value``
lines. ``scale-out`` is ``--scale-out --proxy nginx``: two Daphne processes behind
nginx on the same server CPUs, PostgreSQL and Redis as operators run them.

Prints, for each point, ``<mode>_<N>_p99_ms``, ``_spectator_p99_ms``, ``_timeouts`` (and
``_timeouts_at_stop``, as bench/live.py),
``_server_cores`` (the server's CPU over the window, in cores: nginx's included),
``_server_cpu_s_per_table_minute``, ``_client_limited`` and ``_disturbed`` (or, when the
run could not play, ``<mode>_<N>_failed`` and why: at 200 tables the server may be
too busy to take every socket within the bench's timeouts); then, for each mode,
``<mode>_tables_under_<L>ms``: the most tables of the sweep whose p99 (own and
spectator) stayed under L ms (default 50) with no timeout, and
``<mode>_tables_per_core`` (that count over the server CPUs given) or, for scale-out,
``scale-out_tables_per_process`` (over its two Daphne processes). Last ``disturbed``:
``yes`` when any point was.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import machine  # noqa: E402
from bench.report import cpu_split_figures, disturbed_figure, figure, figures_of  # noqa: E402

MODES = {"embedded": [], "scale-out": ["--scale-out", "--proxy", "nginx"]}


def run_point(mode: str, tables: int, seconds: float, cpus: machine.Split,
              client: str = "scripted") -> dict[str, str]:
    command = [
        sys.executable, str(ROOT / "bench" / "live.py"), "--tables", str(tables), "--seconds", str(seconds),
        "--client", client, "--no-floor", *cpus.args(), *MODES[mode],
    ]
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:  # a server too busy to take the sockets, say: the point has no figures
        sys.stderr.write(out.stderr[-4000:])
        last = (out.stderr.strip().splitlines() or ["?"])[-1]
        return {"failed": f"exit {out.returncode} ({last[:120]})"}
    return figures_of(out.stdout)


def number(values: dict[str, str], name: str) -> float:
    try:
        return float(values.get(name, "nan").split()[0])
    except ValueError:
        return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", default="25,50,100,150,200", help="table counts, comma separated")
    parser.add_argument("--seconds", type=float, default=20.0, help="the play window of each point")
    parser.add_argument("--modes", default="embedded,scale-out", help="embedded, scale-out or both")
    parser.add_argument("--limit-ms", type=float, default=50.0, help="the p99 a table count must stay under")
    parser.add_argument("--client", choices=("scripted", "node"), default="scripted",
                        help="bench/live.py's lean client, in Python or in Node")
    machine.add_arguments(parser)
    args = parser.parse_args()
    cpus = machine.split_from(parser, args)
    counts = [int(part) for part in args.tables.split(",") if part.strip()]
    modes = [part.strip() for part in args.modes.split(",") if part.strip()]
    for mode in modes:
        if mode not in MODES:
            parser.error(f"unknown mode {mode!r}: embedded or scale-out")
    cpu_split_figures(cpus)
    disturbed = False
    held: dict[str, int] = {}
    for mode in modes:
        held[mode] = 0
        for tables in counts:
            values = run_point(mode, tables, args.seconds, cpus, args.client)
            p99, spectator = number(values, "p99_ms"), number(values, "spectator_p99_ms")
            timeouts = number(values, "timeouts")
            cpu, window = number(values, "server_cpu_s"), number(values, "window_s")
            if mode == "scale-out":
                cpu += number(values, "proxy_cpu_s")  # nginx runs on the server CPUs too
            prefix = f"{mode}_{tables}"
            if "failed" in values:
                figure(f"{prefix}_failed", values["failed"])
                continue
            point_disturbed = values.get("disturbed", "yes") != "no"
            disturbed |= point_disturbed
            figure(f"{prefix}_p99_ms", p99, ".2f")
            figure(f"{prefix}_spectator_p99_ms", spectator, ".2f")
            figure(f"{prefix}_timeouts", values.get("timeouts", "nan"))
            figure(f"{prefix}_timeouts_at_stop", values.get("timeouts_at_stop", "nan"))
            figure(f"{prefix}_server_cores", cpu / window if window else float("nan"), ".2f")
            figure(f"{prefix}_server_cpu_s_per_table_minute", values.get("server_cpu_s_per_table_minute", "nan"))
            figure(f"{prefix}_client_limited", values.get("client_limited", "nan"))
            figure(f"{prefix}_disturbed", "yes" if point_disturbed else "no")
            if max(p99, spectator) < args.limit_ms and timeouts == 0:
                held[mode] = max(held[mode], tables)
    limit = f"{args.limit_ms:g}"
    for mode in modes:
        figure(f"{mode}_tables_under_{limit}ms", held[mode])
        if mode == "embedded":
            figure("embedded_tables_per_core", held[mode] / len(cpus.server), ".0f")
        else:
            figure("scale-out_tables_per_process", held[mode] / 2, ".0f")
    disturbed_figure(disturbed)


if __name__ == "__main__":
    main()
