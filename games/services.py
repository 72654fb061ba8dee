"""The one place where games start, finish and abort, and so the one place where
a game moves chips and leaderboard points (RULES.md §6) and skill ratings (issue 32).

Everything here runs inside one transaction with ledger rows, and a game is
finished or aborted once only: the game row is locked and must still be running,
so a second attempt — from another process too — changes nothing.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import socket
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.dispatch import Signal
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

from accounts import services as account_services
from accounts.models import ChipTransaction, ModerationAction, User
from accounts.services import ChipsError, chips_change
from config import sends
from games import messages
from games.core.errors import Refusal
from games.core.log import InputLog, Rows
from games.core.outcome import Outcome, Termination
from games.core.ranking import LEAVE_PENALTY, place_points, shared_ip, split_pot
from games.live import FinishedGame, live_game_class
from games.models import Game, GameLog, HostHeartbeat, JournalBatch, Participation
from games.ratings import ratings_update
from games.selectors import chips_in_pots
from games.shards import host_channel, shard_count, shard_of
from lobby import broadcast
from lobby.models import Seat, Table

Reason = ChipTransaction.Reason
HOST_NAME = socket.gethostname()[:40]
# Reasons are stored in English, marked here, and translated where shown (games/results.html).
SAME_IP_REASON = gettext_noop("Two players share an IP address: this game is not scored and stakes were returned.")


class StakeError(Refusal):
    """A seated player can no longer pay the stake; the game does not start."""

    def __init__(self, message: str) -> None:
        super().__init__("NOT_ENOUGH_CHIPS", message)


def _users_in_order(user_ids) -> list[User]:
    """Lock players' rows in one order (by id), so concurrent games never deadlock."""
    return list(User.objects.select_for_update().filter(pk__in=set(user_ids)).order_by("pk"))


def new_seed() -> int:
    """A new game's seed: unguessable, so nobody can work out a deal before it is dealt."""
    return random.SystemRandom().randrange(1, 2**62)


def game_create(*, table: Table, seats: list[Seat]) -> Game:
    """Called inside the table-start transaction: takes every stake into the pot.
    The host is told to start the game after the commit."""
    game = Game.objects.create(
        table=table,
        kind=table.game,
        options=table.options,
        seed=new_seed(),
        rules_version=live_game_class(table.game).RULES_VERSION,  # its replay will use these rules
        stake=table.stake,
        started_at=timezone.now(),
    )
    Participation.objects.bulk_create(
        Participation(
            game=game, seat=s.number, user_id=s.user_id, name=s.name, is_guest=s.is_guest,
            bot_level=s.bot_level, ip=s.ip,
        )
        for s in seats
    )
    if table.stake:
        paying = [s for s in seats if s.user_id is not None]
        users = {u.pk: u for u in _users_in_order(s.user_id for s in paying)}
        for seat in sorted(paying, key=lambda s: s.user_id):
            try:
                chips_change(
                    user=users[seat.user_id], delta=-table.stake, reason=Reason.STAKE,
                    note=f"Game #{game.pk} at table #{table.pk}",
                )
            except ChipsError:
                raise StakeError(
                    gettext("%(name)s no longer holds the %(stake)s-chip stake.")
                    % {"name": seat.name, "stake": table.stake}
                ) from None
        game.pot = table.stake * len(paying)
        game.save(update_fields=["pot"])
        broadcast.chips_changed(s.user_id for s in paying)
    GameLog.objects.create(game=game)
    transaction.on_commit(lambda: _tell_host(messages.Start(table_id=table.pk, game_id=game.pk)))
    return game


@transaction.atomic
def chips_refill(*, user: User, today: dt.date | None = None) -> ChipTransaction:
    """A player claims the daily refill (RULES.md §6), their stakes in running games'
    pots counted as theirs: otherwise a player with most chips on the table would
    be refilled every day. Their row is locked first, as a game's start and end
    lock it, so the pots counted are the pots of this moment."""
    User.objects.select_for_update().only("id").get(pk=user.pk)
    return account_services.chips_refill(user=user, today=today, chips_in_pots=chips_in_pots(user.pk))


def _tell_host(message: messages.HostMessage) -> None:
    sends.send(host_channel(message.table_id), message.to_dict())


def game_setup(*, game_id: int) -> dict[str, Any] | None:
    """What a host needs to run a game; None unless the game is running."""
    game = Game.objects.filter(pk=game_id, status=Game.Status.RUNNING).first()
    if game is None:
        return None
    return setup_of(game)


def setup_of(game: Game) -> dict[str, Any]:
    """A game's setup, as its live adapter takes it (games/live.py): to run it, or to
    rebuild it from its log (games/replays.py)."""
    return {
        "game_id": game.pk,
        "table_id": game.table_id,
        "kind": game.kind,
        "options": game.options,
        "seed": game.seed,
        "players": [
            {
                "seat": p.seat, "name": p.name, "is_guest": p.is_guest, "user_id": p.user_id, "bot": p.bot_level,
                # the player's own auto-repeat (their account's; a guest's and a bot's: the defaults)
                "handling": (p.user.handling or None) if p.user_id else None,
            }
            for p in game.participations.select_related("user")
        ],
    }


# A game ended (``outcome``: its standings; None: aborted), sent in the transaction that
# records it, before its table reopens: a receiver that answers True takes the table
# over (an arena's, lobby/arenas.py, closes it and pairs its players again).
game_over = Signal()


def _taken_over(game: Game, parts: list[Participation], outcome: Outcome | None) -> bool:
    responses = game_over.send(sender=Game, table_id=game.table_id, parts=parts, outcome=outcome)
    return any(answer is True for _, answer in responses)


def _reopen_table(table_id: int) -> None:
    """After a game the table waits for the next; bots are ready at once. A table
    where only bots were playing has nobody to play again: it closes."""
    if not Seat.objects.filter(table_id=table_id, bot_level="").exists():
        Table.objects.filter(pk=table_id).update(
            status=Table.Status.CLOSED, closed_reason=gettext_noop("The bots' game is over.")
        )
    else:
        Table.objects.filter(pk=table_id, status=Table.Status.RUNNING).update(status=Table.Status.OPEN)
        Seat.objects.filter(table_id=table_id, bot_level="").update(ready=False)
    broadcast.table_changed(table_id)


def _refund(game: Game, parts: list[Participation], why: str) -> None:
    users = {u.pk: u for u in _users_in_order(p.user_id for p in parts if p.user_id)}
    for p in sorted(parts, key=lambda p: p.user_id or 0):
        if p.user_id is not None and game.stake:
            chips_change(user=users[p.user_id], delta=game.stake, reason=Reason.REFUND, note=f"Game #{game.pk}: {why}")
        p.points = 0
        p.chips_delta = 0


def _settle(game: Game, parts: list[Participation], outcome: Outcome) -> None:
    """Points by place and the pot to the winners (RULES.md §6)."""
    sides = len(outcome.standings)
    by_seat = {p.seat: p for p in parts}
    for standing in outcome.standings:
        for seat in standing.seats:
            p = by_seat[seat]
            p.points = LEAVE_PENALTY if p.forfeited else place_points(standing.place, sides)
            p.chips_delta = -game.stake if p.user_id is not None else 0
    # The pot goes to the side(s) ranked first; leavers rank last, so a leaver
    # wins only when every side left. A first pair whose one partner left pays the
    # partner who stayed alone: a leaver loses their stake (RULES.md §6).
    first = [seat for seat in outcome.winners if by_seat[seat].user_id]
    winners = [seat for seat in first if not by_seat[seat].forfeited] or first
    if game.pot and winners:
        users = {u.pk: u for u in _users_in_order(by_seat[s].user_id for s in winners)}
        for seat, chips in sorted(split_pot(game.pot, winners).items()):
            p = by_seat[seat]
            if chips:
                chips_change(user=users[p.user_id], delta=chips, reason=Reason.POT, note=f"Game #{game.pk}")
            p.chips_delta += chips


def _rate(game: Game, by_seat: dict[int, Participation], outcome: Outcome) -> None:
    """The skill ratings of a scored game, in the transaction of its points (issue 32):
    each side at its recorded place, a forfeit too (it ranks last)."""
    sides = [(standing.place, [by_seat[seat].user_id for seat in standing.seats]) for standing in outcome.standings]
    changes = ratings_update(kind=game.kind, sides=sides)
    for p in by_seat.values():
        change = changes.get(p.user_id) if p.user_id is not None else None
        if change is not None:
            p.rating_before, p.rating_after = change.before, change.after


def packed_log(finished: FinishedGame) -> bytes:
    """The log a replay reads: exact times, the engine's clock at the start and the end."""
    log = finished.log.log if isinstance(finished.log, Rows) else finished.log
    if not isinstance(log, InputLog):
        log = InputLog(log)
    return log.pack(*finished.clock)


@transaction.atomic
def game_finish(*, game_id: int, finished: FinishedGame) -> Game | None:
    """Record a game's end: its outcome, points, chips and the log, in one transaction.
    Returns the game, or None if it had already ended (nothing changes then)."""
    game = Game.objects.select_for_update().filter(pk=game_id, status=Game.Status.RUNNING).first()
    if game is None:
        return None
    parts = list(game.participations.all())
    by_seat = {p.seat: p for p in parts}
    outcome = finished.outcome
    for standing in outcome.standings:
        for seat in standing.seats:
            p = by_seat[seat]
            stats = finished.players[seat]
            p.score, p.lines, p.eliminations = stats["score"], stats["lines"], stats["eliminations"]
            p.place = standing.place
            # only the seats that left: a pair's partner who stayed is not penalised
            p.forfeited = seat in standing.leavers
    if not game.stake:
        game.scored, game.unscored_reason = False, gettext_noop("A friendly game: no points or chips.")
        for p in parts:
            p.points = p.chips_delta = 0
    elif shared_ip([p.ip for p in parts]):
        game.scored, game.unscored_reason = False, SAME_IP_REASON
        _refund(game, parts, "same IP address")
    else:
        game.scored = True
        _settle(game, parts, outcome)
        _rate(game, by_seat, outcome)
    Participation.objects.bulk_update(
        parts, ["score", "lines", "eliminations", "place", "forfeited", "points", "chips_delta",
                "rating_before", "rating_after"]
    )
    GameLog.objects.filter(game=game).update(
        entries=list(finished.log), summary={**outcome.to_dict(), "end": finished.end}, data=packed_log(finished)
    )
    JournalBatch.objects.filter(game=game).delete()  # the whole log is the record now
    game.status = Game.Status.FINISHED
    game.termination = outcome.termination.value
    game.ended_at = timezone.now()
    game.save(update_fields=["status", "termination", "ended_at", "scored", "unscored_reason"])
    if not _taken_over(game, parts, outcome):
        _reopen_table(game.table_id)
    if game.stake:
        broadcast.chips_changed(p.user_id for p in parts)
    # Results are rendered from async code next: load everything they show now.
    return Game.objects.prefetch_related("participations").get(pk=game.pk)


@transaction.atomic
def game_abort(*, game_id: int, reason: str, announce: bool = False) -> Game | None:
    """Stop a game without result: every stake goes back. Once only.

    ``announce`` tells the table's players, for aborts decided away from the game's
    host (a dead worker found by a watchdog, a restart)."""
    game = Game.objects.select_for_update().filter(pk=game_id, status=Game.Status.RUNNING).first()
    if game is None:
        return None
    parts = list(game.participations.all())
    _refund(game, parts, "aborted")
    if game.stake:
        broadcast.chips_changed(p.user_id for p in parts)
    Participation.objects.bulk_update(parts, ["points", "chips_delta"])
    JournalBatch.objects.filter(game=game).delete()
    game.status = Game.Status.ABORTED
    game.termination = Termination.ABORT.value
    game.abort_reason = reason[:200]
    game.ended_at = timezone.now()
    game.save(update_fields=["status", "termination", "abort_reason", "ended_at"])
    if not _taken_over(game, parts, None):
        _reopen_table(game.table_id)
    if announce:
        transaction.on_commit(lambda: _announce_abort(game.kind, game.table_id, game.pk, game.abort_reason))
    return game


def _announce_abort(kind: str, table_id: int, game_id: int, reason: str) -> None:

    html = live_game_class(kind).render_aborted(reason, game_id=game_id)
    sends.group_send(broadcast.table_group(table_id), {"type": "game.fragment", "html": html})


# --- running games' inputs, written as they come (games/journal.py) ------------------------
def journal_write(*, batches: list[tuple[int, int, bytes]]) -> None:
    """Batches of running games' inputs, ``(game id, batch number, packed entries)``,
    in one transaction. A batch of a game that ended meanwhile is not kept: the games'
    rows are locked while it is written, so that no end or abort comes between.

    One statement for all the rows, not the ORM's objects: this runs four times a
    second beside the live tables (at 100 tables ``bulk_create`` cost them a fifth more
    CPU and several times their p99, bench/live.py ``--journal``)."""
    at = connection.ops.adapt_datetimefield_value(timezone.now())
    with transaction.atomic():
        running = set(
            Game.objects.select_for_update()
            .filter(pk__in={game_id for game_id, _, _ in batches}, status=Game.Status.RUNNING)
            .values_list("pk", flat=True)
        )
        rows = [(game_id, seq, data, at) for game_id, seq, data in batches if game_id in running]
        if rows:
            with connection.cursor() as cursor:
                cursor.executemany(_JOURNAL_INSERT, rows)


_JOURNAL_INSERT = (
    f"INSERT INTO {JournalBatch._meta.db_table} (game_id, seq, data, written_at) VALUES (%s, %s, %s, %s)"
)


def journal_of(game_id: int) -> list[bytes]:
    """A running game's stored batches, in order (games/journal.py ``stored``)."""
    return [
        bytes(data)
        for data in JournalBatch.objects.filter(game_id=game_id).order_by("seq").values_list("data", flat=True)
    ]


def games_to_resume(*, shards: list[int] | None, started_before) -> list[int]:
    """The running games of these shards (None: all) that began before ``started_before``
    (this process's start): an earlier process hosted them."""
    games = Game.objects.filter(status=Game.Status.RUNNING, started_at__lt=started_before).values_list(
        "pk", "table_id"
    )
    return [pk for pk, table_id in games if shards is None or shard_of(table_id) in shards]


def _gone(holder: str) -> bool:
    """Whether the process that held a lease is known to be gone: it ran on this machine
    (``host:pid:token``, games/host.py ``host_id``) and no process has its pid now."""
    host, _, rest = holder.partition(":")
    pid = rest.partition(":")[0]
    if host != HOST_NAME or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:  # there is such a process (another user's, say)
        return False
    return False


def lease_take(*, shards: list[int], holder: str, stale_after: float) -> list[int]:
    """The shards whose lease ``holder`` now holds, of those it asks for: one it held
    already, a free one, one whose holder stopped beating ``stale_after`` seconds ago, or
    whose holder is gone from this machine (a process restarted in its place). Each
    shard's row is locked, so of two processes racing for one, one wins."""
    now = timezone.now()
    taken = []
    for shard in shards:
        with transaction.atomic():
            row = HostHeartbeat.objects.select_for_update().filter(shard=shard).first()
            if row is None:
                try:
                    with transaction.atomic():
                        HostHeartbeat.objects.create(shard=shard, beat_at=now, pid=os.getpid(), holder=holder)
                except IntegrityError:
                    continue  # another process made it first: it holds the shard
                taken.append(shard)
                continue
            free = (
                row.holder in ("", holder)
                or row.beat_at < now - dt.timedelta(seconds=stale_after)
                or _gone(row.holder)
            )
            if free:
                row.holder, row.beat_at, row.pid = holder, now, os.getpid()
                row.save(update_fields=["holder", "beat_at", "pid"])
                taken.append(shard)
    return taken


def lease_release(*, shards: list[int], holder: str) -> None:
    """A host that stops lets its shards go at once (the next process need not wait)."""
    HostHeartbeat.objects.filter(shard__in=shards, holder=holder).update(holder="")


def host_heartbeat(*, shards: list[int], holder: str) -> list[int]:
    """A host's beat on its shards: each lease it holds renewed. Returns the shards it
    no longer holds (another process took them, ``lease_take``), whose tables it must
    let go."""
    now = timezone.now()
    lost = []
    for shard in shards:
        if HostHeartbeat.objects.filter(shard=shard, holder=holder).update(beat_at=now, pid=os.getpid()):
            continue
        _, made = HostHeartbeat.objects.get_or_create(
            shard=shard, defaults={"beat_at": now, "pid": os.getpid(), "holder": holder}
        )
        if not made:
            lost.append(shard)
    return lost


def games_reconcile(*, shards: list[int] | None, reason: str, started_before=None) -> list[int]:
    """A host starting up: games of its shards still marked running that began before
    it started died with the process that ran them. Abort them (stakes back) and
    tell their tables."""
    aborted = []
    for game_id in games_to_resume(shards=shards, started_before=started_before or timezone.now()):
        if game_abort(game_id=game_id, reason=reason, announce=True):
            aborted.append(game_id)
    return aborted


def games_abort_stale(*, stale_after: float, reason: str) -> list[int]:
    """Abort running games whose shard's worker has not beaten for ``stale_after`` s.
    Games younger than that are spared: their worker may simply not have beaten yet."""
    cutoff = timezone.now() - dt.timedelta(seconds=stale_after)
    alive = set(HostHeartbeat.objects.filter(beat_at__gte=cutoff).values_list("shard", flat=True))
    dead = {n for n in range(shard_count()) if n not in alive}
    if not dead:
        return []
    return games_reconcile(shards=sorted(dead), reason=reason, started_before=cutoff)


def running_game_id(table_id: int) -> int | None:
    return (
        Game.objects.filter(table_id=table_id, status=Game.Status.RUNNING)
        .values_list("pk", flat=True)
        .first()
    )


def game_abort_running(*, table_id: int, reason: str) -> None:
    """Abort the table's running game, if any, and stop its host after commit."""
    game_id = running_game_id(table_id)
    if game_id is None:
        return
    game_abort(game_id=game_id, reason=reason)
    transaction.on_commit(lambda: _tell_host(messages.Abort(table_id=table_id, reason=reason)))


def game_forfeit_request(*, table_id: int, seat: int) -> None:
    """Make a seat forfeit the table's running game (a ban), after commit."""
    transaction.on_commit(lambda: _tell_host(messages.Forfeit(table_id=table_id, seat=seat)))


@transaction.atomic
def replays_hide(*, game_ids: list[int], hidden: bool, by: User) -> int:
    """Hide (or show again) the replays of finished games: a moderator's action, one
    ModerationAction per game whose replay changes. Returns how many changed."""
    games = list(
        Game.objects.select_for_update()
        .filter(pk__in=game_ids)
        .exclude(replay_hidden=hidden)
        .only("pk", "table_id", "replay_hidden")
    )
    action = ModerationAction.Action.HIDE_REPLAY if hidden else ModerationAction.Action.SHOW_REPLAY
    Game.objects.filter(pk__in=[game.pk for game in games]).update(replay_hidden=hidden)
    ModerationAction.objects.bulk_create(
        ModerationAction(admin=by, action=action, game_id=game.pk, table_id=game.table_id) for game in games
    )
    return len(games)
