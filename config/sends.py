"""Channel-layer sends from synchronous code, handed to the server's event loop.

Services run on ``database_sync_to_async``'s one thread. When they tell pages something
(a table's seat panel, a lobby row, a chat line) or tell a table's host (a game starts),
they send through the channel layer, whose API is async. Sent with ``async_to_sync``,
the thread waits for the event loop to run each send: a turn of the loop, which on a
loaded server is long (every live table's step). Everything else that needs the
database thread waits behind it, first of all every connecting socket's session: after
a restart of a busy server the lobby news of its 300 tables (seven sends each) held
that thread for half a minute, and no page got through its handshake (docs/benchmarks.md,
restarts).

Under Daphne (config/asgi.py calls ``serve_from`` on its loop), ``send`` and
``group_send`` queue the message for the loop and return: one task there sends them in
the order they were queued (a table's seat panel before the game that follows it, a
game's start before the sync of a page that learned of it). Elsewhere (tests without
Daphne, management commands, the scale-out worker) there is no such loop, and they
send as before, waiting.

What a queued send raises (a full channel, a layer gone) is logged and counted: the
callers have gone on by then. None of them acted on it, beyond failing the request
that had already changed the database.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
from collections import deque
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from config.metrics import LAYER_SENDS_FAILED

log = logging.getLogger(__name__)


class Outbox:
    """The sends of synchronous code, in order, for one event loop's sender task."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.thread = threading.get_ident()  # the loop's own thread
        self.queue: deque[tuple[str, str, dict[str, Any]]] = deque()
        self.sender: asyncio.Task | None = None
        self.idle = asyncio.Event()
        self.idle.set()

    def put(self, method: str, name: str, message: dict[str, Any]) -> None:
        """From any thread: the send, after those queued before it."""
        # The sender runs in a context of its own, not in that of the thread that queued.
        self.loop.call_soon_threadsafe(self._queue, (method, name, message), context=contextvars.Context())

    def _queue(self, item: tuple[str, str, dict[str, Any]]) -> None:
        self.queue.append(item)
        self.idle.clear()
        if self.sender is None or self.sender.done():
            self.sender = self.loop.create_task(self._send_all())

    async def _send_all(self) -> None:
        layer = get_channel_layer()
        while self.queue:
            method, name, message = self.queue.popleft()
            try:
                await getattr(layer, method)(name, message)
            except Exception:
                LAYER_SENDS_FAILED.inc()
                log.exception("a %s to %s (%s) failed", method, name, message.get("type"))
        self.idle.set()

    async def drained(self) -> None:
        """Once everything queued so far is sent (a graceful stop waits for it)."""
        await self.idle.wait()


_outbox: Outbox | None = None


def serve_from(loop: asyncio.AbstractEventLoop | None = None) -> None:
    """Hand this process's layer sends from synchronous code to ``loop`` (the running
    one): the server's, once it runs."""
    global _outbox
    _outbox = Outbox(loop or asyncio.get_running_loop())


def outbox() -> Outbox | None:
    """The running server's outbox, if this process is one."""
    if _outbox is not None and _outbox.loop.is_running():
        return _outbox
    return None


def _put_or_send(method: str, name: str, message: dict[str, Any]) -> None:
    box = outbox()
    if box is not None and threading.get_ident() != box.thread:
        box.put(method, name, message)
    else:
        async_to_sync(getattr(get_channel_layer(), method))(name, message)


def group_send(group: str, message: dict[str, Any]) -> None:
    """``group_send`` on the channel layer, from synchronous code."""
    _put_or_send("group_send", group, message)


def send(channel: str, message: dict[str, Any]) -> None:
    """``send`` on the channel layer, from synchronous code."""
    _put_or_send("send", channel, message)
