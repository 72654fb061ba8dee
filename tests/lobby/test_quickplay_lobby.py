"""Back from the wait page to the lobby (issue 49, point 16): the lobby says the player
is still in the quick-play queue, keeps their place while it is open (it asks as the
wait page does), follows a match to its table, and says so once the place is gone."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from lobby.models import QueueEntry, Table
from lobby.quickplay import STALE_SECONDS, queue_join
from tests.lobby.test_quickplay_views import HTMX, LEAVE, PLAY_VIERTRIS, QUEUE, as_guest
from tests.personas import ref

pytestmark = pytest.mark.django_db
LOBBY = reverse("lobby:index")
BANNER = reverse("lobby:queue_banner")
WAITING = "You are in the queue for Viertris: your place is kept while this page is open."
GONE = "You are no longer in the quick-play queue."


def last_asked_ago(seconds: float) -> None:
    QueueEntry.objects.update(seen_at=timezone.now() - dt.timedelta(seconds=seconds))


def test_back_in_the_lobby_the_player_is_told_their_place_is_kept_and_where_to_go(client):
    as_guest(client).post(PLAY_VIERTRIS)
    response = client.get(LOBBY)
    html = response.content.decode()
    assert "no-store" in response["Cache-Control"]  # Back loads it afresh, banner and all
    assert WAITING in html
    assert f'href="{QUEUE}">Back to the wait page</a>' in html
    assert f'action="{LEAVE}"' in html and "Leave the queue" in html
    assert f'hx-get="{BANNER}?waiting=1" hx-trigger="every 2s"' in html


def test_the_lobby_and_its_banner_keep_the_place_as_the_wait_page_does(client):
    as_guest(client).post(PLAY_VIERTRIS)
    last_asked_ago(STALE_SECONDS - 1)
    client.get(LOBBY)
    assert QueueEntry.objects.get().seen_at > timezone.now() - dt.timedelta(seconds=1)
    last_asked_ago(STALE_SECONDS - 1)
    assert WAITING in client.get(f"{BANNER}?waiting=1", **HTMX).content.decode()
    assert QueueEntry.objects.get().seen_at > timezone.now() - dt.timedelta(seconds=1)


def test_once_the_place_is_gone_the_banner_says_so_and_stops_asking(client):
    as_guest(client).post(PLAY_VIERTRIS)
    QueueEntry.objects.all().delete()  # left in another tab, or dropped while the page slept
    html = client.get(f"{BANNER}?waiting=1", **HTMX).content.decode()
    assert GONE in html and WAITING not in html and "hx-trigger" not in html


def test_nobody_in_the_queue_sees_no_banner_and_the_lobby_asks_nothing(client, host):
    client.force_login(host)
    html = client.get(LOBBY).content.decode()
    assert WAITING not in html and GONE not in html and BANNER not in html
    assert GONE not in client.get(BANNER, **HTMX).content.decode()


def test_a_match_made_while_in_the_lobby_takes_the_player_to_the_table(client, host, opponent, make_user):
    client.force_login(host)
    client.post(PLAY_VIERTRIS)
    queue_join(player=ref(opponent), game="viertris")
    table = Table.objects.get()
    poll = client.get(f"{BANNER}?waiting=1", **HTMX)
    assert poll.status_code == 200 and poll["HX-Redirect"] == table.get_absolute_url()

    third = make_user("third")
    client.force_login(third)
    client.post(PLAY_VIERTRIS)
    queue_join(player=ref(make_user("fourth")), game="viertris")
    response = client.get(LOBBY)  # the lobby loaded as the match was made
    assert response.status_code == 302 and response.url == Table.objects.latest("pk").get_absolute_url()
