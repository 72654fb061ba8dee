"""Announce changes to the lobby and to table pages, after the change commits.

Lobby rows are the same for everybody, so each change renders its row once and
sends the same fragment to every lobby socket. A table page's seat panel shows
each viewer their own buttons, so it is rendered once per *role* (each seated
player, a named visitor who may sit, an anonymous visitor) and every socket picks
its own from the same message: a change costs one query and at most six renders,
however many people watch.

Both are rendered in the site's language: whoever sends them (a request, on commit)
cannot know who reads them, nor in what language. Each message names its table and
carries a ``key`` of its own, so a socket that reads another language renders its
own from the same table (``lobby_row_in``, ``table_variants_in``), once per message
and language in its process (lobby/consumers.py): a site read only in its own
language pays nothing for the others.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import secrets
import threading
from collections.abc import Callable

from channels.db import database_sync_to_async
from django.conf import settings
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import translation

from accounts.formats import chips_text
from accounts.identity import PlayerRef
from accounts.models import User
from config import sends
from games.registry import GAMES
from lobby.models import Table
from lobby.selectors import (
    game_activity,
    lobby_changed,
    lobby_tables,
    row_html,
    spectator_count,
    table_for_page,
    table_page_context,
)

LOBBY_GROUP = "lobby"
PRESENCE_NEWS_SECONDS = 0.5  # a table's news of its pages coming and going, at most this often
log = logging.getLogger(__name__)


def chips_fragment(chips: int) -> str:
    """The header's count of chips, in the active language's way of writing numbers."""
    return f'<span id="nav-chips" hx-swap-oob="true">{chips_text(chips)}</span>'


def lobby_group(game: str | None) -> str:
    return f"{LOBBY_GROUP}.{game}" if game else LOBBY_GROUP


def arena_group(arena_id: int) -> str:
    """The layer group of an arena's pages (their lobby socket): its board and its chat."""
    return f"arena-{arena_id}"


def table_group(table_id: int) -> str:
    return f"table-{table_id}"


def user_group(user_id: int) -> str:
    return f"user-{user_id}"


class _TableNews(threading.local):
    """The tables whose news this thread's transaction holds, each sent once when it
    commits: a match seats and readies its players and starts its table in one
    transaction (lobby/quickplay.py ``seat_and_start``), which was six renders of the
    same committed state and six sends to every lobby for a table of two."""

    def __init__(self) -> None:
        self.pending: dict[int, bool] = {}  # table id → whether it was created


_table_news = _TableNews()


def table_changed(table_id: int, *, created: bool = False) -> None:
    _lobby_changed(table_id)  # now, for this transaction's own reads, and again once committed
    news = _table_news.pending
    news[table_id] = news.get(table_id, False) or created
    # One callback each time (a rolled-back transaction drops its own): the first to run
    # after the commit sends the table as it then stands, the others find it sent.
    transaction.on_commit(lambda: _send_pending_table(table_id))


def _send_pending_table(table_id: int) -> None:
    created = _table_news.pending.pop(table_id, None)
    if created is not None:
        _send_table_changed(table_id, created)


def watchers_changed(table_id: int, *, seats: bool = False) -> None:
    """Somebody opened or closed a table page: only the spectator count changed,
    which is the same for everybody, so it is rendered once (``seats``: and a seated
    player's presence, which the seat panels show).

    Pages come and go in crowds (a restarted server's pages all come back at once, each
    table's four of them): under a server, each table's news of them goes out at most
    once every ``PRESENCE_NEWS_SECONDS``, rendered as the table stands then, rather than
    once for each page (``presence_news``)."""
    _lobby_changed(table_id)
    transaction.on_commit(lambda: presence_news.changed(table_id, seats))


class Batched:
    """Tables (or arenas) whose news changed, for one send of all of them a moment later.

    Filled on the database's thread (on commit), sent from it too: the server's loop
    only times the send (``config.sends``), ``seconds`` after the first change. Without
    a server (tests without Daphne, management commands) the news goes at once, as
    every other. ``deliver`` gets the pending ids, each with whether any of its changes
    said ``flag``."""

    def __init__(self, seconds: float, deliver: Callable[[dict[int, bool]], None], what: str) -> None:
        self.seconds = seconds
        self.deliver = deliver
        self.what = what  # for the log, with the ids
        self.lock = threading.Lock()
        self.pending: dict[int, bool] = {}
        self.timed = False
        self.sending: set[asyncio.Task] = set()

    def changed(self, key: int, flag: bool = False) -> None:
        box = sends.outbox()
        if box is None:
            self.deliver({key: flag})
            return
        with self.lock:
            self.pending[key] = self.pending.get(key, False) or flag
            if self.timed:
                return
            self.timed = True
        # In a context of its own: not the database thread's, where asgiref notes that its
        # one thread is in use (and would refuse the send's own database_sync_to_async).
        box.loop.call_soon_threadsafe(
            box.loop.call_later, self.seconds, self._send_later, context=contextvars.Context()
        )

    def _send_later(self) -> None:
        task = asyncio.get_running_loop().create_task(database_sync_to_async(self.send)())
        self.sending.add(task)
        task.add_done_callback(self.sending.discard)

    def send(self) -> None:
        with self.lock:
            pending, self.pending, self.timed = self.pending, {}, False
        try:
            self.deliver(pending)
        except Exception:
            log.exception("%s %s failed", self.what, sorted(pending))


def _send_presence_in_site_language(pending: dict[int, bool]) -> None:
    with translation.override(settings.LANGUAGE_CODE):
        _send_presence(pending)


# A table's news of its pages coming and going (``watchers_changed``), the flag: its seat panels too.
presence_news = Batched(PRESENCE_NEWS_SECONDS, _send_presence_in_site_language, "telling the pages and the lobby of tables")


def _send_presence(pending: dict[int, bool]) -> None:
    """The news of these tables' pages (table id → whether their seat panels changed),
    all at once: their lobby rows read in one query, the game cards' numbers once."""
    for table_id in pending:
        _lobby_changed(table_id)
    send = sends.group_send
    rows = {table.pk: table for table in lobby_tables().filter(pk__in=list(pending))}
    counts = game_counts_fragment()
    for table_id, seats in sorted(pending.items()):
        table = rows.get(table_id)
        status = table.status if table is not None else (
            Table.objects.filter(pk=table_id).values_list("status", flat=True).first()
        )
        if status is None:
            continue  # no such table any more
        key = secrets.token_hex(8)
        if seats or status != Table.Status.CLOSED:  # a closed table has left every lobby already
            if table is not None:
                game, row = table.game, _row_update(table)
            else:  # no longer listed (abandoned): its row goes
                game, row = lobby_row_fragment(table_id)
            message = {"type": "lobby.fragment", "html": row + counts, "table_id": table_id, "created": False,
                       "key": key}
            _send_lobby(send, game, message)
        if seats:
            send(table_group(table_id), {**table_changed_message(table_id), "table_id": table_id, "key": key})
        else:
            spectators = spectator_count(table) if table is not None else _spectators(table_id)
            html = f'<span id="spectator-count" hx-swap-oob="true">{spectators}</span>'
            send(table_group(table_id), {"type": "table.fragment", "html": html})


def _spectators(table_id: int) -> int:
    table = Table.objects.prefetch_related("seats", "watchers").filter(pk=table_id).first()
    return spectator_count(table) if table is not None else 0


def _lobby_changed(table_id: int) -> None:

    lobby_changed(table_id)


def user_banned(user_id: int) -> None:
    transaction.on_commit(
        lambda: sends.group_send(user_group(user_id), {"type": "user.banned"})
    )


def chips_changed(user_ids) -> None:
    """Players' chips changed (a stake taken, a pot paid, a refund): once committed,
    every page of theirs with a socket shows the new balance in its header."""
    ids = sorted({pk for pk in user_ids if pk is not None})
    if ids:
        transaction.on_commit(lambda: _send_chips(ids))


def _send_chips(user_ids: list[int]) -> None:
    send = sends.group_send
    for pk, chips in User.objects.filter(pk__in=user_ids).values_list("pk", "chips"):
        send(user_group(pk), {"type": "user.chips", "chips": chips, "html": chips_fragment(chips)})


def lobby_row_fragment(table_id: int, *, created: bool = False) -> tuple[str | None, str]:
    """The fragment that brings one lobby row up to date, and the table's game."""

    table = lobby_tables().filter(pk=table_id).first()
    if table is None:
        game = Table.objects.filter(pk=table_id).values_list("game", flat=True).first()
        return game, f'<li id="table-{table_id}" hx-swap-oob="delete"></li>'
    if created:
        return table.game, f'<div hx-swap-oob="afterbegin:#table-list">{row_html(table)}</div>'
    return table.game, _row_update(table)


def _row_update(table: Table) -> str:
    """A listed table's lobby row, replacing the one the lobby shows."""
    return row_html(table).replace(f'id="table-{table.pk}"', f'id="table-{table.pk}" hx-swap-oob="true"', 1)


def lobby_message(table_id: int, *, created: bool = False) -> tuple[str | None, str]:
    """What a lobby socket is sent when a table changes: its row, and the cards' numbers."""
    game, row = lobby_row_fragment(table_id, created=created)
    return game, row + game_counts_fragment()


def game_counts_fragment() -> str:
    """The numbers of the lobby's game cards (templates/lobby/index.html), out of band:
    sent after every row that changes (``lobby_message``), since whatever changed a row
    may change them. Numbers only, the same in every language."""
    return "".join(
        f'<dd id="{name}-{game}" hx-swap-oob="true">{getattr(activity, name)}</dd>'
        for game, activity in game_activity().items()
        for name in ("online", "running", "waiting")
    )


# What goes out over the sockets is rendered in the site's language, never in that of
# the person whose action it announces (whose request runs these on commit); a socket
# that reads another renders its own (see the module).
def _send_table_changed(table_id: int, created: bool) -> None:
    with translation.override(settings.LANGUAGE_CODE):
        _send_table_changed_now(table_id, created)


def _send_table_changed_now(table_id: int, created: bool) -> None:
    _lobby_changed(table_id)
    send = sends.group_send
    key = secrets.token_hex(8)
    game, html = lobby_message(table_id, created=created)
    message = {"type": "lobby.fragment", "html": html, "table_id": table_id, "created": created, "key": key}
    _send_lobby(send, game, message)
    send(table_group(table_id), {**table_changed_message(table_id), "table_id": table_id, "key": key})


def lobby_row_in(language: str, table_id: int, created: bool) -> str:
    """A lobby row's fragment, as ``lobby.fragment`` carries it, in ``language``."""
    with translation.override(language):
        return lobby_message(table_id, created=created)[1]


def table_variants_in(language: str, table_id: int) -> dict[str, str]:
    """The seat panel and status of every role, as ``table.changed`` carries them, in ``language``."""
    with translation.override(language):
        return table_changed_message(table_id)["variants"]


def table_panels_of(language: str, table_id: int, player: PlayerRef | None) -> str:
    """One viewer's seat panel and status, out of band, in ``language``: what a socket
    gets as it (re)connects, so that a page the browser kept (Back, a sleeping tab)
    shows the table as it is now, the viewer's seat and its buttons included."""
    table = table_for_page(table_id)
    if table is None:
        return ""
    with translation.override(language):
        return _panels_html(table_page_context(table, player))


# What a push brings up to date on one viewer's table page: the seat panel and status,
# and the seat offered at the top of the page (and the invite link) out of band.
PUSHED_PARTIALS = ("seat_panel", "table_status", "table_top")


def _panels_html(context: dict) -> str:
    return "".join(render_to_string(f"lobby/table.html#{name}", context) for name in PUSHED_PARTIALS)


def identity_key(user_id: int | None, guest_token: str) -> str:
    return f"u{user_id}" if user_id is not None else f"g{guest_token}"


def table_changed_message(table_id: int) -> dict:
    """The seat panel and status for every role at the table, rendered once each."""

    table = table_for_page(table_id)
    if table is None:
        return {"type": "table.changed", "variants": {}, "owners": {}, "running": False}
    roles: dict[str, PlayerRef | None] = {
        "anon": None,
        # Someone with a name but no seat: sees the "Sit here" buttons.
        "viewer": PlayerRef(user_id=None, guest_token="\x00nobody", name=""),
    }
    owners = {}
    for seat in table.seats.all():
        if seat.bot_level:
            continue
        owners[identity_key(seat.user_id, seat.guest_token)] = seat.number
        roles[str(seat.number)] = PlayerRef(user_id=seat.user_id, guest_token=seat.guest_token, name=seat.name)
    variants = {}
    for role, player in roles.items():
        variants[role] = _panels_html(table_page_context(table, player))
    return {
        "type": "table.changed",
        "variants": variants,
        "owners": owners,
        "running": table.status == Table.Status.RUNNING,
    }


def _send_lobby(send, game: str | None, message: dict) -> None:
    """A table's lobby message to the whole lobby and to the lobby of its game; the lobbies
    of the other games (which list other tables, but show every game's card) get the
    cards' numbers alone, which read the same in every language."""
    send(lobby_group(None), message)
    if game:
        send(lobby_group(game), message)
    counts = {"type": "lobby.fragment", "html": game_counts_fragment()}
    for other in GAMES.keys() - {game}:
        send(lobby_group(other), counts)
