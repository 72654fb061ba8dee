"""The daily refill counts the chips a player has in running games' pots (issue 17,
RULES.md §6): a player with chips on the table is not broke."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse

from accounts.models import ChipTransaction
from accounts.services import ChipsError
from games import services as game_services
from games.selectors import chips_in_pots
from lobby import services
from tests.games.test_money import chips_of, outcome, seat_all
from tests.personas import ref

MONDAY = dt.date(2026, 11, 2)


def test_a_player_whose_chips_are_in_a_running_pot_gets_no_refill(make_user):
    staker, rival = make_user("staker", chips=150), make_user("rival")
    seat_all([staker, rival], stake=100)
    assert chips_of(staker) == [50]
    assert chips_in_pots(staker.pk) == 100

    with pytest.raises(ChipsError, match="100 more are in the pots"):
        game_services.chips_refill(user=staker, today=MONDAY)
    assert chips_of(staker) == [50]
    assert not ChipTransaction.objects.filter(user=staker, reason=ChipTransaction.Reason.REFILL).exists()


def test_the_refill_tops_up_balance_and_pot_together_to_100(make_user):
    staker, rival = make_user("staker", chips=60), make_user("rival")
    seat_all([staker, rival], stake=50)  # 10 left, 50 in the pot

    row = game_services.chips_refill(user=staker, today=MONDAY)

    assert row.delta == 40
    assert chips_of(staker) == [50]


def test_once_the_game_ends_the_pot_no_longer_counts(make_user):
    staker, rival = make_user("staker", chips=150), make_user("rival")
    _, game = seat_all([staker, rival], stake=100)
    game_services.game_finish(game_id=game.pk, finished=outcome({1: 2, 2: 1}))  # the rival wins the pot

    assert chips_in_pots(staker.pk) == 0
    game_services.chips_refill(user=staker, today=MONDAY)
    assert chips_of(staker) == [100]


def test_reserved_stakes_are_still_in_the_balance(make_user, make_table):
    broke, host = make_user("broke", chips=60), make_user("tablehost")
    table = make_table(ref(host), stake=50)
    services.seat_take(table_id=table.pk, player=ref(broke), number=2)  # reserves 50 of the 60

    row = game_services.chips_refill(user=broke, today=MONDAY)
    assert row.delta == 40  # the reserved 50 were never taken from the balance


def test_the_profile_offers_no_refill_while_chips_are_in_a_pot(client, make_user):
    staker, rival = make_user("staker", chips=150), make_user("rival")
    seat_all([staker, rival], stake=100)
    client.force_login(staker)

    html = client.get(reverse("profile")).content.decode()
    assert f'action="{reverse("refill")}"' not in html

    response = client.post(reverse("refill"), follow=True)
    assert "in the pots of games you are playing" in response.content.decode()
    assert chips_of(staker) == [50]
