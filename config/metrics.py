"""What the live site measures, for Prometheus to scrape at ``/metrics`` (config/urls.py).

The metric objects live here, apart from everything else of ours, so that every
layer (the edge, the wire, the table host) may import them without importing
another. They are cheap by design: a counter or an observation per refusal, per
table step and per broadcast, never per socket per fragment.

Several processes (Daphne processes, ``manage.py runworker`` workers) each keep their
own values. With ``PROMETHEUS_MULTIPROC_DIR`` set (to an empty directory, the same
for every process of the site, before they start), prometheus-client keeps them in
files there and ``/metrics`` of any process adds up all of them; a gauge of live
things then sums the processes that are alive.
"""

from __future__ import annotations

import atexit
import os

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead

# Read by prometheus-client itself when it is first imported; the settings check that
# it names a directory (config/settings.py).
MULTIPROC_DIR = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")

INTENT_LATENCY = Histogram(
    "tetriwar_intent_latency_seconds",
    "Seconds from an intent's arrival at its table's host to the broadcast it caused "
    "(one observation per broadcast: the oldest intent it answers).",
    ["kind"],
    # A key press should show within a frame or two; past half a second, players notice.
    buckets=(0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0),
)
LIVE_TABLES = Gauge(
    "tetriwar_live_tables",
    "Tables whose game this process hosts (countdown included).",
    multiprocess_mode="livesum",
)
OPEN_WEBSOCKETS = Gauge(
    "tetriwar_open_websockets",
    "WebSockets open (admitted by the edge) in this process.",
    multiprocess_mode="livesum",
)
FRAMES_REFUSED = Counter(
    "tetriwar_frames_refused",
    "Frames refused, by code (lobby/edge.py, games/wire.py, lobby/ws.py); ADDRESS_* "
    "count sockets and page requests refused for their address's limits.",
    ["code"],
)
MESSAGES_REFUSED = Counter(
    "tetriwar_messages_refused",
    "Messages to a table host of no declared type, or with wrong fields (games/messages.py), by type.",
    ["type"],
)
HOST_QUEUE_DEPTH = Histogram(
    "tetriwar_host_queue_depth",
    "Messages waiting in a table's inbox when its host took them (one observation per step).",
    # games/host.py refuses intents as BUSY past QUEUE_LIMIT (1000) waiting.
    buckets=(0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000),
)
HUB_OUTBOX_DROPPED = Counter(
    "tetriwar_hub_outbox_dropped",
    "Fragments for other processes' sockets dropped because the layer fell too far behind (games/hub.py).",
)
LAYER_SENDS_FAILED = Counter(
    "tetriwar_layer_sends_failed",
    "Channel-layer sends queued by synchronous code that failed on the event loop (config/sends.py).",
)
CORRECTIONS = Counter(
    "tetriwar_corrections",
    "TetriWar keys after which a page's own board, played ahead, differed from the "
    "server's: the server sent its board back (games/tetriwar/live.py).",
)
JOURNAL_CPU = Counter(
    "tetriwar_journal_cpu_seconds",
    "CPU seconds the journal spent (games/journal.py): packing batches on the event loop "
    "and writing them on its own thread; what writing the games down costs the server.",
)
JOURNAL_BATCHES = Counter(
    "tetriwar_journal_batches",
    "Batches of running games' inputs written to the database (games/journal.py): one "
    "per game with new inputs every 250 ms, and one at each forfeit.",
)
GAMES_RESUMED = Counter(
    "tetriwar_games_resumed",
    "Running games a host rebuilt from their stored inputs as it started (games/resume.py), "
    "by outcome: resumed, or aborted (they could not be rebuilt).",
    ["outcome"],
)
TIMED_KEYS = Counter(
    "tetriwar_timed_keys",
    "TetriWar keys stamped by a page that plays ahead, by how they were applied: at "
    "their stamp, or clamped (later than the seat's lag allowance; games/tetriwar/lag.py).",
    ["applied"],
)

if MULTIPROC_DIR:
    # This process's live gauges stop counting when it exits (a killed process's
    # stay until the directory is emptied, at the next start of the site).
    atexit.register(mark_process_dead, os.getpid())


def registry() -> CollectorRegistry:
    """What ``/metrics`` shows: this process's metrics, or every process's in
    multiprocess mode (a fresh registry per scrape, as prometheus-client asks)."""
    if not MULTIPROC_DIR:
        return REGISTRY
    collected = CollectorRegistry()
    MultiProcessCollector(collected, path=MULTIPROC_DIR)
    return collected
