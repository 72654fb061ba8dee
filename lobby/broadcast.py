"""Announce changes to the lobby and to table pages, after the change commits.

Lobby rows are the same for everybody, so each change renders its row once and
sends the same fragment to every lobby socket. A table page's seat panel shows
each viewer their own buttons, so table sockets are told *that* the table
changed and each renders its own panel (seat changes are rare; game updates,
which are frequent, are rendered once in the game host).
"""

from __future__ import annotations

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.template.loader import render_to_string

LOBBY_GROUP = "lobby"


def lobby_group(game: str | None) -> str:
    return f"{LOBBY_GROUP}.{game}" if game else LOBBY_GROUP


def table_group(table_id: int) -> str:
    return f"table-{table_id}"


def user_group(user_id: int) -> str:
    return f"user-{user_id}"


def table_changed(table_id: int, *, created: bool = False) -> None:
    transaction.on_commit(lambda: _send_table_changed(table_id, created))


def user_banned(user_id: int) -> None:
    transaction.on_commit(
        lambda: async_to_sync(get_channel_layer().group_send)(
            user_group(user_id), {"type": "user.banned"}
        )
    )


def lobby_row_fragment(table_id: int, *, created: bool = False) -> tuple[str | None, str]:
    """The fragment that brings one lobby row up to date, and the table's game."""
    from lobby.models import Table
    from lobby.selectors import lobby_tables, row_context

    table = lobby_tables().filter(pk=table_id).first()
    if table is None:
        game = Table.objects.filter(pk=table_id).values_list("game", flat=True).first()
        return game, f'<li id="table-{table_id}" hx-swap-oob="delete"></li>'
    row = render_to_string("lobby/index.html#table_row", row_context(table))
    if created:
        return table.game, f'<div hx-swap-oob="afterbegin:#table-list">{row}</div>'
    return table.game, row.replace(f'id="table-{table_id}"', f'id="table-{table_id}" hx-swap-oob="true"', 1)


def _send_table_changed(table_id: int, created: bool) -> None:
    layer = get_channel_layer()
    send = async_to_sync(layer.group_send)
    game, html = lobby_row_fragment(table_id, created=created)
    message = {"type": "lobby.fragment", "html": html}
    send(lobby_group(None), message)
    if game:
        send(lobby_group(game), message)
    send(table_group(table_id), {"type": "table.changed"})
