"""Arenas under load (issue 51): players paired as their games end, the standings pushed.

    python bench/arena.py [--players 300] [--minutes 20] [--games K,K,…] [--fee 10]
                          [--seed 1]

For each game of ``--games`` (default all five), one arena of ``--minutes`` (default 20)
with an entry fee of ``--fee`` chips (default 10; 0: friendly) and N players (default
300) who join at random moments of its first two minutes. Time is simulated, the
services are real (lobby/arenas.py, on a scratch database: SQLite by default, or a
scratch database on the PostgreSQL server of ``DATABASE_URL``): every simulated second
each arena moves on (``arena_tick``, as its pages' looks do: it pairs who waits), and
each game ends (``game_finish``, which scores it and frees its players) after a length
drawn from 20 s to 5 min (log-uniform), its places at random. People act as people
do: 10 % pause once for 30–120 s and join again, 5 % leave for good after a while,
5 % close their page (paused after their game, as the site does when a player's page
is gone). After the arena's end its last games finish and it pays its podium.

Prints ``name: value`` lines: per arena its tables and games, then for all:
``pairing_wait_p50_s`` / ``pairing_wait_p99_s`` (from a player's being due for a game,
the results' moment after their last one included, or the moment enough were due for a
table of the game (two; three for Block-Killer), whichever is later, to their table: the
target is p99 ≤ 10 s while two or more wait),
``double_seats`` (players at two running tables at once, checked after every pairing:
0), ``standings_ms_p50`` / ``standings_ms_p99`` (recomputing an arena's standings and
rendering and sending its board to the layer, as ``arena_news`` does at most once a
second per arena: target ≤ 50 ms), and ``chips_conserved`` (yes/no: the players'
chips and the pools, before and after), and last the headline, ``pairing_wait_p99_s``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import heapq
import math
import os
import random
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.report import figure  # noqa: E402
from bench.server import ScratchDatabase, django_in_process  # noqa: E402

SERVER_URL = os.environ.get("DATABASE_URL", "")
SCRATCH_PG = None
if SERVER_URL:
    SCRATCH_PG = ScratchDatabase(SERVER_URL.rsplit("/", 1)[0], prefix="tetriwar_bench_arena_")
    os.environ["DATABASE_URL"] = SCRATCH_PG.url
else:
    os.environ["SQLITE_NAME"] = os.path.join(tempfile.mkdtemp(prefix="bench-arena-"), "arena.sqlite3")

django_in_process()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connections  # noqa: E402
from django.db.models import Count, Sum  # noqa: E402
from django.utils import timezone  # noqa: E402

from accounts.identity import PlayerRef  # noqa: E402
from accounts.models import User  # noqa: E402
from accounts.services import user_signup  # noqa: E402
from games import services as game_services  # noqa: E402
from games.core.outcome import Outcome, Standing, Termination  # noqa: E402
from games.live import FinishedGame  # noqa: E402
from games.models import Game, Rating  # noqa: E402
from games.registry import GAMES  # noqa: E402
from lobby import arenas  # noqa: E402
from lobby.models import Arena, ArenaPlayer, Seat, Table, Watcher  # noqa: E402

SHORTEST_GAME_S, LONGEST_GAME_S = 20.0, 300.0
TICK_S = 1.0  # each arena moves on every simulated second (its pages' looks)


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=300, help="players in each arena")
    parser.add_argument("--minutes", type=int, default=20, help="each arena's length (10 to 120)")
    parser.add_argument("--games", default=",".join(GAMES), help="the games, one arena each")
    parser.add_argument("--fee", type=int, default=10, help="entry fee in chips (0: friendly)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # sign-ups, not a bench of them
    # Every start tells its table host through the layer: no host runs here, so hold them all.
    settings.CHANNEL_LAYERS = {
        "default": {"BACKEND": "channels.layers.InMemoryChannelLayer", "CONFIG": {"capacity": 10_000_000}}
    }
    if SCRATCH_PG is not None:
        SCRATCH_PG.create(migrated=True)
    try:
        Bench(args).run()
    finally:
        connections.close_all()
        if SCRATCH_PG is not None:
            SCRATCH_PG.drop()


def finished(places: dict[int, int]) -> FinishedGame:
    """A game's end as an engine gives it: ``places`` maps seat → place."""
    standings = tuple(
        Standing(place=place, seats=(seat,), score=100 - place, shared=list(places.values()).count(place) > 1)
        for seat, place in sorted(places.items(), key=lambda item: item[1])
    )
    players = {seat: {"score": 100 - place, "lines": 0, "eliminations": 0} for seat, place in places.items()}
    return FinishedGame(Outcome(Termination.TIME, standings), players, [], 60.0)


class Bench:
    def __init__(self, args) -> None:
        self.args = args
        self.rng = random.Random(args.seed)
        self.now = 0.0  # simulated seconds since the start
        self.events: list[tuple[float, int, str, tuple]] = []
        self.order = 0
        self.waits: list[float] = []
        self.standings_ms: list[float] = []
        self.double_seats = 0
        self.due_since: dict[int, float] = {}  # ArenaPlayer id → when due (and in company)
        self.seated: dict[int, int | None] = {}  # ArenaPlayer id → table id, as last seen
        self.closed: set[int] = set()  # users whose page is gone
        self.changed: set[int] = set()  # arenas whose board changed this second

    # --- the simulated clock ---------------------------------------------------------
    def at(self, seconds: float) -> dt.datetime:
        return self.start + dt.timedelta(seconds=seconds)

    def push(self, t: float, what: str, *data) -> None:
        self.order += 1
        heapq.heappush(self.events, (t, self.order, what, data))

    def run(self) -> None:
        call_command("migrate", verbosity=0)
        args, rng = self.args, self.rng
        self.start = timezone.now().replace(microsecond=0) + dt.timedelta(minutes=1)
        arenas.clock = lambda: self.at(self.now)
        # The board's news waits for the second's end, as ``arena_news`` times it under a server
        # (here no loop times it: it would go at once, for every change): ``on_tick`` sends it.
        arenas.arena_news.changed = self.changed.add
        staff = User.objects.create_user("bench-staff", password="x", is_staff=True)
        kinds = [k for k in args.games.split(",") if k]
        self.arenas: list[Arena] = []
        for kind in kinds:
            arena = arenas.arena_create(
                by=staff, title=f"{GAMES[kind].name} arena", game=kind, starts_at=self.start,
                minutes=args.minutes, fee=args.fee, now=self.at(-60),
            )
            self.arenas.append(arena)
            for n in range(args.players):
                name = f"{kind}{n}"
                user = user_signup(username=name, email=f"{name}@example.com", password="a-Long-pass-42")
                Rating.objects.create(user=user, kind=kind, mu=rng.gauss(25.0, 4.0), sigma=3.0)
                ref = PlayerRef(user_id=user.pk, guest_token="", name=name)
                joined = rng.uniform(0, 120)
                self.push(joined, "join", arena.pk, ref, f"10.{n // 250}.{n % 250}.{kinds.index(kind) + 1}")
                habit = rng.choices(["plain", "pause", "leave", "close"], [0.80, 0.10, 0.05, 0.05])[0]
                if habit == "pause":
                    at = rng.uniform(joined + 60, args.minutes * 60 - 120)
                    self.push(at, "pause", arena.pk, ref)
                    self.push(at + rng.uniform(30, 120), "join", arena.pk, ref, None)
                elif habit == "leave":
                    self.push(rng.uniform(joined + 60, args.minutes * 60), "leave", arena.pk, ref)
                elif habit == "close":
                    self.push(rng.uniform(joined + 60, args.minutes * 60), "close", arena.pk, ref)
        self.chips_before = self.chips()
        end = args.minutes * 60.0
        for second in range(int(end) + 1):
            self.push(float(second), "tick")
        wall = time.perf_counter()
        while self.events:
            t, _, what, data = heapq.heappop(self.events)
            self.now = t
            getattr(self, f"on_{what}")(*data)
        # Past the end: the last games finish (each within its own length), the arenas pay.
        self.now = end + LONGEST_GAME_S + 1
        for table in Table.objects.filter(arena__in=self.arenas, status=Table.Status.RUNNING):
            self.finish(table.pk)
        for arena in self.arenas:
            arenas.arena_tick(arena_id=arena.pk)
        wall = time.perf_counter() - wall
        self.report(kinds, wall)

    # --- what happens ------------------------------------------------------------------
    def on_join(self, arena_id: int, ref: PlayerRef, ip: str | None) -> None:
        try:
            arenas.arena_join(arena_id=arena_id, player=ref, ip=ip)
            self.changed.add(arena_id)
        except arenas.ArenaError:
            pass  # came back to an arena that is over, or left for good meanwhile
        self.closed.discard(ref.user_id)

    def no_longer_due(self, arena_id: int, ref: PlayerRef) -> None:
        """A player who pauses, leaves or closes the page waits for nothing: the time
        until they come back is not a pairing's wait."""
        for pk in ArenaPlayer.objects.filter(arena_id=arena_id, user_id=ref.user_id).values_list("pk", flat=True):
            self.due_since.pop(pk, None)

    def on_pause(self, arena_id: int, ref: PlayerRef) -> None:
        self.no_longer_due(arena_id, ref)
        try:
            arenas.arena_pause(arena_id=arena_id, player=ref)
            self.changed.add(arena_id)
        except arenas.ArenaError:
            pass  # paused already (the page was gone)

    def on_leave(self, arena_id: int, ref: PlayerRef) -> None:
        self.no_longer_due(arena_id, ref)
        try:
            arenas.arena_leave(arena_id=arena_id, player=ref)
            self.changed.add(arena_id)
        except arenas.ArenaError:
            pass

    def on_close(self, arena_id: int, ref: PlayerRef) -> None:
        self.no_longer_due(arena_id, ref)
        self.closed.add(ref.user_id)
        Watcher.objects.filter(user_id=ref.user_id).delete()

    def on_tick(self) -> None:
        for arena in self.arenas:
            self.note_company(arena)
            arenas.arena_tick(arena_id=arena.pk)
            if self.note_pairings(arena) or arena.pk in self.changed:
                self.push_board(arena.pk)  # at most once a second, as arena_news
        self.changed.clear()

    def on_end(self, table_id: int, arena_id: int) -> None:
        self.finish(table_id)
        self.changed.add(arena_id)

    def finish(self, table_id: int) -> None:
        game = Game.objects.filter(table_id=table_id, status=Game.Status.RUNNING).first()
        if game is None:
            return
        seats = list(Seat.objects.filter(table_id=table_id).values_list("number", flat=True))
        order = self.rng.sample(seats, len(seats))
        places = {seat: n for n, seat in enumerate(order, start=1)}
        if len(seats) > 1 and self.rng.random() < 0.05:  # now and then a shared first
            places[order[1]] = 1
        game_services.game_finish(game_id=game.pk, finished=finished(places))

    # --- what is measured ------------------------------------------------------------
    def note_company(self, arena: Arena) -> None:
        """Who is due for a game now, while enough are due to make a table."""
        due = list(
            ArenaPlayer.objects.filter(
                arena=arena, status=ArenaPlayer.Status.ACTIVE, table__isnull=True,
                waiting_since__lte=self.at(self.now),
            ).values_list("pk", "waiting_since")
        )
        if len(due) < max(2, GAMES[arena.game].min_seats):  # too few for a table of the game
            return
        for pk, since in due:
            if pk not in self.due_since:
                self.due_since[pk] = max((since - self.start).total_seconds(), self.now - TICK_S)

    def note_pairings(self, arena: Arena) -> bool:
        rows = ArenaPlayer.objects.filter(arena=arena).values_list("pk", "table_id", "user_id")
        new_tables = set()
        for pk, table_id, user_id in rows:
            before = self.seated.get(pk)
            self.seated[pk] = table_id
            if table_id is not None and table_id != before:
                since = self.due_since.pop(pk, None)
                if since is not None:
                    self.waits.append(max(0.0, self.now - since))
                new_tables.add(table_id)
                if user_id not in self.closed:  # the player's page is open at the table
                    Watcher.objects.get_or_create(
                        channel_name=f"bench-{table_id}-{user_id}", defaults={"table_id": table_id, "user_id": user_id}
                    )
        for table_id in new_tables:
            length = math.exp(self.rng.uniform(math.log(SHORTEST_GAME_S), math.log(LONGEST_GAME_S)))
            self.push(self.now + length, "end", table_id, arena.pk)
        if new_tables:
            self.double_seats += (
                Seat.objects.filter(table__status=Table.Status.RUNNING, user__isnull=False)
                .values("user_id").annotate(n=Count("id")).filter(n__gt=1).count()
            )
        return bool(new_tables)

    def push_board(self, arena_id: int) -> None:
        """What ``arena_news`` does for an arena at most once a second: its standings afresh,
        its board rendered and sent."""
        started = time.perf_counter()
        arenas.send_boards([arena_id])
        self.standings_ms.append((time.perf_counter() - started) * 1000)

    def chips(self) -> int:
        users = User.objects.aggregate(total=Sum("chips"))["total"] or 0
        pools = Arena.objects.aggregate(total=Sum("pool"))["total"] or 0
        return users + pools

    def report(self, kinds: list[str], wall: float) -> None:
        args = self.args
        figure("database", connections["default"].vendor)
        figure("players_per_arena", args.players)
        figure("arena_minutes", args.minutes)
        figure("fee", args.fee)
        figure("seed", args.seed)
        for arena, kind in zip(self.arenas, kinds, strict=True):
            arena.refresh_from_db()
            tables = Table.objects.filter(arena=arena).count()
            counted = ArenaPlayer.objects.filter(arena=arena).aggregate(total=Sum("games"))["total"] or 0
            figure(f"{kind}_tables", tables)
            figure(f"{kind}_games_counted_per_player", counted / max(1, args.players), ".1f")
            figure(f"{kind}_status", arena.status)
        figure("wall_s", wall, ".1f")
        figure("pairings", len(self.waits))
        figure("pairing_wait_p50_s", percentile(self.waits, 50), ".2f")
        figure("pairing_wait_max_s", max(self.waits, default=float("nan")), ".2f")
        figure("double_seats_target", "0")
        figure("double_seats", self.double_seats)
        figure("standings_ms_p50", percentile(self.standings_ms, 50), ".2f")
        figure("standings_ms_p99_target", "50")
        figure("standings_ms_p99", percentile(self.standings_ms, 99), ".2f")
        after = self.chips()
        figure("chips_before", self.chips_before)
        figure("chips_after", after)
        figure("chips_conserved", "yes" if after == self.chips_before else "no")
        figure("pairing_wait_p99_s_target", "10")
        figure("pairing_wait_p99_s", percentile(self.waits, 99), ".2f")


if __name__ == "__main__":
    main()
