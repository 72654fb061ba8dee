"""Which open pages are real: the Watcher rows of processes that are gone are removed.

A Watcher row stands for one socket, held by one Daphne process (``SERVER_ID``). A
socket's own end removes its row, but a process that is killed ends none of them.
So, as soon as a process starts (not when a socket of a table next connects):

- embedded (one process): every row of another process is gone with it; they are
  removed, and the table host starts, which resumes the games left running from
  what their host wrote down (games/resume.py);
- scale-out: each Daphne process beats (``ServerBeat``) every ``BEAT_SECONDS``; any
  process removes the rows of processes that have not beaten for ``STALE_SECONDS``,
  at its start and then at every beat, and watches the workers' heartbeats.

``start`` is called on the server's event loop once it runs (config/asgi.py).
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket

from channels.db import database_sync_to_async
from django.conf import settings

from games.host import start_hosting
from lobby import selectors, services

log = logging.getLogger(__name__)

SERVER_ID = f"{socket.gethostname()[:40]}:{os.getpid()}:{secrets.token_hex(4)}"
BEAT_SECONDS = 2.0
STALE_SECONDS = 10.0

_started: dict[asyncio.AbstractEventLoop, asyncio.Task] = {}
# Looks at tables whose last seated person's page closed, under way (a reference keeps
# each task alive until it is done).
_announcing: set[asyncio.Task] = set()
# The timers waiting to look (``cancel_timers`` ends them: a test's must not fire in the
# next test's time, nor as its event loop closes).
_timers: set[asyncio.TimerHandle] = set()
# After the grace, so that a table left at the grace's very end is past it (our choice).
ANNOUNCE_SLACK_SECONDS = 1.0


def start() -> None:
    """Reconcile what earlier processes left, and start this process's table host
    (embedded; in scale-out, its ``HOSTED_SHARDS``) and the watch over the other
    hosts (scale-out). Once per event loop."""
    loop = asyncio.get_running_loop()
    task = _started.get(loop)
    if task is not None and not task.done():
        return
    start_hosting()
    _started[loop] = task = loop.create_task(_presence())
    task.add_done_callback(_report)


def _report(task: asyncio.Task) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("presence: reconciling at start-up failed", exc_info=task.exception())


async def _presence() -> None:
    if not settings.REDIS_URL:
        removed = await database_sync_to_async(services.watchers_reconcile)(alive={SERVER_ID})
        if removed:
            log.info("removed %d open-page rows left by an earlier process", removed)
        return
    while True:
        try:
            await database_sync_to_async(services.server_beat)(server=SERVER_ID)
            await database_sync_to_async(services.watchers_reconcile)(stale_after=STALE_SECONDS)
        except Exception:
            log.exception("presence: the beat failed; trying again")
        await asyncio.sleep(BEAT_SECONDS)


def announce_if_abandoned_later(table_id: int) -> None:
    """The last page of a seated person at the table closed: once the grace of an
    abandoned table is over (``lobby.selectors.ABANDONED_AFTER``), the lobbies are told
    if nobody came back (``services.table_announce_if_abandoned``). A timer of this
    process, not a sweep: the lobby pages open then learn it at once. Should the process
    end first, a lobby that loads later does not list the table all the same."""
    loop = asyncio.get_running_loop()
    delay = selectors.ABANDONED_AFTER.total_seconds() + ANNOUNCE_SLACK_SECONDS
    handle: asyncio.TimerHandle | None = None

    def fire() -> None:
        _timers.discard(handle)
        _look_at(table_id)

    handle = loop.call_later(delay, fire)
    _timers.add(handle)


def cancel_timers() -> None:
    """Every look still to come is called off (the tests, after each test; a table left
    unlooked at is still left out of every lobby loaded later)."""
    for handle in list(_timers):
        handle.cancel()
    _timers.clear()


def _look_at(table_id: int) -> None:
    task = asyncio.ensure_future(_announce(table_id))
    _announcing.add(task)
    task.add_done_callback(_announcing.discard)


async def _announce(table_id: int) -> None:
    try:
        again = await database_sync_to_async(services.table_announce_if_abandoned)(table_id=table_id)
    except Exception:
        log.exception("presence: announcing abandoned table %s failed", table_id)
        return
    if again:
        announce_if_abandoned_later(table_id)
