"""Quick play's matcher (issue 32): how long players wait, how close their ratings are.

    python bench/queue.py [--players 1000] [--seconds 60] [--seed 1] [--spread 4.0]
                          [--tail 30] [--competitive 0.1]

N players (default 1000) press Play now over S seconds (default 60), at uniformly
random moments, each for one of the five games (uniformly), 10 % of them at a stake of
10 chips (``--competitive``), the rest friendly. Each player has a rating of that game
(openskill mu, a ``Rating`` row) drawn from a normal spread around 25 (``--spread``: its
standard deviation in mu; 4 mu is 160 shown points). Time is simulated, the services
are real: each join calls ``queue_join`` (which runs the matcher), each waiting page
asks every ``POLL_SECONDS`` (``queue_poll``, which runs the matcher), as the server
does, on a scratch database: SQLite by default, or a scratch database on the
PostgreSQL server of ``DATABASE_URL``. Some players act as people do: 10 % press Play
now twice (a double click, 0.3 s apart), 10 % change their mind after 3 s and join
another game's queue, 5 % close the page after 4 s (their entry goes stale). Joins
stop at S seconds; the pages of those still waiting keep asking for ``--tail`` more.

Prints ``name: value`` lines: calls and their cost, tables, the rating gap of each table
(its highest rating less its lowest: p50/p99, in mu and in shown points), players never
matched (still waiting at the end, those who closed the page apart), double seats
(players seated at two live tables); the last line ``time_to_match_p99_s`` (from the
join to the match, of those matched). Targets printed beside: with two or more waiting
for the same game, time-to-match p99 ≤ 10 s; zero double seats.
"""

from __future__ import annotations

import os
import sys

# This file has the name of the standard library's ``queue``, which Django imports: its
# folder leaves the import path before anything else is imported.
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.dirname(os.path.abspath(__file__))]

import argparse  # noqa: E402
import datetime as dt  # noqa: E402
import heapq  # noqa: E402
import random  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.report import figure  # noqa: E402
from bench.server import ScratchDatabase, django_in_process  # noqa: E402

SERVER_URL = os.environ.get("DATABASE_URL", "")
SCRATCH_PG = None
if SERVER_URL:
    SCRATCH_PG = ScratchDatabase(SERVER_URL.rsplit("/", 1)[0], prefix="tetriwar_bench_queue_")
    os.environ["DATABASE_URL"] = SCRATCH_PG.url
else:
    os.environ["SQLITE_NAME"] = os.path.join(tempfile.mkdtemp(prefix="bench-queue-"), "queue.sqlite3")

django_in_process()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connections  # noqa: E402
from django.db.models import Count, Q  # noqa: E402
from django.utils import timezone  # noqa: E402

from accounts.identity import PlayerRef  # noqa: E402
from accounts.services import user_signup  # noqa: E402
from games.models import Rating  # noqa: E402
from games.registry import GAMES  # noqa: E402
from lobby import quickplay  # noqa: E402
from lobby.models import QueueEntry, Seat, Table  # noqa: E402
from lobby.services import TableError  # noqa: E402

STAKE = 10
POINTS_PER_MU = 40  # games.core.rating.SHOWN_PER_MU


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--spread", type=float, default=4.0, help="standard deviation of the ratings, in mu")
    parser.add_argument("--tail", type=float, default=30.0, help="seconds the waiting pages ask after the last join")
    parser.add_argument("--competitive", type=float, default=0.1, help="share of players at a stake")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # sign-ups, not a bench of them
    # Every start tells its table host through the layer: no host runs here, so hold them all.
    settings.CHANNEL_LAYERS = {
        "default": {"BACKEND": "channels.layers.InMemoryChannelLayer", "CONFIG": {"capacity": 1_000_000}}
    }
    if SCRATCH_PG is not None:
        SCRATCH_PG.create(migrated=True)
    try:
        run(args, rng)
    finally:
        connections.close_all()
        if SCRATCH_PG is not None:
            SCRATCH_PG.drop()


def run(args, rng: random.Random) -> None:
    call_command("migrate", verbosity=0)
    kinds = list(GAMES)
    players = []
    for n in range(args.players):
        user = user_signup(username=f"player{n}", email=f"p{n}@example.com", password="a-Long-pass-42")
        kind = rng.choice(kinds)
        players.append({
            "ref": PlayerRef(user_id=user.pk, guest_token="", name=user.username),
            "game": kind,
            "stake": STAKE if rng.random() < args.competitive else 0,
            "at": rng.uniform(0, args.seconds),
            "habit": rng.choices(["plain", "double", "switch", "close"], [0.75, 0.10, 0.10, 0.05])[0],
        })
        for other in kinds:  # a rating in every game: a switcher keeps theirs
            Rating.objects.create(user=user, kind=other, mu=rng.gauss(25.0, args.spread), sigma=3.0)
    start = timezone.now()
    end = args.seconds + args.tail

    def when(seconds: float) -> dt.datetime:
        return start + dt.timedelta(seconds=seconds)

    events: list[tuple[float, int, str, int]] = []  # (time, order, what, player)
    order = 0

    def push(t: float, what: str, p: int) -> None:
        nonlocal order
        order += 1
        heapq.heappush(events, (t, order, what, p))

    for i, player in enumerate(players):
        push(player["at"], "join", i)
        if player["habit"] == "double":
            push(player["at"] + 0.3, "join", i)
        elif player["habit"] == "switch":
            player["switch_to"] = rng.choice([k for k in kinds if k != player["game"]])
            push(player["at"] + 3.0, "switch", i)

    matched: dict[int, dict] = {}
    by_user = {p["ref"].user_id: i for i, p in enumerate(players)}
    # When each player's queue (its game and stake) first held enough to make a table,
    # the player among them: the time-to-match target counts from then.
    company_since: dict[int, float] = {}

    def note_company(t: float) -> None:
        fresh = quickplay.fresh_since(when(t))
        waiting = QueueEntry.objects.filter(table__isnull=True, seen_at__gte=fresh)
        counts = waiting.values("game", "stake").annotate(n=Count("id")).values_list("game", "stake", "n")
        full = Q(pk__in=[])
        for game, stake, n in counts:
            if n >= quickplay.players_per_match(GAMES[game]):
                full |= Q(game=game, stake=stake)
        for user_id in waiting.filter(full).values_list("user_id", flat=True):
            company_since.setdefault(by_user[user_id], t)
    call_seconds: list[float] = []
    joins = polls = 0
    wall = time.perf_counter()
    while events:
        t, _, what, i = heapq.heappop(events)
        if t > end:
            break
        player = players[i]
        if i in matched or player.get("gone"):
            continue
        started = time.perf_counter()
        if what in ("join", "switch"):
            if what == "switch":
                player["game"] = player["switch_to"]
                company_since.pop(i, None)  # at the back of another queue
            first = what == "join" and "joined" not in player
            try:
                entry = quickplay.queue_join(
                    player=player["ref"], game=player["game"], stake=player["stake"], now=when(t)
                )
            except TableError:  # matched meanwhile (ALREADY_PLAYING): Play now sends the page to the queue's
                entry = QueueEntry.objects.filter(user_id=player["ref"].user_id).first()
            if first:
                player["joined"] = t
                push(t + quickplay.POLL_SECONDS, "poll", i)
                if player["habit"] == "close":
                    push(t + 4.0, "close", i)
            joins += 1
            if entry is not None and entry.table_id is not None:  # matched: the page follows
                entry = quickplay.queue_poll(player=player["ref"], now=when(t))
        elif what == "close":
            player["gone"] = True
            continue
        else:
            entry = quickplay.queue_poll(player=player["ref"], now=when(t))
            polls += 1
        call_seconds.append(time.perf_counter() - started)
        if entry is not None and entry.table_id is not None:
            at_match = (entry.matched_at - start).total_seconds()
            matched[i] = {
                "company_wait": at_match - company_since.get(i, at_match),
                "table": entry.table_id,
                "wait": (entry.matched_at - entry.joined_at).total_seconds(),
                "rating": entry.rating,
            }
        elif what == "poll" and entry is not None:
            push(t + quickplay.POLL_SECONDS, "poll", i)
        note_company(t)
    wall = time.perf_counter() - wall

    by_table: dict[int, list[float]] = {}
    for m in matched.values():
        by_table.setdefault(m["table"], []).append(m["rating"])
    gaps = [max(r) - min(r) for r in by_table.values()]
    waits = [m["wait"] for m in matched.values()]
    company_waits = [m["company_wait"] for m in matched.values()]
    never = [i for i, p in enumerate(players) if i not in matched and not p.get("gone")]
    double_seats = (
        Seat.objects.filter(table__status__in=(Table.Status.OPEN, Table.Status.RUNNING), user__isnull=False)
        .values("user_id").annotate(n=Count("id")).filter(n__gt=1).count()
    )
    seated_not_followed = Seat.objects.filter(user__isnull=False).count() - len(matched)
    figure("database", connections["default"].vendor)
    figure("players", args.players)
    figure("seconds", args.seconds, "g")
    figure("seed", args.seed)
    figure("rating_spread_mu", args.spread, "g")
    figure("joins", joins)
    figure("polls", polls)
    figure("service_call_ms_p50", percentile(call_seconds, 50) * 1000, ".2f")
    figure("service_call_ms_p99", percentile(call_seconds, 99) * 1000, ".2f")
    figure("wall_s", wall, ".1f")
    figure("tables", len(by_table))
    figure("tables_running", Table.objects.filter(status=Table.Status.RUNNING).count())
    figure("matched", len(matched))
    figure("closed_the_page", sum(1 for p in players if p.get("gone")))
    figure("seated_without_following", seated_not_followed)
    for name in GAMES:
        figure(f"never_matched_{name}", sum(1 for i in never if players[i]["game"] == name))
    figure("rating_gap_p50_mu", percentile(gaps, 50), ".2f")
    figure("rating_gap_p99_mu", percentile(gaps, 99), ".2f")
    figure("rating_gap_p50_points", percentile(gaps, 50) * POINTS_PER_MU, ".0f")
    figure("rating_gap_p99_points", percentile(gaps, 99) * POINTS_PER_MU, ".0f")
    figure("time_to_match_mean_s", statistics.fmean(waits) if waits else float("nan"), ".2f")
    figure("time_to_match_p50_s", percentile(waits, 50), ".2f")
    figure("time_to_match_p99_s", percentile(waits, 99), ".2f")
    figure("time_to_match_max_s", max(waits, default=float("nan")), ".2f")
    figure("never_matched", len(never))
    figure("double_seats", double_seats)
    figure("double_seats_target", "0")
    figure("time_to_match_with_company_p50_s", percentile(company_waits, 50), ".2f")
    figure("time_to_match_with_company_p99_s_target", "10")
    figure("time_to_match_with_company_p99_s", percentile(company_waits, 99), ".2f")


if __name__ == "__main__":
    main()
