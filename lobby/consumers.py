from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from django.template.loader import render_to_string

from games.registry import GAMES
from lobby import selectors, services
from lobby.broadcast import lobby_group, table_group
from lobby.models import Table
from lobby.ws import CLOSE_NOT_FOUND, SiteConsumer


class LobbyConsumer(SiteConsumer):
    """The live lobby: receives a row fragment whenever a table changes."""

    async def on_connect(self) -> None:
        game = self.scope.get("query_string", b"").decode().partition("game=")[2].split("&")[0]
        await self.join(lobby_group(game if game in GAMES else None))
        await self.accept()

    async def lobby_fragment(self, event: dict[str, Any]) -> None:
        await self.send(text_data=event["html"])


class TableConsumer(SiteConsumer):
    """A table page: seat panel and (later) the game. Players and spectators alike."""

    async def on_connect(self) -> None:
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        await self.accept()
        # Join before announcing ourselves, so this page sees its own arrival too.
        await self.join(table_group(self.table_id))
        added = await database_sync_to_async(services.watcher_add)(
            table_id=self.table_id, channel_name=self.channel_name, player=self.player
        )
        if not added:
            await self.send_error("There is no such table, or it is closed.", "NO_SUCH_TABLE")
            await self.close(code=CLOSE_NOT_FOUND)

    async def on_disconnect(self, code: int) -> None:
        if hasattr(self, "table_id"):
            await database_sync_to_async(services.watcher_remove)(channel_name=self.channel_name)

    async def table_changed(self, event: dict[str, Any]) -> None:
        html = await database_sync_to_async(self.render_panel)()
        await self.send(text_data=html)

    def render_panel(self) -> str:
        table = selectors.table_for_page(self.table_id)
        if table is None:
            return ""
        context = table_page_context(table, self.player)
        parts = [render_to_string("lobby/table.html#seat_panel", context)]
        parts.append(render_to_string("lobby/table.html#table_status", context))
        return "".join(parts)


def table_page_context(table: Table, player) -> dict[str, Any]:
    seats = list(table.seats.all())
    views = selectors.seat_views(table, player)
    my_seat = next((v.seat for v in views if v.mine), None)
    return {
        "table": table,
        "spec": GAMES.get(table.game),
        "options_text": GAMES[table.game].describe_options(table.options) if table.game in GAMES else "",
        "seat_views": views,
        "my_seat": my_seat,
        "is_host": services.is_host(table, player),
        "start_problem": services.start_problem(table, seats),
        "spectators": selectors.spectator_count(table),
        "player": player,
        "oob": True,
    }


class NotFoundConsumer(SiteConsumer):
    """Any other WebSocket path: say so clearly instead of dropping the connection."""

    async def on_connect(self) -> None:
        await self.accept()
        await self.send_error("There is nothing at this address.", "NOT_FOUND")
        await self.close(code=CLOSE_NOT_FOUND)
