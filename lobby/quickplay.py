"""Quick play (issue 32): "Play now" puts a person in a game's queue, and the matcher
seats people of close ratings at a new table of the game's default options and starts
it. Writes, as in lobby/services.py; refusals are ``TableError``s.

The queue is rows in the database (``QueueEntry``, one per person), never a list in a
process: with several Daphne processes on PostgreSQL each may run the matcher at once,
and each claims the rows it matches with ``select_for_update(skip_locked=True)``, so a
row locked by one matcher is left to it by the others and nobody is matched twice
(SQLite, which has no row locks, runs one writer at a time).

Who runs the matcher: the join itself (two compatible players meet as the second
presses Play now), and every look of the waiting page, which asks every
``POLL_SECONDS`` (htmx). So whenever somebody waits, somebody's page runs the matcher
at least that often, and a window that widened is used within ``POLL_SECONDS``. No
background task: nothing to start, stop or keep alive in the hosting processes, and
when nobody's page asks, nobody is waiting (an entry whose page stopped asking for
``STALE_SECONDS`` is dropped: the page was closed). The lobby asks too, for one who
went Back from the wait page to it: its banner says the place is kept, and asks as the
wait page does, until the player leaves the queue, is matched, or closes the lobby too
(lobby/views.py ``queue_banner``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext

from accounts.identity import PlayerRef
from accounts.models import User
from games.ratings import matching_rating
from games.registry import GAMES, GameSpec, get_game
from lobby.broadcast import identity_key
from lobby.models import QueueEntry, Seat, Table
from lobby.selectors import rematch_offered
from lobby.services import (
    TableError,
    chips_available,
    seat_leave,
    seat_ready,
    seat_take,
    table_create,
    table_start,
)

# --- The matcher's numbers, all in one place (our choices) ----------------------------
# Ratings are openskill's mu (games.ratings.matching_rating: 25 for a new player); one
# point of mu is 40 shown rating points (games.core.rating.SHOWN_PER_MU).
RATING_WINDOW_MU = 2.5  # a newcomer is matched within 2.5 mu: 100 shown points
RATING_WINDOW_MU_PER_SECOND = 0.5  # and 0.5 mu more a second waited: 100 points per 5 s
POLL_SECONDS = 2  # the waiting page asks this often (and so runs the matcher)
STALE_SECONDS = 10  # an entry whose page has not asked for this long is dropped
OFFER_BOT_AFTER_SECONDS = 20  # then the page offers a bot instead, or keeping on waiting
MATCHED_KEPT_SECONDS = 120  # a matched entry waits this long for its page to follow it
# The stakes a competitive quick game may be played for (0: friendly). Few, so that the
# people who want one meet in its queue rather than each in a queue of their own number.
STAKES = (0, 10, 50, 100)


def rating_window(waited_seconds: float) -> float:
    """How far apart (in mu) two ratings may be for a player who has waited so long."""
    return RATING_WINDOW_MU + RATING_WINDOW_MU_PER_SECOND * max(0.0, waited_seconds)


def players_per_match(spec: GameSpec) -> int:
    """Two players; a game that needs more (Block-Killer: 3) gets the fewest it needs.
    The fewest keep the wait short; a larger game is a table with options away."""
    return max(2, spec.min_seats)


class Waiter(Protocol):
    rating: float
    joined_at: dt.datetime


W = TypeVar("W", bound=Waiter)


@dataclass(frozen=True)
class Waiting:
    """A waiter as the pairing reads one (a ``QueueEntry`` has the same fields)."""

    name: str
    rating: float
    joined_at: dt.datetime


def pairings(waiting: Sequence[W], size: int, now: dt.datetime) -> list[list[W]]:
    """Groups of ``size`` to seat together, from those waiting for one game at one stake.

    The longest waiter first: with the nearest ratings within its window (which has
    widened the most), nearest first, then the next longest waiter of those left. A
    waiter whose window holds too few stays waiting."""
    left = sorted(waiting, key=lambda w: w.joined_at)
    groups: list[list[W]] = []
    while len(left) >= size:
        oldest = left.pop(0)
        reach = rating_window((now - oldest.joined_at).total_seconds())
        near = sorted(
            (w for w in left if abs(w.rating - oldest.rating) <= reach),
            key=lambda w: (abs(w.rating - oldest.rating), w.joined_at),
        )[: size - 1]
        if len(near) == size - 1:
            groups.append([oldest, *near])
            chosen = {id(w) for w in near}
            left = [w for w in left if id(w) not in chosen]
    return groups


# --- Joining and leaving ---------------------------------------------------------------


def _ref(entry: Matched) -> PlayerRef:
    return PlayerRef(user_id=entry.user_id, guest_token=entry.guest_token, name=entry.name)


def _live_seats(user_id: int | None, guest_token: str):
    seats = Seat.objects.filter(table__status__in=(Table.Status.OPEN, Table.Status.RUNNING))
    return seats.filter(user_id=user_id) if user_id is not None else seats.filter(guest_token=guest_token)


def _stand_up_after_games(player: PlayerRef) -> None:
    """Seats at open tables whose game is over are left: a player back from a finished
    game who presses Play now means to play someone new, not the rematch."""
    for seat in _live_seats(player.user_id, player.guest_token).filter(table__status=Table.Status.OPEN):
        if rematch_offered(seat.table):
            seat_leave(table_id=seat.table_id, player=player)


def _check_may_queue(player: PlayerRef, stake: int) -> None:
    seat = _live_seats(player.user_id, player.guest_token).select_related("table").first()
    if seat is not None:
        table = seat.table
        if table.status == Table.Status.RUNNING:
            raise TableError(
                "ALREADY_PLAYING",
                gettext("You are playing at %(table)s: finish or leave that game first.") % {"table": table.title},
            )
        raise TableError(
            "SEATED_ELSEWHERE",
            gettext("You have a seat at %(table)s, which waits for players: stand up there first.")
            % {"table": table.title},
        )
    if stake and chips_available(player.user_id, lock=True) < stake:
        raise TableError(
            "NOT_ENOUGH_CHIPS",
            gettext("A stake of %(stake)s chips needs that many free chips.") % {"stake": stake},
        )


def queue_join(
    *, player: PlayerRef | None, game: str, stake: int = 0, ip: str | None = None, now: dt.datetime | None = None
) -> QueueEntry:
    """Put the player in ``game``'s queue (friendly, or competitive at ``stake`` chips
    for an account), then run the matcher for that game. A player waits in one queue:
    joining another moves them there; pressing Play now again (or reloading) for the
    same game keeps their place."""
    now = now or timezone.now()
    entry = _join(player=player, game=game, stake=stake, ip=ip, now=now)
    queue_match(game=game, now=now)
    return QueueEntry.objects.filter(pk=entry.pk).select_related("table").first() or entry


@transaction.atomic
def _join(*, player: PlayerRef | None, game: str, stake: int, ip: str | None, now: dt.datetime) -> QueueEntry:
    if get_game(game) is None:
        raise TableError("NO_SUCH_GAME", gettext("There is no such game."))
    if player is None:
        raise TableError("WHO_ARE_YOU", gettext("Log in, or choose a guest name, to play."))
    if stake not in STAKES:
        raise TableError(
            "BAD_STAKE",
            gettext("Quick games are friendly or played for %(stakes)s chips.")
            % {"stakes": ", ".join(str(n) for n in STAKES if n)},
        )
    if stake and player.is_guest:
        raise TableError(
            "GUEST_AT_COMPETITIVE",
            gettext("Competitive tables are for signed-in players. Sign up to play for chips."),
        )
    key = identity_key(player.user_id, player.guest_token)
    # Locks in the matcher's order, the entry before the account: a matcher holding the
    # entry finishes first, and its seats are then seen by the check below.
    entry = QueueEntry.objects.select_for_update().filter(player_key=key).first()
    if player.user_id is not None:
        User.objects.select_for_update().only("id").get(pk=player.user_id)
    _stand_up_after_games(player)
    _check_may_queue(player, stake)
    if entry is not None and entry.table_id is None and entry.game == game and entry.stake == stake:
        entry.seen_at = now  # the same queue: the same place in it
        entry.save(update_fields=["seen_at"])
        return entry
    fields = {
        "user_id": player.user_id, "guest_token": player.guest_token, "name": player.name, "ip": ip,
        "game": game, "stake": stake, "rating": matching_rating(player.user_id, game),
        "joined_at": now, "seen_at": now, "keep_waiting": False, "table": None, "matched_at": None,
    }
    if entry is not None:  # another game's queue, or a match already followed: a new place
        for name, value in fields.items():
            setattr(entry, name, value)
        entry.save()
        return entry
    try:
        with transaction.atomic():
            return QueueEntry.objects.create(player_key=key, **fields)
    except IntegrityError:
        # The same guest joined from another tab at the same instant: one row, theirs.
        QueueEntry.objects.filter(player_key=key).update(**fields)
        return QueueEntry.objects.get(player_key=key)


@transaction.atomic
def queue_leave(*, player: PlayerRef | None) -> Table | None:
    """Leave the queue. Returns the table when the player was matched meanwhile (the
    caller takes them there), else None; leaving a queue one is not in does nothing."""
    if player is None:
        return None
    entry = (
        QueueEntry.objects.select_for_update()
        .filter(player_key=identity_key(player.user_id, player.guest_token))
        .select_related("table")
        .first()
    )
    if entry is None:
        return None
    if entry.table_id is not None:
        return entry.table
    entry.delete()
    return None


def queue_poll(*, player: PlayerRef | None, now: dt.datetime | None = None) -> QueueEntry | None:
    """The waiting page looks: the player is still there (``seen_at``), and the matcher
    runs for their game. Returns their entry, or None when they wait for nothing. A
    matched entry is returned once, with its table, and leaves the queue: the page
    follows the player to the table, and Back from there finds no queue to return to."""
    if player is None:
        return None
    now = now or timezone.now()
    key = identity_key(player.user_id, player.guest_token)
    QueueEntry.objects.filter(player_key=key, table__isnull=True).update(seen_at=now)
    game = QueueEntry.objects.filter(player_key=key).values_list("game", flat=True).first()
    if game is None:
        return None
    queue_match(game=game, now=now)
    entry = QueueEntry.objects.filter(player_key=key).select_related("table").first()
    if entry is not None and entry.table_id is not None:
        QueueEntry.objects.filter(pk=entry.pk, table_id=entry.table_id).delete()
    return entry


def queue_game_of(*, player: PlayerRef | None) -> str | None:
    """The game whose queue the player is in (waiting or matched), or None."""
    if player is None:
        return None
    key = identity_key(player.user_id, player.guest_token)
    return QueueEntry.objects.filter(player_key=key).values_list("game", flat=True).first()


def fresh_since(now: dt.datetime) -> dt.datetime:
    """Entries whose page asked after this are still waiting (``STALE_SECONDS``)."""
    return now - dt.timedelta(seconds=STALE_SECONDS)


def queue_keep_waiting(*, player: PlayerRef | None) -> None:
    """The player declined the bot the page offered: it is not offered again."""
    if player is not None:
        QueueEntry.objects.filter(
            player_key=identity_key(player.user_id, player.guest_token), table__isnull=True
        ).update(keep_waiting=True)


# --- The matcher -----------------------------------------------------------------------


def queue_match(*, game: str | None = None, now: dt.datetime | None = None) -> list[Table]:
    """Match whoever can be matched in ``game``'s queue (or every game's); returns the
    tables started. Entries gone stale first leave the queue (see the module)."""
    now = now or timezone.now()
    QueueEntry.objects.filter(
        Q(table__isnull=True, seen_at__lt=fresh_since(now))
        | Q(table__isnull=False, matched_at__lt=now - dt.timedelta(seconds=MATCHED_KEPT_SECONDS))
    ).delete()
    tables: list[Table] = []
    for kind in [game] if game else list(GAMES):
        spec = get_game(kind)
        waiting = QueueEntry.objects.filter(game=kind, table__isnull=True, seen_at__gte=fresh_since(now))
        # Read first: a queue too short for a table takes no lock (SQLite's is the whole file).
        if spec is not None and waiting.count() >= players_per_match(spec):
            tables.extend(_match_game(spec, now))
    return tables


@transaction.atomic
def _match_game(spec: GameSpec, now: dt.datetime) -> list[Table]:
    size = players_per_match(spec)
    claimed = list(
        QueueEntry.objects.select_for_update(skip_locked=True)
        .filter(game=spec.slug, table__isnull=True, seen_at__gte=fresh_since(now))
        .order_by("joined_at", "pk")
    )
    if len(claimed) < size:
        return []
    by_stake: dict[int, list[QueueEntry]] = {}
    for entry in claimed:  # friendly and each stake are queues of their own
        by_stake.setdefault(entry.stake, []).append(entry)
    tables = []
    for stake, waiting in by_stake.items():
        for group in pairings(waiting, size, now):
            table = _seat_and_start(spec, stake, group)
            if table is None:
                continue
            QueueEntry.objects.filter(pk__in=[e.pk for e in group]).update(table=table, matched_at=now)
            tables.append(table)
    return tables


def _seat_and_start(spec: GameSpec, stake: int, group: list[QueueEntry]) -> Table | None:
    """A new table of the game's default options for the group (``seat_and_start``);
    whoever may no longer play leaves the queue, and the others wait on."""
    table, unable = seat_and_start(spec, stake, group, options=spec.options_form.defaults())
    QueueEntry.objects.filter(pk__in=[e.pk for e in unable]).delete()
    return table


class Matched(Protocol):
    """Someone matched, as ``seat_and_start`` reads them (a ``QueueEntry``, an
    ``ArenaPlayer``)."""

    user_id: int | None
    guest_token: str
    name: str
    ip: str | None


M = TypeVar("M", bound=Matched)


def seat_and_start(
    spec: GameSpec, stake: int, group: Sequence[M], *, options: dict, arena_id: int | None = None
) -> tuple[Table | None, list[M]]:
    """A new table of ``options`` for the group, the first its host, everybody seated and
    ready, and its game started (after the usual countdown) with the stakes taken as at
    any competitive table; an arena's table (``arena_id``) names its arena.

    Returns the table, or None and who may no longer play (seated elsewhere meanwhile,
    chips spent): then nothing is made. If the table still cannot be made, its host may
    open no more tables (``TABLES_PER_HOST``, or per address): the host cannot play."""
    unable: list[M] = []
    for entry in group:
        try:
            with transaction.atomic():
                _check_may_queue(_ref(entry), stake)
        except TableError:
            unable.append(entry)
    if not unable:
        try:
            with transaction.atomic():
                host = group[0]
                table = table_create(
                    player=_ref(host), game=spec.slug, options=options,
                    seats_total=len(group), stake=stake, ip=host.ip,
                )
                if arena_id is not None:
                    Table.objects.filter(pk=table.pk).update(arena_id=arena_id)
                for number, entry in enumerate(group[1:], start=2):
                    seat_take(table_id=table.pk, player=_ref(entry), number=number, ip=entry.ip)
                for entry in group:
                    seat_ready(table_id=table.pk, player=_ref(entry), ready=True)
                return table_start(table_id=table.pk, player=_ref(host)), []
        except TableError:
            unable = [group[0]]
    return None, unable
