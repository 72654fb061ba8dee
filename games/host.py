"""The table host: the single authority over a live game.

One ``LiveTable`` actor runs per running table. It owns the engine, its clocks and
its input log, and applies messages one at a time from its own queue, as lichess's
round actor does. Every broadcast carries a version (``<!--v12-->`` at the head of
the fragment batch) so a client that misses one asks for a full resync.

A table is hosted by the process that owns its shard, ``table id % GAME_HOST_SHARDS``;
that process's hub (games/hub.py) hands it the intents of the table's sockets in the
same process and hands them its fragments. Everything else, and every message from
another process, comes on the shard's channel, ``game-host-<shard>``:

- embedded (the default): the Daphne process hosts every shard, from its start;
- scale-out: a Daphne process hosts the shards named in ``HOSTED_SHARDS``, and
  ``manage.py runworker game-host-0 …`` may host shards in a worker process of its
  own. A host holds a lease on each of its shards, renewed by its heartbeat: one
  process at a time hosts a shard. A Daphne process that sees a shard unhosted for
  ``GAME_HOST_ORPHAN_SECONDS`` aborts its running games (stakes back, players told).

A restart loses no game: every host writes its games' inputs down as they come
(games/journal.py), and a host that starts, once it holds its shards, rebuilds the
games they left running and plays them on after a countdown (games/resume.py,
``GameHost.resume``). SIGTERM stops a process gracefully (``graceful_stop``).

Consumers never hold game state: they forward intents here and relay what the host
publishes.

Every fragment is rendered in the site's language, and again in each other language
that a socket of the table reads (the hub knows them, games/hub.py): once per language
present, not once per socket, and only once when everybody reads the site's language.
What one socket alone gets (a refusal, a resync, a seat's private fragments) is
rendered in that socket's language. A broadcast's version and acks are the same in
every language.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import math
import os
import secrets
import signal
import socket
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from channels.consumer import AsyncConsumer
from channels.db import DatabaseSyncToAsync, database_sync_to_async
from channels.exceptions import ChannelFull
from channels.layers import get_channel_layer
from django import db
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext_noop

from config import sends
from config.metrics import GAMES_RESUMED, HOST_QUEUE_DEPTH, INTENT_LATENCY, LIVE_TABLES
from config.threads import thread_of_its_own
from games import messages, reconnect, services
from games.core.protocol import IllegalIntent
from games.hub import hub
from games.journal import Journal
from games.live import LiveGame, live_game_for
from games.resume import NOT_RESUMABLE, CannotResume, Stored, load_to_resume, resumed
from games.shards import HOST_CHANNEL_PREFIX, host_channel, shard_count, shard_of, shard_of_channel
from games.verify import NO_RECORD, record_check_of
from games.wire import error_fragment
from lobby import services as table_services
from lobby.broadcast import table_group

log = logging.getLogger(__name__)

COUNTDOWN_SECONDS = 3.0  # RULES.md §1: "A countdown of 3 s starts the game"
RECONNECT_SECONDS = 30.0  # RULES.md §1 (reconstruction): then the player forfeits
# A game rebuilt after a restart waits this long at most for its players' pages to come
# back before its countdown (it starts at once when they are all back): each player then
# sees the whole countdown, however long their page took to come back.
RESUME_WAIT_SECONDS = 10.0
HEARTBEAT_SECONDS = 1.0  # a worker writes its shards' heartbeat this often
HEARTBEAT_STALE_SECONDS = 5.0  # after this long without one, another process may take the shard
QUEUE_LIMIT = 1000  # intents waiting at one table before more are refused as BUSY
WAITING_LIMIT = 100_000  # messages kept while a starting host rebuilds its games (then dropped)
clock = time.monotonic  # the host's only time source for the games (tests put a fake clock here)
# What paces a table's frames (``LiveTable.flush``): the wall's time, not the game's, so
# that a test's fake game clock does not hold frames back.
pace = time.monotonic
BEAT_SLACK = 1e-6  # seconds: a table this near its tick is on it
# When this process started: games still marked running that began earlier were hosted
# by a process that is gone, and are resumed (``GameHost.resume``).
PROCESS_STARTED = datetime.datetime.now(datetime.UTC)
_host_ids: dict[int, str] = {}


def host_id() -> str:
    """This process, as a shard's lease names its holder (games/services.py
    ``lease_take``): its machine, its pid (a forked process is another) and a token."""
    pid = os.getpid()
    if pid not in _host_ids:
        _host_ids[pid] = f"{socket.gethostname()[:40]}:{pid}:{secrets.token_hex(4)}"
    return _host_ids[pid]


class Inbox:
    """A table's waiting messages, which its actor takes all at once.

    ``asyncio.wait_for(queue.get(), timeout)`` wraps every wait in a task of its own,
    and the actor waits once per step, many times a second per table: here a wait
    is one future and, with a deadline, one timer. A table's next deadline is often the
    one it already waited for (another board's key changes nothing of it): a wait for
    the same deadline (``due``) keeps the timer it has instead of making another."""

    def __init__(self) -> None:
        self.messages: deque[Any] = deque()
        self.waiter: asyncio.Future | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.timer_due: float | None = None  # the deadline the timer is for
        # A ticked table's intents wait for its next frame (``LiveTable.held``): ``hold``
        # says how long, in seconds (0: the frame may go now). An intent that comes
        # sooner does not wake the actor: it is applied with the others of the tick in
        # one step, as the frame goes. Anything else (a resync, a page gone, a forfeit,
        # an abort) wakes it at once. None: every message wakes it at once.
        self.hold: Callable[[], float] | None = None
        self.held: asyncio.TimerHandle | None = None  # wakes the actor for the held intents
        self.urgent = 0  # messages waiting that are not intents

    def __len__(self) -> int:
        return len(self.messages)

    def put(self, message: Any) -> None:
        self.messages.append(message)
        if type(message) is not messages.Intent:
            self.urgent += 1
        if self.waiter is None:
            return  # the actor is busy: it takes the message when it next waits
        if not self.urgent and self.hold is not None:
            if self.held is None:
                delay = self.hold()
                if delay > 0:
                    self.held = asyncio.get_running_loop().call_later(delay, self._expire_held)
                    return
            else:
                return
        _wake(self.waiter)

    async def take_all(self, timeout: float | None, due: float | None = None) -> list[Any]:
        """Every waiting message, in order (intents once ``hold`` lets them go); if none
        waits, the ones that come within ``timeout`` seconds (None: however long it
        takes), else an empty list. ``due`` names the deadline ``timeout`` counts to: a
        wait for the same ``due`` as the last keeps its timer."""
        ready = bool(self.messages)
        if ready and not self.urgent and self.hold is not None:
            delay = self.hold()
            if delay > 0:
                ready = False
                self.held = asyncio.get_running_loop().call_later(delay, self._expire_held)
        if not ready:
            loop = asyncio.get_running_loop()
            self.waiter = waiter = loop.create_future()
            if timeout is None:
                self.stop_timer()
            elif due is None or due != self.timer_due or self.timer is None:
                self.stop_timer()
                self.timer = loop.call_later(timeout, self._expire)
                self.timer_due = due
            try:
                await waiter
            finally:
                self.waiter = None
                if due is None:
                    self.stop_timer()
                if self.held is not None:
                    self.held.cancel()
                    self.held = None
        batch = list(self.messages)
        self.messages.clear()
        self.urgent = 0
        return batch

    def _expire_held(self) -> None:
        self.held = None
        if self.waiter is not None:
            _wake(self.waiter)

    def _expire(self) -> None:
        self.timer = self.timer_due = None
        if self.waiter is not None:
            _wake(self.waiter)

    def stop_timer(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = self.timer_due = None
        if self.held is not None:
            self.held.cancel()
            self.held = None


def _wake(waiter: asyncio.Future) -> None:
    if not waiter.done():
        waiter.set_result(None)


@dataclass
class Connection:
    sockets: set[str] = field(default_factory=set)
    gone_since: float | None = None
    seen: bool = False  # a page of the seat has played or synced in this game


class Away(NamedTuple):
    """What the region of the seats away shows: the time a game rebuilt after a restart
    goes on (None: it is not counting down), and each seat away with the time by which
    it must be back."""

    resume_at: float | None
    seats: tuple[tuple[int, float], ...]


NOBODY_AWAY = Away(None, ())


class LiveTable:
    """The actor of one running game."""

    def __init__(
        self, host: GameHost, table_id: int, game_id: int, live: LiveGame, *, resume_at: float | None = None
    ) -> None:
        """``resume_at``: a game rebuilt after a restart (games/resume.py), begun already,
        which goes on at this host time after a countdown; the table's clock is set so
        that the time it stood at when it was written down comes after the countdown
        (nobody loses time to the outage). Its countdown waits for its players' pages,
        ``RESUME_WAIT_SECONDS`` at most (``countdown_begins``): the pages are told that the game
        goes on in that much more, then, once they are all back, in 3 s."""
        self.host = host
        self.table_id = table_id
        self.game_id = game_id
        self.live = live
        self.kind = live.setup["kind"]
        self.latency = INTENT_LATENCY.labels(kind=self.kind)  # once per broadcast that answers intents
        # A rebuilt game numbers its broadcasts on from the wall clock's milliseconds, past
        # any number its earlier host gave: a page that stayed open (scale-out) and missed
        # the news sees a gap at the first one and asks for the whole game (static/js/live.js),
        # rather than dropping them all as old.
        self.version = 0 if resume_at is None else int(time.time() * 1000)
        self.inbox = Inbox()
        self.connections: dict[int, Connection] = {seat: Connection() for seat in live.seats}
        self.resumed = resume_at is not None
        self.start_at = COUNTDOWN_SECONDS if resume_at is None else resume_at
        self.waits_for_pages = self.resumed and bool(self.seats_not_back())
        wait = RESUME_WAIT_SECONDS if self.waits_for_pages else 0.0
        self.epoch = clock() - (self.start_at - COUNTDOWN_SECONDS - wait)
        self.started = False
        # Bots act on their own clock, inside this actor like everything else.
        self.bot_due: dict[int, float] = {seat: self.start_at for seat in live.bot_seats}
        self.done = False
        self.task: asyncio.Task | None = None
        self.leaving: list[int] = []  # seats that left the game this step, for the table's seats
        self.leave_at_start: set[int] = set()  # seats that asked to leave during the countdown
        self.away_shown = NOBODY_AWAY  # the seats away that the pages show
        # What changed since the last frame (``flush``): a real-time game sends at most one
        # frame per tick, a turn-based one every change at once (tick 0).
        self.tick = settings.LIVE_TICK_MS / 1000 if live.TICKED else 0.0
        self.unsent: list[Any] = []  # the events not yet shown
        self.unsent_acks: dict[int, int] = {}  # seat -> its latest intent applied, not yet acknowledged
        self.unsent_since: float | None = None  # the oldest unanswered intent's arrival (perf_counter)
        self.flushed_at = pace()  # when the last frame went (``pace``), on the table's beat
        self.frame_waits = False  # something waits for the next tick's frame

    def now(self) -> float:
        return clock() - self.epoch

    def seats_not_back(self) -> list[int]:
        """The seats of a rebuilt game with a player still in it whose page has not come
        back to this host."""
        live = self.live
        return [
            seat for seat, conn in self.connections.items()
            if not conn.seen and seat not in live.bot_seats and not live.has_left(seat)
        ]

    def countdown_begins(self) -> bool:
        """A rebuilt game that waits for its players' pages counts down once they are
        all back, or once it has waited ``RESUME_WAIT_SECONDS``: when they are back
        sooner, its clock moves on to the countdown's start at once (the seats away
        keep their time). Whether it moved (the pages then learn the new countdown)."""
        now = self.now()
        waited_all = now >= self.start_at - COUNTDOWN_SECONDS
        if not waited_all and self.seats_not_back():
            return False
        self.waits_for_pages = False
        skipped = max(0.0, (self.start_at - COUNTDOWN_SECONDS) - now)
        self.epoch -= skipped
        for conn in self.connections.values():
            if conn.gone_since is not None:
                conn.gone_since += skipped
        log.info(
            "game counts down table=%s game=%s waited=%.3f all_back=%s%s",
            self.table_id, self.game_id, RESUME_WAIT_SECONDS - skipped, not waited_all,
            "" if not waited_all else f" not_back={self.seats_not_back()}",
        )
        return skipped > 0

    # --- the actor loop ---------------------------------------------------------------
    async def run(self) -> None:
        LIVE_TABLES.inc()
        # This task's own language, whatever the task that started it read: the site's.
        translation.activate(settings.LANGUAGE_CODE)
        try:
            now = self.now()
            await self.publish_rendered(lambda: self.full(now))
            while not self.done:
                deadline = self.next_deadline()
                timeout = None if deadline is None else max(0.0, deadline - self.now())
                if self.tick and self.started:
                    # A ticked game steps when its next frame may go, not sooner: the
                    # keys that come within a tick wait for it (``Inbox.hold``), and so
                    # do the game's clocks (a piece's fall is shown with the tick, at
                    # its exact time in the game); what waits goes in one step.
                    self.inbox.hold = self.held
                    wait = self.held()
                    if self.frame_waits and (timeout is None or wait < timeout):
                        timeout, deadline = wait, None
                    elif timeout is not None and timeout != wait:  # on the beat
                        timeout, deadline = wait + math.ceil(max(0.0, timeout - wait) / self.tick) * self.tick, None
                else:
                    self.inbox.hold = None
                # Everything that has arrived is handled in one step; what it changed goes
                # out with the tick's frame (``flush``).
                await self.step(await self.inbox.take_all(timeout, deadline))
        except Exception:
            log.exception("table %s: the host failed; aborting the game", self.table_id)
            await self.abort("The game server hit an error; the game was aborted and stakes returned.")
        finally:
            self.inbox.stop_timer()
            self.host.tables.pop(self.table_id, None)
            LIVE_TABLES.dec()

    def held(self) -> float:
        """Seconds until this table's next frame may go (0: now): its next tick, one tick
        after its last frame or a whole number of ticks later (the table keeps its beat)."""
        behind = pace() - self.flushed_at
        if behind < self.tick:
            return self.tick - behind
        late = behind % self.tick
        return 0.0 if late < BEAT_SLACK or self.tick - late < BEAT_SLACK else self.tick - late

    def beat(self) -> float:
        """The table's last tick (``pace``): when a frame that goes on it went."""
        now = pace()
        if not self.tick or now - self.flushed_at < self.tick:
            return now  # a frame off the beat (a decision), or no beat: a new one from now
        wait = self.held()
        return now if wait == 0.0 else now + wait - self.tick  # the tick before the next

    def next_deadline(self) -> float | None:
        deadlines = []
        if self.waits_for_pages:
            deadlines.append(self.start_at - COUNTDOWN_SECONDS)
        if not self.started:
            deadlines.append(self.start_at)
        else:
            game_due = self.live.next_deadline()
            if game_due is not None:
                deadlines.append(game_due)
            deadlines.extend(self.bot_due.values())
        for seat, conn in self.connections.items():
            if conn.gone_since is not None:
                deadlines.append(conn.gone_since + RECONNECT_SECONDS)
            elif not conn.seen and seat not in self.live.bot_seats:
                deadlines.append(self.start_at + RECONNECT_SECONDS)
        return min(deadlines) if deadlines else None

    async def step(self, batch: list[messages.HostMessage]) -> None:
        HOST_QUEUE_DEPTH.observe(len(batch))
        # the oldest intent's arrival, for the intent latency
        arrived = min((m.arrived for m in batch if type(m) is messages.Intent), default=None)
        now = self.now()
        events: list[Any] = []
        acks: list[tuple[int, int]] = []
        began = False  # the start decides: its frame goes at once
        if not self.started and now >= self.start_at:
            self.started = began = True
            if not self.resumed:  # a resumed game was begun as it was rebuilt
                self.live.begin(self.start_at)
                if settings.GAME_JOURNAL:
                    self.host.journal.track(self.game_id, self.live)
            else:  # its bots watched the board through the countdown, as its players did
                self.live.bots_looked(COUNTDOWN_SECONDS, now)
            await self.publish_rendered(lambda: self.full(now))
            for seat in sorted(self.leave_at_start):  # asked during the countdown
                try:
                    self.forfeit(seat, now, events)
                except IllegalIntent:
                    pass  # the game ended as it began (everybody else left too, say)
        for message in batch:
            await self.handle(message, now, events, acks)
            if self.done:
                return
        if self.waits_for_pages and self.countdown_begins():
            now = self.now()  # the countdown's start
            await self.publish_rendered(lambda: self.full(now))
        if self.started:
            for seat, due in self.bot_due.items():
                if due <= now:
                    bot_events, delay = self.live.bot_act(seat, now)
                    events.extend(bot_events)
                    self.bot_due[seat] = now + delay
            events.extend(self.live.advance(now))
            events.extend(self.forfeit_the_gone(now))
        self.unsent.extend(events)
        for seat, seq in acks:
            self.unsent_acks[seat] = seq
        if arrived is not None and self.unsent_since is None:
            self.unsent_since = arrived
        if (
            self.unsent or self.unsent_acks or self.away() != self.away_shown
            or (self.started and self.live.own_news_due())
        ):
            if (
                pace() - self.flushed_at >= self.tick - BEAT_SLACK  # a tick since the last frame
                or began
                or self.leaving
                or self.live.finished
                or self.live.decisive(events)
            ):
                await self.flush(self.now())
            else:
                self.frame_waits = True
        if self.leaving:
            # A forfeit decides something: written down at once, not in the next batch.
            await self.host.journal.flush()
            # Their pages stop offering the game and its Leave button (the seat panel).
            seats, self.leaving = self.leaving, []
            await database_sync_to_async(table_services.seats_mark_left)(table_id=self.table_id, seats=seats)
        if self.started and self.live.finished and not self.done:
            await self.finish()

    async def flush(self, now: float) -> None:
        """One frame per socket with what changed since the last: every region changed,
        each rendered once as it stands now; each seat's latest intent applied (the
        broadcast's acks); and, on the sockets of a seat whose page plays its board
        ahead, that board's news at the end of the same frame (``own_frames``). Then a
        seat's private fragments (a turn-based game's, sent at once)."""
        events, self.unsent = self.unsent, []
        acks, self.unsent_acks = list(self.unsent_acks.items()), {}
        arrived, self.unsent_since = self.unsent_since, None
        self.flushed_at, self.frame_waits = self.beat(), False
        html = self.live.render_events(events)
        shown = self.away_news(now)
        html += shown()
        # a game rebuilt after a restart: its pages learn their boards at its start
        own = self.own_frames(events, now) if self.started else {}
        if html:
            # The same change in the other languages read at the table, if any (the
            # adapter remembered what it showed as it rendered it the first time).
            delivered = await self.publish(
                html, acks, self.translations(lambda: self.live.rerender_events(events) + shown()), own
            )
            if arrived is not None:
                self.latency.observe(time.perf_counter() - arrived)
            for channel in delivered:
                del own[channel]
        elif acks:
            # Keys that changed nothing (into a wall): no broadcast, but their seats learn
            # that they were taken, ``<!--a3:41-->`` (a page that plays ahead, in its news).
            for seat, seq in acks:
                conn = self.connections.get(seat)
                for channel in sorted(conn.sockets) if conn is not None else ():
                    if channel not in own:
                        await self.reply(channel, f"<!--a{seat}:{seq}-->")
        for channel, news in own.items():  # news alone, or to a socket of another process
            await self.reply(channel, news)
        if events:
            await self.send_private(events)

    async def handle(
        self, message: messages.HostMessage, now: float, events: list[Any], acks: list[tuple[int, int]]
    ) -> None:
        await self.HANDLERS[type(message)](self, message, now, events, acks)

    async def on_intent(self, message: messages.Intent, now: float, events: list, acks: list) -> None:
        conn = self.connections.get(message.seat)
        if conn is not None and message.reply:
            conn.sockets.add(message.reply)  # a socket that plays the seat: its private fragments go there
            conn.seen = True
        try:
            if not self.started:
                raise IllegalIntent("NOT_STARTED", gettext_noop("The game has not started yet."))
            # A key acts at the server's time it came (a real-time table holds it in its
            # inbox until the tick): what its page's stamp is measured against, so the lag
            # allowance and the board's hold-back count the network, not the tick.
            when = now if message.taken is None else min(message.taken, now)
            events.extend(self.live.apply(message.seat, message.intent, when, at=message.at))
        except IllegalIntent as err:
            if message.reply:
                words, code = err.message, err.code
                await self.reply_rendered(message.reply, lambda: error_fragment(words, code))
            return
        if message.seq is not None:
            acks.append((message.seat, message.seq))
            # A page that plays its own board learns, after this step, whether the
            # server's board came out as its own did (``own_frames``).
            self.live.acknowledge(message.seat, message.seq, message.claim, ahead=message.at is not None)

    async def on_sync(self, message: messages.Sync, now: float, events: list, acks: list) -> None:
        if message.seat in self.connections and message.reply:
            conn = self.connections[message.seat]
            conn.sockets.add(message.reply)
            conn.seen = True
            conn.gone_since = None
        if message.reply:
            await self.reply_rendered(message.reply, lambda: self.versioned(self.full(now)))
            if self.started and message.seat in self.connections:
                await self.reply_rendered(message.reply, lambda: self.live.render_private(message.seat))

    async def on_gone(self, message: messages.Gone, now: float, events: list, acks: list) -> None:
        conn = self.connections.get(message.seat)
        if conn is not None:
            conn.sockets.discard(message.reply)
            if not conn.sockets and not self.live.has_left(message.seat):
                conn.gone_since = now
                if self.started:
                    events.extend(self.live.disconnected(message.seat, now))

    async def on_forfeit(self, message: messages.Forfeit, now: float, events: list, acks: list) -> None:
        if message.seat not in self.connections:
            return
        if not self.started:
            # Leave pressed during the countdown: the player leaves as the game starts
            # (there is no game to forfeit before), rather than being ignored.
            self.leave_at_start.add(message.seat)
            return
        if self.live.has_left(message.seat):
            return
        try:
            self.forfeit(message.seat, now, events)
        except IllegalIntent as err:  # out already, say: their place stands
            if message.reply:
                words, code = err.message, err.code
                await self.reply_rendered(message.reply, lambda: error_fragment(words, code))

    def forfeit(self, seat: int, now: float, events: list) -> None:
        """The seat leaves the game (raises IllegalIntent when it cannot: out already)."""
        events.extend(self.live.forfeit(seat, now))
        self.leaving.append(seat)

    async def on_abort(self, message: messages.Abort, now: float, events: list, acks: list) -> None:
        await self.abort(message.reason or gettext_noop("The game was aborted."))

    async def on_tick(self, message: messages.Tick, now: float, events: list, acks: list) -> None:
        pass  # it only wakes the actor: the clocks run in step() whatever came

    HANDLERS = {
        messages.Intent: on_intent,
        messages.Sync: on_sync,
        messages.Gone: on_gone,
        messages.Forfeit: on_forfeit,
        messages.Abort: on_abort,
        messages.Tick: on_tick,
    }

    async def reply(self, channel: str, html: str) -> None:
        await self.host.hub.reply(channel, html)

    async def reply_rendered(self, channel: str, render: Callable[[], str]) -> None:
        """What ``render`` returns, rendered in the socket's language, to that socket alone
        (nothing if it is empty)."""
        html = in_language(self.host.hub.language(channel), render)
        if html:
            await self.reply(channel, html)

    async def send_private(self, events: list[Any]) -> None:
        """Each seat's private fragments that ``events`` changed, to that seat's sockets
        alone, each in its socket's language (rendered once per language)."""
        for seat, private in self.live.private_fragments(events).items():
            conn = self.connections.get(seat)
            by_language = {settings.LANGUAGE_CODE: private}
            for channel in sorted(conn.sockets) if conn is not None else ():
                language = self.host.hub.language(channel)
                if language not in by_language:
                    by_language[language] = in_language(language, lambda seat=seat: self.live.render_private(seat))
                await self.reply(channel, by_language[language])

    def own_frames(self, events: list[Any], now: float) -> dict[str, str]:
        """Each seat's news of its own board, by socket of the seat: a real-time game's
        acknowledgements of the keys its page played ahead (games/live.py, ``own_news``).
        No words in it, so one text serves every language."""
        frames: dict[str, str] = {}
        for seat, news in self.live.own_news(events, now).items():
            conn = self.connections.get(seat)
            for channel in sorted(conn.sockets) if conn is not None else ():
                frames[channel] = news
        return frames

    def forfeit_the_gone(self, now: float) -> list[Any]:
        """Seats gone longer than RECONNECT_SECONDS forfeit; so does a seat whose page
        never came at all (matched by quick play, then closed) that long after the start."""
        events: list[Any] = []
        for seat, conn in self.connections.items():
            if not conn.seen and seat not in self.live.bot_seats and now >= self.start_at + RECONNECT_SECONDS:
                conn.seen = True  # once
                if not self.live.has_left(seat) and not self.live.finished:
                    try:
                        self.forfeit(seat, now, events)
                    except IllegalIntent:
                        pass
                continue
            if conn.gone_since is not None and now >= conn.gone_since + RECONNECT_SECONDS:
                conn.gone_since = None
                if not self.live.has_left(seat) and not self.live.finished:
                    try:
                        self.forfeit(seat, now, events)
                    except IllegalIntent:
                        pass  # a seat whose game is over (out of it, say) has nothing to forfeit
        return events

    # --- seats away: who lost the connection, and the time they have left (games/reconnect.py)
    def away(self) -> Away:
        """Each seat whose last socket went and who may still come back, with the time
        by which they must (nobody, once the game is over); and while a game rebuilt
        after a restart counts down, the time at which it goes on."""
        if self.done or self.live.finished:
            return NOBODY_AWAY
        return Away(
            self.start_at if self.resumed and not self.started else None,
            tuple(
                (seat, conn.gone_since + RECONNECT_SECONDS)
                for seat, conn in sorted(self.connections.items())
                if conn.gone_since is not None and not self.live.has_left(seat)
            ),
        )

    def render_away(self, away: Away, now: float, *, restarting: bool = False) -> str:
        """The region of the seats away, in the active language."""
        return reconnect.render(
            [reconnect.Away(seat, self.live.name(seat), back_by) for seat, back_by in away.seats],
            now,
            resume_at=away.resume_at,
            restarting=restarting,
        )

    def away_news(self, now: float) -> Callable[[], str]:
        """What a step's broadcast adds for the seats away: their region, rendered in
        the active language, when someone dropped or came back (or their time ran out)
        since the pages last saw it; else nothing."""
        away = self.away()
        if away == self.away_shown:
            return lambda: ""
        self.away_shown = away
        return lambda: self.render_away(away, now)

    def full(self, now: float) -> str:
        """The whole game as it stands, with the seats away: what a page that connects
        or asks for a resync gets."""
        return self.live.render_full(now, self.start_at) + self.render_away(self.away(), now)

    # --- output -------------------------------------------------------------------------
    def versioned(self, html: str, acks: list[tuple[int, int]] = ()) -> str:
        """``<!--v12 a1:40 a3:7-->`` + html: the version, and the intents (seat:seq) it answers."""
        head = f"<!--v{self.version}" + "".join(f" a{seat}:{seq}" for seat, seq in acks)
        return head + "-->" + html

    def translations(self, render: Callable[[], str]) -> dict[str, str] | None:
        """What ``render`` returns in each language other than the site's that the
        table's sockets read; None when they all read the site's (most tables)."""
        languages = self.host.hub.languages(self.table_id)
        if not languages:
            return None
        return {language: in_language(language, render) for language in sorted(languages)}

    async def publish(
        self,
        html: str,
        acks: list[tuple[int, int]] = (),
        translations: dict[str, str] | None = None,
        tails: dict[str, str] | None = None,
    ) -> set[str]:
        """One broadcast: ``html`` in the site's language, and ``translations`` of it, all
        under one version and the same acks; ``tails``, by socket, what that socket's
        frame carries at its end besides (its seat's own news). The sockets whose tail
        went with the broadcast (those of this process)."""
        self.version += 1
        head = self.versioned("", acks)
        return await self.host.hub.publish(
            self.table_id,
            head + html,
            {language: head + text for language, text in translations.items()} if translations else None,
            tails,
        )

    async def publish_rendered(self, render: Callable[[], str]) -> None:
        """A broadcast of what ``render`` returns, in every language read at the table."""
        await self.publish(render(), (), self.translations(render))

    async def finish(self) -> None:
        self.done = True
        await self.host.journal.forget(self.game_id)  # the record takes the whole log
        finished = self.live.finished_game()
        game = await database_sync_to_async(services.game_finish)(game_id=self.game_id, finished=finished)
        await self.free_the_gone_seats()
        log.info("game finished table=%s game=%s kind=%s", self.table_id, self.game_id, self.kind)
        await self.publish_rendered(lambda: self.live.render_results(game) + self.away_gone())
        if game is not None:
            self.host.check_replay(self.game_id)

    async def free_the_gone_seats(self) -> None:
        """After the game, a leaver who is no longer at the table has no seat to come
        back to: the others' rematch does not wait for them (lobby.services)."""
        try:
            await database_sync_to_async(table_services.seats_free_after_game)(table_id=self.table_id)
        except Exception:  # the game is recorded: a seat left taken is the host's to free
            log.exception("table %s: freeing the seats of the players who left failed", self.table_id)

    async def abort(self, reason: str) -> None:
        if self.done:
            return
        self.done = True
        await self.host.journal.forget(self.game_id)
        await database_sync_to_async(services.game_abort)(game_id=self.game_id, reason=reason)
        await self.free_the_gone_seats()
        log.warning(
            "game aborted table=%s game=%s kind=%s reason=%r", self.table_id, self.game_id, self.kind, reason
        )
        await self.publish_rendered(
            lambda: type(self.live).render_aborted(reason, game_id=self.game_id) + self.away_gone()
        )

    def away_gone(self) -> str:
        """The game is over: nobody is waited for any more (nothing if nobody was)."""
        return self.render_away(NOBODY_AWAY, self.now()) if self.away_shown != NOBODY_AWAY else ""


class GameHost:
    """All live tables of this process: one per process that hosts shards."""

    def __init__(self, *, resuming: bool = False) -> None:
        """``resuming``: the host rebuilds its running games first (``resume``); messages
        wait until it has (a page's resync must find its table)."""
        self.hub = hub()
        self.hub.host = self
        self.tables: dict[int, LiveTable] = {}
        self.replay_checks: set[asyncio.Task] = set()  # the loop keeps only weak references to tasks
        self.journal = Journal()
        self.ready = asyncio.Event()
        if not resuming:
            self.ready.set()
        self.stopping = False
        self.waiting: list[messages.HostMessage] = []  # what came while the games were rebuilt
        self.waiting_intents: Counter[int] = Counter()  # by table
        self.dropped = 0  # what came while the rebuild's waiting list was full
        self.shards: list[int] = []  # the shards whose leases this host holds (scale-out)

    async def stop(self) -> None:
        """A graceful stop: every table stops where it stands (no input applied after
        this), its pages are told that the server restarts and the game goes on, every
        game's inputs so far are written, and this host's leases go."""
        self.stopping = True
        tables = list(self.tables.values())
        for table in tables:
            if table.task is not None:
                table.task.cancel()
        for table in tables:
            if not table.done:
                await table.publish_rendered(lambda t=table: t.render_away(t.away(), t.now(), restarting=True))
        await self.journal.flush()
        if self.shards:
            await database_sync_to_async(services.lease_release)(shards=self.shards, holder=host_id())
        log.info("game host stopped: %d tables written down to go on after the restart", len(tables))

    async def let_go(self, shards: list[int]) -> None:
        """Another process took these shards' leases (this one stood still too long): their
        tables stop here without a word; their new host rebuilt them from what was written."""
        self.hub.hosted = self.hub.hosted - frozenset(shards)
        self.shards = [n for n in self.shards if n not in shards]
        for table in [t for t in self.tables.values() if shard_of(t.table_id) in shards]:
            table.done = True
            await self.journal.forget(table.game_id)
            if table.task is not None:
                table.task.cancel()
        log.warning("game host: shards %s were taken over by another process", shards)

    async def resume(self, shards: list[int] | None, since: datetime.datetime | None = None) -> None:
        """Rebuild the running games of these shards (None: every shard) that another
        process hosted, from their stored inputs, each to go on after a countdown; abort,
        stakes back, the ones that cannot be rebuilt (the reason logged and shown). Those
        are the games that began before ``since``: when this host took the shards' leases
        (scale-out: the one before it may have been another process), or when this process
        started (embedded). A game begun later is this host's own: its start is on its way.

        The games are read in one trip to the database, and rebuilt on a thread of their
        own: the database's thread is busy with the pages coming back meanwhile. What
        reaches the host before they are all rebuilt waits for them (``accept``)."""
        try:
            if not settings.GAME_JOURNAL:  # nothing was written down: nothing to go on from
                game_ids = await database_sync_to_async(services.games_to_resume)(
                    shards=shards, started_before=since or PROCESS_STARTED
                )
                for game_id in game_ids:
                    await database_sync_to_async(services.game_abort)(
                        game_id=game_id, reason=RESTART_REASON, announce=True
                    )
            else:
                # Read on the rebuilds' own thread and connection, not behind the pages'.
                read = DatabaseSyncToAsync(load_to_resume, thread_sensitive=False, executor=rebuilds())
                for stored in await read(shards=shards, started_before=since or PROCESS_STARTED):
                    await self.resume_game(stored)
        finally:
            self.ready.set()
            waiting, self.waiting = self.waiting, []
            self.waiting_intents.clear()
            if self.dropped:
                log.warning("game host: %d messages came while %d waited for the rebuild: dropped", self.dropped, WAITING_LIMIT)
            for message in waiting:
                try:
                    await self.accept(message)
                except ChannelFull:
                    log.warning("game host: table %s is overloaded; an intent was dropped", message.table_id)
        if settings.REDIS_URL:
            # Pages that stayed open on other processes (scale-out) ask for the game again.
            layer = get_channel_layer()
            for table_id in list(self.tables):
                await layer.group_send(table_group(table_id), {"type": "game.resumed"})

    async def resume_game(self, stored: Stored) -> None:
        try:
            rebuilt = await asyncio.get_running_loop().run_in_executor(rebuilds(), _rebuilt, stored)
        except Exception as err:
            detail = err.detail if isinstance(err, CannotResume) else f"{type(err).__name__}: {err}"
            log.error(
                "game %s could not be resumed after a restart: %s", stored.game_id, detail,
                exc_info=not isinstance(err, CannotResume),
            )
            GAMES_RESUMED.labels(outcome="aborted").inc()
            await database_sync_to_async(services.game_abort)(
                game_id=stored.game_id, reason=NOT_RESUMABLE, announce=True
            )
            return
        if rebuilt.table_id in self.tables:
            return
        table = LiveTable(self, rebuilt.table_id, rebuilt.game_id, rebuilt.live, resume_at=rebuilt.resume_at)
        self.tables[rebuilt.table_id] = table
        self.journal.track(rebuilt.game_id, rebuilt.live, written=rebuilt.written, seq=rebuilt.batches)
        table.task = asyncio.create_task(table.run())
        GAMES_RESUMED.labels(outcome="resumed").inc()
        log.info(
            "game resumed table=%s game=%s kind=%s at=%.3f inputs=%d",
            table.table_id, rebuilt.game_id, table.kind, rebuilt.resume_at, rebuilt.written,
        )

    def check_replay(self, game_id: int) -> None:
        """Rebuild a game just recorded from its log and store the verdict
        (games/verify.py), off the table's actor and off the recording transaction."""
        task = asyncio.create_task(_check_replay(game_id))
        self.replay_checks.add(task)
        task.add_done_callback(self.replay_checks.discard)

    async def dispatch(self, raw: dict[str, Any]) -> None:
        """Take a message off the layer: decoded into its declared type (a message of
        none is logged and counted, games/messages.py), then accepted."""
        message = messages.decode(raw)
        if message is not None:
            await self.accept(message)

    async def accept(self, message: messages.HostMessage) -> None:
        """Queue a message on its table (or start one). Raises ChannelFull when the
        table has too many intents waiting."""
        if not self.ready.is_set():
            # The games of before a restart are being rebuilt: the message waits for them
            # here (the channel it came on is read on meanwhile, and never fills up).
            intent = type(message) is messages.Intent
            if intent and self.waiting_intents[message.table_id] >= QUEUE_LIMIT:
                raise ChannelFull(host_channel(message.table_id))  # a table's keys wait as in its inbox
            if len(self.waiting) >= WAITING_LIMIT:
                self.dropped += 1  # said once, when the rebuild is over
                return
            self.waiting.append(message)
            if intent:
                self.waiting_intents[message.table_id] += 1
            return
        kind = type(message)
        if kind is messages.Start:
            await self.start(message.game_id)
            return
        if kind is messages.Watch or kind is messages.Unwatch:
            new = self.hub.watch(message)  # whether the table's fragments must cross the layer
            table = self.tables.get(message.table_id)
            if new and table is not None and table.resumed and not table.started:
                # A rebuilt game says that the server restarted once, as it waits and as
                # its countdown begins, and says it only to the sockets it knows of. A
                # page elsewhere that it hears of later (its process's next Watch, its
                # news of the rebuild late or lost) is sent the game as it stands, the
                # notice with it, as a page that asks (``LiveTable.on_sync``).
                for channel in new:
                    table.inbox.put(messages.Sync(table_id=table.table_id, seat=None, reply=channel))
            return
        table = self.tables.get(message.table_id)
        if table is None:
            if type(message) is messages.Intent and message.reply:
                # A key pressed as the server stops: its table stood still with the key
                # before it, written down; the page was told, and is told again.
                refusal = (
                    ("The server is restarting: your game will continue.", "RESTARTING")
                    if self.stopping
                    else ("No game is running at this table.", "NO_GAME")
                )
                await self.hub.reply(
                    message.reply,
                    in_language(self.hub.language(message.reply), lambda: error_fragment(*refusal)),
                )
            return
        if type(message) is messages.Intent:
            if len(table.inbox) >= QUEUE_LIMIT:
                raise ChannelFull(host_channel(table.table_id))
            message.arrived = time.perf_counter()  # for the intent latency (LiveTable.step)
            message.taken = table.now()  # the key's time at the server (LiveTable.on_intent)
        table.inbox.put(message)

    async def start(self, game_id: int) -> None:
        setup = await database_sync_to_async(services.game_setup)(game_id=game_id)
        if setup is None or setup["table_id"] in self.tables:
            return
        try:
            live = live_game_for(setup)
        except Exception:
            # Never leave a table "playing" a game nobody runs: abort it, stakes back.
            log.exception(
                "game failed to start table=%s game=%s kind=%s", setup["table_id"], game_id, setup["kind"]
            )
            reason = gettext_noop("The game could not start; stakes were returned.")
            await database_sync_to_async(services.game_abort)(game_id=game_id, reason=reason)
            languages = self.hub.languages(setup["table_id"])
            await self.hub.publish(
                setup["table_id"],
                in_language(settings.LANGUAGE_CODE, lambda: error_fragment(reason, "NOT_STARTED")),
                {code: in_language(code, lambda: error_fragment(reason, "NOT_STARTED")) for code in languages},
            )
            return
        table = LiveTable(self, setup["table_id"], game_id, live)
        self.tables[setup["table_id"]] = table
        table.task = asyncio.create_task(table.run())
        log.info("game started table=%s game=%s kind=%s", table.table_id, game_id, table.kind)


def _rebuilt(stored: Stored) -> Any:
    """A game rebuilt on a thread of its own, which reads the site's language."""
    translation.activate(settings.LANGUAGE_CODE)
    try:
        return resumed(stored, start_at=COUNTDOWN_SECONDS)
    finally:
        translation.deactivate()


def in_language(language: str, render: Callable[[], str]) -> str:
    """What ``render`` returns in ``language``. The host's tasks read the site's
    language (``LiveTable.run``), so that one costs no switch."""
    if language == translation.get_language():
        return render()
    with translation.override(language):
        return render()


# Replay checks run one at a time on a thread of their own: a long game's rebuild must
# delay neither the event loop nor the database calls of the tables still playing,
# which share database_sync_to_async's one thread.
_REPLAY_CHECKS = ThreadPoolExecutor(max_workers=1, thread_name_prefix="replay-check")
# Games read and rebuilt as a host starts (``GameHost.resume``): beside the database's
# thread, busy with the pages coming back, on a connection of their own, and at the
# loop's priority: below it they waited for the reconnecting pages to quiet down (the
# last of 60 games rebuilt 2.0-2.3 s after the server listened, against 0.8-1.4 s), and
# no game goes on before its rebuild. One per process: a forked process has none of its
# parent's threads.
def rebuilds() -> ThreadPoolExecutor:
    return thread_of_its_own("rebuild")


def _record_check(game_id: int) -> list[str] | None:
    try:
        return record_check_of(game_id)
    finally:
        db.connection.close()  # games end now and then: no connection kept idle by this thread


async def _check_replay(game_id: int) -> None:
    try:
        problems = await database_sync_to_async(
            _record_check, thread_sensitive=False, executor=_REPLAY_CHECKS
        )(game_id)
    except Exception:
        log.exception("game %s: the replay check failed", game_id)
        return
    if problems and problems != [NO_RECORD]:  # a game recorded with no log is no alarm
        log.error("game %s does not replay to its recorded result: %s", game_id, "; ".join(problems))


class GameHostConsumer(AsyncConsumer):
    """The worker-side entry: every message on a ``game-host-<shard>`` channel goes
    to this process's host (``manage.py runworker game-host-0 …``)."""

    host: GameHost | None = None

    async def __call__(self, scope, receive, send):
        if GameHostConsumer.host is None:
            GameHostConsumer.host = GameHost()
        return await super().__call__(scope, receive, send)

    async def dispatch(self, message):
        await GameHostConsumer.host.dispatch(message)


_started: dict[asyncio.AbstractEventLoop, asyncio.Task] = {}


def start_hosting() -> None:
    """Host this process's shards, once per event loop, from the server's start
    (lobby/presence.py): every shard embedded; in scale-out the ``HOSTED_SHARDS``,
    if any, beside the watch over every host's heartbeat."""
    loop = asyncio.get_running_loop()
    task = _started.get(loop)
    if task is not None and not task.done():
        return
    for old in [old for old in _started if old.is_closed()]:
        del _started[old]
    _started[loop] = loop.create_task(_scale_out() if settings.REDIS_URL else _host(None))


async def _scale_out() -> None:
    shards = sorted(hub().hosted)
    await asyncio.gather(_watchdog(), *([_host(shards)] if shards else []))


async def _host(shards: list[int] | None) -> None:
    """Host the given shards (None: every shard, and this is the only process): once
    their leases are held (scale-out), the games an earlier process left running are
    rebuilt, then the shards' channels heard."""
    layer = get_channel_layer()
    host = GameHost(resuming=True)
    GameHostConsumer.host = host
    since = None
    if shards is not None:
        shards, since = await take_leases(host, shards)
    # Heard from now on: what comes while the games are rebuilt waits in the host.
    channels = [f"{HOST_CHANNEL_PREFIX}{n}" for n in (range(shard_count()) if shards is None else shards)]
    listening = {channel: asyncio.Event() for channel in channels}
    tasks = [asyncio.create_task(_listen(layer, host, channel, listening[channel])) for channel in channels]
    await host.resume(shards, since)
    if shards is not None:
        # Beat only once every channel is heard: the heartbeat tells the other
        # processes that these shards' messages (a start) will be received, and a
        # message published before its channel is subscribed to is lost.
        while not all(event.is_set() for event in listening.values()):
            for channel, event in listening.items():
                if not event.is_set():
                    await layer.send(channel, messages.Tick(table_id=-1).to_dict())
            await asyncio.sleep(0.05)
        tasks.append(asyncio.create_task(heartbeat(host, shards)))
    await asyncio.gather(*tasks)


async def take_leases(host: GameHost, shards: list[int]) -> tuple[list[int], datetime.datetime]:
    """Wait until this process holds the lease of every shard it is to host (another
    process may hold one until it stops beating), and host them from then on: only one
    process hosts a table at a time. Meanwhile its sockets play through the layer.
    Returns the shards, and the moment before which their running games were another's."""
    host.hub.hosted = frozenset()
    held: set[int] = set()
    while True:
        try:
            held.update(await database_sync_to_async(services.lease_take)(
                shards=sorted(set(shards) - held), holder=host_id(), stale_after=HEARTBEAT_STALE_SECONDS
            ))
        except Exception:
            log.exception("game host: taking the shards' leases failed; trying again")
        if held >= set(shards):
            break
        await asyncio.sleep(HEARTBEAT_SECONDS)
    host.hub.hosted = frozenset(shards)
    host.shards = sorted(shards)
    return sorted(shards), datetime.datetime.now(datetime.UTC)


async def _listen(layer, host: GameHost, channel: str, listening: asyncio.Event) -> None:
    while True:
        message = await layer.receive(channel)
        listening.set()
        try:
            await host.dispatch(message)
        except ChannelFull:
            log.warning("game host: table %s is overloaded; an intent was dropped", message.get("table_id"))
        except Exception:
            log.exception("game host: a message failed: %r", message.get("type"))


LOST_REASON = gettext_noop("The game server stopped; the game was aborted and stakes returned.")
# A game left running by a process that wrote no journal (GAME_JOURNAL off), aborted by
# the next: what every restart did before issue 50.
RESTART_REASON = gettext_noop("The game server restarted; the game was aborted and stakes returned.")


async def _watchdog() -> None:
    """Scale-out: abort the games of shards that nobody has hosted for
    ``GAME_HOST_ORPHAN_SECONDS`` (a host that comes back sooner resumes them)."""
    while True:
        await asyncio.sleep(HEARTBEAT_STALE_SECONDS / 2)
        try:
            await database_sync_to_async(services.games_abort_stale)(
                stale_after=settings.GAME_HOST_ORPHAN_SECONDS, reason=LOST_REASON
            )
        except Exception:
            log.exception("game host watchdog failed")


async def heartbeat(host: GameHost, shards: list[int]) -> None:
    """A host's pulse: its shards are its own while it beats. A shard another process
    took (this one stood still too long) is let go at once."""
    while not host.stopping:
        try:
            lost = await database_sync_to_async(services.host_heartbeat)(shards=shards, holder=host_id())
        except Exception:
            log.exception("game host heartbeat failed; trying again")
        else:
            if lost:
                shards = [n for n in shards if n not in lost]
                await host.let_go(lost)
        await asyncio.sleep(HEARTBEAT_SECONDS)


class GameHostWorker:
    """Mixed into channels' Worker by our ``runworker``: before listening, a worker takes
    its shards' leases and rebuilds the games they left running, then beats their
    heartbeat; SIGTERM stops it gracefully (``graceful_stop``)."""

    async def handle(self):
        shards = [n for n in map(shard_of_channel, self.channels) if n is not None]
        host = GameHostConsumer.host = GameHost(resuming=bool(shards))
        host.hub.hosted = frozenset(shards)
        if shards:
            shards, since = await take_leases(host, shards)
            await host.resume(shards, since)
            self._heartbeat = asyncio.ensure_future(heartbeat(host, shards))
        install_graceful_stop()
        await super().handle()


# --- a graceful stop: SIGTERM (a deploy) -----------------------------------------------------
STOP_SECONDS = 4.0  # the most a graceful stop takes before the process goes anyway
_stopping = False


def stopping() -> bool:
    """Whether this process is stopping: it takes no new socket (lobby/ws.py)."""
    return _stopping


def install_graceful_stop() -> None:
    """On SIGTERM, stop gracefully (``graceful_stop``). Called on the server's event loop,
    in the main thread, once the server runs (Daphne: after Twisted has set its own
    handler, which this one replaces)."""
    if threading.current_thread() is not threading.main_thread():
        return
    loop = asyncio.get_running_loop()

    def on_term(signum, frame) -> None:
        loop.call_soon_threadsafe(lambda: _keep(loop.create_task(graceful_stop())))

    signal.signal(signal.SIGTERM, on_term)


_stops: set[asyncio.Task] = set()


def _keep(task: asyncio.Task) -> None:
    _stops.add(task)
    task.add_done_callback(_stops.discard)


async def graceful_stop() -> None:
    """Take no new socket, stop every table here where it stands, tell its pages that the
    server restarts and their game goes on, write every game's pending inputs, let the
    shards' leases go (the next process takes them at once), then exit: within
    ``STOP_SECONDS`` whatever happens. The process ends there: what it held (sockets,
    the database's threads) goes with it, the pages try again and find the next one."""
    global _stopping
    if _stopping:
        return
    _stopping = True
    began = clock()
    asyncio.get_running_loop().call_later(STOP_SECONDS + 0.5, _exit_now)  # whatever happens
    host = GameHostConsumer.host
    try:
        if host is not None:
            await asyncio.wait_for(host.stop(), timeout=STOP_SECONDS)
        box = sends.outbox()  # what the database's thread had queued for the pages
        if box is not None:
            await asyncio.wait_for(box.drained(), timeout=max(0.1, STOP_SECONDS - (clock() - began)))
    except Exception:
        log.exception("game host: the graceful stop failed; stopping anyway")
    _exit_now()


def _exit_now() -> None:
    logging.shutdown()
    os._exit(0)
