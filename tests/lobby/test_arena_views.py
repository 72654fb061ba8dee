"""The arenas' pages (issue 51, lobby/arena_views.py): public pages and standings,
Join / Pause / Leave for players only, refusals with a code, the look that takes a
paired player to their table, the lobby's list and a player's own arena."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from lobby import arenas
from lobby.models import Arena, ArenaPlayer, Table
from tests.personas import ref

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def arena(admin_user):
    return arenas.arena_create(
        by=admin_user, title="Evening Viertris", game="viertris", starts_at=timezone.now() + dt.timedelta(minutes=5),
        minutes=30, fee=10,
    )


@pytest.fixture
def running_arena(arena):
    Arena.objects.filter(pk=arena.pk).update(starts_at=timezone.now() - dt.timedelta(minutes=1))
    arena.refresh_from_db()
    return arena


def test_the_arena_page_and_standings_are_public_but_only_players_see_the_buttons(client, arena, host):
    arenas.arena_join(arena_id=arena.pk, player=ref(host))
    page = client.get(arena.get_absolute_url()).content.decode()
    assert "Evening Viertris" in page and 'id="arena-standings"' in page and "hostess" in page
    assert 'id="arena-join"' not in page and 'id="arena-pause"' not in page
    client.force_login(host)
    page = client.get(arena.get_absolute_url()).content.decode()
    assert 'id="arena-pause"' in page and 'id="arena-leave"' in page and 'id="arena-join"' not in page
    assert 'id="arena-my-place"' in page  # the reader's own place, beside the board


def test_joining_from_the_page_and_a_second_join_is_refused_with_its_code(client, arena, host):
    client.force_login(host)
    response = client.post(reverse("lobby:arena_join", args=[arena.pk]), **HTMX)
    assert response.status_code == 200 and 'id="arena-pause"' in response.content.decode()
    assert ArenaPlayer.objects.filter(arena=arena, user=host).count() == 1
    again = client.post(reverse("lobby:arena_join", args=[arena.pk]), **HTMX).content.decode()
    assert 'data-code="ALREADY_JOINED"' in again and "You are in this arena already." in again
    host.refresh_from_db()
    assert host.chips == 990


def test_a_refusal_is_in_the_readers_language(client, arena, host):
    client.force_login(host)
    client.post(reverse("lobby:arena_join", args=[arena.pk]))
    answer = client.post(reverse("lobby:arena_join", args=[arena.pk]), HTTP_ACCEPT_LANGUAGE="de", **HTMX)
    text = answer.content.decode()
    assert 'data-code="ALREADY_JOINED"' in text
    assert "You are in this arena already." not in text


def test_a_visitor_must_name_themselves_and_a_guest_cannot_join_an_arena_with_a_fee(client, arena):
    response = client.post(reverse("lobby:arena_join", args=[arena.pk]), **HTMX).content.decode()
    assert 'data-code="WHO_ARE_YOU"' in response
    client.post(reverse("guest"), {"name": "Wanderer"})
    response = client.post(reverse("lobby:arena_join", args=[arena.pk]), **HTMX).content.decode()
    assert 'data-code="GUEST_AT_FEE"' in response
    assert not ArenaPlayer.objects.exists()


def test_pausing_someone_else_is_refused(client, arena, host, opponent):
    other = arenas.arena_join(arena_id=arena.pk, player=ref(opponent))
    arenas.arena_join(arena_id=arena.pk, player=ref(host))
    client.force_login(host)
    answer = client.post(reverse("lobby:arena_pause", args=[arena.pk]), {"player": other.pk}, **HTMX).content.decode()
    assert 'data-code="NOT_YOURS"' in answer
    assert ArenaPlayer.objects.get(pk=other.pk).status == ArenaPlayer.Status.ACTIVE


def test_forged_arena_ids_are_not_found(client, host):
    client.force_login(host)
    assert client.get(reverse("lobby:arena", args=[999999])).status_code == 404
    assert client.get(reverse("lobby:arena_status", args=[999999])).status_code == 404
    forged = client.post(reverse("lobby:arena_join", args=[999999]), **HTMX)
    assert forged.status_code == 404 and 'data-code="NO_SUCH_ARENA"' in forged.content.decode()
    assert client.get("/lobby/arena/abc/").status_code == 404


def test_the_look_takes_a_paired_player_to_their_table(client, running_arena, host, opponent):
    for user in (host, opponent):
        arenas.arena_join(arena_id=running_arena.pk, player=ref(user))
    client.force_login(host)
    response = client.get(reverse("lobby:arena_status", args=[running_arena.pk]), **HTMX)
    table = Table.objects.get(arena=running_arena)
    assert response.status_code == 200
    assert response["HX-Redirect"] == table.get_absolute_url()
    # the table page shows the arena and asks for the next game, without moving on from this one
    page = client.get(table.get_absolute_url()).content.decode()
    assert 'id="arena-banner"' in page and f"?from={table.pk}" in page
    same = client.get(reverse("lobby:arena_status", args=[running_arena.pk]) + f"?from={table.pk}", **HTMX)
    assert same.status_code == 204


def test_the_lobby_lists_the_arenas_and_a_player_holds_a_friendly_one(client, arena, host):
    client.force_login(host)
    page = client.get(reverse("lobby:index")).content.decode()
    assert 'id="lobby-arenas"' in page and "Evening Viertris" in page and 'id="arena-new"' in page
    response = client.post(reverse("lobby:arena_new"), {"title": "Mine", "game": "tetriwar", "minutes": "10", "starts_in": "0"})
    made = Arena.objects.get(title="Mine")
    assert response.status_code == 302 and response.url == made.get_absolute_url()
    assert (made.fee, made.minutes, made.created_by) == (0, 10, host)


def test_a_visitor_cannot_hold_an_arena(client):
    client.post(reverse("lobby:arena_new"), {"title": "Mine", "game": "tetriwar", "minutes": "10", "starts_in": "0"})
    assert not Arena.objects.exists()


def test_every_games_help_tells_the_arena_rules(client):
    for slug in ("tetriwar", "viertris", "thirdoption", "blockkiller", "tetrix"):
        page = client.get(reverse("games:how_to_play", args=[slug])).content.decode()
        assert 'id="arenas"' in page and "on fire" in page, slug
