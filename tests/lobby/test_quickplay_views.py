"""Quick play's pages (issue 32): Play now, the waiting page and its poll, the offer
of a bot after 20 s, Keep waiting, Leave, and CSRF on every POST."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.identity import SESSION_GUEST_NAME, SESSION_GUEST_TOKEN
from games.models import Game
from lobby.models import QueueEntry, Table
from lobby.quickplay import OFFER_BOT_AFTER_SECONDS, queue_join
from tests.personas import guest, ref

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}
PLAY_VIERTRIS = reverse("lobby:play_now", args=["viertris"])
QUEUE = reverse("lobby:queue")
LEAVE = reverse("lobby:queue_leave")
KEEP = reverse("lobby:queue_keep")


def as_guest(client: Client, name: str = "visitor", token: str = "guest-token-1") -> Client:
    session = client.session
    session[SESSION_GUEST_NAME] = name
    session[SESSION_GUEST_TOKEN] = token
    session.save()
    return client


def test_the_url_names_the_lobby_cards_post_to():
    assert reverse("lobby:play_now", args=["blockkiller"]) == "/lobby/play/blockkiller/"
    assert (QUEUE, LEAVE) == ("/lobby/queue/", "/lobby/queue/leave/")


def test_the_lobby_has_a_play_now_button_for_every_game(client):
    page = client.get(reverse("lobby:index")).content.decode()
    for slug in ("tetriwar", "viertris", "thirdoption", "blockkiller", "tetrix"):
        assert f'action="{reverse("lobby:play_now", args=[slug])}"' in page


def test_every_post_of_quick_play_needs_its_csrf_token(host):
    client = Client(enforce_csrf_checks=True)
    client.force_login(host)
    for url in (PLAY_VIERTRIS, LEAVE, KEEP):
        assert client.post(url).status_code == 403
    assert not QueueEntry.objects.exists()


def test_play_now_is_a_post(client, host):
    client.force_login(host)
    assert client.get(PLAY_VIERTRIS).status_code == 405


def test_somebody_without_a_name_is_asked_for_one_first(client):
    response = client.post(PLAY_VIERTRIS)
    assert response.status_code == 302 and response.url.startswith(reverse("guest"))
    assert not QueueEntry.objects.exists()


def test_a_guest_presses_play_now_and_waits_on_a_page_that_asks_every_2_seconds(client):
    as_guest(client)
    response = client.post(PLAY_VIERTRIS)
    assert response.status_code == 302 and response.url == QUEUE
    page = client.get(QUEUE)
    html = page.content.decode()
    assert "no-store" in page["Cache-Control"] or "no-cache" in page["Cache-Control"]
    assert "Finding a game of Viertris" in html
    assert "1 player is waiting for Viertris." in html
    assert f'hx-get="{QUEUE}" hx-trigger="every 2s"' in html
    assert 'id="queue-waited">0:0' in html
    assert "Play a bot instead" not in html


def test_a_guest_may_not_play_for_chips(client):
    as_guest(client)
    response = client.post(PLAY_VIERTRIS, {"stake": "10"}, follow=True)
    assert "Competitive tables are for signed-in players" in response.content.decode()
    assert not QueueEntry.objects.exists()


def test_an_account_may_queue_at_a_stake(client, make_user):
    player = make_user("staker", chips=500)
    client.force_login(player)
    client.post(PLAY_VIERTRIS, {"stake": "100"})
    assert QueueEntry.objects.get().stake == 100
    assert "Competitive: 100 chips per seat" in client.get(QUEUE).content.decode()


def test_the_waiting_page_follows_a_match_to_the_table(client, host, opponent):
    client.force_login(host)
    client.post(PLAY_VIERTRIS)
    queue_join(player=ref(opponent), game="viertris")
    table = Table.objects.get()
    poll = client.get(QUEUE, **HTMX)
    assert poll.status_code == 200 and poll["HX-Redirect"] == table.get_absolute_url()
    # Back from the table: no queue to wait in any more.
    back = client.get(QUEUE)
    assert back.status_code == 302 and back.url == reverse("lobby:index")


def test_a_player_matched_at_once_goes_straight_to_the_table(client, host, opponent):
    queue_join(player=ref(opponent), game="viertris")
    client.force_login(host)
    response = client.post(PLAY_VIERTRIS, follow=True)
    assert response.redirect_chain[-1][0] == Table.objects.get().get_absolute_url()


def joined_ago(player, seconds: float) -> None:
    queue_join(player=player, game="viertris", now=timezone.now() - dt.timedelta(seconds=seconds))


def test_no_offer_of_a_bot_before_20_seconds(client):
    joined_ago(guest(), OFFER_BOT_AFTER_SECONDS - 2)
    html = as_guest(client).get(QUEUE, **HTMX).content.decode()
    assert "Play a bot instead" not in html and "Keep waiting" not in html


def test_after_20_seconds_the_page_offers_a_bot_or_keeping_on_waiting(client):
    joined_ago(guest(), OFFER_BOT_AFTER_SECONDS + 1)
    html = as_guest(client).get(QUEUE, **HTMX).content.decode()
    assert 'id="queue-waited">0:2' in html
    assert "Play a bot instead" in html and "Keep waiting" in html


def test_keep_waiting_keeps_the_place_and_drops_the_offer(client):
    joined_ago(guest(), OFFER_BOT_AFTER_SECONDS + 1)
    response = as_guest(client).post(KEEP, **HTMX)
    html = response.content.decode()
    assert 'id="queue-status"' in html and "Play a bot instead" not in html
    assert "Play a bot instead" not in client.get(QUEUE, **HTMX).content.decode()
    assert QueueEntry.objects.get().keep_waiting


def test_play_a_bot_instead_leaves_the_queue_for_a_practice_table(client):
    joined_ago(guest(), OFFER_BOT_AFTER_SECONDS + 1)
    response = as_guest(client).post(LEAVE, {"then": "practice"})
    table = Table.objects.get()
    assert response.status_code == 302 and response.url == table.get_absolute_url()
    assert table.game == "viertris" and table.seats.exclude(bot_level="").count() == 1
    assert not QueueEntry.objects.exists()
    # The player asked to play now: the game has started (its 3-2-1 runs), no Start to find.
    assert table.status == Table.Status.RUNNING
    assert Game.objects.filter(table=table, status=Game.Status.RUNNING).count() == 1


def test_leave_the_queue(client, host):
    client.force_login(host)
    client.post(PLAY_VIERTRIS)
    response = client.post(LEAVE, follow=True)
    assert "You left the queue." in response.content.decode()
    assert not QueueEntry.objects.exists()
    assert client.get(QUEUE).url == reverse("lobby:index")


def test_a_poll_after_the_entry_went_stale_says_so_and_stops_asking(client):
    as_guest(client)
    html = client.get(QUEUE, **HTMX).content.decode()
    assert "You are no longer waiting for a game." in html and "hx-trigger" not in html


def test_play_a_bot_instead_works_after_the_entry_went_stale(client):
    response = as_guest(client).post(LEAVE, {"then": "practice", "game": "tetrix"})
    assert response.url == Table.objects.get(game="tetrix").get_absolute_url()


def test_a_second_press_of_play_now_after_the_match_follows_it_to_the_table(client, host, opponent):
    client.force_login(host)
    client.post(PLAY_VIERTRIS)
    queue_join(player=ref(opponent), game="viertris")
    response = client.post(PLAY_VIERTRIS, follow=True)  # a double click, or another tab
    assert response.redirect_chain[-1][0] == Table.objects.get().get_absolute_url()


@pytest.mark.parametrize("game, needs", [("blockkiller", "A game of Block-Killer starts with 3 players."), ("viertris", None)])
def test_the_wait_page_says_how_many_a_game_starts_with_when_more_than_two(client, game, needs):
    as_guest(client).post(reverse("lobby:play_now", args=[game]))
    html = client.get(QUEUE).content.decode()
    assert "player is waiting for" in html
    if needs:
        assert needs in html
    else:
        assert "starts with" not in html


def test_the_stake_menu_of_a_card_has_a_label_on_screen(client, host):
    client.force_login(host)
    html = client.get(reverse("lobby:index")).content.decode()
    assert html.count('<label class="play-now-stake"><span>Stake</span>') == 5
