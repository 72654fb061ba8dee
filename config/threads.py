"""The threads beside the event loop yield to it.

A server process serves its live tables from one event loop. Beside it, pages render
on the request threads (config/handlers.py) and database work runs on the one thread
of ``database_sync_to_async``. Both are mostly Python, and a key that arrives while
one of them runs waits twice:

- for the CPU, when the loop shares it with that thread: at equal priority Linux lets
  the running thread go on until its slice ends, often the next scheduler tick;
- for the GIL, once per call that released it: the loop gives the GIL up at every
  ``epoll_wait`` and every socket send, and each time takes it back only when the
  thread holding it is asked to drop it, after the switch interval (5 ms by default).
  A key that moves a table's five sockets pays that up to six times.

So those threads run in Linux's idle scheduling class (``SCHED_IDLE``, thread by
thread, ``BACKGROUND_THREADS_IDLE``): they run whenever the CPU has nothing else to
do, which on a server that is not overloaded is most of the time, and a waking loop
takes the CPU from them at once. And the switch interval is shorter
(``GIL_SWITCH_INTERVAL_US``, 0.5 ms), so the loop gets the GIL back sooner; when no
thread but the loop runs Python, no switch is asked for and it costs nothing.

Two threads stay at the loop's priority, named so that ``top -H`` and
``/proc/<pid>/task/*/comm`` tell them apart (``named``): the journal's writes (a
batch due every 250 ms, games/journal.py) and the rebuilds of the games a restart left
running (no such game goes on before its rebuild, games/host.py).

Both are the defaults of the embedded mode only, where the process is alone with its
tables. In scale-out several busy processes (Daphnes, nginx, Redis, PostgreSQL) share
the CPUs: a thread of the idle class that holds the GIL then waits for all of them
before it can let go, and its loop waits with it (``bench/capacity.py``, 100 tables
behind nginx on one core: p99 448 and 679 ms with it, 92 without).
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from channels.db import database_sync_to_async
from django.conf import settings

log = logging.getLogger(__name__)


def below_the_loop() -> None:
    """Move the calling thread to the idle scheduling class (where Linux has one)."""
    if not settings.BACKGROUND_THREADS_IDLE or not hasattr(os, "SCHED_IDLE"):
        return
    thread = threading.get_native_id()
    try:
        os.sched_setscheduler(thread, os.SCHED_IDLE, os.sched_param(0))
    except OSError as error:  # a sandbox may forbid it; the thread then runs as it was
        log.warning("could not move thread %s to the idle scheduling class: %s", thread, error)


def named(name: str) -> None:
    """Give the calling thread ``name`` (at most 15 bytes) where the system shows it."""
    try:
        Path(f"/proc/self/task/{threading.get_native_id()}/comm").write_text(name[:15])
    except OSError:  # no /proc: the name is only a help
        pass


_own: dict[tuple[int, str], ThreadPoolExecutor] = {}


def thread_of_its_own(name: str) -> ThreadPoolExecutor:
    """One thread of this process for ``name``'s work, in order, at the loop's priority,
    ``named`` so (and so, for the database, a connection of its own). One per process:
    a forked process has none of its parent's threads."""
    key = (os.getpid(), name)
    if key not in _own:
        _own[key] = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name, initializer=named, initargs=(name,))
    return _own[key]


def shorten_the_switch_interval() -> None:
    sys.setswitchinterval(settings.GIL_SWITCH_INTERVAL_US / 1_000_000)


_lowering: set[asyncio.Task] = set()


def lower_the_database_thread() -> None:
    """``below_the_loop`` on ``database_sync_to_async``'s thread: the one thread that
    thread-sensitive code runs on when the outermost program is async, as under Daphne.
    Call it on the running event loop."""
    task = asyncio.get_running_loop().create_task(database_sync_to_async(below_the_loop)())
    _lowering.add(task)
    task.add_done_callback(_lowering.discard)
