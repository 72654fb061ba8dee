"""Chips are never created or lost by a game (RULES.md §6), whatever happens."""

from __future__ import annotations

import datetime as dt

from django.db import transaction
from django.db.models import Sum
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts import services as accounts
from accounts.models import ChipTransaction, User
from games import services as games
from games.core.log import InputLog
from games.core.protocol import IllegalIntent
from games.host import COUNTDOWN_SECONDS
from games.live import live_game_for
from games.models import Game, JournalBatch
from games.resume import NOT_RESUMABLE, CannotResume, load, resumed
from lobby import services as lobby
from lobby.services import TableError
from tests.games.test_money import OPTIONS, outcome
from tests.personas import ref

DAY = dt.date(2026, 11, 1)

refill = st.tuples(st.just("refill"), st.integers(0, 3), st.integers(0, 3))
adjust = st.tuples(st.just("adjust"), st.integers(0, 3), st.integers(-1500, 800))
game = st.tuples(
    st.just("game"),
    st.lists(st.integers(0, 3), min_size=2, max_size=4, unique=True),  # who sits
    st.sampled_from([0, 1, 7, 50, 333, 900]),  # stake
    st.randoms(use_true_random=False),  # places, forfeits, IPs
    # ended by its host; aborted; or its host killed, then resumed by the next process from
    # what it wrote (and finished, twice over: once counts), or not (what it wrote is damaged)
    st.sampled_from(["finish", "finish", "abort", "restart", "restart_damaged"]),
)
operations = st.lists(st.one_of(refill, adjust, game), max_size=10)


def play(users, admin, op) -> None:
    kind = op[0]
    if kind == "refill":
        try:
            games.chips_refill(user=users[op[1]], today=DAY + dt.timedelta(days=op[2]))
        except accounts.ChipsError:
            pass
    elif kind == "adjust":
        if op[2]:
            try:
                accounts.chips_adjust(user=users[op[1]], delta=op[2], note="property test", by=admin)
            except accounts.ChipsError:
                pass
    else:
        _, who, stake, rng, end = op
        players = [users[i] for i in who]
        ips = [rng.choice(["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4", None]) for _ in players]
        try:
            table = lobby.table_create(
                player=ref(players[0]), game="tetriwar", options=dict(OPTIONS), seats_total=len(players),
                stake=stake, ip=ips[0],
            )
            for n, user in enumerate(players[1:], start=2):
                lobby.seat_take(table_id=table.pk, player=ref(user), number=n, ip=ips[n - 1])
            for user in players:
                lobby.seat_ready(table_id=table.pk, player=ref(user), ready=True)
            lobby.table_start(table_id=table.pk, player=ref(players[0]))
        except TableError:
            return
        game_id = Game.objects.get(table=table).pk
        if end == "abort":
            games.game_abort(game_id=game_id, reason="property test")
            return
        if end.startswith("restart"):
            restart(game_id, rng, damaged=end == "restart_damaged")
            return
        places = {seat: rng.randint(1, len(players)) for seat in range(1, len(players) + 1)}
        # Places as the engine gives them: ties share the better place.
        ordered = sorted(places.values())
        places = {seat: ordered.index(place) + 1 for seat, place in places.items()}
        forfeits = {seat for seat in places if rng.random() < 0.2}
        games.game_finish(game_id=game_id, finished=outcome(places, forfeits=forfeits))


def restart(game_id: int, rng, *, damaged: bool) -> None:
    """The game's host plays a few keys and writes them down (games/journal.py), then dies;
    the next process rebuilds the game from them (games/resume.py) and its players leave
    one by one until one is left: the game is finished by the new host, and again by a
    second one (a stale host: nothing changes). A game whose written inputs are damaged
    cannot be rebuilt: aborted, and aborted again (nothing changes)."""
    live = live_game_for(games.setup_of(Game.objects.get(pk=game_id)))
    live.begin(COUNTDOWN_SECONDS)
    for k in range(rng.randint(0, 6)):
        try:
            live.apply(rng.choice(live.seats), rng.choice(["hard_drop", "left", "rotate_cw"]), COUNTDOWN_SECONDS + k / 10)
        except IllegalIntent:
            pass
    data = InputLog(live.game.log).pack(live.game.start, live.game.now)
    games.journal_write(batches=[(game_id, 0, data[:-3] if damaged else data)])
    try:
        (stored,) = load([game_id])
        rebuilt = resumed(stored, start_at=COUNTDOWN_SECONDS)
    except CannotResume:
        assert damaged
        assert games.game_abort(game_id=game_id, reason=NOT_RESUMABLE) is not None
        assert games.game_abort(game_id=game_id, reason=NOT_RESUMABLE) is None
        return
    assert not damaged and rebuilt.live.game.log == live.game.log
    leaving = list(rebuilt.live.seats)
    rng.shuffle(leaving)
    for seat in leaving[:-1]:
        rebuilt.live.forfeit(seat, rebuilt.resume_at + 1)
    finished = rebuilt.live.finished_game()
    assert games.game_finish(game_id=game_id, finished=finished) is not None
    assert games.game_finish(game_id=game_id, finished=finished) is None


def check_ledger() -> None:
    granted = ChipTransaction.objects.filter(reason__in=["signup", "refill", "admin"]).aggregate(s=Sum("delta"))["s"]
    total = User.objects.aggregate(s=Sum("chips"))["s"]
    assert total == granted, "a game created or destroyed chips"
    for user in User.objects.all():
        assert user.chips >= 0
        running = 0
        for row in ChipTransaction.objects.filter(user=user).order_by("id"):
            running += row.delta
            assert row.balance_after == running, f"ledger row {row.pk} does not match the change"
        assert running == user.chips
    # a game over keeps no journal: its record is the whole log
    assert not JournalBatch.objects.exclude(game__status=Game.Status.RUNNING).exists()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=operations)
def test_chips_are_conserved_and_every_ledger_row_matches_a_change(db, ops):
    with transaction.atomic():
        admin = User.objects.create_superuser("mod", "m@example.com", "a-Long-pass-42")
        users = [accounts.user_signup(username=f"p{i}", email=f"p{i}@example.com", password="a-Long-pass-42")
                 for i in range(4)]
        for op in ops:
            play(users, admin, op)
            check_ledger()
        transaction.set_rollback(True)
