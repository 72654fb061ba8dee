"""The edge of the live path: what one client may cost, enforced before anything
else of ours runs for it.

``EdgeMiddleware`` is the outermost layer of every WebSocket connection:

- **Per address**, before the handshake is accepted: at most
  ``WS_MAX_SOCKETS_PER_ADDRESS`` sockets open at once, and ``WS_NEW_SOCKETS_PER_MINUTE``
  new ones a minute (a token bucket). Over either, the handshake is refused (HTTP 403)
  before the session is read or the database touched. IPv6 clients are counted by
  their /64, which one subscriber usually holds whole.
- **Per player**, on every frame: Daphne queues every frame it reads, however fast
  they come, for the application to take. A task of the edge takes them at once, so
  that queue never grows, and charges each against a token bucket
  (``WS_FRAMES_PER_SECOND``, bursts of ``WS_FRAME_BURST``; a frame costs 1, plus 1 per
  512 bytes). A socket speaks for the socket alone until the consumer names its player
  (``scope["edge"].bind``); from then on, it spends the player's bucket, which every
  socket of that player shares. A socket over budget gets one error frame (``FLOOD``)
  and is closed with code 4008 at once; whatever it sends after that is dropped, and
  autobahn drops the connection if the client does not answer the close within a
  second. Frames over ``WS_MAX_FRAME_BYTES`` or in binary are refused here, with an
  error frame, and never reach the consumer. The server's own stalls are not the
  client's flood: the keys a page sent while this process's loop stood still are read
  at once when it goes on, and the bucket saves up for them (``FrameBucket``).

A socket closed for flooding also cools its address down: no new socket from there
for ``WS_FLOOD_COOLOFF_SECONDS``, so a flooder that reconnects at once does not get a
fresh burst each time.

A frame that passes goes to the consumer through a queue of at most four bursts. If
the consumer falls that far behind, the server is overloaded (every frame in it was
within its budget): further frames are refused with a ``BUSY`` error, not the socket
closed, so an honest player is never disconnected for the server's own lag. Memory
per socket stays bounded by the budget, not by the client's speed.

The books are per process. In scale-out, a player or an address spread over several
Daphne processes has a budget in each: the proxy in front should spread one client's
sockets over few processes (or carry its own per-address limit).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple

from django.conf import settings
from django.utils.translation import gettext

from config.metrics import FRAMES_REFUSED, OPEN_WEBSOCKETS
from config.network import address_key, gate, refuse_handshake, scope_client_address
from games.wire import error_fragment

log = logging.getLogger(__name__)

CLOSE_OVER_BUDGET = 4008  # as 1008, "policy violation", in the application's range
COST_BYTES = 512  # a frame costs one token, plus one per this many bytes
SWEEP_SECONDS = 60.0  # idle books are forgotten this often
RATE_SHUT_SECONDS = 5.0  # an address over its new sockets is shut at the gate this long at least
LAG_BEAT_SECONDS = 0.05  # the loop's stalls are measured by a beat this often (``LoopLag``)
LAG_CREDIT_SECONDS = 30.0  # a frame budget saves up at most this long a stall of the loop
INBOX_BURSTS = 4  # frames that passed the budget may wait this many bursts for the consumer
CARRIED_LIMIT = 100  # messages of the channel layer waiting in an inbox (as Channels' in-memory capacity)

Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` saved up (Healthchecks' TokenBucket,
    kept in memory: these budgets are spent many times a second)."""

    __slots__ = ("rate", "burst", "tokens", "stamp")

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def take(self, cost: float = 1.0) -> bool:
        now = time.monotonic()
        self.tokens = min(self.ceiling(), self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= cost:
            self.tokens -= cost
            return True
        return False

    def ceiling(self) -> float:
        """The most this bucket may hold as it is next refilled (``take``)."""
        return self.burst

    def full(self) -> bool:
        return self.tokens + (time.monotonic() - self.stamp) * self.rate >= self.burst

    def wait(self, cost: float = 1.0) -> float:
        """Seconds until ``cost`` could be taken (as of the last take)."""
        return max(0.0, (cost - self.tokens) / self.rate)


class LoopLag:
    """How long this process's event loop has stood still, in all, so far: the
    lateness of a beat every ``LAG_BEAT_SECONDS`` (``call_later``), and the lateness of
    the beat now due, so that the frames read as a stall ends already count it (they
    are read before the late beat runs). Started on the loop that first asks."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.stalled = 0.0
        self.due = 0.0

    def total(self) -> float:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return self.stalled
        if loop is not self.loop:  # a new process's loop (or a test's)
            self.loop = loop
            self.due = loop.time() + LAG_BEAT_SECONDS
            loop.call_later(LAG_BEAT_SECONDS, self._beat, loop)
        return self.stalled + max(0.0, loop.time() - self.due)

    def _beat(self, loop: asyncio.AbstractEventLoop) -> None:
        if loop is not self.loop:
            return  # an earlier loop's beat: it ends there
        now = loop.time()
        self.stalled += max(0.0, now - self.due)
        self.due = now + LAG_BEAT_SECONDS
        loop.call_later(LAG_BEAT_SECONDS, self._beat, loop)


loop_lag = LoopLag()


class FrameBucket(TokenBucket):
    """A socket's or a player's frames: a ``TokenBucket`` that also saves up what the
    process's own stalls held back. While the loop stands still (the server
    overloaded), an honest page's keys wait in the kernel and are read at once when it
    goes on; at 20 a second, a 5 s stall is 100 frames in one read, more than a burst.
    So the bucket may hold a burst plus ``rate`` for every second the loop stood still
    since its last frame (``LAG_CREDIT_SECONDS`` at most): the frames sent meanwhile,
    within the rate, pass, and a flood still does not (a client gains by a stall only
    what its budget gave it over the stall's seconds, once)."""

    __slots__ = ("lag", "lag_seen")

    def __init__(self, rate: float, burst: float, lag: Callable[[], float] = loop_lag.total) -> None:
        super().__init__(rate, burst)
        self.lag = lag
        self.lag_seen = lag()

    def ceiling(self) -> float:
        lag = self.lag()
        credit = min(lag - self.lag_seen, LAG_CREDIT_SECONDS) * self.rate
        self.lag_seen = lag
        # What a stall saved, beyond a burst, stays until it is spent.
        return max(self.burst + credit, self.tokens)


class Address:
    __slots__ = ("open", "new", "requests", "cool_until")

    def __init__(self) -> None:
        self.open = 0
        per_minute = settings.WS_NEW_SOCKETS_PER_MINUTE
        self.new = TokenBucket(per_minute / 60.0, per_minute)
        self.requests = TokenBucket(settings.HTTP_REQUESTS_PER_SECOND, settings.HTTP_REQUEST_BURST)
        self.cool_until = 0.0  # after a flood from here, no new socket before this


class ChatBook:
    """How fast one writer (a player, over all their sockets) or one address chats: a
    bucket, the times it was refused lately, and until when it is muted for that."""

    __slots__ = ("bucket", "strikes", "muted_until")

    def __init__(self, per_minute: int, burst: int) -> None:
        self.bucket = TokenBucket(per_minute / 60.0, burst)
        self.strikes: deque[float] = deque()
        self.muted_until = 0.0

    def strike(self, now: float) -> bool:
        """One more refusal; True when it makes ``CHAT_STRIKES`` within ``CHAT_STRIKE_SECONDS``
        (the book is then muted for ``CHAT_FLOOD_MUTE_SECONDS``)."""
        self.strikes.append(now)
        while self.strikes and self.strikes[0] < now - settings.CHAT_STRIKE_SECONDS:
            self.strikes.popleft()
        if len(self.strikes) < settings.CHAT_STRIKES:
            return False
        self.strikes.clear()
        self.muted_until = now + settings.CHAT_FLOOD_MUTE_SECONDS
        return True

    def idle(self, now: float) -> bool:
        return self.bucket.full() and not self.strikes and self.muted_until <= now


class ChatVerdict(NamedTuple):
    """The edge's answer to a chat message: None (written), "CHAT_FLOOD" (too fast: wait
    ``wait`` seconds) or "MUTED" (for ``wait`` seconds more); ``muted_now`` when this
    very refusal muted the writer (lobby/chat.py ``mute_for_flood`` records it)."""

    code: str | None
    wait: float = 0.0
    muted_now: bool = False


class Edge:
    """The process's books: open sockets and new-socket buckets per address, frame
    buckets per player, chat books per writer and per address."""

    def __init__(self) -> None:
        self.addresses: dict[str, Address] = {}
        self.players: dict[str, FrameBucket] = {}
        self.chat_writers: dict[str, ChatBook] = {}
        self.chat_addresses: dict[str, ChatBook] = {}
        self.refused: dict[str, int] = {
            "address_open": 0, "address_rate": 0, "address_cooling": 0, "address_requests": 0, "over_budget": 0,
            "busy": 0, "chat_flood": 0, "chat_muted": 0,
        }
        self.next_sweep = time.monotonic() + SWEEP_SECONDS

    def clear(self) -> None:
        """Forget every book (tests start from a fresh process's state)."""
        self.__init__()
        gate.clear()

    def count(self, reason: str, code: str) -> None:
        """One refusal: in this process's books (``refused``) and on /metrics (by code)."""
        self.refused[reason] += 1
        FRAMES_REFUSED.labels(code).inc()

    # --- addresses ----------------------------------------------------------------
    def book(self, key: str) -> Address:
        self.sweep()
        book = self.addresses.get(key)
        if book is None:
            book = self.addresses[key] = Address()
        return book

    def admit(self, key: str) -> str | None:
        """Count a new socket from ``key``; the reason it is refused, or None.

        Refused for its rate (new sockets, or a flood's cool-off), the address is also
        shut at the gate until it may open a socket again (config/network.py): the
        connections it keeps opening meanwhile cost the server next to nothing. An
        attempt refused because the address has its most sockets open spends from its
        rate all the same: each cost a handshake, so an address that keeps knocking at
        its cap is soon shut at the gate too."""
        book = self.book(key)
        now = time.monotonic()
        if book.cool_until > now:
            self.count("address_cooling", "ADDRESS_COOLING")
            gate.close_until(key, book.cool_until)
            return "address_cooling"
        if not book.new.take():
            self.count("address_rate", "ADDRESS_RATE")
            gate.close_until(key, now + max(book.new.wait(), RATE_SHUT_SECONDS))
            return "address_rate"
        if book.open >= settings.WS_MAX_SOCKETS_PER_ADDRESS:
            self.count("address_open", "ADDRESS_OPEN")
            return "address_open"
        book.open += 1
        return None

    def admit_request(self, key: str) -> bool:
        """Count an HTTP request from ``key``; False (and the address shut at the gate
        for ``HTTP_COOLOFF_SECONDS``) when it is over its budget."""
        book = self.book(key)
        if book.requests.take():
            return True
        self.count("address_requests", "ADDRESS_REQUESTS")
        gate.close_until(key, time.monotonic() + settings.HTTP_COOLOFF_SECONDS)
        return False

    def release(self, key: str) -> None:
        book = self.addresses.get(key)
        if book is not None:
            book.open -= 1

    def cool_down(self, key: str) -> None:
        """A socket from ``key`` was closed for flooding: its next socket waits
        ``WS_FLOOD_COOLOFF_SECONDS``, so that reconnecting at once does not buy a new
        burst (and a second of frames to parse before the close completes) each time."""
        book = self.addresses.get(key)
        if book is not None:
            book.cool_until = time.monotonic() + settings.WS_FLOOD_COOLOFF_SECONDS

    # --- players ------------------------------------------------------------------
    def player_bucket(self, player: str) -> FrameBucket:
        bucket = self.players.get(player)
        if bucket is None:
            bucket = self.players[player] = frame_bucket()
        return bucket

    # --- chat ---------------------------------------------------------------------
    def chat(self, writer: str, address: str) -> ChatVerdict:
        """May ``writer``, from ``address``, write one more chat message now? Each has a
        budget (settings.CHAT_*); a refusal counts against both, and the third within a
        minute mutes the one that was over for five (the writer's mute is also written
        on the account, where the player can see it: lobby/chat.py)."""
        self.sweep()
        now = time.monotonic()
        mine = self.chat_writers.get(writer)
        if mine is None:
            mine = self.chat_writers[writer] = ChatBook(settings.CHAT_PER_MINUTE, settings.CHAT_BURST)
        place = self.chat_addresses.get(address)
        if place is None:
            place = self.chat_addresses[address] = ChatBook(
                settings.CHAT_ADDRESS_PER_MINUTE, settings.CHAT_ADDRESS_BURST
            )
        muted = max(mine.muted_until, place.muted_until)
        if muted > now:
            self.count("chat_muted", "MUTED")
            return ChatVerdict("MUTED", muted - now)
        over = [book for book in (mine, place) if not book.bucket.take()]
        if not over:
            return ChatVerdict(None)
        for book in (mine, place):
            if book not in over:  # its token was taken for a message not written: given back
                book.bucket.tokens += 1
        self.count("chat_flood", "CHAT_FLOOD")
        muted_now = any([book.strike(now) for book in over])
        if muted_now:
            return ChatVerdict("MUTED", settings.CHAT_FLOOD_MUTE_SECONDS, muted_now=mine.muted_until > now)
        return ChatVerdict("CHAT_FLOOD", max(book.bucket.wait() for book in over))

    def sweep(self) -> None:
        """Forget books with nothing open and a full bucket: they would start the
        same way anew. Keeps memory bounded by the clients of the last minute."""
        now = time.monotonic()
        if now < self.next_sweep:
            return
        self.next_sweep = now + SWEEP_SECONDS
        self.addresses = {
            k: b for k, b in self.addresses.items()
            if b.open > 0 or not b.new.full() or not b.requests.full() or b.cool_until > now
        }
        self.players = {k: b for k, b in self.players.items() if not b.full()}
        self.chat_writers = {k: b for k, b in self.chat_writers.items() if not b.idle(now)}
        self.chat_addresses = {k: b for k, b in self.chat_addresses.items() if not b.idle(now)}


def frame_bucket() -> FrameBucket:
    return FrameBucket(settings.WS_FRAMES_PER_SECOND, settings.WS_FRAME_BURST)


edge = Edge()


class Carried(NamedTuple):
    """A message of the channel layer in an inbox (``Inbox.carry``)."""

    message: dict[str, Any]


class Inbox:
    """What the consumer reads instead of Daphne's queue, one message at a time in the
    order they came: frames that passed the edge (at most ``limit`` waiting), the
    connection's own events (always), and the channel layer's messages for the
    socket (lobby/ws.py carries them here, so that the consumer waits on one queue,
    not on a new task for every message as Channels does)."""

    def __init__(self, limit: int, carried_limit: int = CARRIED_LIMIT) -> None:
        self.limit = limit
        self.frames = 0
        self.carried = 0
        self.carried_limit = carried_limit
        self.messages: deque[dict[str, Any] | Carried | BaseException] = deque()
        self.waiter: asyncio.Future | None = None
        self.room: asyncio.Future | None = None

    def put(self, message: dict[str, Any]) -> bool:
        frame = message["type"] == "websocket.receive"
        if frame and self.frames >= self.limit:
            return False
        self.frames += frame
        self._append(message)
        return True

    async def carry(self, message: dict[str, Any]) -> None:
        """A message of the channel layer. While ``carried_limit`` of them wait, this
        waits too: what comes meanwhile waits in the layer, within the layer's own
        capacity, as it would for a consumer that reads the layer itself."""
        self.carried += 1
        self._append(Carried(message))
        while self.carried >= self.carried_limit:
            self.room = asyncio.get_running_loop().create_future()
            try:
                await self.room
            finally:
                self.room = None

    def fail(self, error: BaseException) -> None:
        """A source of messages failed: ``get`` raises ``error`` once what came before
        it is taken, as the consumer would have raised reading that source itself."""
        self._append(error)

    def _append(self, item: dict[str, Any] | Carried | BaseException) -> None:
        self.messages.append(item)
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    async def get(self) -> dict[str, Any]:
        while not self.messages:
            self.waiter = asyncio.get_running_loop().create_future()
            try:
                await self.waiter
            finally:
                self.waiter = None
        item = self.messages.popleft()
        if type(item) is dict:
            self.frames -= item["type"] == "websocket.receive"
            return item
        if type(item) is Carried:
            self.carried -= 1
            if self.room is not None and not self.room.done():
                self.room.set_result(None)
            return item.message
        raise item


class SocketBudget:
    """One socket's budget, in the scope as ``scope["edge"]``."""

    def __init__(self, send: Send, address: str = "unknown") -> None:
        self.send = send
        self.address = address
        self.bucket = frame_bucket()
        self.closed = False

    def bind(self, player: str) -> None:
        """From now on this socket spends ``player``'s budget, shared by all its sockets."""
        self.bucket = edge.player_bucket(player)

    async def spend(self, cost: float) -> bool:
        """Charge ``cost``; over budget, the socket is closed and False returned."""
        if self.closed:
            return False
        if self.bucket.take(cost):
            return True
        await self.close_over_budget()
        return False

    async def close_over_budget(self) -> None:
        if self.closed:
            return
        self.closed = True
        edge.count("over_budget", "FLOOD")
        edge.cool_down(self.address)
        message = gettext("Too many messages: this connection is closed. Reload the page to carry on.")
        try:
            await self.send({"type": "websocket.send", "text": error_fragment(message, "FLOOD")})
            # and nothing more of it is read (config/transport.py): whatever it has
            # sent meanwhile is not parsed, frame by frame, only to be dropped
            await self.send({"type": "websocket.close", "code": CLOSE_OVER_BUDGET, "stop_reading": True})
        except Exception:  # the connection is already gone: nothing left to close
            pass


class EdgeMiddleware:
    def __init__(self, inner) -> None:
        self.inner = inner

    async def __call__(self, scope, receive: Receive, send: Send):
        if scope["type"] != "websocket":
            return await self.inner(scope, receive, send)
        address = scope_client_address(scope)
        key = address_key(address)
        refusal = edge.admit(key)
        if refusal is not None:
            return await refuse_handshake(receive, send)
        budget = SocketBudget(send, key)  # (its frame bucket starts the loop's beat: ``LoopLag``)
        inbox = Inbox(limit=INBOX_BURSTS * settings.WS_FRAME_BURST)
        pump = asyncio.ensure_future(_pump(receive, inbox, budget))
        OPEN_WEBSOCKETS.inc()
        try:
            scope = {**scope, "client_address": address, "edge": budget, "inbox": inbox}
            return await self.inner(scope, inbox.get, send)
        finally:
            pump.cancel()
            edge.release(key)
            OPEN_WEBSOCKETS.dec()


class RequestBudgetMiddleware:
    """HTTP requests per client address: over ``HTTP_REQUESTS_PER_SECOND`` (bursts of
    ``HTTP_REQUEST_BURST``) a request is answered 429 here, before Django or a
    request thread sees it, and the address is shut at the gate (config/network.py)
    for ``HTTP_COOLOFF_SECONDS``."""

    def __init__(self, inner) -> None:
        self.inner = inner

    async def __call__(self, scope, receive: Receive, send: Send):
        if scope["type"] == "http" and not edge.admit_request(address_key(scope_client_address(scope))):
            await send({"type": "http.response.start", "status": 429, "headers": [
                (b"content-type", b"text/plain; charset=utf-8"), (b"retry-after", b"1"), (b"connection", b"close"),
            ]})
            await send({"type": "http.response.body", "body": TOO_MANY_REQUESTS})
            return None
        return await self.inner(scope, receive, send)


TOO_MANY_REQUESTS = b"Too many requests from your address: wait a moment, then reload the page.\n"


async def _pump(receive: Receive, inbox: Inbox, budget: SocketBudget) -> None:
    """Take every message Daphne queues as it comes, and charge frames to the budget."""
    max_bytes = settings.WS_MAX_FRAME_BYTES
    while True:
        message = await receive()
        if message["type"] != "websocket.receive":
            inbox.put(message)
            if message["type"] == "websocket.disconnect":
                return
            continue
        if budget.closed:
            continue  # closing: whatever still comes is dropped
        text = message.get("text")
        data = text if text is not None else (message.get("bytes") or b"")
        if not await budget.spend(1 + len(data) // COST_BYTES):
            continue
        if text is None:
            await _reply_error(budget, "BAD_FRAME", gettext('Frames are JSON text, such as {"intent": "left", "seq": 1}.'))
        elif len(text) > max_bytes:
            await _reply_error(budget, "FRAME_TOO_LARGE", gettext("That message is longer than %(max)s characters.") % {"max": max_bytes})
        elif not inbox.put(message):
            # The server is behind, not the client (every frame here was within its
            # budget): refuse this one, and say so, rather than punish the player.
            edge.refused["busy"] += 1
            await _reply_error(budget, "BUSY", gettext("The server is busy; that key press was not taken. Try again."))


async def _reply_error(budget: SocketBudget, code: str, message: str) -> None:
    FRAMES_REFUSED.labels(code).inc()  # BAD_FRAME (binary), FRAME_TOO_LARGE, BUSY
    try:
        await budget.send({"type": "websocket.send", "text": error_fragment(message, code)})
    except Exception:
        pass
