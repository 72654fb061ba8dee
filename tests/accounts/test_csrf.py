"""CSRF masks and secrets drawn in one call (accounts/csrf.py), and Django's checks
still holding with them."""

from __future__ import annotations

import pytest
from django.middleware import csrf
from django.test import Client, RequestFactory

from accounts.csrf import ALPHABET, random_csrf_string


def test_a_string_has_django_s_length_and_alphabet_and_is_new_each_time():
    drawn = {random_csrf_string() for _ in range(200)}
    assert len(drawn) == 200
    assert all(len(s) == csrf.CSRF_SECRET_LENGTH and set(s) <= set(csrf.CSRF_ALLOWED_CHARS) for s in drawn)


def test_one_call_to_the_os_per_string(monkeypatch):
    import os

    calls = []
    real = os.urandom
    monkeypatch.setattr("accounts.csrf.os.urandom", lambda n: calls.append(n) or real(n))
    random_csrf_string()
    assert len(calls) == 1


def test_bytes_that_would_favour_the_first_characters_are_thrown_away(monkeypatch):
    # 248..255 would map to the first eight characters again: they are skipped.
    stream = iter([bytes(range(248, 256)) + bytes(range(40)), bytes(range(40))])
    monkeypatch.setattr("accounts.csrf.os.urandom", lambda n: next(stream))
    assert random_csrf_string() == ALPHABET[:32]


def test_every_character_comes_up_as_often(monkeypatch):
    # Every byte value once: each character 4 times, none of the 8 rejects.
    stream = iter([bytes(range(256))])
    monkeypatch.setattr("accounts.csrf.os.urandom", lambda n: next(stream))
    drawn = random_csrf_string(248)
    assert {c: drawn.count(c) for c in ALPHABET} == dict.fromkeys(ALPHABET, 4)


def test_django_masks_with_it_and_unmasks_to_the_same_secret():
    assert csrf._get_new_csrf_string is random_csrf_string  # installed by the app
    request = RequestFactory().get("/")
    request.META["CSRF_COOKIE"] = secret = random_csrf_string()
    first, second = csrf.get_token(request), csrf.get_token(request)
    assert first != second  # a new mask every time (BREACH)
    assert csrf._unmask_cipher_token(first) == csrf._unmask_cipher_token(second) == secret


@pytest.mark.django_db
def test_a_form_post_with_the_page_s_token_passes_and_one_without_is_refused():
    browser = Client(enforce_csrf_checks=True)
    page = browser.get("/accounts/guest/")
    token = page.context["csrf_token"]
    assert browser.post("/accounts/guest/", {"name": "Tess"}).status_code == 403
    answer = browser.post("/accounts/guest/", {"name": "Tess", "csrfmiddlewaretoken": str(token)})
    assert answer.status_code in (200, 302)


def test_djangos_csrf_module_still_draws_with_the_function_we_replace():
    from accounts import csrf as ours

    ours.check()  # start-up runs this too: it fails when Django's internals move


def test_the_csrf_check_fails_loudly_when_django_changes(monkeypatch):
    from django.middleware import csrf as django_csrf

    from accounts import csrf as ours

    monkeypatch.setattr(django_csrf, "_get_new_csrf_string", lambda: "x" * 32)
    monkeypatch.setattr(django_csrf, "_add_new_csrf_cookie", lambda request: None)  # draws some other way
    with pytest.raises(ours.CsrfInternalsChanged):
        ours.check()
    monkeypatch.delattr(django_csrf, "_get_new_csrf_string")
    with pytest.raises(ours.CsrfInternalsChanged):
        ours.check()
