"""Arenas in the Django admin (issue 51): create, schedule, edit before the start,
cancel with the fees back, see each arena's games; every action a ModerationAction."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.urls import reverse
from django.utils import timezone

from accounts.models import ModerationAction
from lobby import arenas
from lobby.models import Arena, ArenaSchedule
from tests.personas import ref

pytestmark = pytest.mark.django_db
SOON = (timezone.now() + dt.timedelta(hours=1)).replace(microsecond=0, second=0)


def form(**fields):
    data = {
        "title": "Friday Viertris", "game": "viertris", "options": "{}", "seats": "", "minutes": "30", "fee": "50",
        "starts_at_0": SOON.strftime("%Y-%m-%d"), "starts_at_1": SOON.strftime("%H:%M:%S"),
        "players-TOTAL_FORMS": "0", "players-INITIAL_FORMS": "0",
        "tables-TOTAL_FORMS": "0", "tables-INITIAL_FORMS": "0",
    }
    data.update(fields)
    return data


def test_staff_create_an_arena_in_the_admin_and_it_is_logged(client, admin_user):
    client.force_login(admin_user)
    response = client.post(reverse("admin:lobby_arena_add"), form())
    assert response.status_code == 302, response.content.decode()[:3000]
    arena = Arena.objects.get()
    assert (arena.title, arena.game, arena.seats, arena.fee, arena.minutes) == ("Friday Viertris", "viertris", 2, 50, 30)
    assert ModerationAction.objects.filter(admin=admin_user, action="create_arena", arena_id=arena.pk).exists()
    assert client.get(reverse("admin:lobby_arena_changelist")).status_code == 200
    assert client.get(reverse("admin:lobby_arena_change", args=[arena.pk])).status_code == 200


@pytest.mark.parametrize(("field", "value"), [("minutes", "5"), ("minutes", "121"), ("seats", "9"), ("options", '{"x": 1}')])
def test_the_admin_refuses_what_an_arena_may_not_be(client, admin_user, field, value):
    client.force_login(admin_user)
    response = client.post(reverse("admin:lobby_arena_add"), form(**{field: value}))
    assert response.status_code == 200  # the form again, with the error
    assert not Arena.objects.exists()


def test_an_arena_is_edited_before_its_start_only(client, admin_user):
    client.force_login(admin_user)
    client.post(reverse("admin:lobby_arena_add"), form())
    arena = Arena.objects.get()
    client.post(reverse("admin:lobby_arena_change", args=[arena.pk]), form(title="Renamed"))
    arena.refresh_from_db()
    assert arena.title == "Renamed"
    assert ModerationAction.objects.filter(action="edit_arena", arena_id=arena.pk).count() == 1
    Arena.objects.filter(pk=arena.pk).update(status=Arena.Status.RUNNING)
    client.post(reverse("admin:lobby_arena_change", args=[arena.pk]), form(title="Too late"))
    arena.refresh_from_db()
    assert arena.title == "Renamed"


def test_cancelling_in_the_admin_refunds_the_fees(client, admin_user, host):
    client.force_login(admin_user)
    client.post(reverse("admin:lobby_arena_add"), form())
    arena = Arena.objects.get()
    arenas.arena_join(arena_id=arena.pk, player=ref(host), now=SOON)
    host.refresh_from_db()
    assert host.chips == 950
    client.post(reverse("admin:lobby_arena_changelist"), {"action": "cancel_arenas", ACTION_CHECKBOX_NAME: [arena.pk]})
    arena.refresh_from_db()
    host.refresh_from_db()
    assert (arena.status, arena.pool, host.chips) == (Arena.Status.CANCELLED, 0, 1000)
    assert ModerationAction.objects.filter(action="cancel_arena", arena_id=arena.pk).count() == 1


def test_a_weekly_arena_is_scheduled_in_the_admin(client, admin_user):
    client.force_login(admin_user)
    response = client.post(
        reverse("admin:lobby_arenaschedule_add"),
        {"title": "Sunday TetriWar", "game": "tetriwar", "options": "{}", "seats": "", "weekday": "6",
         "time_utc": "18:00", "minutes": "60", "fee": "0", "active": "on"},
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    schedule = ArenaSchedule.objects.get()
    assert ModerationAction.objects.filter(action="schedule_arena").count() == 1
    made = Arena.objects.get(schedule=schedule)
    assert made.starts_at.weekday() == 6 and made.starts_at.hour == 18 and made.seats == 2
