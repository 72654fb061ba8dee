"""Arenas (issue 51): tournaments of one game that players join and leave at will,
paired again as each of their games ends. Writes, as in lobby/services.py; the rules
(points, streaks, standings, prizes, pairing) are games/core/arena.py's; refusals are
``ArenaError``s with a code and a sentence in the reader's language.

As quick play's queue (lobby/quickplay.py), the arena's queue is rows in the database
(``ArenaPlayer.waiting_since``), never a list in a process: every process may pair
at once, each claiming the rows it pairs with ``select_for_update(skip_locked=True)``
on PostgreSQL (SQLite runs one writer at a time), and the tables are made and started
by quick play's own ``seat_and_start``. Nothing runs in the background: an arena moves
on (starts, pairs, ends, pays) whenever somebody looks at it (its page asks every
``POLL_SECONDS``) or one of its games ends (``arena_tick``).
"""

from __future__ import annotations

import datetime as dt
import logging
import secrets
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Count
from django.template.loader import render_to_string
from django.utils import timezone, translation
from django.utils.html import escape
from django.utils.translation import gettext, gettext_noop, ngettext

from accounts.identity import PlayerRef
from accounts.models import ChipTransaction, ModerationAction, User
from accounts.services import chips_change
from config import sends
from games.core import arena as rules
from games.core.errors import Refusal
from games.core.ranking import shared_ip
from games.ratings import matching_rating
from games.refusals import refusal_text
from games.registry import GAMES, GameSpec, get_game
from lobby import broadcast
from lobby.broadcast import Batched, arena_group, identity_key
from lobby.models import Arena, ArenaPlayer, ArenaSchedule, Seat, Table, Watcher
from lobby.quickplay import players_per_match, seat_and_start
from lobby.services import chips_available

log = logging.getLogger(__name__)

POLL_SECONDS = 2  # an arena page asks this often (and so moves its arena on)
FULL_TABLE_PATIENCE = 6.0  # seconds the rest waits for a full table before a smaller one
RESULTS_SECONDS = 4.0  # after a game its players see the results this long before the next
PAIRING_SECONDS = 1.0  # an arena's pairing runs at most this often in a process
_paired_at: dict[int, dt.datetime] = {}  # arena id → its last pairing in this process
JOIN_WINDOW = dt.timedelta(hours=1)  # an arena may be joined this long before its start
SCHEDULE_AHEAD = dt.timedelta(days=7)  # a weekly arena's next one is made this far ahead
OPEN_ARENAS_PER_PLAYER = 2  # friendly arenas a player may have made that have not ended
TITLE_MAX = 80
ARENA_TABLE_CLOSED = gettext_noop("The arena game is over.")
ACTIVE = (Arena.Status.SCHEDULED, Arena.Status.RUNNING)
clock = timezone.now  # the arenas' time (tests set their own)


class ArenaError(Refusal):
    """What an arena will not do: a second join, a fee without the chips, …"""


# --- Reading ----------------------------------------------------------------------------


def arena_of(arena_id: Any, *, lock: bool = False) -> Arena:
    """The arena, or NO_SUCH_ARENA for an id that names none (forged, malformed)."""
    try:
        number = int(arena_id)
    except (TypeError, ValueError):
        number = 0
    query = Arena.objects.select_for_update() if lock else Arena.objects
    arena = query.filter(pk=number).first() if number > 0 else None
    if arena is None:
        raise ArenaError("NO_SUCH_ARENA", gettext("There is no such arena."))
    return arena


def entry_of(arena: Arena, player: PlayerRef | None, *, lock: bool = False) -> ArenaPlayer | None:
    if player is None:
        return None
    query = ArenaPlayer.objects.select_for_update() if lock else ArenaPlayer.objects
    return query.filter(arena=arena, player_key=identity_key(player.user_id, player.guest_token)).first()


# games/core/arena.py ``standings_key`` in SQL, for the board: 300 players sorted by the
# database and read as tuples, the top 50 as rows (tests/lobby/test_arenas.py holds the
# two orders equal).
STANDINGS_ORDER = ("-points", "games", "-rating", "pk")


def ranked(arena: Arena):
    """The arena's players, best first, as a query."""
    return ArenaPlayer.objects.filter(arena=arena).order_by(*STANDINGS_ORDER)


def standings(arena: Arena) -> list[ArenaPlayer]:
    """Every player of the arena, best first (games/core/arena.py ``standings``)."""
    return rules.standings(ArenaPlayer.objects.filter(arena=arena))


def game_spec(arena: Arena | ArenaSchedule) -> GameSpec:
    spec = get_game(arena.game)
    assert spec is not None, arena.game
    return spec


def table_size(spec: GameSpec, seats: int | None) -> int:
    """Players at an arena's tables: as chosen (Third Option and Te-Trix up to their
    seats), by default as quick play seats the game (two; three for Block-Killer)."""
    if seats is None:
        return players_per_match(spec)
    if not isinstance(seats, int) or not max(2, spec.min_seats) <= seats <= spec.max_seats:
        raise ArenaError(
            "BAD_SEATS",
            gettext("%(game)s arenas are for tables of %(low)s to %(high)s players.")
            % {"game": spec.name, "low": max(2, spec.min_seats), "high": spec.max_seats},
        )
    return seats


# --- Creating ---------------------------------------------------------------------------


def clean_options(spec: GameSpec, options: dict | None) -> dict:
    """The arena's options: the game's defaults and what was chosen, as the game's
    engine reads them."""
    wanted = {**spec.options_form.defaults(), **(options or {})}
    if wanted.get("solo"):
        raise ArenaError("BAD_OPTIONS", gettext("An arena is played against others, not solo."))
    try:
        return spec.options_form.Options.from_dict(wanted).to_dict()
    except (ValueError, TypeError) as err:
        raise ArenaError("BAD_OPTIONS", refusal_text(f"Bad table options: {err}", "BAD_OPTIONS")) from None


@transaction.atomic
def arena_create(
    *,
    by: User,
    title: str,
    game: str,
    starts_at: dt.datetime,
    minutes: int,
    fee: int = 0,
    options: dict | None = None,
    seats: int | None = None,
    schedule: ArenaSchedule | None = None,
    now: dt.datetime | None = None,
) -> Arena:
    """A new arena. Staff may ask an entry fee; a player makes friendly ones only, at
    most ``OPEN_ARENAS_PER_PLAYER`` not yet ended."""
    now = now or clock()
    spec = get_game(game)
    if spec is None:
        raise ArenaError("NO_SUCH_GAME", gettext("There is no such game."))
    title = (title or "").strip()
    if not title or len(title) > TITLE_MAX:
        raise ArenaError("BAD_TITLE", gettext("An arena needs a title of at most %(n)s characters.") % {"n": TITLE_MAX})
    if not isinstance(minutes, int) or not rules.MIN_MINUTES <= minutes <= rules.MAX_MINUTES:
        raise ArenaError(
            "BAD_LENGTH",
            gettext("An arena lasts %(low)s to %(high)s minutes.") % {"low": rules.MIN_MINUTES, "high": rules.MAX_MINUTES},
        )
    if starts_at < now - dt.timedelta(minutes=1):
        raise ArenaError("IN_THE_PAST", gettext("An arena cannot start in the past."))
    if not isinstance(fee, int) or fee < 0:
        raise ArenaError("BAD_FEE", gettext("An entry fee is a whole number of chips."))
    if not by.is_staff:
        if fee:
            raise ArenaError("FEE_FOR_STAFF", gettext("Only the site's staff may hold arenas with an entry fee."))
        User.objects.select_for_update().only("id").get(pk=by.pk)  # one count at a time per player
        open_ones = Arena.objects.filter(created_by=by, status__in=ACTIVE).count()
        if open_ones >= OPEN_ARENAS_PER_PLAYER:
            raise ArenaError(
                "TOO_MANY_ARENAS",
                gettext("You already hold %(n)s arenas that have not ended.") % {"n": open_ones},
            )
    arena = Arena.objects.create(
        title=title, game=game, options=clean_options(spec, options), seats=table_size(spec, seats),
        starts_at=starts_at, minutes=minutes, fee=fee, schedule=schedule, created_by=by,
    )
    if by.is_staff:
        _moderation(by, ModerationAction.Action.CREATE_ARENA, arena, "")
    return arena


def _moderation(by: User, action: str, arena: Arena, reason: str) -> None:
    ModerationAction.objects.create(admin=by, action=action, arena_id=arena.pk, reason=reason[:200])


def arena_edited(*, arena: Arena, by: User) -> None:
    """Staff changed an arena in the admin: only before its start."""
    if arena.status != Arena.Status.SCHEDULED or arena.starts_at <= clock():
        raise ArenaError("ALREADY_STARTED", gettext("An arena cannot be changed once it has started."))
    _moderation(by, ModerationAction.Action.EDIT_ARENA, arena, "")


def next_weekly(schedule: ArenaSchedule, after: dt.datetime) -> dt.datetime:
    """The first start of the weekly arena after ``after`` (UTC)."""
    after = after.astimezone(dt.UTC)
    day = after.date() + dt.timedelta(days=(schedule.weekday - after.weekday()) % 7)
    start = dt.datetime.combine(day, schedule.time_utc, tzinfo=dt.UTC)
    if start <= after:
        start += dt.timedelta(days=7)
    return start


def arenas_scheduled(*, now: dt.datetime | None = None) -> list[Arena]:
    """Make each active weekly arena's next one, once (a unique slot: two processes that
    both try make one)."""
    now = now or clock()
    made = []
    for schedule in ArenaSchedule.objects.filter(active=True):
        start = next_weekly(schedule, now)
        if start - now > SCHEDULE_AHEAD or Arena.objects.filter(schedule=schedule, starts_at=start).exists():
            continue
        try:
            with transaction.atomic():
                made.append(
                    Arena.objects.create(
                        title=schedule.title, game=schedule.game, options=schedule.options,
                        seats=table_size(game_spec(schedule), schedule.seats), starts_at=start,
                        minutes=schedule.minutes, fee=schedule.fee, schedule=schedule,
                    )
                )
        except IntegrityError:
            pass  # another process made it
    return made


# --- Joining, pausing, leaving -----------------------------------------------------------


def _check_open(arena: Arena, now: dt.datetime) -> None:
    if arena.status == Arena.Status.CANCELLED:
        raise ArenaError("ARENA_CANCELLED", gettext("This arena was cancelled."))
    if arena.status == Arena.Status.FINISHED or now >= arena.ends_at:
        raise ArenaError("ARENA_OVER", gettext("This arena is over."))
    if now < arena.starts_at - JOIN_WINDOW:
        raise ArenaError(
            "TOO_EARLY",
            gettext("This arena may be joined from %(time)s UTC.")
            % {"time": (arena.starts_at - JOIN_WINDOW).astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M")},
        )


@transaction.atomic
def arena_join(
    *, arena_id: Any, player: PlayerRef | None, ip: str | None = None, now: dt.datetime | None = None
) -> ArenaPlayer:
    """Join the arena (paying its fee, once), or come back to it after a pause or a leave."""
    now = now or clock()
    if player is None:
        raise ArenaError("WHO_ARE_YOU", gettext("Log in, or choose a guest name, to play."))
    arena = arena_of(arena_id, lock=True)
    _check_open(arena, now)
    if arena.fee and player.is_guest:
        raise ArenaError(
            "GUEST_AT_FEE", gettext("Arenas with an entry fee are for signed-in players. Sign up to play for chips.")
        )
    entry = entry_of(arena, player, lock=True)
    if entry is not None:
        if entry.status == ArenaPlayer.Status.ACTIVE:
            raise ArenaError("ALREADY_JOINED", gettext("You are in this arena already."))
        entry.status = ArenaPlayer.Status.ACTIVE  # back after a pause or a leave: no second fee
        entry.waiting_since = now if entry.table_id is None else None
        entry.save(update_fields=["status", "waiting_since"])
        board_changed(arena.pk)
        return entry
    fee_paid = 0
    if arena.fee:
        user = User.objects.select_for_update().get(pk=player.user_id)
        if chips_available(user.pk) < arena.fee:
            raise ArenaError(
                "NOT_ENOUGH_CHIPS", gettext("This arena's entry fee is %(fee)s chips.") % {"fee": arena.fee}
            )
        chips_change(user=user, delta=-arena.fee, reason=ChipTransaction.Reason.ARENA_FEE, note=f"Arena #{arena.pk}")
        fee_paid = arena.fee
        Arena.objects.filter(pk=arena.pk).update(pool=arena.pool + fee_paid)
    entry = ArenaPlayer.objects.create(
        arena=arena, player_key=identity_key(player.user_id, player.guest_token), user_id=player.user_id,
        guest_token=player.guest_token if player.is_guest else "", name=player.name, ip=ip,
        rating=matching_rating(player.user_id, arena.game), fee_paid=fee_paid,
        waiting_since=now,
    )
    if fee_paid:
        broadcast.chips_changed([player.user_id])
    board_changed(arena.pk)
    return entry


def _mine(arena: Arena, player: PlayerRef | None, whose: Any) -> ArenaPlayer:
    entry = entry_of(arena, player, lock=True)
    if whose not in (None, "") and (entry is None or str(whose) != str(entry.pk)):
        raise ArenaError("NOT_YOURS", gettext("You may pause or leave only yourself."))
    if entry is None or entry.status == ArenaPlayer.Status.LEFT:
        raise ArenaError("NOT_JOINED", gettext("You are not in this arena."))
    return entry


@transaction.atomic
def arena_pause(*, arena_id: Any, player: PlayerRef | None, whose: Any = None) -> ArenaPlayer:
    """No more games for now (the one being played goes on); Join again to come back."""
    arena = arena_of(arena_id, lock=True)
    entry = _mine(arena, player, whose)
    if entry.status == ArenaPlayer.Status.PAUSED:
        raise ArenaError("ALREADY_PAUSED", gettext("You have paused already."))
    entry.status, entry.waiting_since = ArenaPlayer.Status.PAUSED, None
    entry.save(update_fields=["status", "waiting_since"])
    board_changed(arena.pk)
    return entry


@transaction.atomic
def arena_leave(
    *, arena_id: Any, player: PlayerRef | None, whose: Any = None, now: dt.datetime | None = None
) -> ArenaPlayer:
    """Leave the arena: before its start with the fee back; after it, the score stays in
    the standings and the fee in the pool (Join again to come back)."""
    now = now or clock()
    arena = arena_of(arena_id, lock=True)
    entry = _mine(arena, player, whose)
    entry.status, entry.waiting_since = ArenaPlayer.Status.LEFT, None
    if entry.fee_paid and now < arena.starts_at and arena.status == Arena.Status.SCHEDULED:
        _refund(arena, entry, "left before the start")
        entry.delete()
    else:
        entry.save(update_fields=["status", "waiting_since"])
    board_changed(arena.pk)
    return entry


def _refund(arena: Arena, entry: ArenaPlayer, why: str) -> None:
    """The entry's fee back, once (its ``fee_paid`` becomes 0); the arena row is locked."""
    if not entry.fee_paid:
        return
    user = User.objects.get(pk=entry.user_id)
    chips_change(user=user, delta=entry.fee_paid, reason=ChipTransaction.Reason.ARENA_REFUND, note=f"Arena #{arena.pk}: {why}")
    Arena.objects.filter(pk=arena.pk).update(pool=arena.pool - entry.fee_paid)
    arena.pool -= entry.fee_paid
    ArenaPlayer.objects.filter(pk=entry.pk).update(fee_paid=0)
    entry.fee_paid = 0


@transaction.atomic
def arena_cancel(*, arena_id: Any, by: User, reason: str = "") -> Arena:
    """Staff cancel an arena: every fee back, once; its games go on, uncounted."""
    arena = arena_of(arena_id, lock=True)
    if arena.status in (Arena.Status.FINISHED, Arena.Status.CANCELLED):
        raise ArenaError("ARENA_OVER", gettext("This arena is over."))
    refunded = []
    for entry in ArenaPlayer.objects.select_for_update().filter(arena=arena, fee_paid__gt=0).order_by("user_id"):
        _refund(arena, entry, "cancelled")
        refunded.append(entry.user_id)
    ArenaPlayer.objects.filter(arena=arena).update(waiting_since=None)
    arena.status, arena.cancelled_reason = Arena.Status.CANCELLED, (reason or "")[:200]
    arena.finished_at = clock()
    arena.save(update_fields=["status", "cancelled_reason", "finished_at"])
    _moderation(by, ModerationAction.Action.CANCEL_ARENA, arena, reason)
    board_changed(arena.pk)
    if refunded:
        transaction.on_commit(lambda: broadcast.chips_changed(refunded))
    return arena


# --- Moving on: the start, the pairing, the end ------------------------------------------


def arena_tick(*, arena_id: Any, now: dt.datetime | None = None) -> Arena:
    """Move the arena on to ``now``: start it, pair whoever waits, end it and pay its
    prizes once its time is up and its last games are over. Safe to call from any
    process at any time (each step locks what it changes)."""
    now = now or clock()
    arena = arena_of(arena_id)
    if arena.status == Arena.Status.SCHEDULED and now >= arena.starts_at:
        if Arena.objects.filter(pk=arena.pk, status=Arena.Status.SCHEDULED).update(status=Arena.Status.RUNNING):
            arena_news.changed(arena.pk)
        arena.refresh_from_db()
    if arena.status != Arena.Status.RUNNING:
        return arena
    if now < arena.ends_at - dt.timedelta(seconds=rules.QUIET_SECONDS):
        # Every page of the arena looks every POLL_SECONDS: the pairing runs at most
        # every PAIRING_SECONDS in a process, whoever looks.
        last = _paired_at.get(arena.pk)
        if last is None or not dt.timedelta(0) <= now - last < dt.timedelta(seconds=PAIRING_SECONDS):
            _paired_at[arena.pk] = now
            arena_pair(arena=arena, now=now)
    elif now >= arena.ends_at and not Table.objects.filter(arena=arena, status=Table.Status.RUNNING).exists():
        arena_finish(arena_id=arena.pk, now=now)
        arena.refresh_from_db()
    return arena


def forget_pairings() -> None:
    """As a new process: no arena paired yet (tests, whose arenas' numbers come again)."""
    _paired_at.clear()


def _waiter(entry: ArenaPlayer) -> ArenaPlayer:
    entry.key = entry.player_key
    entry.since = entry.waiting_since.timestamp() if entry.waiting_since else 0.0
    entry.last_opponents = frozenset(entry.last_opponents or ())
    return entry


@transaction.atomic
def arena_pair(*, arena: Arena, now: dt.datetime) -> list[Table]:
    """Seat whoever waits (games/core/arena.py ``pairings``) at new tables of the arena's
    game, started at once. Rows another process holds are left to it."""
    spec = game_spec(arena)
    size = arena.seats
    smallest = max(2, spec.min_seats)
    waiting = [
        _waiter(entry)
        for entry in ArenaPlayer.objects.select_for_update(skip_locked=True).filter(
            arena=arena, status=ArenaPlayer.Status.ACTIVE, waiting_since__lte=now, table__isnull=True
        )
    ]
    if len(waiting) < smallest:
        return []
    tables = []
    for group in rules.pairings(waiting, size, smallest, now=now.timestamp(), patience=FULL_TABLE_PATIENCE):
        table, unable = seat_and_start(spec, 0, group, options=arena.options, arena_id=arena.pk)
        if table is None:
            # seated elsewhere, or may open no more tables: paused until they come back
            ArenaPlayer.objects.filter(pk__in=[e.pk for e in unable]).update(
                status=ArenaPlayer.Status.PAUSED, waiting_since=None
            )
            continue
        ArenaPlayer.objects.filter(pk__in=[e.pk for e in group]).update(table=table, waiting_since=None)
        tables.append(table)
    if tables:
        board_changed(arena.pk)
    return tables


def arena_game_over(*, table_id: int, parts: list, outcome: Any | None) -> bool:
    """A game of an arena's table ended (games/services.py ``game_finish``, in its
    transaction; ``outcome`` None: aborted, in ``game_abort``'s). Whether it was an
    arena's (its table then closes rather than offering a rematch).

    Its players score (unless it was aborted, a bot played, two shared an address or
    the arena was cancelled), leave the table, and wait for their next game, unless
    they paused or their page is gone: then they are paused."""
    table = Table.objects.filter(pk=table_id).only("id", "arena_id").first()
    if table is None or table.arena_id is None:
        return False
    arena = Arena.objects.select_for_update().get(pk=table.arena_id)
    now = clock()
    tokens = dict(Seat.objects.filter(table_id=table_id).values_list("number", "guest_token"))
    keys = {p.seat: identity_key(p.user_id, "" if p.user_id else tokens.get(p.seat, "")) for p in parts}
    entries = {
        e.player_key: e
        for e in ArenaPlayer.objects.select_for_update().filter(arena=arena, player_key__in=list(keys.values()))
    }
    counted = (
        outcome is not None
        and arena.status == Arena.Status.RUNNING
        and not any(p.bot_level for p in parts)
        and not shared_ip([p.ip for p in parts])
    )
    places: dict[int, tuple[int, bool, bool]] = {}  # seat → place, sole first, forfeited
    if outcome is not None:
        sides = len(outcome.standings)
        firsts = sum(1 for standing in outcome.standings if standing.place == 1)
        for standing in outcome.standings:
            for seat in standing.seats:
                sole = standing.place == 1 and firsts == 1 and len(standing.seats) == 1
                places[seat] = (standing.place, sole, seat in standing.leavers)
    open_pages = _players_with_pages(table_id)
    Table.objects.filter(pk=table_id).update(status=Table.Status.CLOSED, closed_reason=ARENA_TABLE_CLOSED)
    for seat, key in keys.items():
        entry = entries.get(key)
        if entry is None:
            continue
        if counted and seat in places:
            place, sole, forfeited = places[seat]
            scored = rules.score(
                rules.Streak(entry.firsts, entry.on_fire), place=place, players=sides, sole_first=sole,
                forfeited=forfeited,
            )
            entry.points += scored.points
            entry.games += 1
            entry.firsts, entry.on_fire = scored.streak.firsts, scored.streak.on_fire
        entry.last_opponents = sorted(k for s, k in keys.items() if s != seat)
        entry.table = None
        if entry.status == ArenaPlayer.Status.ACTIVE and key not in open_pages:
            entry.status = ArenaPlayer.Status.PAUSED  # closed the page: paused after the game
        # the results in view a moment, then the next game (the pairing takes who is due)
        results = dt.timedelta(seconds=RESULTS_SECONDS)
        entry.waiting_since = now + results if entry.status == ArenaPlayer.Status.ACTIVE else None
        entry.save(
            update_fields=["points", "games", "firsts", "on_fire", "last_opponents", "table", "status", "waiting_since"]
        )
    transaction.on_commit(lambda: _after_game(arena.pk, table_id))
    board_changed(arena.pk)
    return True


def _players_with_pages(table_id: int) -> set[str]:
    rows = Watcher.objects.filter(table_id=table_id).values_list("user_id", "guest_token")
    return {identity_key(user_id, token) for user_id, token in rows}


def _after_game(arena_id: int, table_id: int) -> None:
    broadcast.table_changed(table_id)
    arena_tick(arena_id=arena_id)


@transaction.atomic
def arena_finish(*, arena_id: int, now: dt.datetime | None = None) -> Arena:
    """The arena is over: each player's final rank, and the pool to the podium (or back
    to everyone who paid, when nobody played a counted game). Once: a finished arena
    is left as it is."""
    now = now or clock()
    arena = Arena.objects.select_for_update().get(pk=arena_id)
    if arena.status != Arena.Status.RUNNING:
        return arena
    entries = list(ArenaPlayer.objects.select_for_update().filter(arena=arena))
    ranked = rules.standings(e for e in entries if e.games > 0)
    for rank, entry in enumerate(ranked, start=1):
        entry.rank = rank
    paid = []
    if arena.pool:
        if ranked:
            for entry, prize in zip(ranked, rules.prize_split(arena.pool, len(ranked)), strict=False):
                if prize:
                    chips_change(
                        user=User.objects.get(pk=entry.user_id), delta=prize,
                        reason=ChipTransaction.Reason.ARENA_PRIZE, note=f"Arena #{arena.pk}: place {entry.rank}",
                    )
                    entry.prize = prize
                    paid.append(entry.user_id)
            arena.pool = 0
        else:
            for entry in sorted(entries, key=lambda e: e.user_id or 0):
                if entry.fee_paid:
                    _refund(arena, entry, "nobody played")
                    paid.append(entry.user_id)
    ArenaPlayer.objects.bulk_update(entries, ["rank", "prize"])
    ArenaPlayer.objects.filter(arena=arena).update(waiting_since=None)
    arena.status, arena.finished_at = Arena.Status.FINISHED, now
    arena.save(update_fields=["status", "finished_at", "pool"])
    board_changed(arena.pk)
    if paid:
        transaction.on_commit(lambda: broadcast.chips_changed(paid))
    return arena


def arenas_listed(*, now: dt.datetime | None = None) -> list[Arena]:
    """The lobby's arenas: running, then the coming ones, soonest first."""
    now = now or clock()
    arenas_scheduled(now=now)
    listed = Arena.objects.filter(status__in=ACTIVE).order_by("starts_at", "pk")[:20]
    due = [a.pk for a in listed if a.starts_at <= now or a.ends_at <= now]
    for arena_id in due:  # started or over since anyone last looked
        arena_tick(arena_id=arena_id, now=now)
    if due:
        listed = Arena.objects.filter(status__in=ACTIVE).order_by("starts_at", "pk")[:20]
    running = [a for a in listed if a.status == Arena.Status.RUNNING]
    return running + [a for a in listed if a.status == Arena.Status.SCHEDULED]


def on_game_over(sender: Any, *, table_id: int, parts: list, outcome: Any | None, **kwargs: Any) -> bool:
    """games.services ``game_over``'s receiver (lobby/apps.py)."""
    return arena_game_over(table_id=table_id, parts=parts, outcome=outcome)


def time_text(seconds: float) -> str:
    """A wait or a time left as m:ss."""
    seconds = max(0, int(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"


def arena_cards(now: dt.datetime | None = None) -> list[dict]:
    """The lobby's arenas: running, then the coming ones (``arenas_listed``)."""
    now = now or clock()
    listed = arenas_listed(now=now)
    counts = dict(
        ArenaPlayer.objects.filter(arena__in=listed)
        .exclude(status=ArenaPlayer.Status.LEFT)
        .values_list("arena")
        .annotate(n=Count("id"))
    )
    return [
        {
            "arena": a, "spec": GAMES.get(a.game), "players": counts.get(a.pk, 0),
            "time_left": time_text((a.ends_at - now).total_seconds()),
            "starts_in": time_text((a.starts_at - now).total_seconds()),
        }
        for a in listed
    ]


def arena_history(user: User, limit: int = 20) -> list[ArenaPlayer]:
    """A player's arenas, latest first: their points, games, final rank and prize."""
    return list(
        ArenaPlayer.objects.filter(user=user, games__gt=0)
        .select_related("arena")
        .order_by("-arena__starts_at", "-pk")[:limit]
    )


# --- Live: the standings and games pushed to the arena's pages ----------------------------
ARENA_NEWS_SECONDS = 1.0  # an arena's board goes to its pages at most this often
SHOWN = 50  # the board's top rows (the reader's own place is in their own panel)


def board_context(arena: Arena) -> dict:
    """What the board of an arena's page shows, the same for every reader: the podium
    once it is over, the standings' top ``SHOWN``, the games running."""
    order = list(ranked(arena).values_list("player_key", "points"))
    top = list(enumerate(ranked(arena)[:SHOWN], start=1))
    return {
        "arena": arena,
        "places": {key: (n, points) for n, (key, points) in enumerate(order, start=1)},
        "rows": top,
        "players": len(order),
        "podium": [e for _, e in top if e.rank is not None][:3] if arena.status == Arena.Status.FINISHED else [],
        "games": list(
            Table.objects.filter(arena=arena, status=Table.Status.RUNNING).prefetch_related("seats").order_by("-pk")[:20]
        ),
    }


def board_in(language: str, arena_id: int) -> str:
    """The board, rendered for the pages of one language."""
    return _board(language, arena_id)[0]


def _board(language: str, arena_id: int) -> tuple[str, dict[str, tuple[int, int]]]:
    """The board in ``language``, and each player's place and points (by player key,
    for each page to show its reader's own: ``own_place_html``)."""
    arena = Arena.objects.filter(pk=arena_id).first()
    if arena is None:
        return "", {}
    context = board_context(arena)
    places = context.pop("places")
    with translation.override(language):
        html = render_to_string("lobby/arena.html#arena_board", {**context, "oob": True})
    return html, places


def own_place_html(place: int, points: int) -> str:
    """A page's reader's own place in the standings (the active language), as the
    arena page's panel shows it, for the board's pushes."""
    words = ngettext(
        "Your place: %(place)s, %(counter)s point", "Your place: %(place)s, %(counter)s points", points
    ) % {"place": place, "counter": points}
    return f'<span id="arena-my-place" hx-swap-oob="true">{escape(words)}</span>'


def own_place_in(language: str, place: int, points: int) -> str:
    with translation.override(language):
        return own_place_html(place, points)


def send_boards(arena_ids) -> None:
    """Each arena's board (and its players' places) to its pages, as it stands now."""
    for arena_id in arena_ids:
        try:
            html, places = _board(settings.LANGUAGE_CODE, arena_id)
            sends.group_send(
                arena_group(arena_id),
                {"type": "arena.board", "html": html, "arena_id": arena_id, "key": secrets.token_hex(8),
                 "places": places},
            )
        except Exception:
            log.exception("sending arena %s's board failed", arena_id)


# The arenas whose board changed: however many games end, an arena's pages get its board
# at most every ARENA_NEWS_SECONDS, rendered once (per language) as it stands then.
arena_news = Batched(ARENA_NEWS_SECONDS, lambda pending: send_boards(sorted(pending)), "sending the boards of arenas")


def board_changed(arena_id: int) -> None:
    """The arena's board changed: its pages hear of it once this transaction commits."""
    transaction.on_commit(lambda: arena_news.changed(arena_id))
