"""Reads about tables: what the lobby and the table page show."""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count, Exists, OuterRef, Prefetch, Q, QuerySet
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language, gettext

from accounts.identity import PlayerRef
from config.versioned import cached_per_version, current_version, new_version
from games.context_processors import site_urls
from games.core.ranking import shared_ip
from games.models import Game
from games.ratings import ShownRating, shown_ratings
from games.registry import GAMES, get_game
from lobby.models import QueueEntry, Seat, Table, Watcher

ROW_CACHE_SECONDS = 600
# The lobby's list, cached per version of the lobby (config/versioned.py): every
# change to a table, its seats or its watchers broadcasts a new row and draws a new
# version (broadcast.py).
LOBBY_VERSION_KEY = "lobby-version"
LOBBY_ROWS_SECONDS = 60


# Abandoned tables (issue 49, point 17). An open table none of whose seated people has
# a page of it open (guests who closed their tabs; a practice whose only human left its
# bot) is offered to nobody in the lobby once this grace has passed, long before it
# closes (TABLE_IDLE_MINUTES, lobby/services.py). The grace covers a reload or Back and
# forth, which closes the page's socket for a moment (our choice). The table page's
# socket marks the moment (``watcher_remove``), and announces the table once the grace
# is over (lobby/presence.py), so that the lobbies open then drop its row.
ABANDONED_AFTER = dt.timedelta(seconds=45)


def abandoned_tables(now: dt.datetime | None = None) -> QuerySet[Table]:
    """Open tables whose seated people (bots aside) have had no page of them open since
    ``ABANDONED_AFTER`` before ``now``, and where nobody sat down since."""
    cutoff = (now or timezone.now()) - ABANDONED_AFTER
    seated_person = Seat.objects.filter(table_id=OuterRef("table_id"), bot_level="").filter(
        Q(user__isnull=False, user_id=OuterRef("user_id"))
        | Q(user__isnull=True, guest_token=OuterRef("guest_token"), guest_token__gt="")
    )
    seated_watching = Watcher.objects.filter(table_id=OuterRef("pk")).filter(Exists(seated_person))
    return (
        Table.objects.filter(status=Table.Status.OPEN, updated_at__lt=cutoff)
        .exclude(seats__joined_at__gte=cutoff)
        .exclude(Exists(seated_watching))
    )


def lobby_tables(game: str | None = None) -> QuerySet[Table]:
    tables = (
        Table.objects.exclude(status=Table.Status.CLOSED)
        .exclude(pk__in=abandoned_tables().values("pk"))
        .annotate(seats_taken=Count("seats", distinct=True))
        .prefetch_related(
            Prefetch("watchers", queryset=Watcher.objects.only("table_id", "user_id", "guest_token"))
        )
        .prefetch_related(
            Prefetch(
                "seats",
                queryset=Seat.objects.only("table_id", "user_id", "guest_token", "bot_level", "number"),
            )
        )
    )
    if game in GAMES:
        tables = tables.filter(game=game)
    return tables


def lobby_changed(table_id: int | None = None) -> None:
    """A table, its seats or its watchers changed: every cached lobby list is
    stale, and so is that table's cached page data. What was cached under the old
    versions is dropped at once rather than left to expire."""
    old = cache.get(LOBBY_VERSION_KEY)
    new_version(LOBBY_VERSION_KEY)
    stale = (
        [f"lobby-rows:{game}:{code}:{old}" for game in ("", *GAMES) for code, _name in settings.LANGUAGES]
        if old
        else []
    )
    if table_id is not None:
        old_table = cache.get(f"table-version:{table_id}")
        new_version(f"table-version:{table_id}")
        if old_table:
            stale.append(f"table-page:{table_id}:{old_table}")
    if stale:
        cache.delete_many(stale)


def lobby_rows(game: str | None = None) -> list[str]:
    """The rows of the lobby (of one game, or all), rendered at most once per version."""
    return cached_per_version(
        LOBBY_VERSION_KEY,
        f"lobby-rows:{game or ''}:{get_language()}",  # rendered rows: one list per language
        lambda: [row_html(t) for t in lobby_tables(game)],
        LOBBY_ROWS_SECONDS,
    )


@dataclass(frozen=True)
class GameActivity:
    online: int  # people with a page of one of the game's tables open
    running: int  # tables of the game with a game under way
    waiting: int  # open tables of the game, waiting for players


def game_activity() -> dict[str, GameActivity]:
    """What each game's card in the lobby counts, read at most once per version of
    the lobby (every change of a table, its seats or its watchers draws a new one).

    Online are the people with a page of one of the game's tables open, seated or
    watching, from the Watcher rows (one per table socket; those of a process that is
    gone are removed by lobby/presence.py): an account or a guest counts once however
    many tabs it has open, an anonymous page counts once per socket. Lobby pages hold
    no row, so whoever only looks at the lobby is not counted."""
    return cached_per_version(LOBBY_VERSION_KEY, "game-activity", _game_activity, LOBBY_ROWS_SECONDS)


def _game_activity() -> dict[str, GameActivity]:
    people: dict[str, set[tuple]] = {slug: set() for slug in GAMES}
    live = (Table.Status.OPEN, Table.Status.RUNNING)
    for game, user_id, guest_token, channel in Watcher.objects.filter(table__status__in=live).values_list(
        "table__game", "user_id", "guest_token", "channel_name"
    ):
        if game in people:
            # an account once, a guest once, an anonymous page once per socket
            person = ("u", user_id) if user_id is not None else ("g", guest_token) if guest_token else ("s", channel)
            people[game].add(person)
    tables = {slug: {Table.Status.OPEN: 0, Table.Status.RUNNING: 0} for slug in GAMES}
    listed = Table.objects.filter(status__in=live).exclude(pk__in=abandoned_tables().values("pk"))
    for game, status, count in listed.values_list("game", "status").annotate(count=Count("pk")).order_by():
        if game in tables:
            tables[game][status] = count
    return {
        slug: GameActivity(
            online=len(people[slug]),
            running=tables[slug][Table.Status.RUNNING],
            waiting=tables[slug][Table.Status.OPEN],
        )
        for slug in GAMES
    }


def spectator_count(table: Table) -> int:
    """Open table pages whose viewer holds no seat, counting each person once."""
    seated = {(s.user_id, s.guest_token) for s in table.seats.all() if not s.bot_level}
    people: set[tuple[int | None, str]] = set()
    anonymous = 0
    for w in table.watchers.all():
        key = (w.user_id, w.guest_token)
        if key in seated:
            continue
        if w.user_id is None and not w.guest_token:
            anonymous += 1
        else:
            people.add(key)
    return len(people) + anonymous


@dataclass
class SeatView:
    number: int
    seat: Seat | None
    mine: bool
    away: bool = False  # a seated person with no page of the table open
    left: bool = False  # left the running game: watches the rest of it
    rating: ShownRating | None = None  # the player's in the table's game; guests and bots have none
    # Between games, in how many ms the host may free this seat (0: now), or None (never:
    # a bot, a ready player at the table, or no game to wait for).
    free_in_ms: int | None = None


# Between games the host may free the seat of a player at the table who is not ready, once
# they have had this long to get ready (since they sat down, or since the last game ended);
# the seat of a player who is away, at once.
FREE_SEAT_GRACE = dt.timedelta(seconds=20)


def seat_free_in(table: Table, seat: Seat, away: bool, now: dt.datetime, opened_at: dt.datetime | None):
    """How long until the host may free ``seat`` (zero: now), or None if they may not."""
    if table.status != Table.Status.OPEN or seat.bot_level:
        return None
    if away:
        return dt.timedelta(0)
    if seat.ready:
        return None
    since = max(seat.joined_at, opened_at) if opened_at else seat.joined_at
    return max(dt.timedelta(0), since + FREE_SEAT_GRACE - now)


def last_game_end(table: Table) -> dt.datetime | None:
    return Game.objects.filter(table=table).order_by("-pk").values_list("ended_at", flat=True).first()


def _people_at(table: Table) -> set[tuple[int | None, str]]:
    """Who has the table's page open, as (user id, guest token), from its watchers."""
    return {(w.user_id, "" if w.user_id is not None else w.guest_token) for w in table.watchers.all()}


def seat_views(table: Table, player: PlayerRef | None) -> list[SeatView]:
    taken = {s.number: s for s in table.seats.all()}
    present = _people_at(table)
    now, opened_at = timezone.now(), ...  # the last game's end: read once, if a seat needs it
    views = []
    for number in range(1, table.seats_total + 1):
        seat = taken.get(number)
        mine = bool(
            seat
            and player
            and (
                (player.user_id is not None and seat.user_id == player.user_id)
                or (player.user_id is None and seat.guest_token == player.guest_token)
            )
        )
        away = left = False
        free_in_ms = None
        if seat is not None and not seat.bot_level:
            # One's own seat is never away on one's own page: it is open (its socket may
            # not have connected yet).
            away = not mine and (seat.user_id, "" if seat.user_id is not None else seat.guest_token) not in present
            left = seat.left_game and table.status == Table.Status.RUNNING
            if not mine and table.status == Table.Status.OPEN:
                if opened_at is ...:
                    opened_at = last_game_end(table)
                wait = seat_free_in(table, seat, away, now, opened_at)
                free_in_ms = None if wait is None else math.ceil(wait.total_seconds() * 1000)
        views.append(
            SeatView(number=number, seat=seat, mine=mine, away=away, left=left, free_in_ms=free_in_ms)
        )
    return views


def row_html(table: Table) -> str:
    """A lobby row, rendered once per state of its table and then served from the
    cache: the key holds everything the row shows that can change."""
    context = row_context(table)
    key = "lobby-row:{}:{}:{}:{}:{}:{}".format(
        table.pk, table.updated_at.timestamp(), table.status, context["seats_taken"], context["spectators"],
        get_language(),
    )
    html = cache.get(key)
    if html is None:
        html = render_to_string("lobby/index.html#table_row", context)
        cache.set(key, html, ROW_CACHE_SECONDS)
    return html


def table_version(table_id: int) -> str:
    """The version of a table's page data: replaced by every change of the table, its
    seats or its watchers (``lobby_changed``)."""
    return current_version(f"table-version:{table_id}")


def table_for_page(table_id: int, version: str | None = None) -> Table | None:
    """A table with its seats and watchers, as its page and seat panel show it:
    read from the database once per version of the table (see ``lobby_changed``)."""
    return cached_per_version(
        f"table-version:{table_id}",
        f"table-page:{table_id}",
        lambda: Table.objects.filter(pk=table_id).prefetch_related("seats", "watchers").first(),
        LOBBY_ROWS_SECONDS,
        version=version,
    )


# Where each form of a cached seat panel takes the response's own CSRF token.
PANEL_CSRF = "csrf-token-of-this-response"
# Seat panels and statuses kept by this process, per table, version and role. A
# version names one state of its table for good (a random token, never reused), so
# an entry is never stale; it is only dropped, all at once, past this many.
PANELS_KEPT = 1024
_panels: dict[tuple[int, str, str, str], str] = {}


@dataclass(frozen=True)
class TablePanels:
    html: str  # the seat panel and the table status, with PANEL_CSRF for the token
    my_seat: int  # the viewer's seat number, 0 for none


def table_panels(table: Table, version: str, player: PlayerRef | None) -> TablePanels:
    """A table page's seat panel and status for ``player``, rendered once per version
    of the table, role of the viewer (an anonymous visitor, a named one, the
    holder of a given seat, each as the host or not) and language. What else the two partials show
    (seats, readiness, watchers, pot, why the start waits) is the table's at that
    version, the same for everybody."""
    # A seat whose player left the running game plays no more: its page watches.
    views = seat_views(table, player)
    mine = next((v for v in views if v.mine), None)
    my_seat = mine.number if mine is not None and not mine.left else 0
    role = "anon" if player is None else "{}{}{}".format(
        mine.number if mine else 0, "L" if mine and mine.left else "", "h" if is_host(table, player) else ""
    )
    key = (table.pk, version, role, get_language())
    html = _panels.get(key)
    # A Free seat button still to come is counted down from now: such panels are not kept.
    counting = any(v.free_in_ms for v in views)
    if html is None:
        context = table_page_context(table, player)
        context.update(oob=False, csrf_token=PANEL_CSRF)
        html = render_to_string("lobby/table.html#seat_panel", context) + render_to_string(
            "lobby/table.html#table_status", context
        )
        if len(_panels) >= PANELS_KEPT:
            _panels.clear()
        if not counting:
            _panels[key] = html
    return TablePanels(html=html, my_seat=my_seat)


def row_context(table: Table) -> dict:
    spec = get_game(table.game)
    return {
        "t": table,
        "spec": spec,
        "options_text": spec.describe_options(table.options) if spec else "",
        "seats_taken": len(table.seats.all()),
        "spectators": spectator_count(table),
        "seat_range": range(1, table.seats_total + 1),
    }


def seat_and_status(table_id: int, player: PlayerRef | None) -> tuple[int | None, bool]:
    """The seat number ``player`` holds at the table (or None), and whether a game runs."""
    status = Table.objects.filter(pk=table_id).values_list("status", flat=True).first()
    seat = None
    if player is not None:
        seats = Seat.objects.filter(table_id=table_id)
        if player.user_id is not None:
            seats = seats.filter(user_id=player.user_id)
        else:
            seats = seats.filter(guest_token=player.guest_token)
        seat = seats.values_list("number", flat=True).first()
    return seat, status == Table.Status.RUNNING


def is_host(table: Table, player: PlayerRef | None) -> bool:
    if player is None:
        return False
    if player.user_id is not None:
        return table.host_user_id == player.user_id
    return bool(table.host_guest_token) and table.host_guest_token == player.guest_token


def start_problem(table: Table, seats: list[Seat]) -> str | None:
    """Why the host cannot start now, or None when everything is in place."""
    if table.status != Table.Status.OPEN:
        return (
            gettext("The game has already started.")
            if table.status == Table.Status.RUNNING
            else gettext("This table is closed.")
        )
    spec = get_game(table.game)
    needed = table.seats_total if table.options.get("pairs") else (spec.min_seats if spec else 1)
    if len(seats) < needed:
        return gettext("At least %(count)s seated players are needed.") % {"count": needed}
    waiting = [s.display_name for s in seats if not s.ready]
    if waiting:
        return gettext("Waiting for %(names)s to be ready.") % {"names": ", ".join(waiting)}
    return None


@lru_cache(maxsize=1)
def game_links() -> list[dict[str, Any]]:
    """Each game with the URLs of the lobby's buttons for it, reversed once."""
    return [
        {
            "spec": spec,
            "create": reverse("lobby:create", args=[spec.slug]),
            "play_now": reverse("lobby:play_now", args=[spec.slug]),  # quick play (lobby/quickplay.py)
            "practice": reverse("lobby:practice", args=[spec.slug]),
            # a game with a solo variant (its options have ``solo``) has a one-click solo table
            "solo": reverse("lobby:solo", args=[spec.slug]) if "solo" in spec.options_form.defaults() else "",
            "filter": f"{reverse('lobby:index')}?game={spec.slug}",
            "rules": reverse("games:how_to_play", args=[spec.slug]),
        }
        for spec in GAMES.values()
    ]


@dataclass(frozen=True)
class SeatOffer:
    """What the top of a waiting table's page offers its viewer."""

    seat: int  # the first free seat, for a viewer who holds none; 0 for none
    full: bool  # every seat taken, and the viewer holds none of them
    invite: bool  # a seat is free: worth sending the table's link to a friend


def seat_offer(table: Table, player: PlayerRef | None) -> SeatOffer:
    """A visitor who follows a waiting table's link is offered its first free seat at
    the top of the page (an anonymous one is asked for a name first, as the seat panel
    does); a full table says so. Nothing is offered once a game runs or the table closed."""
    if table.status != Table.Status.OPEN:
        return SeatOffer(seat=0, full=False, invite=False)
    views = seat_views(table, player)
    free = next((v.number for v in views if v.seat is None), 0)
    seated = any(v.mine for v in views)
    return SeatOffer(seat=0 if seated else free, full=not free and not seated, invite=bool(free))


TABLE_ACTIONS = ("sit", "stand", "ready", "start", "rematch", "bot_add", "bot_remove", "free")


@lru_cache(maxsize=1024)
def table_urls(table_id: int) -> dict[str, str]:
    """The URLs of a table's buttons: reversed once, not once per button and page."""
    urls = {action: reverse(f"lobby:{action}", args=[table_id]) for action in TABLE_ACTIONS}
    urls["page"] = reverse("lobby:table", args=[table_id])
    return urls


def rematch_offered(table: Table) -> bool:
    """After a game at an open table, its players are offered to play it again."""
    if table.status != Table.Status.OPEN:
        return False
    last = Game.objects.filter(table=table).order_by("-pk").values_list("status", flat=True).first()
    return last in (Game.Status.FINISHED, Game.Status.ABORTED)


def table_page_context(table: Table, player) -> dict[str, Any]:
    seats = list(table.seats.all())
    pot = 0
    if table.is_competitive:
        # Running: what was taken at the start. Open: what the seats have staked so far.
        pot = (
            Game.objects.filter(table=table, status=Game.Status.RUNNING).values_list("pot", flat=True).first()
            if table.status == Table.Status.RUNNING
            else None
        ) or table.stake * sum(1 for s in seats if s.user_id)
    views = seat_views(table, player)
    ratings = shown_ratings([s.user_id for s in seats], table.game)
    for v in views:
        if v.seat is not None and v.seat.user_id is not None:
            v.rating = ratings.get(v.seat.user_id)
    my_seat = next((v.seat for v in views if v.mine), None)
    i_left = any(v.mine and v.left for v in views)
    return {
        "table": table,
        "spec": GAMES.get(table.game),
        "options_text": GAMES[table.game].describe_options(table.options) if table.game in GAMES else "",
        "seat_views": views,
        "my_seat": my_seat,
        "i_left": i_left,
        "is_host": is_host(table, player),
        "start_problem": start_problem(table, seats),
        "rematch": rematch_offered(table),
        "spectators": spectator_count(table),
        "pot": pot,
        "shared_ip": table.is_competitive and shared_ip([s.ip for s in seats]),
        "player": player,
        "offer": seat_offer(table, player),
        "urls": table_urls(table.pk),
        "site_urls": site_urls(),  # also when rendered for a socket, without a request
        "oob": True,
    }


def queue_waiting(game: str, *, stale_before) -> int:
    """People waiting for a quick-play game of ``game`` (any stake), whose page has asked
    since ``stale_before``."""
    return QueueEntry.objects.filter(game=game, table__isnull=True, seen_at__gte=stale_before).count()


def queue_waiting_counts(*, stale_before) -> dict[str, int]:
    """People waiting for quick play, per game (every game, 0 for none): for the lobby."""
    rows = (
        QueueEntry.objects.filter(table__isnull=True, seen_at__gte=stale_before)
        .values_list("game")
        .annotate(n=Count("id"))
    )
    counts = dict.fromkeys(GAMES, 0)
    counts.update({game: n for game, n in rows if game in counts})
    return counts
