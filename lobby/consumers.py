from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.exceptions import ChannelFull
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext

from config.network import address_key
from games import messages, wire
from games.host import start_hosting
from games.hub import hub
from games.live import live_frames
from games.registry import GAMES
from games.replays import last_results_region
from lobby import arenas, chat, presence, selectors, services
from lobby.broadcast import (
    arena_group,
    identity_key,
    lobby_group,
    lobby_row_in,
    table_group,
    table_panels_of,
    table_variants_in,
)
from lobby.edge import edge
from lobby.ws import CLOSE_NOT_FOUND, ClientError, SiteConsumer

log = logging.getLogger(__name__)

# Lobby rows and seat panels come rendered in the site's language (lobby/broadcast.py).
# A socket that reads another renders its own, once per message and language in this
# process however many of its sockets read it: the first starts the render, the others
# wait for the same one. Keys are never reused (a random one per message), so an entry
# is never stale; past this many they are all dropped at once.
TRANSLATIONS_KEPT = 256
# A socket that thinks no game runs asks the table again at most this often (a flood of
# frames from a spectator costs no query each).
RECHECK_SECONDS = 1.0
_translations: dict[tuple[str, str, str], asyncio.Future] = {}


async def translated(key: str, what: str, language: str, render: Callable[..., Any], *args: Any) -> Any:
    """``render(language, *args)``, on a thread, shared by every socket of this process
    that asks for the same message ``key`` and ``what`` of it in ``language``."""
    entry = (key, what, language)
    found = _translations.get(entry)
    if found is None:
        if len(_translations) >= TRANSLATIONS_KEPT:
            _translations.clear()
        found = _translations[entry] = asyncio.ensure_future(database_sync_to_async(render)(language, *args))
    return await asyncio.shield(found)


class ChatConsumer(SiteConsumer):
    """A page with a chat (lobby/chat.py): the lobby's, or a table's (``chat_table``).

    Its log and box come afresh each time the socket (re)connects; then each message
    as it is written. A message is written only within the writer's and their
    address's budgets (lobby/edge.py ``Edge.chat``), checked here before anything
    is asked of the database."""

    chat_table: int | None = None
    chat_arena: int | None = None  # an arena page's chat (lobby/arenas.py)
    ignored: frozenset[str] = frozenset()  # lobby.chat.author_tag of the writers this viewer hides
    seat: int | None = None

    async def chat_arrived(self, before: Callable[[], str] | None = None) -> None:
        """The viewer's log (what it missed while away too) and chat box, after what
        ``before`` renders, in one frame and one trip to the database's thread."""

        def render() -> tuple[str, frozenset[str]]:
            head = before() if before is not None else ""
            html, ignored = chat.arrival(self.language, self.chat_table, self.player, self.chat_arena)
            return head + html, ignored

        html, self.ignored = await database_sync_to_async(render)()
        await self.relay(html)

    async def say(self, text: str) -> None:
        player = self.player
        chat.may_try(player)
        assert player is not None
        chat.checked_text(text)  # an empty or overlong message costs nothing more
        verdict = edge.chat(chat.player_key(player), address_key(self.scope.get("client_address") or "unknown"))
        if verdict.code == "CHAT_FLOOD":
            raise ClientError("CHAT_FLOOD", gettext("You are writing too fast: wait a few seconds."))
        if verdict.code == "MUTED":
            if verdict.muted_now:
                await database_sync_to_async(chat.mute_for_flood)(player)  # every page of theirs hears it
            raise ClientError("MUTED", gettext("You are muted in the chat for now."))
        try:
            await database_sync_to_async(chat.say)(
                player=player, table_id=self.chat_table, arena_id=self.chat_arena, text=text
            )
        except chat.ChatRefused as err:
            if err.code == "MUTED":  # by a moderator: the box says until when
                await self.chat_muted({})
            raise

    def shows(self, event: dict[str, Any]) -> bool:
        """Whether this page shows a message of ``event``'s room and writer."""
        if event["room"] == chat.Room.SPECTATORS and self.seat is not None:
            return False  # the spectators' room is not for the players
        return event["author"] not in self.ignored

    async def chat_message(self, event: dict[str, Any]) -> None:
        if not self.shows(event):
            return
        html = event["html"]
        if self.language != settings.LANGUAGE_CODE:
            try:
                html = await translated(event["key"], "chat", self.language, chat.message_in, event["fields"])
            except Exception:
                log.exception("rendering chat message %s in %s failed", event["fields"]["id"], self.language)
        await self.relay(html)

    async def chat_deleted(self, event: dict[str, Any]) -> None:
        if self.shows(event):  # else the page has no such message to take away
            await self.relay(event["html"])

    async def chat_ignores(self, event: dict[str, Any]) -> None:
        """The viewer hid a writer, or showed one again (on any page of theirs)."""
        await self.chat_arrived()

    async def chat_muted(self, event: dict[str, Any]) -> None:
        """The viewer was muted or unmuted: the box as it now is."""
        await self.relay(await database_sync_to_async(self._form_in_language)())

    def _form_in_language(self) -> str:
        with translation.override(self.language):
            return chat.form_html(self.chat_table, self.player, arena_id=self.chat_arena)


class LobbyConsumer(ChatConsumer):
    """The live lobby: receives a row fragment whenever a table changes, and the lobby's chat."""

    async def on_connect(self) -> None:
        try:  # a page sends one field; a query of many is nobody's page
            query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"), max_num_fields=4)
        except ValueError:
            query = {}
        arena = (query.get("arena") or [""])[0]
        if arena:
            # An arena's page: its board as it changes (lobby/arenas.py) and its own chat
            # room, nothing of the lobby's. Any number names a group; one that names no
            # arena hears nothing (and its chat box says it is closed).
            if not (arena.isascii() and arena.isdigit()) or len(arena) > 12:
                await self.accept()
                await self.send_error(gettext("There is no such arena."), "NO_SUCH_ARENA")
                await self.close(code=CLOSE_NOT_FOUND)
                return
            self.chat_arena = int(arena)
            await self.join(arena_group(self.chat_arena))
            await self.accept()
            await self.chat_arrived()
            return
        game = (query.get("game") or [""])[0]
        await self.join(lobby_group(game if game in GAMES else None))
        await self.join(chat.LOBBY_CHAT_GROUP)
        await self.accept()
        await self.chat_arrived()

    async def arena_board(self, event: dict[str, Any]) -> None:
        """The arena's board (the same for everybody), and the reader's own place in it
        (from the places sent along: no query for it)."""
        html = event["html"]
        if self.language != settings.LANGUAGE_CODE:
            try:
                html = await translated(event["key"], "board", self.language, arenas.board_in, event["arena_id"])
            except Exception:
                log.exception("rendering arena %s's board in %s failed", event["arena_id"], self.language)
        player = self.player
        own = event.get("places", {}).get(identity_key(player.user_id, player.guest_token)) if player else None
        if own is not None:
            html += arenas.own_place_in(self.language, *own)
        await self.relay(html)

    async def handle_text(self, text: str) -> None:
        frame = wire.decode(text, wire.LOBBY_FRAMES)
        await self.say(frame.text)

    async def lobby_fragment(self, event: dict[str, Any]) -> None:
        html = event["html"]
        if self.language != settings.LANGUAGE_CODE and "key" in event:
            try:
                html = await translated(
                    event["key"], "row", self.language, lobby_row_in, event["table_id"], event["created"]
                )
            except Exception:
                log.exception("rendering lobby row %s in %s failed", event["table_id"], self.language)
        await self.relay(html)


class TableConsumer(ChatConsumer):
    """A table page, for players and spectators alike.

    It relays the seat panel and the game's fragments, and forwards a seated
    player's intents to the table host. It holds no game state: the seat it
    speaks for is looked up from the database when the table changes.
    """

    running = False
    checked_at = float("-inf")  # when a frame last made this socket ask the table (refresh_seat)
    frames: tuple[type[wire.Frame], ...] = ()

    async def on_connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        await self.accept()
        # Join before announcing ourselves, so this page sees its own arrival too.
        await self.join(table_group(self.table_id))
        # The game's fragments: from the host in hand if it is in this process, else
        # through the layer (games/hub.py).
        self.hub = hub()
        await self.hub.attach(self.table_id, self.channel_name, self.deliver, self.language)
        # The page, its seat and the table's state, in one trip to the database's thread:
        # after a restart every page comes back at once, and each trip waits for theirs.
        arrived = await database_sync_to_async(self._arrive)()
        if arrived is None:
            await self.send_error(gettext("There is no such table, or it is closed."), "NO_SUCH_TABLE")
            await self.close(code=CLOSE_NOT_FOUND)
            return
        game, self.seat, self.running = arrived
        self.watching = True
        self.frames = (*wire.TABLE_FRAMES, *live_frames(game))
        start_hosting()  # already running under Daphne (lobby/presence.py); not in tests
        if self.running:
            # The game first (a seat's page that comes back after a restart lets its game
            # count down), then the panels, which take a trip of their own.
            await self.to_host(messages.Sync)
        # The page may be older than the table (Back, a tab woken up): its panels afresh,
        # and, once a game is over, its results in place of whatever the page still shows
        # of it (a game that ended while this page was away).
        self.chat_table = self.table_id
        running = self.running

        def news() -> str:
            panels = table_panels_of(self.language, self.table_id, self.player)
            if running:
                return panels
            with translation.override(self.language):
                return panels + last_results_region(self.table_id)

        # One frame: the panels, the results if any, and the chat as it is now.
        await self.chat_arrived(before=news)

    def _arrive(self) -> tuple[str, int | None, bool] | None:
        """Record the open page; its table's game, this page's seat and whether a game
        runs (None: no such table, or closed)."""
        game = services.watcher_add(
            table_id=self.table_id, channel_name=self.channel_name, player=self.player, server=presence.SERVER_ID
        )
        if game is None:
            return None
        return (game, *selectors.seat_and_status(self.table_id, self.player))

    async def on_disconnect(self) -> None:
        if getattr(self, "hub", None) is not None:
            await self.hub.detach(self.table_id, self.channel_name)
        if getattr(self, "watching", False):
            left = await database_sync_to_async(services.watcher_remove)(channel_name=self.channel_name)
            if left is not None:  # the last page of a seated person: the table may be abandoned
                presence.announce_if_abandoned_later(left)
            if self.running and self.seat is not None:
                await self.to_host(messages.Gone)

    async def refresh_seat(self) -> None:
        self.seat, self.running = await database_sync_to_async(selectors.seat_and_status)(
            self.table_id, self.player
        )

    async def to_host(self, kind: type[messages.HostMessage], **fields: Any) -> None:
        try:
            await self.hub.send(
                kind(table_id=self.table_id, seat=self.seat, reply=self.channel_name, **fields)
            )
        except ChannelFull:
            raise ClientError("BUSY", gettext("The game server is overloaded; that key press was lost.")) from None

    async def handle_text(self, text: str) -> None:
        frame = wire.decode(text, self.frames)
        if frame.table is not None and frame.table != self.table_id:
            raise ClientError("WRONG_TABLE", gettext("That message names another table; this socket is for this one."))
        if isinstance(frame, wire.Resync):
            if await self.spend(frame.cost):
                await self.to_host(messages.Sync)
            return
        if isinstance(frame, wire.Say):  # players and spectators alike (lobby/chat.py says where to)
            await self.say(frame.text)
            return
        if not self.running and time.monotonic() - self.checked_at >= RECHECK_SECONDS:
            # The game's first fragments come from its host, the news that it started
            # through the layer: a key pressed between the two asks the table itself.
            self.checked_at = time.monotonic()
            await self.refresh_seat()
        if self.seat is None:
            raise ClientError("SPECTATOR", gettext("Spectators watch; take a seat before the next game to play."))
        if not self.running:
            raise ClientError("NO_GAME", gettext("No game is running at this table."))
        if isinstance(frame, wire.Forfeit):
            await self.to_host(messages.Forfeit)
            return
        await self.to_host(
            messages.Intent,
            intent=frame.intent_text(),
            seq=frame.seq,
            at=getattr(frame, "t", None),
            claim=getattr(frame, "h", None),
        )

    async def table_changed(self, event: dict[str, Any]) -> None:
        # Everything this socket needs is in the message: no query per socket.
        player = self.player
        key = identity_key(player.user_id, player.guest_token) if player else None
        was_running = self.running
        self.seat = event["owners"].get(key) if key else None
        self.running = event["running"]
        if self.running and not was_running and self.seat is not None:
            # The game starts: its host learns which sockets play the seat (for what
            # that seat alone may see), and this page gets the whole game.
            await self.to_host(messages.Sync)
        role = str(self.seat) if self.seat else ("viewer" if player else "anon")
        variants = event["variants"]
        if self.language != settings.LANGUAGE_CODE and "key" in event and variants:
            try:
                variants = await translated(event["key"], "panel", self.language, table_variants_in, event["table_id"])
            except Exception:
                log.exception("rendering table %s's seat panel in %s failed", event["table_id"], self.language)
        html = variants.get(role)
        if html:
            await self.relay(html)

    async def game_fragment(self, event: dict[str, Any]) -> None:
        await self.relay(event["html"])

    async def game_resumed(self, event: dict[str, Any]) -> None:
        """The table's game was rebuilt by a host that started again (games/resume.py),
        while this socket stayed open on another process: its host is told again who
        watches it from here, and this page asks for the game as it now stands (also a
        socket of the process that took the table over from one that died). Scale-out
        only: embedded, every page comes back to the new process and asks as it comes."""
        await self.hub.rewatch(self.table_id)
        if self.running:
            await self.to_host(messages.Sync)

    async def table_fragment(self, event: dict[str, Any]) -> None:
        await self.relay(event["html"])


class NotFoundConsumer(SiteConsumer):
    """Any other WebSocket path: say so clearly instead of dropping the connection."""

    async def on_connect(self) -> None:
        await self.accept()
        await self.send_error(gettext("There is nothing at this address."), "NOT_FOUND")
        await self.close(code=CLOSE_NOT_FOUND)
