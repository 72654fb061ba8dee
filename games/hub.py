"""The hub: one per process (per event loop), the hand-over between the table sockets
of this process and the table hosts of this process.

A table is hosted by exactly one process: the owner of its shard (games/shards.py).
Embedded, that is this process for every shard. In scale-out, a Daphne process hosts
the shards named in ``HOSTED_SHARDS`` (and a ``runworker`` process those it listens
to), and a proxy routes each table's sockets to the process that hosts it
(docs/operations.md: several processes). Then everything hot stays in one process:

    socket ── Intent ──▶ hub.send ──▶ GameHost.accept           (no serialising)
    GameHost ── fragment ──▶ hub.publish ──▶ each local socket  (no queue, no wake-up)

and the channel layer, through its public API only, carries what must cross:

- a socket of a table hosted elsewhere joins the layer group ``play-<table>`` and
  sends to ``game-host-<shard>``; its hub tells the table's host that it watches
  (``Watch``, again every ``WATCH_SECONDS``, so that a host that restarts learns
  again), and the host's hub publishes the table's fragments to that group too, in
  the background and in order (``outbox``), so that no table waits on Redis; a table
  nobody watches from elsewhere costs the layer nothing;
- the page's own messages (seat panel, spectator count, lobby rows) keep the groups
  of lobby/broadcast.py, from any process, as before.

Each socket reads one language (lobby/ws.py, from its account, cookie or browser). The
hub knows the language of every socket of the tables hosted here, in this process
(``attach``) or in another (the ``languages`` of a ``Watch``), so the host renders a
change once per language present at the table, and each socket gets its own: the site's
language (``DEFAULT_LANGUAGE``) as before, and any other from the ``translations`` beside
it. A table read only in the site's language costs what it always did. Sockets elsewhere
join the group of their language, ``play-<table>`` or ``play-<table>.<language>``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from channels.layers import BaseChannelLayer, get_channel_layer
from django.conf import settings

from config.metrics import HUB_OUTBOX_DROPPED
from games import messages
from games.shards import host_channel, shard_of

log = logging.getLogger(__name__)

# A socket's way in: it sends the fragment at once and returns None (a prepared frame
# written to the connection: lobby/ws.py ``deliver``), or returns the send to await.
Relay = Callable[[str], Awaitable[None] | None]
OUTBOX_LIMIT = 10_000  # fragments waiting for the layer; beyond, the oldest are dropped
WATCH_SECONDS = 10.0  # a process says again which of its sockets watch which tables
WATCH_EXPIRY = 3 * WATCH_SECONDS  # a watcher not heard of for this long is forgotten
clock = time.monotonic


class Host(Protocol):
    async def accept(self, message: messages.HostMessage) -> None: ...


def play_group(table_id: int, language: str | None = None) -> str:
    """The layer group of a table's sockets in processes that do not host it, for one
    language (None: the site's)."""
    if language is None or language == settings.LANGUAGE_CODE:
        return f"play-{table_id}"
    return f"play-{table_id}.{language}"


class Hub:
    def __init__(self, layer: BaseChannelLayer, *, hosted: frozenset[int], remote: bool) -> None:
        self.layer = layer
        self.hosted = hosted  # the shards whose tables this process hosts
        self.remote = remote  # whether other processes exist (a layer that crosses them)
        self.host: Host | None = None
        # Sockets of this process: of tables hosted here (fragments in hand), and of
        # tables hosted elsewhere (fragments through the layer).
        self.tables: dict[int, dict[str, Relay]] = {}  # table id → channel → relay
        self.relays: dict[str, Relay] = {}  # every socket of a table hosted here, for replies
        self.away: dict[int, dict[str, str]] = {}  # table id → channel watching it from here → language
        self.refresher: asyncio.Task | None = None
        # Tables hosted here: the sockets of other processes that watch them.
        self.watchers: dict[int, dict[str, float]] = {}  # table id → channel → expiry
        # Sockets of tables hosted here, in this process or another, that read another
        # language than the site's; and, per table, how many of this process's do, by language.
        self.language_of: dict[str, str] = {}  # channel → language
        self.local_languages: dict[int, dict[str, int]] = {}  # table id → language → sockets
        self.next_sweep = 0.0
        self.outbox: deque[tuple[str, dict[str, Any]]] = deque()
        self.sender: asyncio.Task | None = None

    # --- sockets ---------------------------------------------------------------------
    def hosts(self, table_id: int) -> bool:
        return shard_of(table_id) in self.hosted

    async def attach(self, table_id: int, channel: str, relay: Relay, language: str | None = None) -> None:
        """A socket of this process shows the table, in ``language`` (None: the site's):
        its fragments come from the host in hand if the table is hosted here, else
        through the layer (and the host is told that it watches, and in what language)."""
        language = language or settings.LANGUAGE_CODE
        if self.hosts(table_id):
            self.tables.setdefault(table_id, {})[channel] = relay
            self.relays[channel] = relay
            if language != settings.LANGUAGE_CODE:
                self.language_of[channel] = language
                counts = self.local_languages.setdefault(table_id, {})
                counts[language] = counts.get(language, 0) + 1
            return
        await self.layer.group_add(play_group(table_id, language), channel)
        self.away.setdefault(table_id, {})[channel] = language
        await self.send(watch_message(table_id, {channel: language}))
        if self.refresher is None or self.refresher.done():
            self.refresher = asyncio.get_running_loop().create_task(self._refresh())

    async def detach(self, table_id: int, channel: str) -> None:
        members = self.tables.get(table_id)
        if members is not None and members.pop(channel, None) is not None:
            if not members:
                del self.tables[table_id]
            self.relays.pop(channel, None)
            language = self.language_of.pop(channel, None)
            if language is not None:
                counts = self.local_languages[table_id]
                counts[language] -= 1
                if not counts[language]:
                    del counts[language]
                    if not counts:
                        del self.local_languages[table_id]
            return
        away = self.away.get(table_id)
        if away is not None and channel in away:
            language = away.pop(channel)
            if not away:
                del self.away[table_id]
            await self.layer.group_discard(play_group(table_id, language), channel)
            await self.send(messages.Unwatch(table_id=table_id, channels=[channel]))

    async def _refresh(self) -> None:
        while self.away:
            await asyncio.sleep(WATCH_SECONDS)
            for table_id, channels in list(self.away.items()):
                try:
                    await self.send(watch_message(table_id, channels))
                except Exception:
                    log.exception("telling table %s's host who watches it failed", table_id)

    async def rewatch(self, table_id: int) -> None:
        """Tell the table's host again which sockets of this process watch it (a host that
        started again knows none), at once rather than at the next ``WATCH_SECONDS``."""
        channels = self.away.get(table_id)
        if channels:
            await self.send(watch_message(table_id, channels))

    async def send(self, message: messages.HostMessage) -> None:
        """To the host of the message's table. An intent, the hot path, is handed over
        if the table is hosted here (it only queues on its table, or is refused if it
        has none; raises ChannelFull when that queue is full). Every other message, and
        any for another process, goes on the shard's channel, in order behind
        ``host.start`` (which waits on the database): a sync or an abort sent as a game
        starts must find its table."""
        if type(message) is messages.Intent and self.host is not None and self.hosts(message.table_id):
            await self.host.accept(message)
        else:
            await self.layer.send(host_channel(message.table_id), message.to_dict())

    # --- hosts -------------------------------------------------------------------------
    def watch(self, message: messages.Watch | messages.Unwatch) -> list[str]:
        """Sockets of another process started or stopped watching a table hosted here.
        Those of a ``Watch`` that this host had not heard of (all of them, for a host
        that started again)."""
        now = clock()
        watchers = self.watchers.setdefault(message.table_id, {})
        new: list[str] = []
        if type(message) is messages.Watch:
            for channel in message.channels:
                if channel not in watchers:
                    new.append(channel)
                watchers[channel] = now + WATCH_EXPIRY
            self.language_of.update(message.languages)
        else:
            for channel in message.channels:
                watchers.pop(channel, None)
                self.language_of.pop(channel, None)
        if not watchers:
            del self.watchers[message.table_id]
        if now >= self.next_sweep:  # forget the sockets of processes that went silent
            self.next_sweep = now + WATCH_SECONDS
            for table_id, found in list(self.watchers.items()):
                for channel in [c for c, expiry in found.items() if expiry <= now]:
                    del found[channel]
                    self.language_of.pop(channel, None)
                if not found:
                    del self.watchers[table_id]
        return new

    def languages(self, table_id: int) -> set[str]:
        """The languages other than the site's that sockets of the table read, here and
        in other processes: the host renders each change in each of them too. Empty
        for most tables, at the cost of two lookups."""
        local = self.local_languages.get(table_id)
        remote = self.watchers.get(table_id) if self.remote else None
        if local is None and remote is None:
            return set()
        found = set(local) if local is not None else set()
        if remote is not None:
            language_of = self.language_of
            found.update(language_of[c] for c in remote if c in language_of)
        return found

    def language(self, channel: str) -> str:
        """The language a socket of a table hosted here reads (the site's, unless it said)."""
        return self.language_of.get(channel, settings.LANGUAGE_CODE)

    async def publish(
        self,
        table_id: int,
        html: str,
        translations: dict[str, str] | None = None,
        tails: dict[str, str] | None = None,
    ) -> set[str]:
        """A fragment for every socket of a table: this process's at once, other
        processes' (if any watch) through the layer. ``html`` is in the site's language;
        ``translations`` (if any) the same fragment in other languages, by language:
        each socket gets the one of its language. ``tails``: what a socket of this
        process gets at the end of its frame besides (its seat's own news: one frame
        per socket). Returns the sockets whose tail went (the others' is the caller's)."""
        members = self.tables.get(table_id, {})
        language_of = self.language_of if translations else None
        delivered: set[str] = set()
        # The hottest loop of the site (every socket, every change): a relay that sends
        # at once costs one call, no coroutine.
        for channel, relay in list(members.items()):
            fragment = html
            if language_of is not None:
                language = language_of.get(channel)
                if language:
                    fragment = translations.get(language, html)
            if tails:
                tail = tails.get(channel)
                if tail is not None:
                    fragment += tail
                    delivered.add(channel)
            pending = self._hand(channel, relay, fragment)
            if pending is not None:
                await self._settle(channel, pending)
        if self.remote and table_id in self.watchers:
            watchers = self.watchers[table_id]
            # one post per language read elsewhere, each to its group
            wanted = {self.language_of.get(c) for c in watchers}
            for language in sorted(wanted, key=lambda code: code or ""):
                fragment = html if language is None or not translations else translations.get(language, html)
                self._post(play_group(table_id, language), {"type": "game.fragment", "html": fragment})
        return delivered

    async def reply(self, channel: str, html: str) -> None:
        """A fragment for one socket (a resync, a refusal)."""
        relay = self.relays.get(channel)
        if relay is not None:
            await self._relay(channel, relay, html)
        else:
            await self.layer.send(channel, {"type": "game.fragment", "html": html})

    async def _relay(self, channel: str, relay: Relay, html: str) -> None:
        pending = self._hand(channel, relay, html)
        if pending is not None:
            await self._settle(channel, pending)

    # A socket's failure is its own: the table goes on.
    @staticmethod
    def _hand(channel: str, relay: Relay, html: str) -> Awaitable[None] | None:
        """``html`` handed to a socket's relay: None once sent, or the send to await."""
        try:
            return relay(html)
        except Exception:
            log.exception("relay to %s failed", channel)
            return None

    @staticmethod
    async def _settle(channel: str, pending: Awaitable[None]) -> None:
        try:
            await pending
        except Exception:
            log.exception("relay to %s failed", channel)

    def _post(self, group: str, message: dict[str, Any]) -> None:
        if len(self.outbox) >= OUTBOX_LIMIT:
            # Remote sockets that miss a fragment see a gap in its version and resync.
            self.outbox.popleft()
            HUB_OUTBOX_DROPPED.inc()
        self.outbox.append((group, message))
        if self.sender is None or self.sender.done():
            self.sender = asyncio.get_running_loop().create_task(self._send_outbox())

    async def _send_outbox(self) -> None:
        while self.outbox:
            group, message = self.outbox.popleft()
            try:
                await self.layer.group_send(group, message)
            except Exception:
                log.exception("publishing to %s failed", group)


def watch_message(table_id: int, channels: dict[str, str]) -> messages.Watch:
    """Tell a table's host that these sockets (channel → language) watch it."""
    return messages.Watch(
        table_id=table_id,
        channels=sorted(channels),
        languages={c: language for c, language in channels.items() if language != settings.LANGUAGE_CODE},
    )


_hubs: dict[asyncio.AbstractEventLoop, Hub] = {}


def hub() -> Hub:
    """This event loop's hub (one per process under Daphne; tests run several loops)."""
    loop = asyncio.get_running_loop()
    found = _hubs.get(loop)
    if found is None:
        for old in [old for old in _hubs if old.is_closed()]:
            del _hubs[old]
        remote = bool(settings.REDIS_URL)
        hosted = frozenset(settings.HOSTED_SHARDS) if remote else frozenset(range(settings.GAME_HOST_SHARDS))
        found = _hubs[loop] = Hub(get_channel_layer(), hosted=hosted, remote=remote)
    return found
