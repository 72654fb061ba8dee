"""The channel layer of the embedded default (one process, no Redis).

Channels' InMemoryChannelLayer is written for tests: every send and receive first
walks every channel and every group membership to expire old entries, and a group
send starts a task per member. With a few hundred sockets that walk is most of the
server's time. This layer does the same housekeeping at most once a second and
sends to a group in one loop, and compiles per-channel capacities, which the
parent leaves as a plain dict.
"""

from __future__ import annotations

import asyncio
import time
from copy import deepcopy

from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer

CLEAN_INTERVAL = 1.0  # seconds between expiry sweeps; messages expire after `expiry`


class EmbeddedChannelLayer(InMemoryChannelLayer):
    def __init__(self, *, channel_capacity=None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.channel_capacity = self.compile_capacities(channel_capacity or {})
        self._next_clean = 0.0

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
            try:
                self._put(channel, message, copy=dict)
            except asyncio.QueueFull:
                pass  # as the parent: a full member misses this message
