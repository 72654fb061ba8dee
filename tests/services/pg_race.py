"""Run by tests/services/test_postgres_race.py against a scratch PostgreSQL database.

Rounds of: two processes finish the same game at the same instant while a third
places stakes (sits and starts another competitive table) for the same players.
Prints one JSON line with what happened.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.db import connections  # noqa: E402

OPTIONS = {"minutes": 3, "start_level": 1, "lines_per_level": 10, "bombs": "manual", "pairs": False}
ROUNDS = int(os.environ.get("RACE_ROUNDS", "8"))


def ref(user):
    from accounts.identity import PlayerRef

    return PlayerRef(user_id=user.pk, guest_token="", name=user.username)


def start_table(users, stake):
    from games.models import Game
    from lobby import services

    table = services.table_create(player=ref(users[0]), game="tetriwar", options=OPTIONS, seats_total=len(users), stake=stake)
    for n, user in enumerate(users[1:], start=2):
        services.seat_take(table_id=table.pk, player=ref(user), number=n)
    for user in users:
        services.seat_ready(table_id=table.pk, player=ref(user), ready=True)
    services.table_start(table_id=table.pk, player=ref(users[0]))
    return Game.objects.get(table=table)


def finisher(game_id, barrier, results):
    connections.close_all()
    from games.core.outcome import Outcome, Standing, Termination
    from games.live import FinishedGame
    from games.services import game_finish

    finished = FinishedGame(
        Outcome(Termination.TIME, (
            Standing(place=1, seats=(1,), score=50, lines=2),
            Standing(place=2, seats=(2,), score=10, eliminations=1),
        )),
        players={1: {"score": 50, "lines": 2, "eliminations": 0}, 2: {"score": 10, "lines": 0, "eliminations": 1}},
        log=[[1.0, 1, "hard_drop"]],
        end=180.0,
    )
    barrier.wait()
    results.put(game_finish(game_id=game_id, finished=finished) is not None)
    connections.close_all()


def staker(user_ids, barrier, results):
    connections.close_all()
    from accounts.models import User
    from lobby.services import TableError

    users = [User.objects.get(pk=pk) for pk in user_ids]
    barrier.wait()
    try:
        start_table(users, 100)
        results.put("staked")
    except TableError as err:
        results.put(err.code)
    connections.close_all()


def main() -> None:
    # The database is a copy of one migrated already (tests/services: ScratchDatabase).
    from django.db.models import Sum

    from accounts.models import ChipTransaction, User
    from accounts.services import user_signup

    players = [user_signup(username=f"racer{i}", email=f"r{i}@example.com", password="a-Long-pass-42") for i in range(3)]
    counted = []
    stakes = []
    ctx = mp.get_context("fork")
    for _ in range(ROUNDS):
        game = start_table(players[:2], 100)
        connections.close_all()
        barrier = ctx.Barrier(3)
        results = ctx.Queue()
        procs = [
            ctx.Process(target=finisher, args=(game.pk, barrier, results)),
            ctx.Process(target=finisher, args=(game.pk, barrier, results)),
            ctx.Process(target=staker, args=([players[0].pk, players[2].pk], barrier, results)),
        ]
        for p in procs:
            p.start()
        outs = [results.get(timeout=60) for _ in procs]
        for p in procs:
            p.join(timeout=60)
        counted.append(sum(1 for o in outs if o is True))
        stakes.append(next(o for o in outs if isinstance(o, str)))
        # Finish the staker's game too (abort: stakes back), so every round starts clean.
        from games.models import Game
        from games.services import game_abort

        for running in Game.objects.filter(status="running"):
            game_abort(game_id=running.pk, reason="round over")
        # Everybody stands up: a seat at an open competitive table reserves its stake.
        from lobby.models import Seat
        from lobby.services import seat_leave

        for seat in Seat.objects.select_related("user"):
            seat_leave(table_id=seat.table_id, player=ref(seat.user))
    granted = ChipTransaction.objects.filter(reason__in=["signup", "refill", "admin"]).aggregate(s=Sum("delta"))["s"]
    total = User.objects.aggregate(s=Sum("chips"))["s"]
    ledger_ok = all(
        list(ChipTransaction.objects.filter(user=u).order_by("-id").values_list("balance_after", flat=True)[:1])
        == [u.chips]
        for u in User.objects.all()
    )
    pot_rows = ChipTransaction.objects.filter(reason="pot").count()
    print(json.dumps({
        "finishes_counted": counted, "stakes": stakes, "granted": granted, "total": total,
        "ledger_ok": ledger_ok, "pot_rows": pot_rows, "rounds": ROUNDS,
        "balances": {u.username: u.chips for u in User.objects.order_by("username")},
    }))


if __name__ == "__main__":
    main()
