"""Run by tests/services/test_arena_postgres.py against a scratch PostgreSQL database.

Rounds of: every player of a Viertris arena waits for a game (the first round they
join it, later their games end through ``game_finish``), then several processes move
the arena on (``arena_tick``, which pairs) at the same instant, each claiming the rows
it pairs with ``select_for_update(skip_locked=True)``; then one more tick pairs what
they left. In the last round another process holds half the waiting rows locked
meanwhile, as a slow pairing would: the others pair the rest without waiting for it.
After each round the database is checked: nobody is seated twice, every table is
full, and every arena player with a table sits there. Prints one JSON line with what
happened.
"""

from __future__ import annotations

import datetime as dt
import json
import multiprocessing as mp
import os
import queue
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.db import connections  # noqa: E402
from django.utils import timezone  # noqa: E402

PLAYERS = int(os.environ.get("ARENA_PLAYERS", "24"))
ROUNDS = int(os.environ.get("ARENA_ROUNDS", "4"))
PROCS = int(os.environ.get("ARENA_PROCS", "4"))


def ref(user):
    from accounts.identity import PlayerRef

    return PlayerRef(user_id=user.pk, guest_token="", name=user.username)


def ticker(arena_id, now, barrier, results):
    """Moves the arena on at ``now`` once every process is ready; reports the tables it
    made itself (its own ``arena_pair``'s), when it paired (``time.monotonic``, one clock
    for all processes) and whom it claimed, or the exception it met."""
    connections.close_all()
    from django.db import transaction

    from lobby import arenas

    seen = {"tables": [], "claimed": 0, "began": None, "ended": None, "locked_at": None, "committed": None}
    pair, pairings = arenas.arena_pair, arenas.rules.pairings

    def timed_pair(**kwargs):
        seen["began"] = time.monotonic()
        try:
            tables = pair(**kwargs)
        finally:
            seen["ended"] = time.monotonic()
        seen["tables"] = [t.pk for t in tables]
        return tables

    def timed_pairings(waiting, *args, **kwargs):
        # Called with the rows claimed (locked), before any table is made.
        seen["locked_at"], seen["claimed"] = time.monotonic(), len(waiting)
        transaction.on_commit(lambda: seen.update(committed=time.monotonic()))  # the first hook: at the commit
        return pairings(waiting, *args, **kwargs)

    # This process only: arena_tick and arena_pair call them by these names.
    arenas.arena_pair, arenas.rules.pairings = timed_pair, timed_pairings
    connections["default"].ensure_connection()  # connected before the barrier, not after
    barrier.wait()
    try:
        arenas.arena_tick(arena_id=arena_id, now=now)
        results.put({**seen, "error": None})
    except Exception as err:
        results.put({**seen, "error": f"{err!r}\n{traceback.format_exc()}"})
    finally:
        connections.close_all()


def while_locked(outcomes) -> int:
    """Processes that claimed nobody and were done while another held the rows it had
    claimed (between its claim and its commit): they skipped locked rows."""
    holds = [(o["locked_at"], o["committed"]) for o in outcomes if o["locked_at"] and o["committed"]]
    return sum(
        1 for o in outcomes
        if not o["claimed"] and o["began"] and o["ended"]
        and any(o["ended"] < committed for _, committed in holds)
    )


def holder(arena_id, user_ids, locked, release, results):
    """Holds the arena rows of ``user_ids`` locked until released."""
    connections.close_all()
    from django.db import transaction

    from lobby.models import ArenaPlayer

    with transaction.atomic():
        rows = list(ArenaPlayer.objects.select_for_update().filter(arena_id=arena_id, user_id__in=user_ids))
        locked.set()
        release.wait(120)
    results.put(len(rows))
    connections.close_all()


def double_seats():
    """Players seated at two running tables (any tables, not only the arena's)."""
    from django.db.models import Count

    from lobby.models import Seat, Table

    return list(
        Seat.objects.filter(table__status=Table.Status.RUNNING, user__isnull=False)
        .values("user__username")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
        .values_list("user__username", "n")
    )


def mismatches(arena) -> list[str]:
    """What disagrees between the arena's players and its running tables."""
    from games.models import Game
    from lobby.models import ArenaPlayer, Seat, Table

    found = []
    running = Table.objects.filter(arena=arena, status=Table.Status.RUNNING)
    for table in running:
        seats = list(table.seats.all())
        if len(seats) != arena.seats:
            found.append(f"table {table.pk} has {len(seats)} seats, not {arena.seats}")
        games = Game.objects.filter(table=table, status=Game.Status.RUNNING).count()
        if games != 1:
            found.append(f"table {table.pk} runs {games} games")
        for seat in seats:
            if not ArenaPlayer.objects.filter(arena=arena, user_id=seat.user_id, table=table).exists():
                found.append(f"user {seat.user_id} sits at table {table.pk}, which their arena row does not name")
    for entry in ArenaPlayer.objects.filter(arena=arena, table__isnull=False).select_related("table"):
        if entry.table.status != Table.Status.RUNNING:
            found.append(f"{entry.name}'s table {entry.table_id} is {entry.table.status}")
        if not Seat.objects.filter(table_id=entry.table_id, user_id=entry.user_id).exists():
            found.append(f"{entry.name} is not seated at their table {entry.table_id}")
        if entry.waiting_since is not None:
            found.append(f"{entry.name} waits while at table {entry.table_id}")
    return found


def waiting(arena, now) -> int:
    from lobby.models import ArenaPlayer

    return ArenaPlayer.objects.filter(
        arena=arena, status=ArenaPlayer.Status.ACTIVE, table__isnull=True, waiting_since__lte=now
    ).count()


def finish_games(arena) -> int:
    """Every running game of the arena ends (seat 1 wins), its players' pages open:
    they wait again ``RESULTS_SECONDS`` later (lobby/arenas.py ``arena_game_over``)."""
    from games.core.outcome import Outcome, Standing, Termination
    from games.live import FinishedGame
    from games.models import Game
    from games.services import game_finish
    from lobby.models import Table, Watcher

    finished = FinishedGame(
        Outcome(Termination.TIME, (
            Standing(place=1, seats=(1,), score=50, lines=2),
            Standing(place=2, seats=(2,), score=10),
        )),
        players={1: {"score": 50, "lines": 2, "eliminations": 0}, 2: {"score": 10, "lines": 0, "eliminations": 0}},
        log=[[0.5, 1, "left"]],
        end=180.0,
    )
    ended = 0
    for table in Table.objects.filter(arena=arena, status=Table.Status.RUNNING):
        for seat in table.seats.all():
            Watcher.objects.get_or_create(
                channel_name=f"page-{table.pk}-{seat.number}",
                defaults={"table": table, "user_id": seat.user_id, "guest_token": seat.guest_token},
            )
        game = Game.objects.get(table=table, status=Game.Status.RUNNING)
        ended += game_finish(game_id=game.pk, finished=finished) is not None
    return ended


def main() -> None:
    # The database is a copy of one migrated already (tests/services: ScratchDatabase).
    from django.conf import settings

    from accounts.models import User
    from accounts.services import user_signup
    from lobby import arenas
    from lobby.models import ArenaPlayer, Table

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # sign-ups in no time
    start = timezone.now().replace(microsecond=0)
    clock = {"now": start}
    # This process's arena clock (game ends, the ticks after their commits): the
    # rounds' times, never the wall's, so nobody becomes due between two rounds.
    arenas.clock = lambda: clock["now"]

    staff = user_signup(username="arenastaff", email="staff@example.com", password="a-Long-pass-42")
    User.objects.filter(pk=staff.pk).update(is_staff=True)
    staff.refresh_from_db()
    users = [
        user_signup(username=f"arenaplayer{i}", email=f"a{i}@example.com", password="a-Long-pass-42")
        for i in range(PLAYERS)
    ]
    arena = arenas.arena_create(
        by=staff, title="Race arena", game="viertris", starts_at=start - dt.timedelta(seconds=1), minutes=30,
        now=start,
    )
    for i, user in enumerate(users):
        # Each from an address of their own: their games count, and no address hosts many.
        arenas.arena_join(arena_id=arena.pk, player=ref(user), ip=f"10.51.{i // 200}.{i % 200 + 1}", now=start)

    ctx = mp.get_context("fork")
    rounds, errors = [], []
    now = start
    for round_number in range(ROUNDS):
        clock["now"] = now
        before = Table.objects.filter(arena=arena).order_by("-pk").values_list("pk", flat=True).first() or 0
        queued = waiting(arena, now)
        connections.close_all()
        held = []
        if round_number == ROUNDS - 1 and ROUNDS > 1:
            held = [u.pk for u in users[::2]]
            locked, release, held_results = ctx.Event(), ctx.Event(), ctx.Queue()
            hold = ctx.Process(target=holder, args=(arena.pk, held, locked, release, held_results))
            hold.start()
            if not locked.wait(60):
                errors.append(f"round {round_number}: the holder locked nothing in 60 s")
        barrier = ctx.Barrier(PROCS)
        results = ctx.Queue()
        procs = [ctx.Process(target=ticker, args=(arena.pk, now, barrier, results)) for _ in range(PROCS)]
        for p in procs:
            p.start()
        outcomes = []
        for _ in procs:
            try:
                outcomes.append(results.get(timeout=60 if held else 120))
            except queue.Empty:
                outcomes.append({
                    "tables": [], "claimed": 0, "began": None, "ended": None, "locked_at": None, "committed": None,
                    "error": "no answer in time (waiting for a lock?)",
                })
        held_seated = ArenaPlayer.objects.filter(arena=arena, user_id__in=held, table__isnull=False).count()
        left_by_race = waiting(arena, now)
        if held:
            release.set()
            try:
                held_rows = held_results.get(timeout=60)
            except queue.Empty:
                held_rows = None
            hold.join(timeout=60)
        for p in procs:
            p.join(timeout=60)
            if p.is_alive():
                p.kill()
        errors += [f"round {round_number}: {o['error']}" for o in outcomes if o["error"]]
        errors += [f"round {round_number}: a process exited with {p.exitcode}" for p in procs if p.exitcode]
        split = sorted((len(o["tables"]) for o in outcomes), reverse=True)
        # What the processes left (each may leave one of an odd share): the next pairing
        # takes it (called directly: arena_tick pairs at most every PAIRING_SECONDS a process).
        arena.refresh_from_db()
        arenas.arena_pair(arena=arena, now=now)
        made = Table.objects.filter(arena=arena, pk__gt=before)
        seated = ArenaPlayer.objects.filter(arena=arena, table__isnull=False)
        doubles = double_seats()
        wrong = mismatches(arena)
        rounds.append({
            "round": round_number,
            "status": arena.status,
            "queued": queued,
            "tables": made.count(),
            "running": made.filter(status=Table.Status.RUNNING).count(),
            "split": split,
            "claimed": sorted((o["claimed"] for o in outcomes), reverse=True),
            "skipped_while_locked": while_locked(outcomes),
            "held": len(held),
            "held_rows": held_rows if held else 0,
            "held_seated": held_seated,
            "left_by_race": left_by_race,
            "still_waiting": waiting(arena, now),
            "seated": seated.count(),
            "distinct_seated": seated.values("user_id").distinct().count(),
            "paused": ArenaPlayer.objects.filter(arena=arena, status=ArenaPlayer.Status.PAUSED).count(),
            "double_seats": doubles,
            "mismatches": wrong,
        })
        # The games end a second later; their players are due RESULTS_SECONDS after that.
        clock["now"] = now + dt.timedelta(seconds=1)
        rounds[-1]["finished"] = finish_games(arena)
        now = clock["now"] + dt.timedelta(seconds=arenas.RESULTS_SECONDS + 1)

    print(json.dumps({
        "players": PLAYERS,
        "procs": PROCS,
        "rounds": len(rounds),
        "tables": sum(r["tables"] for r in rounds),
        "double_seats": sum(len(r["double_seats"]) for r in rounds),
        "mismatches": sum(len(r["mismatches"]) for r in rounds),
        "errors": errors,
        "per_round": rounds,
    }))


if __name__ == "__main__":
    main()
