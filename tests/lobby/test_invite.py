"""Invite a friend (issue 32, point 4): a waiting table's page has a Copy invite link
button with the table's address, and whoever follows it finds a Sit button at the top
of the page: the seated do not, and a full table says so."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from lobby import broadcast, services
from lobby.models import Table
from lobby.selectors import lobby_changed
from tests.personas import ref


def top(page: str) -> str:
    """The top of a table's page: the seat offered and the invite link."""
    found = re.search(r'<div id="table-top" class="table-top"[^>]*>(.*?)</div>\s*<div class="table-layout"', page, re.S)
    assert found, "no top of the page"
    return found.group(1)


def client_of(user=None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def test_a_waiting_table_has_a_copy_invite_link_button_with_its_address(host, make_table):
    table = make_table(ref(host))
    html = top(client_of(host).get(table.get_absolute_url()).content.decode())
    assert "Copy invite link</button>" in html
    assert f'readonly value="{reverse("lobby:table", args=[table.pk])}" data-invite-link' in html
    assert 'id="sit-top"' not in html  # the host is seated


def test_a_friend_following_the_link_sits_from_the_top_of_the_page(host, outsider, make_table):
    table = make_table(ref(host), seats=3)
    friend = client_of(outsider)
    html = top(friend.get(table.get_absolute_url()).content.decode())
    sit = reverse("lobby:sit", args=[table.pk])
    assert re.search(rf'<form hx-post="{sit}".*?name="seat" value="2">.*?id="sit-top">Sit</button>', html, re.S)

    assert friend.post(sit, {"seat": 2}).status_code == 302
    assert table.seats.get(number=2).user == outsider
    html = top(friend.get(table.get_absolute_url()).content.decode())
    assert 'id="sit-top"' not in html and "Copy invite link" in html  # seated, and a seat still free


def test_a_visitor_without_a_name_is_asked_for_one_then_sits(host, make_table):
    table = make_table(ref(host))
    url = table.get_absolute_url()
    visitor = Client()
    html = top(visitor.get(url).content.decode())
    guest_url = f'{reverse("guest")}?next={url}&amp;sit={table.pk}'
    assert f'id="sit-top" href="{guest_url}">Sit</a>' in html
    assert f'name="sit" value="{table.pk}"' in visitor.get(guest_url.replace("&amp;", "&")).content.decode()

    # The name was the one thing missing: choosing it sits them down (no second Sit).
    response = visitor.post(reverse("guest"), {"name": "Zed", "next": url, "sit": table.pk})
    assert response.status_code == 302 and response.url == url
    assert table.seats.get(number=2).display_name.startswith("Zed")
    html = visitor.get(url).content.decode()
    assert 'id="sit-top"' not in top(html) and "I'm ready" in html and "Zed (guest) <span class=\"muted\">(you)" in html


def test_the_seat_panel_s_name_link_sits_the_visitor_down_too(host, make_table):
    table = make_table(ref(host))
    html = Client().get(table.get_absolute_url()).content.decode()
    assert f'?next={table.get_absolute_url()}&amp;sit={table.pk}">choose a guest name</a> to take a seat' in html


def test_a_table_filled_while_the_visitor_chose_a_name_says_so(host, opponent, make_table):
    table = make_table(ref(host))
    url = table.get_absolute_url()
    visitor = Client()
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)  # meanwhile
    response = visitor.post(reverse("guest"), {"name": "Zed", "next": url, "sit": table.pk}, follow=True)
    assert "This table is full: every seat is taken." in response.content.decode()
    assert table.seats.count() == 2 and not table.seats.filter(name__startswith="Zed").exists()


@pytest.mark.parametrize("sit", ["", "x", "999999", "-1", "1" * 30])
def test_a_name_without_a_table_to_sit_at_only_names(host, make_table, sit):
    table = make_table(ref(host))
    response = Client().post(reverse("guest"), {"name": "Zed", "next": table.get_absolute_url(), "sit": sit})
    assert response.status_code == 302
    assert table.seats.count() == 1


def test_a_full_table_says_so_and_offers_no_seat_nor_invite(host, opponent, outsider, make_table):
    table = make_table(ref(host))
    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    for visitor in (client_of(outsider), Client()):
        html = top(visitor.get(table.get_absolute_url()).content.decode())
        assert "This table is full" in html
        assert 'id="sit-top"' not in html and "Copy invite link" not in html
    html = top(client_of(opponent).get(table.get_absolute_url()).content.decode())
    assert html.strip() == ""  # the seated are not told their own table is full


def test_a_running_table_offers_nothing_at_the_top(host, opponent, outsider, make_table):
    table = make_table(ref(host), seats=3)
    Table.objects.filter(pk=table.pk).update(status=Table.Status.RUNNING)
    lobby_changed(table.pk)
    assert top(client_of(outsider).get(table.get_absolute_url()).content.decode()).strip() == ""


def test_the_top_of_the_page_is_pushed_to_every_role_as_seats_change(host, opponent, make_table):
    table = make_table(ref(host))
    variants = broadcast.table_changed_message(table.pk)["variants"]
    assert 'id="table-top" class="table-top" hx-swap-oob="true"' in variants["viewer"]
    assert 'id="sit-top"' in variants["viewer"] and 'id="sit-top"' in variants["anon"]
    assert 'id="sit-top"' not in variants["1"] and "Copy invite link" in variants["1"]

    services.seat_take(table_id=table.pk, player=ref(opponent), number=2)
    variants = broadcast.table_changed_message(table.pk)["variants"]
    assert "This table is full" in variants["viewer"] and 'id="sit-top"' not in variants["viewer"]
    assert 'id="sit-top"' not in variants["2"]
