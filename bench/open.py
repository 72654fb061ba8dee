"""How fast a TetriWar table page opens through a round trip, in a real Chromium.

    python bench/open.py [--delay MS ...] [--runs N] [--server-cpus CPUS] [--client-cpus CPUS]

The server is one Daphne on the embedded default with DEBUG off and the static files
collected (hashed names, as operators run it: ``bench/server.py``); its player's own
TetriWar practice table (against the medium bot, not started) is opened by Chromium
through the delaying proxy of bench/latency.py, which holds every chunk of bytes for the
one-way delay in each direction (a round trip is twice it; connecting costs nothing).

Each case opens the page N times (default 5) and takes the median: for every one-way
delay (default 0 and 50 ms; 0 is the floor, always run first), on a desktop (1366×768)
and a phone (390×844, touch, 3× pixels), *cold* (a new browser context: nothing cached)
and *warm* (a second tab of the same context, after a cold open: the HTTP cache as a
returning player's). From the page's Navigation and Resource Timing:

- ``<case>_dcl_ms``: DOMContentLoaded's end, from the navigation's start: every
  deferred script and module (and the stylesheets before them) loaded and run;
- ``<case>_requests``: requests that went to the network before it (the document
  included), ``<case>_cached`` those the cache answered;
- ``<case>_short_lived``: the page's files (the document aside) that came with a
  ``max-age`` under an hour or none, the most of any open (a hashed file is kept a year);
- ``<case>_server_ms``: the document's time to its first byte, less the round trip;
- ``<case>_round_trips``: (dcl − the same device and cache's dcl at 0 ms) / the round
  trip, the round trips the page waits on beyond what it costs on loopback (its
  server's and its browser's time). The target (issue 52) is 3 at most.

The last line is ``round_trips_max``, the most of every case with a delay.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import argparse  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import statistics  # noqa: E402

from bench import machine  # noqa: E402
from bench.latency import CHROMIUM, CHROMIUM_ARGS, ProxyThread, delays, make_tables  # noqa: E402
from bench.report import figure  # noqa: E402
from bench.server import Servers, django_setup, free_port, server_env  # noqa: E402

DEFAULT_DELAYS = (0, 50)
TARGET_ROUND_TRIPS = 3
KEPT_S = 3600  # a file a browser may keep for less than this is "short-lived"
DEVICES = {
    "desktop": {"viewport": {"width": 1366, "height": 768}},
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
              "device_scale_factor": 3},
}
# What the page's timings say, once DOMContentLoaded has ended.
TIMINGS = """() => {
  const nav = performance.getEntriesByType("navigation")[0];
  const dcl = nav.domContentLoadedEventEnd;
  const before = performance.getEntriesByType("resource").filter((e) => e.startTime <= dcl);
  const network = before.filter((e) => e.transferSize > 0);
  return {
    dcl: dcl,
    ttfb: nav.responseStart - nav.requestStart,
    requests: 1 + network.length,
    cached: before.length - network.length,
  };
}"""


def max_age(headers: dict[str, str]) -> int:
    """The seconds a response may be kept (0: none said)."""
    found = re.search(r"max-age=(\d+)", headers.get("cache-control", ""))
    return int(found.group(1)) if found else 0


def open_page(context, url: str) -> dict:
    page = context.new_page()
    files: list[tuple[str, int]] = []
    page.on("response", lambda response: response.request.resource_type != "document"
            and files.append((response.url, max_age(response.headers))))
    try:
        page.goto(url, wait_until="domcontentloaded")
        page.wait_for_function("() => performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd > 0")
        found = page.evaluate(TIMINGS)
        found["short_lived"] = sum(age < KEPT_S for _, age in files)
        return found
    finally:
        page.close()


def measure(browser, proxied: str, table: dict, device: str, runs: int) -> dict[str, list[dict]]:
    """``runs`` cold and warm opens of the table page on ``device``."""
    found: dict[str, list[dict]] = {"cold": [], "warm": []}
    name, value = table["cookie"]
    for _ in range(runs):
        context = browser.new_context(**DEVICES[device])
        try:
            context.add_cookies([{"name": name, "value": value, "url": proxied}])
            found["cold"].append(open_page(context, proxied + table["path"]))
            found["warm"].append(open_page(context, proxied + table["path"]))
        finally:
            context.close()
    return found


def median(runs: list[dict], key: str) -> float:
    return statistics.median(run[key] for run in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--delay", action="append", nargs="+", metavar="MS",
                        help="one-way delay in ms, repeatable or a list (default 0 50: a 100 ms round trip)")
    parser.add_argument("--runs", type=int, default=5, help="opens per case, the median kept (default 5)")
    parser.add_argument("--chromium", default=CHROMIUM)
    machine.add_arguments(parser)
    args = parser.parse_args()
    cpus = machine.split_from(parser, args)
    one_way = [0.0] + [d for d in delays([v for group in args.delay or [] for v in group], DEFAULT_DELAYS) if d]

    from playwright.sync_api import sync_playwright

    with Servers.scratch("tetriwar-bench-open-", cpus.server) as servers:
        env = server_env(servers.tmp)
        django_setup(env)
        table = make_tables(1, "medium")[0]
        port = free_port()
        servers.daphne("daphne", port, env)
        servers.wait_for_port(port, 60)
        machine.pin(os.getpid(), cpus.client)
        proxy = ProxyThread(("127.0.0.1", port), 1)
        proxied = f"http://127.0.0.1:{proxy.port}"
        figure("cpus_server", machine.cpus_text(cpus.server))
        figure("cpus_load", f"{machine.cpus_text(cpus.client)} (this process, its proxy and Chromium)")
        floor: dict[str, float] = {}
        worst = 0.0
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
                try:
                    open_page(browser.new_context(), proxied + "/")  # the server's first page, not counted
                    for delay in one_way:
                        proxy.set(delay, 0)
                        rtt = 2 * delay
                        for device in DEVICES:
                            found = measure(browser, proxied, table, device, args.runs)
                            for cache, runs in found.items():
                                case = f"{cache}_{device}_{rtt:g}ms"
                                dcl = median(runs, "dcl")
                                figure(f"{case}_dcl_ms", dcl, ".0f")
                                figure(f"{case}_requests", round(median(runs, "requests")))
                                figure(f"{case}_cached", round(median(runs, "cached")))
                                figure(f"{case}_short_lived", max(run["short_lived"] for run in runs))
                                figure(f"{case}_server_ms", max(median(runs, "ttfb") - rtt, 0.0), ".1f")
                                if not delay:
                                    floor[f"{cache}_{device}"] = dcl
                                    continue
                                trips = (dcl - floor[f"{cache}_{device}"]) / rtt
                                worst = max(worst, trips)
                                figure(f"{case}_round_trips", trips, ".2f")
                finally:
                    browser.close()
        finally:
            proxy.close()
        figure("round_trips_target", TARGET_ROUND_TRIPS)
        figure("round_trips_max", worst, ".2f")


if __name__ == "__main__":
    main()
