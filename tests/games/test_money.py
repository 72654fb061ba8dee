"""Stakes, pots and leaderboard points through games/services.py (RULES.md §6)."""

from __future__ import annotations

import pytest

from accounts.models import ChipTransaction
from games import services as game_services
from games.core.outcome import Outcome, Standing, Termination
from games.live import FinishedGame
from games.models import Game
from games.tetriwar.engine import Game as TetriWar
from games.tetriwar.engine import Options as TetriWarOptions
from lobby import services
from lobby.services import TableError, chips_available
from tests.personas import ref

OPTIONS = {"minutes": 3, "start_level": 1, "lines_per_level": 10, "bombs": "manual", "pairs": False}


def seat_all(users, *, stake, seats=None, ips=None, options=None):
    """A competitive table with ``users`` seated in order, all ready, started."""
    table = services.table_create(
        player=ref(users[0]),
        game="tetriwar",
        options=options or dict(OPTIONS),
        seats_total=seats or len(users),
        stake=stake,
        ip=(ips or [None] * len(users))[0],
    )
    for n, user in enumerate(users[1:], start=2):
        services.seat_take(
            table_id=table.pk, player=ref(user), number=n, ip=(ips or [None] * len(users))[n - 1]
        )
    for user in users:
        services.seat_ready(table_id=table.pk, player=ref(user), ready=True)
    services.table_start(table_id=table.pk, player=ref(users[0]))
    return table, Game.objects.get(table=table)


def outcome(places: dict, forfeits=(), pairs=False):
    """Standings as the engine gives them: ``places`` maps seat -> place (sides by seat)."""
    if pairs:
        sides = [((1, 2), places[1]), ((3, 4), places[3])]
    else:
        sides = [((seat,), place) for seat, place in places.items()]
    sides.sort(key=lambda s: s[1])
    standings = tuple(
        Standing(
            place=place,
            seats=tuple(seats),
            score=0,
            shared=sum(1 for _, p in sides if p == place) > 1,
            forfeited=any(s in forfeits for s in seats),
        )
        for seats, place in sides
    )
    players = {
        seat: {"score": 100 - 10 * place, "lines": 1, "eliminations": 0} for seat, place in places.items()
    }
    termination = Termination.FORFEIT if forfeits else Termination.TIME
    return FinishedGame(Outcome(termination, standings), players, [[0.5, 1, "left"]], 180.0)


def chips_of(*users):
    for u in users:
        u.refresh_from_db()
    return [u.chips for u in users]


@pytest.fixture
def four(make_user):
    return [make_user(name) for name in ("ann", "ben", "cat", "dan")]


def test_sitting_reserves_the_stake_and_chips_cannot_be_promised_twice(host, opponent, outsider, make_table):
    first = make_table(ref(host), stake=600)
    services.seat_take(table_id=first.pk, player=ref(opponent), number=2)
    assert chips_available(opponent.pk) == 400
    make_table(ref(opponent), stake=0)  # friendly tables reserve nothing
    assert chips_available(opponent.pk) == 400
    other = services.table_create(
        player=ref(outsider), game="tetriwar", options=OPTIONS, seats_total=2, stake=500
    )
    with pytest.raises(TableError) as exc:
        services.seat_take(table_id=other.pk, player=ref(opponent), number=2)
    assert exc.value.code == "NOT_ENOUGH_CHIPS" and "600 are staked at other tables" in exc.value.message
    # Standing up before the start releases the reservation.
    services.seat_leave(table_id=first.pk, player=ref(opponent))
    services.seat_take(table_id=other.pk, player=ref(opponent), number=2)
    assert chips_available(opponent.pk) == 500


def test_starting_takes_every_stake_into_the_pot(host, opponent):
    table, game = seat_all([host, opponent], stake=100)
    assert game.pot == 200
    assert chips_of(host, opponent) == [900, 900]
    stakes = ChipTransaction.objects.filter(reason="stake").order_by("user_id")
    assert [(r.user, r.delta, r.balance_after) for r in stakes] == [(host, -100, 900), (opponent, -100, 900)]
    assert chips_available(host.pk) == 900  # a running table reserves nothing more


def test_a_start_that_a_player_can_no_longer_pay_is_refused_and_changes_nothing(host, opponent, admin_user):
    from accounts.services import chips_adjust

    table = services.table_create(
        player=ref(host), game="tetriwar", options=OPTIONS, seats_total=2, stake=800
    )
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    for user in (host, opponent):
        services.seat_ready(table_id=table.pk, player=ref(user), ready=True)
    chips_adjust(user=opponent, delta=-500, note="Chargeback", by=admin_user)
    with pytest.raises(TableError) as exc:
        services.table_start(table_id=table.pk, player=ref(host))
    assert "opponent no longer holds the 800-chip stake" in exc.value.message
    assert chips_of(host, opponent) == [1000, 500]
    assert not Game.objects.exists()
    table.refresh_from_db()
    assert table.status == "open"


def test_two_players_winner_takes_the_pot_and_ten_points(host, opponent):
    table, game = seat_all([host, opponent], stake=100)
    game_services.game_finish(game_id=game.pk, finished=outcome({1: 2, 2: 1}))
    parts = {p.seat: p for p in Game.objects.get(pk=game.pk).participations.all()}
    assert (parts[2].place, parts[2].points, parts[2].chips_delta) == (1, 10, 100)
    assert (parts[1].place, parts[1].points, parts[1].chips_delta) == (2, -5, -100)
    assert chips_of(host, opponent) == [900, 1100]
    game.refresh_from_db()
    assert game.scored and game.status == "finished"
    assert game.termination == "time"  # why it ended, from its Outcome
    assert game.log.summary["termination"] == "time"
    assert game.log.summary["standings"][0] == {
        "place": 1,
        "seats": [2],
        "score": 0,
        "lines": 0,
        "eliminations": 0,
        "shared": False,
        "forfeited": False,
        "left": [],
    }


def test_three_players_points(make_user):
    users = [make_user(n) for n in ("ann", "ben", "cat")]
    _, game = seat_all(users, stake=10)
    game_services.game_finish(game_id=game.pk, finished=outcome({1: 3, 2: 1, 3: 2}))
    points = dict(Game.objects.get(pk=game.pk).participations.values_list("seat", "points"))
    assert points == {2: 15, 3: 0, 1: -10}


def test_four_players_points_and_a_shared_first_splits_the_pot(four):
    _, game = seat_all(four, stake=25)  # pot 100
    game_services.game_finish(game_id=game.pk, finished=outcome({1: 1, 2: 3, 3: 1, 4: 4}))
    rows = {p.seat: (p.points, p.chips_delta) for p in Game.objects.get(pk=game.pk).participations.all()}
    assert rows == {1: (20, 25), 3: (20, 25), 2: (0, -25), 4: (-10, -25)}
    assert chips_of(*four) == [1025, 975, 1025, 975]


def test_the_remainder_of_a_split_goes_to_the_lowest_seat(make_user):
    users = [make_user(n) for n in ("ann", "ben", "cat")]
    _, game = seat_all(users, stake=33)  # pot 99, two winners
    game_services.game_finish(game_id=game.pk, finished=outcome({1: 3, 2: 1, 3: 1}))
    rows = {p.seat: p.chips_delta for p in Game.objects.get(pk=game.pk).participations.all()}
    assert rows == {2: 50 - 33, 3: 49 - 33, 1: -33}
    assert sum(chips_of(*users)) == 3000


def test_pairs_win_together_and_split_the_pot(four):
    _, game = seat_all(four, stake=50, options={**OPTIONS, "pairs": True})
    game_services.game_finish(game_id=game.pk, finished=outcome({1: 2, 2: 2, 3: 1, 4: 1}, pairs=True))
    rows = {p.seat: (p.points, p.chips_delta) for p in Game.objects.get(pk=game.pk).participations.all()}
    assert rows == {3: (10, 50), 4: (10, 50), 1: (-5, -50), 2: (-5, -50)}


def test_a_player_who_leaves_gets_minus_twenty_and_loses_the_stake(make_user):
    users = [make_user(n) for n in ("ann", "ben", "cat")]
    _, game = seat_all(users, stake=40)
    game_services.game_finish(game_id=game.pk, finished=outcome({1: 1, 2: 2, 3: 3}, forfeits=(3,)))
    rows = {
        p.seat: (p.points, p.chips_delta, p.forfeited)
        for p in Game.objects.get(pk=game.pk).participations.all()
    }
    assert rows == {1: (15, 80, False), 2: (0, -40, False), 3: (-20, -40, True)}


def engine_pairs_outcome(leaves: list[tuple[int, int]]) -> FinishedGame:
    """A pairs game of the TetriWar engine in which ``leaves`` (seat, time in ms) forfeit,
    run to its end: the outcome exactly as the host hands it to the services."""
    engine = TetriWar(TetriWarOptions(minutes=1, pairs=True), 1, [1, 2, 3, 4], 0)
    for seat, t in leaves:
        engine.forfeit(seat, t)
    engine.advance(engine.end)
    players = {seat: {"score": 0, "lines": 0, "eliminations": 0} for seat in engine.seats}
    return FinishedGame(engine.outcome(), players, list(engine.log), engine.now / 1000, clock=(engine.start, engine.now))


def test_in_pairs_only_the_partner_who_leaves_is_penalised(four):
    _, game = seat_all(four, stake=50, options={**OPTIONS, "pairs": True})
    game_services.game_finish(game_id=game.pk, finished=engine_pairs_outcome([(2, 5000)]))
    rows = {
        p.seat: (p.points, p.chips_delta, p.forfeited)
        for p in Game.objects.get(pk=game.pk).participations.all()
    }
    # seat 2 left: -20 and the stake; seat 1 stayed: the pair's last place (-5), not -20
    assert rows == {3: (10, 50, False), 4: (10, 50, False), 1: (-5, -50, False), 2: (-20, -50, True)}
    assert sum(chips_of(*four)) == 4000


def test_a_first_pair_with_a_leaver_pays_the_partner_who_stayed_alone(four):
    _, game = seat_all(four, stake=50, options={**OPTIONS, "pairs": True})
    # both pairs lose a player; pair 1 + 2 lost theirs later, so it ranks first
    game_services.game_finish(game_id=game.pk, finished=engine_pairs_outcome([(4, 1000), (2, 2000)]))
    rows = {
        p.seat: (p.place, p.points, p.chips_delta, p.forfeited)
        for p in Game.objects.get(pk=game.pk).participations.all()
    }
    assert rows == {
        1: (1, 10, 150, False),
        2: (1, -20, -50, True),
        3: (2, -5, -50, False),
        4: (2, -20, -50, True),
    }
    assert sum(chips_of(*four)) == 4000


def test_players_sharing_an_ip_play_unscored_and_get_their_stakes_back(host, opponent):
    _, game = seat_all([host, opponent], stake=100, ips=["10.0.0.7", "10.0.0.7"])
    finished = game_services.game_finish(game_id=game.pk, finished=outcome({1: 1, 2: 2}))
    assert not finished.scored and "share an IP address" in finished.unscored_reason
    assert [(p.points, p.chips_delta) for p in finished.participations.all()] == [(0, 0), (0, 0)]
    assert chips_of(host, opponent) == [1000, 1000]
    assert ChipTransaction.objects.filter(reason="refund").count() == 2


def test_the_table_warns_when_two_seated_players_share_an_ip(client, host, opponent):
    table = services.table_create(
        player=ref(host), game="tetriwar", options=OPTIONS, seats_total=2, stake=5, ip="10.1.1.1"
    )
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2, ip="10.1.1.1")
    page = client.get(table.get_absolute_url()).content.decode()
    assert "share an IP address" in page
    assert 'id="pot"' in page and "<strong>10</strong>" in page


def test_an_aborted_game_returns_every_stake(host, opponent):
    table, game = seat_all([host, opponent], stake=100)
    game_services.game_abort(game_id=game.pk, reason="The server stopped.")
    assert chips_of(host, opponent) == [1000, 1000]
    game.refresh_from_db()
    assert game.status == "aborted" and game.abort_reason == "The server stopped."
    assert game.termination == "abort"
    table.refresh_from_db()
    assert table.status == "open"


def test_a_game_finishes_or_aborts_once_only(host, opponent):
    _, game = seat_all([host, opponent], stake=100)
    assert game_services.game_finish(game_id=game.pk, finished=outcome({1: 1, 2: 2})) is not None
    rows = ChipTransaction.objects.count()
    assert game_services.game_finish(game_id=game.pk, finished=outcome({1: 2, 2: 1})) is None
    assert game_services.game_abort(game_id=game.pk, reason="late") is None
    assert ChipTransaction.objects.count() == rows
    assert chips_of(host, opponent) == [1100, 900]


def test_a_friendly_game_moves_no_chips_or_points(host, opponent):
    _, game = seat_all([host, opponent], stake=0)
    finished = game_services.game_finish(game_id=game.pk, finished=outcome({1: 1, 2: 2}))
    assert not finished.scored
    assert [(p.points, p.chips_delta) for p in finished.participations.all()] == [(0, 0), (0, 0)]
    assert chips_of(host, opponent) == [1000, 1000]


def test_closing_a_running_competitive_table_returns_the_stakes(host, opponent, admin_user):
    from accounts.models import ModerationAction

    table, game = seat_all([host, opponent], stake=100)
    services.table_close(table_id=table.pk, reason="Cheating suspected", by=admin_user)
    assert chips_of(host, opponent) == [1000, 1000]
    game.refresh_from_db()
    assert game.status == "aborted" and "Cheating suspected" in game.abort_reason
    log = ModerationAction.objects.get()
    assert (log.admin, log.action, log.table_id) == (admin_user, "close_table", table.pk)


def test_every_admin_action_leaves_a_row_naming_the_admin(opponent, admin_user):
    from accounts import services as accounts_services
    from accounts.models import ModerationAction

    accounts_services.user_ban(user=opponent, reason="Abuse", by=admin_user)
    accounts_services.user_unban(user=opponent, by=admin_user)
    accounts_services.chips_adjust(user=opponent, delta=5, note="Goodwill", by=admin_user)
    actions = list(
        ModerationAction.objects.order_by("id").values_list("action", "admin__username", "user__username")
    )
    assert actions == [
        ("ban", "moderator", "opponent"),
        ("unban", "moderator", "opponent"),
        ("adjust_chips", "moderator", "opponent"),
    ]
    assert ChipTransaction.objects.filter(reason="admin", created_by=admin_user).count() == 1
