"""The signed-in user read through the cache (accounts/caching.py): one query less
per page, and every write to the user is seen by the very next request."""

from __future__ import annotations

from django.urls import reverse

from accounts import services
from accounts.backends import CachedModelBackend
from accounts.models import User


def test_the_user_of_a_session_is_read_once_then_from_the_cache(make_user, django_assert_num_queries):
    user = make_user("cached")
    backend = CachedModelBackend()
    assert backend.get_user(user.pk).username == "cached"
    with django_assert_num_queries(0):
        assert backend.get_user(user.pk).username == "cached"


def test_every_kind_of_write_is_seen_at_once(make_user, admin_user, django_assert_num_queries):
    user = make_user("writer", chips=500)
    backend = CachedModelBackend()
    backend.get_user(user.pk)

    services.chips_change(user=user, delta=-20, reason="stake", note="test")  # a queryset update()
    assert backend.get_user(user.pk).chips == 480

    services.key_bindings_set(user=user, bindings={"left": "a"})  # a save()
    assert backend.get_user(user.pk).key_bindings == {"left": "a"}

    User.objects.filter(pk=user.pk).update(first_name="Ada")  # any other update()
    assert backend.get_user(user.pk).first_name == "Ada"

    services.user_ban(user=user, reason="cheating", by=admin_user)
    assert backend.get_user(user.pk) is None  # inactive: nobody, at once


def test_a_ban_logs_the_next_page_out(client, make_user, admin_user):
    user = make_user("banned_soon")
    client.force_login(user)
    assert "banned_soon" in client.get(reverse("lobby:index")).content.decode()
    services.user_ban(user=user, reason="abuse", by=admin_user)
    page = client.get(reverse("lobby:index")).content.decode()
    assert "banned_soon" not in page and "Log in" in page
