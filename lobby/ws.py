"""What every WebSocket consumer of the site shares: who is speaking, and the
decoding of a frame into its declared type before anything acts on it.

Size and rate are checked earlier, at the edge (lobby/edge.py), before a frame
reaches a consumer. A frame that is refused here gets a clear error fragment with a
code, to that socket only, and changes nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import re
from collections.abc import Awaitable
from typing import Any

from autobahn.exception import Disconnected
from channels.consumer import AsyncConsumer, get_handler_name
from channels.db import database_sync_to_async
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.utils import translation
from django.utils.translation import gettext

from accounts.identity import PlayerRef, player_from_scope
from accounts.middleware import language_of_scope
from accounts.models import User
from config.metrics import FRAMES_REFUSED
from config.transport import prepared_sender, prepared_text
from games import wire
from games.core.errors import Refusal
from games.host import stopping as host_stopping
from games.messages import refuse_message
from games.wire import error_fragment
from lobby.broadcast import chips_fragment, identity_key, user_group

# Close codes in the application range (4000–4999).
CLOSE_BANNED = 4003
CLOSE_NOT_FOUND = 4404
CLOSE_SERVICE_RESTART = 1012  # RFC 6455's "service restart": htmx's socket tries again


class ClientError(Refusal):
    """A frame this socket refuses for who sent it or when (a spectator's key press,
    another table's id), however well formed."""


async def _user_is_banned(scope: dict[str, Any]) -> bool:
    """Whether the connection's session belongs to a banned account: read from the user
    that Channels' AuthMiddleware loaded for it, with no second trip to the database's
    thread (which a crowd of pages coming back to a restarted server queues on). Only a
    session whose user it could not load (a ban signs the account out) is looked up."""
    user = scope.get("user")
    if user is not None and user.is_authenticated:
        return user.banned_at is not None
    session = scope.get("session")
    if session is None or SESSION_KEY not in session:
        return False
    return await _session_user_is_banned(session)


@database_sync_to_async
def _session_user_is_banned(session: Any) -> bool:
    return User.objects.filter(pk=session.get(SESSION_KEY), banned_at__isnull=False).exists()


class ServerSendMiddleware:
    """Keeps the server's own ``send`` in the scope, as ``server_send``, and makes a
    frame sent to a socket that has just closed a no-op.

    Channels' session middleware wraps ``send`` so that a changed session is saved
    with an HTTP response. A WebSocket frame never carries one, yet the wrapper still
    asks the lazy session on every frame whether it changed: a measurable share of
    relaying a game's fragments to every socket of a table, the hottest path of the
    site. Relays go straight to the server (``SiteConsumer.relay``), and under Daphne
    straight to the connection, as a frame built once for the table
    (``config.transport.prepared_sender``); everything else (accept, close, errors)
    still goes through the middleware.

    A broadcast can reach a socket between its close and its consumer's end (a
    browser that leaves, a socket the edge closed): autobahn refuses the frame with
    ``Disconnected``. Nobody is there to read it, so it is dropped, not logged as a
    failure."""

    def __init__(self, inner) -> None:
        self.inner = inner

    async def __call__(self, scope, receive, send):
        async def server_send(message):
            try:
                await send(message)
            except Disconnected:
                pass

        scope = {**scope, "server_send": server_send, "prepared_send": prepared_sender(send)}
        return await self.inner(scope, receive, server_send)


async def _carry(channel_receive, inbox) -> None:
    """Every message of the channel layer for a socket, into its inbox as it comes;
    a failure of the layer's too, for the consumer to raise (lobby/edge.py)."""
    try:
        while True:
            await inbox.carry(await channel_receive())
    except Exception as error:  # not a cancellation: the socket's end
        inbox.fail(error)


# What Channels' AsyncConsumer.__call__ sets up, which SiteConsumer.serve sets up the same
# way (the other methods of a consumer read them); checked as this module loads.
CONSUMER_STATE = {"scope", "channel_layer", "channel_name", "channel_receive", "base_send"}


def check_channels() -> None:
    """Fail loudly if Channels' consumer no longer sets up what ``serve`` does."""
    made = set(re.findall(r"self\.(\w+) = ", inspect.getsource(AsyncConsumer.__call__)))
    if made != CONSUMER_STATE:
        raise RuntimeError(
            f"Channels' AsyncConsumer.__call__ now sets {sorted(made)}, not {sorted(CONSUMER_STATE)}: "
            "review SiteConsumer.serve (lobby/ws.py)"
        )


check_channels()


class SiteConsumer(AsyncWebsocketConsumer):
    """Base consumer: identifies the speaker and their language, refuses banned
    accounts, and validates frames before ``handle_frame`` sees them.

    A socket's language is chosen once, as it connects, as a page's would be
    (``language_of_scope``). It is never activated in the consumer's own context
    (a table host started from it would inherit it): what a socket alone is sent is
    rendered under ``translation.override``, and broadcasts come rendered in every
    language their readers read (games/hub.py, lobby/consumers.py)."""

    player: PlayerRef | None = None
    language: str = settings.LANGUAGE_CODE

    async def __call__(self, scope, receive, send):
        try:
            if "inbox" in scope:
                return await self.serve(scope, receive, send)
            return await super().__call__(scope, receive, send)  # no edge: bare tests
        finally:
            # However the consumer ends (a disconnect, an exception in a handler, a
            # cancellation), what it registered is undone: groups, the hub, and
            # whatever the page registered (a Watcher row, a player's presence).
            await self.leave()

    async def serve(self, scope, receive, send) -> None:
        """Channels' ``AsyncConsumer.__call__``, reading one queue: the edge's inbox
        (lobby/edge.py), into which a task of this socket puts what the channel layer
        brings it. Channels waits on both sources with a new task for every message
        and ``asyncio.wait``, about a tenth of the server's time at 100 tables (a
        sampling profile); here a frame wakes this task alone. The handlers still run
        one at a time, in the order their messages came."""
        self.scope = scope
        self.base_send = send
        self.channel_layer = get_channel_layer(self.channel_layer_alias)
        layer = None
        if self.channel_layer is not None:
            self.channel_name = await self.channel_layer.new_channel()
            self.channel_receive = functools.partial(self.channel_layer.receive, self.channel_name)
            layer = asyncio.ensure_future(_carry(self.channel_receive, scope["inbox"]))
        try:
            while True:
                await self.dispatch(await receive())
        except StopConsumer:
            pass
        finally:
            if layer is not None:
                layer.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await layer  # as Channels waits for its own, before the consumer leaves

    async def dispatch(self, message: dict[str, Any]) -> None:
        # Channels closes old database connections (a thread hop) before every
        # handler. Ours reach the database only through database_sync_to_async,
        # which does that itself, so the hop is skipped: relaying a game fragment
        # is the hottest path of the site.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            # A message no consumer declares a handler for (an old process, a typo):
            # counted and logged, and the socket goes on.
            refuse_message(message.get("type"), f"{type(self).__name__} has no handler for it")
            return
        await handler(message)

    async def connect(self) -> None:
        if host_stopping():
            # The server restarts (SIGTERM): the page tries again, and finds the next one.
            await self.close(code=CLOSE_SERVICE_RESTART)
            return
        self.language = language_of_scope(self.scope)
        if await _user_is_banned(self.scope):
            await self.accept()
            await self.send_error(gettext("This account is banned."), "BANNED")
            await self.close(code=CLOSE_BANNED)
            return
        self.player = player_from_scope(self.scope)
        self.budget = self.scope.get("edge")  # lobby/edge.py; absent only in bare tests
        if self.budget is not None and self.player is not None:
            # Every socket of one player spends the same budget.
            self.budget.bind(identity_key(self.player.user_id, self.player.guest_token))
        self.groups_joined: list[str] = []
        self.left = False
        self.server_send = self.scope.get("server_send", self.base_send)
        self.prepared_send = self.scope.get("prepared_send")
        if self.player and self.player.user_id is not None:
            await self.join(user_group(self.player.user_id))
        await self.on_connect()

    async def on_connect(self) -> None:
        await self.accept()

    async def join(self, group: str) -> None:
        await self.channel_layer.group_add(group, self.channel_name)
        self.groups_joined.append(group)

    async def disconnect(self, code: int) -> None:
        await self.leave()

    async def leave(self) -> None:
        """Undo what connecting registered; once, whichever way the socket ends."""
        if not hasattr(self, "groups_joined") or self.left:
            return
        self.left = True
        for group in self.groups_joined:
            await self.channel_layer.group_discard(group, self.channel_name)
        await self.on_disconnect()

    async def on_disconnect(self) -> None:
        pass

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        try:
            await self.handle_text(text_data if text_data is not None else "")
        except Refusal as err:
            if not isinstance(err, wire.FrameError):  # those were counted as they were decoded
                FRAMES_REFUSED.labels(err.code).inc()
            await self.send_error(err.message, err.code)

    async def handle_text(self, text: str) -> None:
        wire.decode(text, ())  # this socket takes no frames: says why each is refused

    async def spend(self, cost: float) -> bool:
        """Charge a costly frame beyond what the edge charged for its size; over the
        budget, the edge closes the socket and this returns False."""
        return self.budget is None or await self.budget.spend(cost)

    async def relay(self, html: str) -> None:
        """Pass a fragment rendered elsewhere on to this socket, as it is (framed once
        for all the sockets it goes to, where the server can send a prepared frame)."""
        pending = self.deliver(html)
        if pending is not None:
            await pending

    def deliver(self, html: str) -> Awaitable[None] | None:
        """``relay`` for a caller that sends to many sockets in a row (games/hub.py):
        under Daphne the frame is written at once and None returned, no coroutine made;
        elsewhere (a test's communicator) the send, to await."""
        if self.prepared_send is not None:  # Daphne: the frame straight to the connection
            self.prepared_send(prepared_text(html))
            return None
        return self.server_send({"type": "websocket.send", "text": html})

    async def send_error(self, message: str, code: str = "") -> None:
        """A refusal to this socket alone, in its language (games/refusals.py)."""
        with translation.override(self.language):
            html = error_fragment(message, code)
        await self.send(text_data=html)

    async def user_chips(self, event: dict[str, Any]) -> None:
        """The player's chips changed: the header's count, on every page of theirs,
        written this page's way (12.345 in German)."""
        html = event["html"]
        if "chips" in event:  # not in the sender's language: in this page's
            with translation.override(self.language):
                html = chips_fragment(event["chips"])
        await self.relay(html)

    async def user_banned(self, event: dict[str, Any]) -> None:
        await self.send_error(gettext("This account has been banned."), "BANNED")
        await self.close(code=CLOSE_BANNED)
