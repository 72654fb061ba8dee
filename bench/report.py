"""What a benchmark prints, and how its figures are taken.

Every benchmark under bench/ prints ``name: value`` lines on its standard output, the
headline figure last (``disturbed`` after it where the bench watches the machine), and
nothing else there: ``figure`` prints one, ``figures_of`` reads another bench's (as
bench/live.py reads bench/floor.py's). ``percentile`` and ``timed`` are the one
definition of a percentile and of a measure repeated for some seconds, so that two
benches mean the same by ``p99_ms``. No Django, no game: any bench imports it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bench.machine import Reading, Split


def figure(name: str, value: object, spec: str = "") -> None:
    """One figure, ``name: value``, ``value`` formatted by ``spec`` (``".2f"``, or none)."""
    print(f"{name}: {format(value, spec)}", flush=True)


def figures(values: Mapping[str, object]) -> None:
    """Several figures, in their order."""
    for name, value in values.items():
        figure(name, value)


def figure_lines(texts: Iterable[str]) -> None:
    """Figures already written as ``name: value`` (``machine.Split.lines``)."""
    for text in texts:
        print(text, flush=True)


def figures_of(output: str) -> dict[str, str]:
    """Another bench's figures, by name, from what it printed."""
    found = {}
    for line in output.splitlines():
        name, sep, value = line.partition(": ")
        if sep:
            found[name] = value
    return found


def machine_figures(reading: Reading) -> None:
    """What the rest of the machine did over the window (bench/machine.py): the others'
    CPU and the busiest of them, the hypervisor's steal, the kernel threads' CPU and the
    load at the window's end."""
    figure("others_cpu_s", reading.others_cpu_s, ".2f")
    figure("others_top", reading.others_top())
    figure("steal_s", reading.steal_s, ".2f")
    figure("kernel_cpu_s", reading.kernel_cpu_s, ".2f")
    figure("load_avg_1m", reading.load_avg_1m, ".2f")


def cpu_split_figures(cpus: Split) -> None:
    """``server_cpus`` and ``client_cpus``."""
    figure_lines(cpus.lines())


def disturbed_figure(disturbed: bool) -> None:
    """The last line of a bench that watches the machine: whether the figures above hold."""
    figure("disturbed", "yes" if disturbed else "no")


def percentile(values: Iterable[float], q: float) -> float:
    """The ``q`` quantile (0.99: the p99) of ``values``: the value at index
    ``int(q * n)`` of the sorted values; NaN when there are none."""
    ordered = sorted(values)
    if not ordered:
        return math.nan
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def timed(run: Callable[[], object], seconds: float) -> tuple[float, int]:
    """``run`` (one pass) again and again for about ``seconds``, once at least:
    (the seconds spent, the passes made)."""
    passes, started = 0, time.perf_counter()
    while True:
        run()
        passes += 1
        spent = time.perf_counter() - started
        if spent >= seconds:
            return spent, passes
