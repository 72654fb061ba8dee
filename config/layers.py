"""The channel layer of the embedded default (one process, no Redis).

Channels' InMemoryChannelLayer is written for tests: every send and receive first
walks every channel and every group membership to expire old entries, and a group
send starts a task per member. With a few hundred sockets that walk is most of the
server's time. This layer does the same housekeeping at most once a second and
sends to a group in one loop, and compiles per-channel capacities, which the
parent leaves as a plain dict.

It also offers direct delivery, because everything lives in one process: a
receiver may ``attach`` a handler to its channel for message types whose handling
never waits (relaying a fragment to a socket, putting an intent on a table's
queue). A message of such a type is then handed to the handler in the sender's
task instead of going through a queue, a wake-up and the consumer's dispatch loop:
that path is most of the cost of a live game's fan-out. Every other message, and
any message sent from another event loop (``async_to_sync`` outside the server),
takes the queue as before.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from copy import deepcopy
from typing import Any

from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer
from channels_redis.pubsub import RedisPubSubChannelLayer, RedisPubSubLoopLayer, RedisSingleShardConnection

CLEAN_INTERVAL = 1.0  # seconds between expiry sweeps; messages expire after `expiry`

log = logging.getLogger(__name__)

Handler = Callable[[dict[str, Any]], Awaitable[None]]


class DirectDelivery:
    """Handlers attached to channels of this process, called in the sender's task."""

    direct: dict[str, tuple[Handler, frozenset[str], asyncio.AbstractEventLoop]]

    def attach(self, channel: str, handler: Handler, types: Iterable[str]) -> None:
        """Hand messages of ``types`` sent to ``channel`` straight to ``handler``.

        The handler runs in the sender's task, on this event loop, and must not
        wait on anything but the socket write (Daphne's never suspends)."""
        self.direct[channel] = (handler, frozenset(types), asyncio.get_running_loop())

    def detach(self, channel: str) -> None:
        self.direct.pop(channel, None)

    def _direct_handler(self, channel: str, message: dict) -> Handler | None:
        entry = self.direct.get(channel)
        if entry is None or message.get("type") not in entry[1]:
            return None
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return None
        return entry[0] if loop is entry[2] else None

    async def _hand_over(self, channel: str, handler: Handler, message: dict) -> None:
        try:
            await handler(dict(message))
        except ChannelFull:
            raise
        except Exception:
            # A receiver's failure is its own: the sender (a table host) goes on.
            log.exception("direct delivery to %s failed", channel)


class EmbeddedChannelLayer(DirectDelivery, InMemoryChannelLayer):
    def __init__(self, *, channel_capacity=None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.channel_capacity = self.compile_capacities(channel_capacity or {})
        self._next_clean = 0.0
        self.direct = {}

    # --- the queues -----------------------------------------------------------------
    def _clean_expired(self) -> None:
        now = time.monotonic()
        if now < self._next_clean:
            return
        self._next_clean = now + CLEAN_INTERVAL
        super()._clean_expired()

    def _put(self, channel: str, message: dict, copy=deepcopy) -> None:
        queue = self.channels.get(channel)
        if queue is None:
            queue = self.channels[channel] = asyncio.Queue(maxsize=self.get_capacity(channel))
        queue.put_nowait((time.time() + self.expiry, copy(message)))

    async def send(self, channel: str, message: dict) -> None:
        assert isinstance(message, dict), "message is not a dict"
        self.require_valid_channel_name(channel)
        assert "__asgi_channel__" not in message
        handler = self._direct_handler(channel, message)
        if handler is not None:
            await self._hand_over(channel, handler, message)
            return
        try:
            self._put(channel, message)
        except asyncio.QueueFull:
            raise ChannelFull(channel) from None

    async def group_send(self, group: str, message: dict) -> None:
        assert isinstance(message, dict), "Message is not a dict"
        self.require_valid_group_name(group)
        self._clean_expired()
        # A group message is copied once per member, shallowly: its values are
        # strings that nobody changes (a deep copy of each was a measurable cost).
        for channel in list(self.groups.get(group, ())):
            handler = self._direct_handler(channel, message)
            try:
                if handler is not None:
                    await self._hand_over(channel, handler, message)
                else:
                    self._put(channel, message, copy=dict)
            except (asyncio.QueueFull, ChannelFull):
                pass  # as the parent: a full member misses this message

    async def flush(self) -> None:
        self.direct.clear()
        await super().flush()


class PubSubChannelLayer(DirectDelivery, RedisPubSubChannelLayer):
    """channels_redis's pub/sub layer (scale-out), with direct delivery on arrival.

    The parent puts every message that arrives from Redis on the queue of each local
    member, still serialized, and every consumer decodes its own copy after a
    wake-up. Here a message is decoded once, and handed to the attached handlers of
    its local members at once; the rest take the queue as before."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.direct = {}

    def _get_layer(self):
        loop = asyncio.get_running_loop()
        layer = self._layers.get(loop)
        if layer is None:
            layer = super()._get_layer()
            layer._shards = [DirectShardConnection(shard.host, layer) for shard in layer._shards]
        return layer

    async def flush(self) -> None:
        self.direct.clear()
        await self._get_layer().flush()


class DirectShardConnection(RedisSingleShardConnection):
    """One Redis connection of the layer. It publishes through an outbox: what is
    published while an earlier batch is on its way goes out together, in one
    pipeline (one write and one round trip), in order. A publisher still waits
    until its own message is on Redis, and sees its error if it failed."""

    channel_layer: RedisPubSubLoopLayer

    def __init__(self, host, channel_layer) -> None:
        super().__init__(host, channel_layer)
        self._outbox: list[tuple[str, bytes, asyncio.Future]] = []
        self._sender: asyncio.Task | None = None

    async def publish(self, channel, message):
        done = asyncio.get_running_loop().create_future()
        self._outbox.append((channel, message, done))
        if self._sender is None or self._sender.done():
            self._sender = asyncio.ensure_future(self._send_outbox())
        await done

    async def _send_outbox(self) -> None:
        while self._outbox:
            batch, self._outbox = self._outbox, []
            try:
                async with self._lock:
                    self._ensure_redis()
                    pipe = self._redis.pipeline(transaction=False)
                    for channel, message, _ in batch:
                        pipe.publish(channel, message)
                    await pipe.execute()
            except BaseException as err:
                for *_, done in batch:
                    if not done.done():
                        done.set_exception(err)
                if isinstance(err, asyncio.CancelledError):
                    raise
            else:
                for *_, done in batch:
                    if not done.done():
                        done.set_result(None)

    async def flush(self):
        if self._sender is not None:
            self._sender.cancel()
            self._sender = None
        for *_, done in self._outbox:
            done.cancel()
        self._outbox = []
        await super().flush()

    async def _do_receiving(self):
        while True:
            try:
                if self._pubsub and self._pubsub.subscribed:
                    message = await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=0.1)
                    if message is not None:
                        await self._deliver(message)
                else:
                    await asyncio.sleep(0.1)
            except (asyncio.CancelledError, TimeoutError, GeneratorExit):
                raise
            except BaseException:
                log.exception("Unexpected exception in receive task")
                await asyncio.sleep(1)

    async def _deliver(self, message: dict[str, Any]) -> None:
        layer = self.channel_layer
        outer: PubSubChannelLayer = layer.channel_layer
        name = message["channel"]
        data = message["data"]
        if isinstance(name, bytes):
            name = name.decode()
        if name in layer.channels:
            members: Iterable[str] = (name,)
        elif name in layer.groups:
            members = list(layer.groups[name])
        else:
            return
        decoded = None
        for channel in members:
            queue = layer.channels.get(channel)
            if queue is None:
                continue
            if channel in outer.direct:
                if decoded is None:
                    decoded = outer.deserialize(data)
                handler = outer._direct_handler(channel, decoded)
                if handler is not None:
                    try:
                        await outer._hand_over(channel, handler, decoded)
                    except ChannelFull:
                        log.warning("%s is full; a message was dropped", channel)
                    continue
            queue.put_nowait(data)
