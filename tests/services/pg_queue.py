"""Run by tests/services/test_quickplay_postgres.py against a scratch PostgreSQL database.

Two processes press Play now at the same instants for players of one game (each joining
half of them, the matcher running at every join and every poll), one player joins two
games' queues from the two processes at once, and a matcher meets rows another holds
locked. Prints one JSON line with what happened.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.db import connections, transaction  # noqa: E402

PLAYERS = int(os.environ.get("QUEUE_PLAYERS", "40"))
ROUNDS = int(os.environ.get("QUEUE_ROUNDS", "3"))


def ref(user):
    from accounts.identity import PlayerRef

    return PlayerRef(user_id=user.pk, guest_token="", name=user.username)


def joiner(user_ids, game, barrier, results):
    """Join each player in turn, as fast as it goes, then poll as the waiting pages do."""
    connections.close_all()
    from accounts.models import User
    from lobby import quickplay
    from lobby.services import TableError

    users = list(User.objects.filter(pk__in=user_ids).order_by("pk"))
    refused = []
    barrier.wait()
    for user in users:
        try:
            quickplay.queue_join(player=ref(user), game=game)
        except TableError as err:
            refused.append(err.code)
    for _ in range(3):
        for user in users:
            quickplay.queue_poll(player=ref(user))
    results.put(refused)
    connections.close_all()


def two_queues(user_id, game, barrier, results):
    """The same player presses Play now for ``game`` in this process as the other
    process does for another game."""
    connections.close_all()
    from accounts.models import User
    from lobby import quickplay
    from lobby.services import TableError

    user = User.objects.get(pk=user_id)
    barrier.wait()
    try:
        quickplay.queue_join(player=ref(user), game=game)
        results.put("joined")
    except TableError as err:
        results.put(err.code)
    connections.close_all()


def holder(game, locked, release, results):
    """Holds every waiting row of ``game`` locked, as a slow matcher would."""
    connections.close_all()
    from lobby.models import QueueEntry

    with transaction.atomic():
        rows = list(QueueEntry.objects.select_for_update().filter(game=game, table__isnull=True))
        locked.set()
        release.wait(30)
    results.put(len(rows))
    connections.close_all()


def seats_per_player():
    from django.db.models import Count

    from lobby.models import Seat, Table

    return list(
        Seat.objects.filter(table__status__in=(Table.Status.OPEN, Table.Status.RUNNING), user__isnull=False)
        .values("user__username")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
        .values_list("user__username", "n")
    )


def end_games():
    from games.models import Game
    from games.services import game_abort
    from lobby.models import QueueEntry, Table
    from lobby.services import table_close

    for game in Game.objects.filter(status="running"):
        game_abort(game_id=game.pk, reason="round over")
    for table in Table.objects.exclude(status="closed"):
        table_close(table_id=table.pk, reason="round over")
    QueueEntry.objects.all().delete()


def main() -> None:
    # The database is a copy of one migrated already (tests/services: ScratchDatabase).
    from accounts.services import user_signup
    from lobby import quickplay
    from lobby.models import QueueEntry, Seat, Table

    users = [
        user_signup(username=f"queuer{i}", email=f"q{i}@example.com", password="a-Long-pass-42")
        for i in range(PLAYERS)
    ]
    ctx = mp.get_context("fork")
    rounds = []
    for round_number in range(ROUNDS):
        game = ("viertris", "tetrix", "tetriwar")[round_number % 3]
        ids = [u.pk for u in users]
        connections.close_all()
        barrier = ctx.Barrier(2)
        results = ctx.Queue()
        # Interleaved halves, so both processes' joins meet in the same queue at once.
        procs = [ctx.Process(target=joiner, args=(ids[half::2], game, barrier, results)) for half in (0, 1)]
        for p in procs:
            p.start()
        refused = [code for _ in procs for code in results.get(timeout=120)]
        for p in procs:
            p.join(timeout=60)
        quickplay.queue_match()
        tables = Table.objects.filter(game=game).exclude(status="closed")
        rounds.append({
            "game": game,
            "refused": refused,
            "tables": tables.count(),
            "running": tables.filter(status="running").count(),
            "seated": Seat.objects.filter(table__in=tables).count(),
            "distinct_seated": Seat.objects.filter(table__in=tables).values("user_id").distinct().count(),
            "double_seats": seats_per_player(),
            "still_waiting": QueueEntry.objects.filter(table__isnull=True).count(),
        })
        end_games()

    # One player, two games' queues, two processes, the same instant.
    connections.close_all()
    barrier = ctx.Barrier(2)
    results = ctx.Queue()
    procs = [ctx.Process(target=two_queues, args=(users[0].pk, g, barrier, results)) for g in ("viertris", "tetrix")]
    for p in procs:
        p.start()
    outcomes = sorted(results.get(timeout=60) for _ in procs)
    for p in procs:
        p.join(timeout=60)
    entries = list(QueueEntry.objects.filter(user=users[0]).values_list("game", flat=True))
    end_games()

    # A matcher meets rows another matcher holds: it skips them at once, never waits.
    quickplay.queue_join(player=ref(users[1]), game="viertris")
    QueueEntry.objects.update(rating=25.0)
    connections.close_all()
    locked, release = ctx.Event(), ctx.Event()
    results = ctx.Queue()
    hold = ctx.Process(target=holder, args=("viertris", locked, release, results))
    hold.start()
    locked.wait(30)
    started = time.monotonic()
    entry = quickplay.queue_join(player=ref(users[2]), game="viertris")
    skipped_seconds = time.monotonic() - started
    matched_while_held = entry.table_id is not None
    release.set()
    held = results.get(timeout=30)
    hold.join(timeout=30)
    matched_after = bool(quickplay.queue_match(game="viertris"))

    print(json.dumps({
        "rounds": rounds, "players": PLAYERS,
        "two_queues": outcomes, "two_queues_entries": entries,
        "held": held, "skipped_seconds": skipped_seconds,
        "matched_while_held": matched_while_held, "matched_after": matched_after,
    }))


if __name__ == "__main__":
    main()
