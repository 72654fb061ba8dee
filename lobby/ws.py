"""What every WebSocket consumer of the site shares: who is speaking, and the
checks on a frame before anything acts on it (size, rate, JSON shape).

A bad frame is answered with a clear error fragment to that socket only; it
never closes the socket or touches anybody else's.
"""

from __future__ import annotations

import json
import time
from typing import Any

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.utils.html import escape

from accounts.identity import PlayerRef, player_from_scope
from lobby.broadcast import user_group

# Close codes in the application range (4000–4999).
CLOSE_BANNED = 4003
CLOSE_NOT_FOUND = 4404


class ClientError(Exception):
    """A frame that is refused: ``code`` for programs, ``message`` for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def error_fragment(message: str, code: str = "") -> str:
    return (
        f'<div id="ws-error" class="message error" role="alert" data-code="{escape(code)}">'
        f"{escape(message)}</div>"
    )


class RateLimiter:
    """A token bucket: ``rate`` frames a second, bursts up to ``rate``."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.tokens = rate
        self.stamp = time.monotonic()

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.rate, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


@database_sync_to_async
def _session_user_is_banned(session: Any) -> bool:
    from accounts.models import User

    user_id = session.get(SESSION_KEY) if session is not None else None
    if user_id is None:
        return False
    return User.objects.filter(pk=user_id, banned_at__isnull=False).exists()


class ServerSendMiddleware:
    """Keeps the server's own ``send`` in the scope, as ``server_send``.

    Channels' session middleware wraps ``send`` so that a changed session is saved
    with an HTTP response. A WebSocket frame never carries one, yet the wrapper still
    asks the lazy session on every frame whether it changed: a measurable share of
    relaying a game's fragments to every socket of a table, the hottest path of the
    site. Relays go straight to the server (``SiteConsumer.relay``); everything else
    (accept, close, errors) still goes through the middleware."""

    def __init__(self, inner) -> None:
        self.inner = inner

    async def __call__(self, scope, receive, send):
        return await self.inner({**scope, "server_send": send}, receive, send)


class SiteConsumer(AsyncWebsocketConsumer):
    """Base consumer: identifies the speaker, refuses banned accounts, and
    validates frames before ``handle_frame`` sees them."""

    player: PlayerRef | None = None
    # Message types whose handlers only relay to the socket and never wait: the layer
    # may hand them over in the sender's task (config/layers.py). Not "table.changed":
    # it also sets this socket's seat, which must stay in order with the consumer's
    # own reads of it (on connect), so it takes the consumer's queue.
    relayed: tuple[str, ...] = ("game.fragment", "table.fragment", "lobby.fragment")

    async def __call__(self, scope, receive, send):
        try:
            return await super().__call__(scope, receive, send)
        finally:
            detach = getattr(self.channel_layer, "detach", None)
            if detach is not None and getattr(self, "channel_name", None):
                detach(self.channel_name)

    async def dispatch(self, message: dict[str, Any]) -> None:
        # Channels closes old database connections (a thread hop) before every
        # handler. Ours reach the database only through database_sync_to_async,
        # which does that itself, so the hop is skipped: relaying a game fragment
        # is the hottest path of the site.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def connect(self) -> None:
        if await _session_user_is_banned(self.scope.get("session")):
            await self.accept()
            await self.send(text_data=error_fragment("This account is banned.", "BANNED"))
            await self.close(code=CLOSE_BANNED)
            return
        self.player = player_from_scope(self.scope)
        self.limiter = RateLimiter(settings.SITE_RULES["WS_MAX_FRAMES_PER_SECOND"])
        self.max_frame_bytes = settings.SITE_RULES["WS_MAX_FRAME_BYTES"]
        self.flood_warned_at = 0.0
        self.groups_joined: list[str] = []
        self.server_send = self.scope.get("server_send", self.base_send)
        attach = getattr(self.channel_layer, "attach", None)
        if attach is not None:
            attach(self.channel_name, self.relay_event, self.relayed)
        if self.player and self.player.user_id is not None:
            await self.join(user_group(self.player.user_id))
        await self.on_connect()

    async def on_connect(self) -> None:
        await self.accept()

    async def join(self, group: str) -> None:
        await self.channel_layer.group_add(group, self.channel_name)
        self.groups_joined.append(group)

    async def disconnect(self, code: int) -> None:
        for group in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(group, self.channel_name)
        await self.on_disconnect(code)

    async def on_disconnect(self, code: int) -> None:
        pass

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        try:
            frame = self.parse(text_data, bytes_data)
            if frame is None:
                return
            await self.handle_frame(frame)
        except ClientError as err:
            await self.send_error(err.message, err.code)

    def parse(self, text_data: str | None, bytes_data: bytes | None) -> dict[str, Any] | None:
        if not self.limiter.allow():
            # Dropped. Tell the sender at most once a second, so the warning
            # itself cannot become a flood.
            now = time.monotonic()
            if now - self.flood_warned_at < 1:
                return None
            self.flood_warned_at = now
            raise ClientError("FLOOD", "Too many messages: some were ignored. Slow down.")
        if bytes_data is not None or text_data is None:
            raise ClientError("BAD_FRAME", "Frames must be JSON text.")
        if len(text_data) > self.max_frame_bytes:
            raise ClientError("FRAME_TOO_LARGE", "That message is too large.")
        try:
            frame = json.loads(text_data)
        except ValueError:
            raise ClientError("BAD_FRAME", 'Malformed message: expected JSON such as {"intent": "left"}.') from None
        if not isinstance(frame, dict):
            raise ClientError("BAD_FRAME", 'Malformed message: expected a JSON object such as {"intent": "left"}.')
        frame.pop("HEADERS", None)  # htmx's ws-send adds request headers
        return frame

    async def handle_frame(self, frame: dict[str, Any]) -> None:
        raise ClientError("READ_ONLY", "This page only listens; use the buttons.")

    async def relay_event(self, event: dict[str, Any]) -> None:
        """Any of the ``relayed`` types, handed over by the layer without dispatch."""
        await self.relay(event["html"])

    async def relay(self, html: str) -> None:
        """Pass a fragment rendered elsewhere on to this socket, as it is."""
        await self.server_send({"type": "websocket.send", "text": html})

    async def send_error(self, message: str, code: str = "") -> None:
        await self.send(text_data=error_fragment(message, code))

    async def user_banned(self, event: dict[str, Any]) -> None:
        await self.send_error("This account has been banned.", "BANNED")
        await self.close(code=CLOSE_BANNED)
