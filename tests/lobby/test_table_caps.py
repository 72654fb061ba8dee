"""A host holds a bounded number of open tables, and so does a client address
(issue 17: one account opened 300 tables in 3.9 s)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from lobby import services
from lobby.models import Table
from lobby.services import TableError
from tests.personas import TETRIWAR_OPTIONS, guest, ref


def _open(player, *, ip=None):
    return services.table_create(
        player=player, game="tetriwar", options=dict(TETRIWAR_OPTIONS), seats_total=2, ip=ip
    )


@pytest.fixture(autouse=True)
def _limits(settings):
    settings.TABLES_PER_HOST = 3
    settings.TABLES_PER_ADDRESS = 4


def test_a_host_with_three_open_tables_cannot_open_a_fourth(host):
    for _ in range(3):
        _open(ref(host))

    with pytest.raises(TableError) as refused:
        _open(ref(host))

    assert refused.value.code == "TOO_MANY_TABLES"
    assert "host 3 tables at once" in refused.value.message
    assert Table.objects.filter(host_user=host).count() == 3  # nothing changed


def test_practice_tables_count_and_running_tables_count(host):
    services.practice_create(player=ref(host), game="tetriwar")
    running = _open(ref(host))
    Table.objects.filter(pk=running.pk).update(status=Table.Status.RUNNING)
    _open(ref(host))

    with pytest.raises(TableError, match="host 3 tables"):
        services.practice_create(player=ref(host), game="viertris")


def test_practising_again_goes_back_to_ones_open_practice_table(host):
    first = services.practice_create(player=ref(host), game="tetriwar")
    for _ in range(5):
        assert services.practice_create(player=ref(host), game="tetriwar") == first
    assert Table.objects.filter(host_user=host).count() == 1
    other = services.practice_create(player=ref(host), game="viertris")
    assert other != first


def test_leaving_a_table_makes_room_for_another(host):
    tables = [_open(ref(host)) for _ in range(3)]
    services.seat_leave(table_id=tables[0].pk, player=ref(host))  # the empty table closes
    _open(ref(host))
    assert Table.objects.filter(host_user=host).exclude(status=Table.Status.CLOSED).count() == 3


def test_a_guest_host_is_capped_like_an_account(db):
    visitor = guest("visitor", "token-a")
    for _ in range(3):
        _open(visitor)
    with pytest.raises(TableError, match="host 3 tables"):
        _open(visitor)


def test_fresh_guest_names_from_one_address_stop_at_the_address_cap(db):
    for n in range(4):
        _open(guest(f"mint{n}", f"token-{n}"), ip="203.0.113.9")

    with pytest.raises(TableError) as refused:
        _open(guest("mint9", "token-9"), ip="203.0.113.9")

    assert refused.value.code == "TOO_MANY_TABLES_HERE"
    assert Table.objects.count() == 4
    _open(guest("elsewhere", "token-x"), ip="203.0.113.10")  # another address is not held back


def test_joining_other_hosts_tables_from_the_address_does_not_count(host, make_user):
    others = [make_user(f"other{n}") for n in range(4)]
    for other in others:
        table = _open(ref(other), ip="198.51.100.1")
        services.seat_take(table_id=table.pk, player=ref(host), number=2, ip="203.0.113.9")
    _open(ref(host), ip="203.0.113.9")  # hosts one table from here: allowed


def test_the_create_page_says_why_a_table_is_refused(client, host):
    for _ in range(3):
        _open(ref(host))
    client.force_login(host)
    response = client.post(
        reverse("lobby:create", args=["tetriwar"]),
        {"name": "", "stake": 0, "opt-seats": 2, **{f"opt-{k}": v for k, v in TETRIWAR_OPTIONS.items()}},
    )
    assert response.status_code == 400
    assert "host 3 tables at once" in response.content.decode()
    assert Table.objects.filter(host_user=host).count() == 3
