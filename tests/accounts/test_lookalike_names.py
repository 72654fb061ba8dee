"""Names that look like another player's, or like the site's staff, are refused
(issue 17): "hоstess" with a Cyrillic "о" is not a new player's name."""

from __future__ import annotations

from html import unescape

import pytest
from django.urls import reverse

from accounts.models import User
from accounts.names import is_deceptive_mix, username_skeleton

PASSWORD = "a-Long-pass-42"


def _sign_up(client, username: str):
    return client.post(
        reverse("signup"),
        {"username": username, "email": "new@example.com", "password1": PASSWORD, "password2": PASSWORD},
    )


def _text(response) -> str:
    return unescape(response.content.decode())


@pytest.mark.parametrize(
    "lookalike",
    [
        "hоstess",  # Cyrillic о
        "HОSTESS",  # Cyrillic capital О, in capitals
        "hostеss",  # Cyrillic е
        "h0stess",  # digit zero
        "hοstess",  # Greek ο
    ],
)
def test_a_name_that_looks_like_a_players_is_refused_at_sign_up(client, host, lookalike):
    response = _sign_up(client, lookalike)

    assert response.status_code == 400
    assert "looks too much like a player" in _text(response)
    assert not User.objects.filter(username=lookalike).exists()


def test_a_name_mixing_alphabets_to_deceive_is_refused_even_with_no_victim(client, db):
    response = _sign_up(client, "pаypal")  # Latin with a Cyrillic а
    assert response.status_code == 400
    assert "mixes alphabets" in _text(response)


@pytest.mark.parametrize("name", ["admin", "Adm1n", "аdmin", "MODERATOR", "Support"])
def test_names_of_the_sites_staff_are_refused(client, db, name):
    response = _sign_up(client, name)
    assert response.status_code == 400
    assert "kept for the site's staff" in _text(response)


@pytest.mark.parametrize("name", ["hostesses", "Иван", "たなか太郎", "Jörg_42"])
def test_distinct_names_in_any_one_script_are_welcome(client, host, name):
    response = _sign_up(client, name)
    assert response.status_code == 302, _text(response)[:500]
    assert User.objects.get(username=name).username_skeleton == username_skeleton(name)


def test_a_guest_cannot_pass_for_a_player_or_the_staff(client, host):
    for name in ("h0stess", "Adm1n"):
        response = client.post(reverse("guest"), {"name": name})
        assert response.status_code == 400
        assert "guest_name" not in client.session


def test_every_account_keeps_its_skeleton_in_step_with_its_name(db):
    staff = User.objects.create_superuser("Boss", "b@example.com", PASSWORD)  # not through the sign-up form
    assert staff.username_skeleton == username_skeleton("boss")
    staff.username = "Chief"
    staff.save(update_fields=["username"])
    staff.refresh_from_db()
    assert staff.username_skeleton == username_skeleton("chief")


def test_skeletons_fold_case_and_lookalikes_but_keep_different_letters_apart():
    assert username_skeleton("ADMIN") == username_skeleton("аdmin") == username_skeleton("adrnin")
    assert username_skeleton("Ivan") == username_skeleton("lvan")
    assert username_skeleton("ｈｏｓｔｅｓｓ") == username_skeleton("hostess")
    assert username_skeleton("Jörg") != username_skeleton("Jorg")
    assert username_skeleton("alice") != username_skeleton("alicia")
    assert is_deceptive_mix("Ивaн")  # Cyrillic with a Latin a
    assert not is_deceptive_mix("たなか太郎")  # Japanese mixes its scripts as a matter of course
