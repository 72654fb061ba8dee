"""Writes about tables and seats. Views, consumers and admin actions call these.

Each function checks its rule, changes the database in one transaction, and
announces the change to the lobby and the table once the transaction commits.
A refused action raises ``TableError`` with a machine code and a message for the
player, and changes nothing.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import F, Q, Sum
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

from accounts import services as account_services
from accounts.identity import PlayerRef
from accounts.models import ModerationAction, User
from games.core.errors import Refusal
from games.refusals import refusal_text
from games.registry import get_game
from games.services import StakeError, game_abort_running, game_create, game_forfeit_request
from lobby import broadcast
from lobby.models import Seat, ServerBeat, Table, Watcher
from lobby.selectors import (
    abandoned_tables,
    is_host,
    last_game_end,
    rematch_offered,
    seat_free_in,
    start_problem,
)


class TableError(Refusal):
    """What a table will not do: seat someone twice, start unready, …"""


def chips_reserved(user_id: int) -> int:
    """Chips promised as stakes at competitive tables whose game has not started."""
    total = Seat.objects.filter(
        user_id=user_id, table__status=Table.Status.OPEN, table__stake__gt=0
    ).aggregate(total=Sum("table__stake"))["total"]
    return total or 0


def chips_available(user_id: int, *, lock: bool = False) -> int:
    """Chips a player may still stake: the balance less what seats already reserve.

    With ``lock`` the player's row is locked first, so two tables cannot both
    reserve the same chips at once.
    """
    users = User.objects.select_for_update() if lock else User.objects
    balance = users.values_list("chips", flat=True).get(pk=user_id)
    return balance - chips_reserved(user_id)


def _lock(table_id: int) -> Table:
    """Fetch a table for a write, locked so concurrent joins serialise."""
    try:
        return Table.objects.select_for_update().get(pk=table_id)
    except Table.DoesNotExist:
        raise TableError("NO_SUCH_TABLE", gettext("There is no such table.")) from None


def _seat_of(table: Table, player: PlayerRef) -> Seat | None:
    seats = table.seats.all()
    if player.user_id is not None:
        return seats.filter(user_id=player.user_id).first()
    return seats.filter(guest_token=player.guest_token).first()


def _check_may_sit(table: Table, player: PlayerRef | None) -> None:
    if player is None:
        raise TableError("WHO_ARE_YOU", gettext("Log in, or choose a guest name, to take a seat."))
    if table.is_competitive:
        if player.is_guest:
            raise TableError(
                "GUEST_AT_COMPETITIVE",
                gettext("Competitive tables are for signed-in players. Sign up to play for chips."),
            )
        available = chips_available(player.user_id, lock=True)
        if available < table.stake:
            reserved = chips_reserved(player.user_id)
            numbers = {"stake": table.stake, "available": available, "reserved": reserved}
            message = (
                gettext(
                    "This table's stake is %(stake)s chips; you have %(available)s free "
                    "(%(reserved)s are staked at other tables)."
                )
                if reserved
                else gettext("This table's stake is %(stake)s chips; you have %(available)s free.")
            )
            raise TableError("NOT_ENOUGH_CHIPS", message % numbers)


_LIVE = (Table.Status.OPEN, Table.Status.RUNNING)


def _check_may_host(player: PlayerRef, ip: str | None) -> None:
    """A host keeps a bounded number of tables open or running (issue 17: one account
    opened 300 in 4 s). Guest names cost nothing, so the tables hosted from one
    client address are bounded too. Practice tables count like any other."""
    if player.user_id is not None:
        # Lock the account, so two concurrent creations cannot both pass the count.
        User.objects.select_for_update().only("id").get(pk=player.user_id)
        hosted = Table.objects.filter(status__in=_LIVE, host_user_id=player.user_id)
    else:
        hosted = Table.objects.filter(
            status__in=_LIVE, host_user__isnull=True, host_guest_token=player.guest_token
        )
    limit = settings.TABLES_PER_HOST
    if hosted.count() >= limit:
        raise TableError(
            "TOO_MANY_TABLES",
            gettext(
                "You may host %(limit)s tables at once and already do: leave one, or finish its game, "
                "before opening another."
            )
            % {"limit": limit},
        )
    if ip is None:
        return
    # Tables whose host sits there from this address (the host's seat, not a guest's).
    from_address = Seat.objects.filter(ip=ip, table__status__in=_LIVE).filter(
        Q(user__isnull=False, user_id=F("table__host_user_id"))
        | Q(user__isnull=True, bot_level="", guest_token=F("table__host_guest_token"))
    )
    limit = settings.TABLES_PER_ADDRESS
    if from_address.count() >= limit:
        raise TableError(
            "TOO_MANY_TABLES_HERE",
            gettext(
                "%(limit)s tables are already open from your network. Join one of them, or wait until one closes."
            )
            % {"limit": limit},
        )


@transaction.atomic
def table_create(
    *,
    player: PlayerRef | None,
    game: str,
    options: dict[str, Any],
    seats_total: int,
    stake: int = 0,
    name: str = "",
    name_kind: str = Table.NameKind.TABLE,
    ip: str | None = None,
) -> Table:
    """Open a table; its creator hosts it and sits in seat 1. Its name is ``name`` as
    typed or, without one, the default of ``name_kind`` (``Table.NameKind``), kept
    language-neutral (its kind and its creator's name) and worded for each reader."""
    spec = get_game(game)
    if spec is None:
        raise TableError("NO_SUCH_GAME", gettext("There is no such game."))
    if player is None:
        raise TableError("WHO_ARE_YOU", gettext("Log in, or choose a guest name, to open a table."))
    if not spec.min_seats <= seats_total <= spec.max_seats:
        raise TableError(
            "BAD_SEATS",
            gettext("%(game)s is for %(low)s to %(high)s players.")
            % {"game": spec.name, "low": spec.min_seats, "high": spec.max_seats},
        )
    if stake < 0:
        raise TableError("BAD_STAKE", gettext("A stake cannot be negative."))
    try:
        spec.options_form.validate(options)
    except ValueError as err:
        # The options' own words are English (pure Python): by their code in another language.
        raise TableError("BAD_OPTIONS", refusal_text(f"Bad table options: {err}", "BAD_OPTIONS")) from None
    _check_may_host(player, ip)
    table = Table(
        game=game,
        name=name.strip()[:60],
        name_kind=Table.NameKind.TYPED if name.strip() else name_kind,
        named_for="" if name.strip() else player.name,
        options=options,
        seats_total=seats_total,
        stake=stake,
        host_user_id=player.user_id,
        host_guest_token=player.guest_token,
        host_name=player.name,
    )
    _check_may_sit(table, player)
    table.save()
    Seat.objects.create(
        table=table,
        number=1,
        user_id=player.user_id,
        guest_token=player.guest_token,
        name=player.name,
        ip=ip,
    )
    broadcast.table_changed(table.pk, created=True)
    return table


@transaction.atomic
def seat_take_first_free(*, table_id: int, player: PlayerRef | None, ip: str | None = None) -> Seat:
    """The table's first free seat for ``player`` (who followed its link and chose a name
    first): as ``seat_take``, or why not (full, running, closed, …)."""
    table = _lock(table_id)
    taken = set(table.seats.values_list("number", flat=True))
    free = next((n for n in range(1, table.seats_total + 1) if n not in taken), None)
    if free is None and table.status == Table.Status.OPEN:
        raise TableError("TABLE_FULL", gettext("This table is full: every seat is taken."))
    return seat_take(table_id=table_id, player=player, number=free or 1, ip=ip)


@transaction.atomic
def seat_take(*, table_id: int, player: PlayerRef | None, number: int, ip: str | None = None) -> Seat:
    table = _lock(table_id)
    if table.status == Table.Status.CLOSED:
        raise TableError("TABLE_CLOSED", gettext("This table is closed."))
    if table.status == Table.Status.RUNNING:
        raise TableError("GAME_RUNNING", gettext("A game is running; wait for it to end to sit down."))
    if not 1 <= number <= table.seats_total:
        raise TableError(
            "NO_SUCH_SEAT",
            gettext("Seat %(seat)s does not exist; this table has seats 1–%(seats)s.")
            % {"seat": number, "seats": table.seats_total},
        )
    _check_may_sit(table, player)
    assert player is not None
    if _seat_of(table, player) is not None:
        raise TableError("ALREADY_SEATED", gettext("You already have a seat at this table."))
    if table.seats.filter(number=number).exists():
        raise TableError("SEAT_TAKEN", gettext("Seat %(seat)s is taken.") % {"seat": number})
    try:
        with transaction.atomic():
            seat = Seat.objects.create(
                table=table,
                number=number,
                user_id=player.user_id,
                guest_token=player.guest_token,
                name=player.name,
                ip=ip,
            )
    except IntegrityError:
        # Another process won the seat between our check and our insert.
        raise TableError("SEAT_TAKEN", gettext("Seat %(seat)s is taken.") % {"seat": number}) from None
    broadcast.table_changed(table.pk)
    return seat


def _hand_over_or_close(table: Table) -> None:
    """After someone left: an empty table closes; a host who left hands over to the
    lowest seated person, or, with only bots left, stays host (to start their game)."""
    if not table.seats.exists():
        table.status = Table.Status.CLOSED
        table.closed_reason = gettext_noop("Everybody left.")  # translated where shown
        table.save(update_fields=["status", "closed_reason", "updated_at"])
        return
    first = table.seats.filter(bot_level="").order_by("number").first()
    if first is None:
        return
    host_still_seated = table.seats.filter(
        user_id=table.host_user_id, guest_token=table.host_guest_token
    ).exists()
    if not host_still_seated:
        table.host_user_id = first.user_id
        table.host_guest_token = first.guest_token
        table.host_name = first.name
        table.save(update_fields=["host_user", "host_guest_token", "host_name", "updated_at"])


@transaction.atomic
def seat_leave(*, table_id: int, player: PlayerRef | None) -> None:
    table = _lock(table_id)
    seat = _seat_of(table, player) if player else None
    if seat is None:
        raise TableError("NOT_SEATED", gettext("You have no seat at this table."))
    if table.status == Table.Status.RUNNING:
        raise TableError("GAME_RUNNING", gettext("A game is running: leaving now forfeits it."))
    seat.delete()
    _hand_over_or_close(table)
    broadcast.table_changed(table.pk)


def _at_the_table(table: Table, seat: Seat) -> bool:
    """Whether the seat's player has the table's page open (a socket, in any process)."""
    return _watching(table.pk, seat.user_id, seat.guest_token)


@transaction.atomic
def seats_mark_left(*, table_id: int, seats: list[int]) -> None:
    """Seats whose players left the running game (Leave, a ban, 30 s gone, said by the
    table's host): their pages stop offering the game and its Leave button, and watch."""
    changed = Seat.objects.filter(
        table_id=table_id, number__in=seats, bot_level="", left_game=False, table__status=Table.Status.RUNNING
    ).update(left_game=True)
    if changed:
        broadcast.table_changed(table_id)


@transaction.atomic
def seats_free_after_game(*, table_id: int) -> list[int]:
    """After a game: the seats of those who left it (Leave, a ban, gone too long) are
    freed, so that the others' rematch does not wait for them; one who still watches
    may sit down again. Returns the seats freed."""
    table = _lock(table_id)
    left = list(table.seats.filter(left_game=True))
    if not left:
        return []
    table.seats.filter(pk__in=[s.pk for s in left]).delete()
    if table.status != Table.Status.CLOSED:
        _hand_over_or_close(table)
    broadcast.table_changed(table.pk)
    return [seat.number for seat in left]


@transaction.atomic
def seat_free(*, table_id: int, player: PlayerRef | None, number: int) -> None:
    """The host frees the seat of a player who is not at the table any more (their page
    is closed), or who has not got ready in the grace they had, between games, so that
    the next game does not wait for them."""
    table = _lock(table_id)
    if not is_host(table, player):
        raise TableError("NOT_HOST", gettext("Only the table's host can free a seat."))
    if table.status != Table.Status.OPEN:
        raise TableError("GAME_RUNNING", gettext("Seats are freed between games."))
    seat = table.seats.filter(number=number, bot_level="").first()
    if seat is None:
        raise TableError("NO_PLAYER", gettext("Seat %(seat)s holds no player.") % {"seat": number})
    if _seat_of(table, player) == seat:
        raise TableError("OWN_SEAT", gettext("That is your own seat: stand up to leave it."))
    wait = seat_free_in(table, seat, not _at_the_table(table, seat), timezone.now(), last_game_end(table))
    if wait is None:
        raise TableError(
            "PLAYER_READY",
            gettext("%(name)s is at the table and ready to play: their seat stays.")
            % {"name": seat.display_name},
        )
    if wait:
        raise TableError(
            "PLAYER_PRESENT",
            gettext("%(name)s is at the table: give them %(seconds)s s more to get ready.")
            % {"name": seat.display_name, "seconds": math.ceil(wait.total_seconds())},
        )
    seat.delete()
    _hand_over_or_close(table)
    broadcast.table_changed(table.pk)


def _my_seat_between_games(table_id: int, player: PlayerRef | None) -> tuple[Table, Seat]:
    """The table, locked, and the player's seat there while no game runs."""
    table = _lock(table_id)
    seat = _seat_of(table, player) if player else None
    if seat is None:
        raise TableError("NOT_SEATED", gettext("Take a seat first."))
    if table.status != Table.Status.OPEN:
        raise TableError("GAME_RUNNING", gettext("The game has already started."))
    return table, seat


@transaction.atomic
def seat_ready(*, table_id: int, player: PlayerRef | None, ready: bool) -> Seat:
    table, seat = _my_seat_between_games(table_id, player)
    if seat.ready != ready:
        seat.ready = ready
        seat.save(update_fields=["ready"])
        broadcast.table_changed(table.pk)
    return seat


@transaction.atomic
def table_start(*, table_id: int, player: PlayerRef | None) -> Table:
    table = _lock(table_id)
    if not is_host(table, player):
        raise TableError("NOT_HOST", gettext("Only the table's host can start the game."))
    seats = list(table.seats.all())
    problem = start_problem(table, seats)
    if problem:
        raise TableError("NOT_READY", problem)
    return _start(table, seats)


@transaction.atomic
def table_rematch(*, table_id: int, player: PlayerRef | None) -> Table:
    """A seated player asks for a rematch after a game: they are ready again, and once
    every seated person has asked, the next game starts, the same players in the same
    seats, without waiting for the host's button (as two players who both accept a
    rematch expect)."""
    table, seat = _my_seat_between_games(table_id, player)
    if not rematch_offered(table):
        raise TableError("NO_REMATCH", gettext("There is no game to play again yet: mark yourself ready."))
    if not seat.ready:
        seat.ready = True
        seat.save(update_fields=["ready"])
    seats = list(table.seats.all())
    if start_problem(table, seats):
        broadcast.table_changed(table.pk)  # the others see who wants a rematch
        return table
    return _start(table, seats)


def _start(table: Table, seats: list[Seat]) -> Table:
    table.status = Table.Status.RUNNING
    table.save(update_fields=["status", "updated_at"])
    table.seats.filter(left_game=True).update(left_game=False)  # a new game: everybody plays
    try:
        game_create(table=table, seats=seats)  # takes the stakes into the pot
    except StakeError as err:
        raise TableError(err.code, err.message) from None
    broadcast.table_changed(table.pk)
    return table


def _close(table: Table, reason: str) -> None:
    """Close a locked table that runs no game: its seats (and the stakes they
    reserve) are released; the caller announces it."""
    table.status = Table.Status.CLOSED
    table.closed_reason = reason[:200]
    table.save(update_fields=["status", "closed_reason", "updated_at"])
    table.seats.all().delete()


@transaction.atomic
def table_close(*, table_id: int, reason: str, by: User | None = None) -> Table:
    """Close a table (admin moderation): seats are released and everyone is told why."""
    table = _lock(table_id)
    if table.status == Table.Status.CLOSED:
        return table
    if table.status == Table.Status.RUNNING:
        game_abort_running(
            table_id=table.pk, reason=f"The table was closed: {reason.strip() or 'by a moderator'}"
        )
    _close(table, reason.strip() or (f"Closed by {by.get_username()}." if by else gettext_noop("Closed.")))
    if by is not None:
        ModerationAction.objects.create(
            admin=by,
            action=ModerationAction.Action.CLOSE_TABLE,
            table_id=table.pk,
            reason=table.closed_reason,
        )
    broadcast.table_changed(table.pk)
    return table


# Idle tables (issue 19). An open table that nobody has open, no page of it in any
# browser, waits for nobody: an empty one, or one whose players went home after a
# game ("Waiting 2/2" for ever in the lobby). After TABLE_IDLE_MINUTES of that it
# closes. Running tables are the table host's (a player who is gone forfeits).
# Nothing runs on a timer: the lobby's listing asks, at most once every
# TABLE_IDLE_SWEEP_SECONDS, and one query finds the tables to close.
IDLE_SWEEP_KEY = "tables-idle-sweep"
# Tables closed by one look at most: the lobby request that looks stays short, and
# the rest wait for the next look.
IDLE_SWEEP_LIMIT = 50


def table_idle_minutes() -> int:
    return settings.TABLE_IDLE_MINUTES


def _idle_tables(cutoff: dt.datetime):
    """Open tables untouched since ``cutoff``, watched by nobody, and where nobody sat
    down since. ``updated_at`` also moves when the last page of a table closes
    (``watcher_remove``), so the idle time counts from when the last person left."""
    return (
        Table.objects.filter(status=Table.Status.OPEN, updated_at__lt=cutoff)
        .exclude(watchers__isnull=False)
        .exclude(seats__joined_at__gte=cutoff)
    )


def tables_close_idle(*, now: dt.datetime | None = None) -> list[int]:
    """Close every table idle for ``TABLE_IDLE_MINUTES`` (see above); returns their ids.

    Each is closed in a transaction of its own, locked and checked again first: a
    person who arrives meanwhile keeps the table open."""
    minutes = table_idle_minutes()
    cutoff = (now or timezone.now()) - dt.timedelta(minutes=minutes)
    closed = []
    for table_id in _idle_tables(cutoff).values_list("pk", flat=True)[:IDLE_SWEEP_LIMIT]:
        with transaction.atomic():
            table = Table.objects.select_for_update().filter(pk=table_id).first()
            if table is None or not _idle_tables(cutoff).filter(pk=table_id).exists():
                continue
            _close(table, f"Nobody was at the table for {minutes} minutes.")
            broadcast.table_changed(table.pk)
        closed.append(table_id)
    return closed


def tables_close_idle_now_and_then() -> list[int]:
    """``tables_close_idle``, at most once every ``TABLE_IDLE_SWEEP_SECONDS``: the
    first caller of a period claims it (``cache.add`` is atomic, in every process
    with Redis), the others pay one cache look-up."""
    seconds = settings.TABLE_IDLE_SWEEP_SECONDS
    if not cache.add(IDLE_SWEEP_KEY, True, timeout=seconds):
        return []
    return tables_close_idle()


@transaction.atomic
def player_ban(*, user: User, reason: str, by: User) -> None:
    """A moderator's ban, whole and in one transaction: the account is disabled, its
    seats at open tables are freed, it forfeits running games, and its sockets close."""
    account_services.user_ban(user=user, reason=reason, by=by)
    seats_release_for_user(user=user)


@transaction.atomic
def seats_release_for_user(*, user: User) -> None:
    """A banned player's seats are freed at tables that have not started; at
    running tables the player forfeits, as if they had left (RULES.md §6)."""
    for seat in Seat.objects.filter(user=user, table__status=Table.Status.OPEN).select_related("table"):
        table = _lock(seat.table_id)
        seat.delete()
        _hand_over_or_close(table)
        broadcast.table_changed(table.pk)
    for seat in Seat.objects.filter(user=user, table__status=Table.Status.RUNNING):
        game_forfeit_request(table_id=seat.table_id, seat=seat.number)
    broadcast.user_banned(user.pk)


def watcher_add(
    *, table_id: int, channel_name: str, player: PlayerRef | None, server: str = ""
) -> str | None:
    """Record an open table page, held by the process ``server``. Returns the table's
    game, or None when the table does not exist or is closed (nothing is recorded)."""
    game = (
        Table.objects.filter(pk=table_id)
        .exclude(status=Table.Status.CLOSED)
        .values_list("game", flat=True)
        .first()
    )
    if game is None:
        return None
    arrives = player is not None and not _watching(table_id, player.user_id, player.guest_token)
    Watcher.objects.update_or_create(
        channel_name=channel_name,
        defaults={
            "table_id": table_id,
            "user_id": player.user_id if player else None,
            "guest_token": player.guest_token if player else "",
            "server": server,
        },
    )
    _presence_changed(
        table_id, player.user_id if player else None, player.guest_token if player else "", arrives
    )
    return game


def _watching(table_id: int, user_id: int | None, guest_token: str) -> bool:
    """Whether this person has the table's page open (in any tab, on any process)."""
    watchers = Watcher.objects.filter(table_id=table_id)
    if user_id is not None:
        return watchers.filter(user_id=user_id).exists()
    return bool(guest_token) and watchers.filter(user__isnull=True, guest_token=guest_token).exists()


def _seated(table_id: int, user_id: int | None, guest_token: str):
    """This person's seat at the table (bots aside), as a query."""
    seated = Seat.objects.filter(table_id=table_id, bot_level="")
    if user_id is not None:
        return seated.filter(user_id=user_id)
    return seated.filter(user__isnull=True, guest_token=guest_token) if guest_token else seated.none()


def _presence_changed(table_id: int, user_id: int | None, guest_token: str, changed: bool) -> None:
    """A page of the table opened or closed. When that brings a seated player to the
    table, or takes the last page of one away, the seat panels say so (the seat is
    marked away, and its host may free it between games); otherwise only the
    spectator count changed, which is the same for everybody."""
    broadcast.watchers_changed(table_id, seats=changed and _seated(table_id, user_id, guest_token).exists())


def watcher_remove(*, channel_name: str) -> int | None:
    """A table page closed. Returns the table's id when that was the last page of a
    seated person at a table not closed: the table may be abandoned (``lobby.selectors.
    ABANDONED_AFTER``), and the caller looks again once the grace is over
    (``table_announce_if_abandoned``)."""
    watched = (
        Watcher.objects.filter(channel_name=channel_name)
        .values_list("table_id", "table__status", "user_id", "guest_token")
        .first()
    )
    if watched is None:
        return None
    table_id, status, user_id, guest_token = watched
    Watcher.objects.filter(channel_name=channel_name).delete()
    _mark_left_alone([table_id])
    if status == Table.Status.CLOSED:
        # A closed table has left every lobby already: a row fragment for it would
        # look for a row that no lobby page has any more.
        return None
    gone = (user_id is not None or bool(guest_token)) and not _watching(table_id, user_id, guest_token)
    seated_gone = gone and _seated(table_id, user_id, guest_token).exists()
    if seated_gone:
        # The grace of an abandoned table counts from now, spectators or not.
        Table.objects.filter(pk=table_id).update(updated_at=timezone.now())
    _presence_changed(table_id, user_id, guest_token, gone)
    return table_id if seated_gone else None


def table_announce_if_abandoned(*, table_id: int) -> bool:
    """Once the grace after the last seated person's page closed is over: a table
    abandoned now is announced, so that every lobby drops its row (and its game's card
    its count). Returns whether to ask again one grace later: nobody seated is at the
    table, but it is not abandoned yet (its game still runs, and the table host ends it
    for those gone; or it changed during the grace)."""
    if abandoned_tables().filter(pk=table_id).exists():
        broadcast.table_changed(table_id)
        return False
    live = Table.objects.filter(pk=table_id, status__in=(Table.Status.OPEN, Table.Status.RUNNING)).exists()
    seats = Seat.objects.filter(table_id=table_id, bot_level="").values_list("user_id", "guest_token")
    return live and not any(_watching(table_id, user_id, guest_token) for user_id, guest_token in seats)


def _mark_left_alone(table_ids) -> None:
    """Of these tables, those nobody watches any more start their idle time now
    (``tables_close_idle``)."""
    Table.objects.filter(pk__in=table_ids, watchers__isnull=True).update(updated_at=timezone.now())


def server_beat(*, server: str) -> None:
    """A Daphne process of a scale-out site says it is alive (lobby.presence)."""
    ServerBeat.objects.update_or_create(server=server, defaults={"beat_at": timezone.now()})


def watchers_reconcile(*, alive: set[str] | None = None, stale_after: float | None = None) -> int:
    """Remove the Watcher rows of processes that are gone, and tell their tables.

    ``alive``: the servers known to live (embedded: this process alone); otherwise
    the servers that beat within ``stale_after`` seconds. Returns the rows removed."""
    if alive is None:
        cutoff = timezone.now() - dt.timedelta(seconds=stale_after or 0)
        ServerBeat.objects.filter(beat_at__lt=cutoff).delete()
        alive = set(ServerBeat.objects.values_list("server", flat=True))
    stale = Watcher.objects.exclude(server__in=alive)
    tables = set(stale.values_list("table_id", flat=True))
    removed, _ = stale.delete()
    _mark_left_alone(tables)
    for table_id in (
        Table.objects.filter(pk__in=tables).exclude(status=Table.Status.CLOSED).values_list("pk", flat=True)
    ):
        broadcast.watchers_changed(table_id)
    return removed


def _check_bot(table: Table, player: PlayerRef | None, number: int) -> None:
    if not is_host(table, player):
        raise TableError("NOT_HOST", gettext("Only the table's host can seat or remove bots."))
    if table.status != Table.Status.OPEN:
        raise TableError("GAME_RUNNING", gettext("Bots join or leave between games."))
    if not 1 <= number <= table.seats_total:
        raise TableError(
            "NO_SUCH_SEAT",
            gettext("Seat %(seat)s does not exist; this table has seats 1–%(seats)s.")
            % {"seat": number, "seats": table.seats_total},
        )


# Bots' names, one for each seat, so that every bot at a table has its own (issue 30:
# a practice read "Bot (greedy) attacks Bot (greedy)"). Our choice: pioneers of
# computing, names that read the same in every language; the word "bot" and the level
# are added where the name is shown, in the reader's language (games.words.bot_name).
BOT_NAMES = (
    "Ada",
    "Alan",
    "Grace",
    "Edsger",
    "Barbara",
    "Donald",
    "Claude",
    "Hedy",
    "Konrad",
    "Radia",
    "Linus",
    "Frances",
)


def bot_name_for(seat: int) -> str:
    """The name of a bot in ``seat`` (1–12), stored language-neutral."""
    return BOT_NAMES[(seat - 1) % len(BOT_NAMES)]


@transaction.atomic
def bot_add(*, table_id: int, player: PlayerRef | None, number: int, level: str) -> Seat:
    """The host seats a computer player. Bots play only at friendly tables."""
    table = _lock(table_id)
    _check_bot(table, player, number)
    spec = get_game(table.game)
    if spec is None or level not in spec.bot_levels:
        levels = ", ".join(spec.bot_levels) if spec and spec.bot_levels else gettext("none")
        raise TableError(
            "BAD_BOT",
            gettext("Unknown bot level %(level)s; this game has: %(levels)s.")
            % {"level": repr(level), "levels": levels},
        )
    if table.is_competitive:
        raise TableError(
            "BOT_AT_COMPETITIVE", gettext("Bots play only at friendly tables: their games are never scored.")
        )
    if table.seats.filter(number=number).exists():
        raise TableError("SEAT_TAKEN", gettext("Seat %(seat)s is taken.") % {"seat": number})
    seat = Seat.objects.create(
        table=table, number=number, bot_level=level, name=bot_name_for(number), ready=True
    )
    broadcast.table_changed(table.pk)
    return seat


@transaction.atomic
def bot_remove(*, table_id: int, player: PlayerRef | None, number: int) -> None:
    table = _lock(table_id)
    _check_bot(table, player, number)
    deleted, _ = table.seats.filter(number=number).exclude(bot_level="").delete()
    if not deleted:
        raise TableError("NOT_A_BOT", gettext("Seat %(seat)s holds no bot.") % {"seat": number})
    _hand_over_or_close(table)
    broadcast.table_changed(table.pk)


@transaction.atomic
def practice_create(*, player: PlayerRef | None, game: str, ip: str | None = None) -> Table:
    """A friendly table for one person against a bot (bots, for a game of three or
    more), ready to start."""
    spec = get_game(game)
    if spec is None or not spec.bot_levels:
        raise TableError("NO_BOTS", gettext("This game has no bots to practise against."))
    if player is not None:
        # Practising again goes back to the practice table one has open, rather than
        # opening one more (a host has only TABLES_PER_HOST).
        hosted = Table.objects.filter(status=Table.Status.OPEN, game=game, stake=0, seats__bot_level__gt="")
        hosted = (
            hosted.filter(host_user_id=player.user_id)
            if player.user_id is not None
            else hosted.filter(host_user__isnull=True, host_guest_token=player.guest_token)
        )
        table = hosted.order_by("-created_at").first()
        if table is not None and _seat_of(table, player) is not None:
            seat_ready(table_id=table.pk, player=player, ready=True)
            return table
    options = spec.options_form.defaults()
    seats = max(2, spec.min_seats)  # one bot, or as many as the game needs at least
    table = table_create(
        player=player,
        game=game,
        options=options,
        seats_total=seats,
        name_kind=Table.NameKind.PRACTICE,
        ip=ip,
    )
    for number in range(2, seats + 1):
        bot_add(
            table_id=table.pk, player=player, number=number, level=spec.bot_levels[len(spec.bot_levels) // 2]
        )
    seat_ready(table_id=table.pk, player=player, ready=True)
    return table


@transaction.atomic
def solo_create(*, player: PlayerRef | None, game: str, ip: str | None = None) -> Table:
    """A friendly table of one seat for a game's solo variant (its ``solo`` option),
    ready to start."""
    spec = get_game(game)
    if spec is None or "solo" not in spec.options_form.defaults():
        raise TableError("NO_SOLO", gettext("This game has no solo variant."))
    if player is not None:
        # Playing solo again goes back to the solo table one has open (a host has only
        # TABLES_PER_HOST).
        hosted = Table.objects.filter(status=Table.Status.OPEN, game=game, stake=0, seats_total=1)
        hosted = (
            hosted.filter(host_user_id=player.user_id)
            if player.user_id is not None
            else hosted.filter(host_user__isnull=True, host_guest_token=player.guest_token)
        )
        for table in hosted.order_by("-created_at"):
            if table.options.get("solo") and _seat_of(table, player) is not None:
                seat_ready(table_id=table.pk, player=player, ready=True)
                return table
    table = table_create(
        player=player,
        game=game,
        options={**spec.options_form.defaults(), "solo": True},
        seats_total=1,
        name_kind=Table.NameKind.SOLO,
        ip=ip,
    )
    seat_ready(table_id=table.pk, player=player, ready=True)
    return table
