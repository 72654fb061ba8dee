"""The profile page: chips, ledger, refill, history and key bindings."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts import services
from accounts.models import DEFAULT_KEY_BINDINGS, ChipTransaction, User


@pytest.fixture
def host_client(client, host):
    client.force_login(host)
    return client


@pytest.fixture
def broke_player(make_user):
    return make_user("brokeplayer", chips=40)


def _bindings(**changes: str) -> dict[str, str]:
    return {**DEFAULT_KEY_BINDINGS, **changes}


def test_outsider_must_log_in_to_see_a_profile(client, db):
    response = client.get(reverse("profile"))
    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))


def test_profile_shows_chips_ledger_and_empty_history(host_client, host, admin_user):
    services.chips_change(user=host, delta=-250, reason=ChipTransaction.Reason.STAKE)
    services.chips_adjust(user=host, delta=5, note="birthday present", by=admin_user)
    html = host_client.get(reverse("profile")).content.decode()

    assert '<span id="chips-balance">755</span>' in html
    assert "Welcome chips" in html and "Stake" in html and "Admin adjustment" in html
    assert "birthday present" not in html  # an admin's note shows in the Django admin only (issue 17)
    assert "+1000" in html and "-250" in html and "+5" in html
    assert "No games yet" in html
    assert reverse("password_change") in html
    assert reverse("key_bindings") in html


def test_profile_summarises_the_players_keys(host_client, host):
    services.key_bindings_set(user=host, bindings=_bindings(hard_drop="x"))
    html = host_client.get(reverse("profile")).content.decode()
    assert "<kbd>x</kbd>" in html
    assert "<kbd>←</kbd>" in html
    assert "Hard drop" in html


def test_rich_player_sees_the_refill_rule_instead_of_the_button(host_client):
    html = host_client.get(reverse("profile")).content.decode()
    assert f'action="{reverse("refill")}"' not in html
    assert "below 100 chips" in html
    assert "once a day" in html


def test_broke_player_claims_the_daily_refill_from_the_profile(client, broke_player):
    client.force_login(broke_player)
    html = client.get(reverse("profile")).content.decode()
    assert f'action="{reverse("refill")}"' in html

    response = client.post(reverse("refill"), follow=True)
    broke_player.refresh_from_db()
    assert broke_player.chips == 100
    html = response.content.decode()
    assert "+60 chips" in html
    assert f'action="{reverse("refill")}"' not in html  # used up for today


def test_second_refill_the_same_day_is_refused_with_a_message(client, broke_player):
    client.force_login(broke_player)
    client.post(reverse("refill"))
    services.chips_change(user=broke_player, delta=-90, reason=ChipTransaction.Reason.STAKE)

    response = client.post(reverse("refill"), follow=True)
    broke_player.refresh_from_db()
    assert broke_player.chips == 10
    assert "already claimed today" in response.content.decode()


def test_yesterdays_refill_does_not_block_today(client, broke_player):
    yesterday = timezone.localdate() - dt.timedelta(days=1)
    User.objects.filter(pk=broke_player.pk).update(last_refill=yesterday)
    client.force_login(broke_player)
    client.post(reverse("refill"))
    broke_player.refresh_from_db()
    assert broke_player.chips == 100


def test_refill_is_refused_at_100_chips_or_more(host_client, host):
    response = host_client.post(reverse("refill"), follow=True)
    host.refresh_from_db()
    assert host.chips == 1000
    assert "below 100 chips" in response.content.decode()
    assert not ChipTransaction.objects.filter(user=host, reason=ChipTransaction.Reason.REFILL).exists()


def test_refill_needs_a_post(host_client):
    assert host_client.get(reverse("refill")).status_code == 405


def test_key_bindings_page_renders_capture_inputs_and_the_script(host_client):
    html = host_client.get(reverse("key_bindings")).content.decode()
    assert html.count('class="key-capture"') == len(DEFAULT_KEY_BINDINGS)
    assert 'value="ArrowLeft"' in html
    assert "js/keys.js" in html
    assert 'name="reset"' in html
    assert "Space" in html and "hard-drop" in html


def test_player_saves_new_key_bindings(host_client, host):
    wanted = _bindings(left="a", right="d", hard_drop=" ", bomb="Shift")
    response = host_client.post(reverse("key_bindings"), wanted)
    assert response.status_code == 302
    assert response.url == reverse("profile")
    host.refresh_from_db()
    assert host.bindings() == wanted


def test_duplicate_key_is_refused_with_a_clear_error(host_client, host):
    response = host_client.post(reverse("key_bindings"), _bindings(rotate="ArrowLeft"))
    assert response.status_code == 400
    html = response.content.decode()
    assert "Already used for “Move left”" in html
    host.refresh_from_db()
    assert host.key_bindings == {}


def test_duplicate_letters_in_different_case_are_refused(host_client, host):
    response = host_client.post(reverse("key_bindings"), _bindings(left="a", right="A"))
    assert response.status_code == 400
    host.refresh_from_db()
    assert host.key_bindings == {}


def test_unbindable_key_is_refused(host_client, host):
    response = host_client.post(reverse("key_bindings"), _bindings(bomb="F13"))
    assert response.status_code == 400
    assert "is not a key we can bind" in response.content.decode()


def test_reset_restores_the_default_keys(host_client, host):
    services.key_bindings_set(user=host, bindings=_bindings(left="a", right="d"))
    # The reset button submits the form as it is, even with an invalid edit in it.
    response = host_client.post(reverse("key_bindings"), {**_bindings(rotate="ArrowLeft"), "reset": "1"})
    assert response.status_code == 302
    host.refresh_from_db()
    assert host.bindings() == DEFAULT_KEY_BINDINGS


def test_opponent_sees_a_public_profile_without_private_controls(client, host, opponent):
    client.force_login(opponent)
    response = client.get(reverse("player", args=["hostess"]))
    html = response.content.decode()
    assert response.status_code == 200
    assert "hostess" in html
    assert "1000" in html
    assert reverse("refill") not in html
    assert reverse("password_change") not in html


def test_own_public_profile_redirects_to_the_profile(host_client):
    response = host_client.get(reverse("player", args=["hostess"]))
    assert response.status_code == 302
    assert response.url == reverse("profile")


def test_banned_players_profile_is_not_found(client, make_user, admin_user):
    cheater = make_user("cheater")
    services.user_ban(user=cheater, reason="cheating", by=admin_user)
    response = client.get(reverse("player", args=["cheater"]))
    assert response.status_code == 404


@pytest.mark.parametrize("debug", [False, True], ids=["deployed", "debug"])
def test_banned_players_profile_is_the_sites_friendly_404_even_in_debug(
    client, make_user, admin_user, settings, debug
):
    settings.DEBUG = debug  # `make run` serves with DEBUG on: no technical page for a link people follow
    cheater = make_user("cheater")
    services.user_ban(user=cheater, reason="cheating", by=admin_user)
    for name in ("cheater", "nobody-at-all"):
        response = client.get(reverse("player", args=[name]))
        html = response.content.decode()
        assert response.status_code == 404
        assert "We can't find that page" in html and "There is no such player." in html
        assert 'class="topbar"' in html and reverse("lobby:index") in html
        assert "Page not found (404)" not in html and "URLconf" not in html and "cheating" not in html


def test_space_cannot_be_bound_to_anything_but_the_hard_drop(host_client, host):
    response = host_client.post(reverse("key_bindings"), _bindings(rotate=" "))
    assert response.status_code == 400
    assert "Space always hard-drops" in response.content.decode()
    host.refresh_from_db()
    assert host.key_bindings == {}


def test_player_sets_their_auto_repeat_and_sees_it_on_the_profile(host_client, host):
    wanted = {**_bindings(), "handling-das": "120", "handling-arr": "0", "handling-soft_drop": "40"}
    response = host_client.post(reverse("key_bindings"), wanted)
    assert response.status_code == 302
    host.refresh_from_db()
    assert host.handling == {"das": 120, "arr": 0, "soft_drop": 40}
    summary = host_client.get(reverse("profile")).content.decode()
    summary = summary[summary.index('id="handling-summary"') :]
    assert "<dt>120</dt><dd>Auto-repeat delay (ms)</dd>" in summary
    assert "<dt>0</dt><dd>Auto-repeat rate (ms)</dd>" in summary


@pytest.mark.parametrize(
    "field,value", [("das", "49"), ("das", "301"), ("arr", "101"), ("arr", "-1"), ("soft_drop", "19")]
)
def test_an_auto_repeat_out_of_range_is_refused_and_nothing_changes(host_client, host, field, value):
    response = host_client.post(reverse("key_bindings"), {**_bindings(left="a"), f"handling-{field}": value})
    assert response.status_code == 400
    host.refresh_from_db()
    assert host.handling == {} and host.bindings() == _bindings()


def test_reset_puts_the_auto_repeat_back_to_the_defaults(host_client, host):
    host.handling = {"das": 100}
    host.save()
    host_client.post(reverse("key_bindings"), {"reset": "1"})
    host.refresh_from_db()
    assert host.handling == {}
