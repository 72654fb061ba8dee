"""The CSRF token's random strings, drawn from the OS in one call instead of 32.

Django masks the CSRF secret with a fresh random string on every response that shows
a token (against BREACH), and every page of the site shows one (htmx sends it in
its headers). It draws the string with ``secrets.choice``: one ``getrandom`` call per
character, and CPython lets go of the GIL around each. A page is rendered on a
request thread beside the event loop and other requests, so the thread then waits
to get the GIL back, up to 32 times a page: under load, a large share of the time a
page takes (bench/pages.py's server, sampled with py-spy, had its request threads in
``getrandbits`` for about a third of their samples).

``random_csrf_string`` gives the same thing, drawn from the same source: 32
characters, each uniform over Django's alphabet, from one ``os.urandom`` call (bytes
that would favour the first characters of the alphabet are thrown away, not folded
in). Django's own masking, unmasking and checks are unchanged; ``install`` only
replaces the function they draw with.
"""

from __future__ import annotations

import inspect
import os

from django.middleware import csrf

ALPHABET = csrf.CSRF_ALLOWED_CHARS
# The largest multiple of the alphabet's size that fits in a byte: a byte below it
# maps to every character equally often (248 = 4 × 62); the bytes above are rejected.
UNBIASED_BELOW = 256 - 256 % len(ALPHABET)


def random_csrf_string(length: int = csrf.CSRF_SECRET_LENGTH) -> str:
    chars: list[str] = []
    while len(chars) < length:
        # A few more bytes than needed: with 8 of 256 byte values rejected, one call
        # almost always suffices.
        for byte in os.urandom(length + 8):
            if byte < UNBIASED_BELOW:
                chars.append(ALPHABET[byte % len(ALPHABET)])
                if len(chars) == length:
                    break
    return "".join(chars)


class CsrfInternalsChanged(RuntimeError):
    """Django's CSRF module no longer draws its strings the way ``install`` replaces."""


# Django's private function this module replaces, and the private functions that
# must be drawing with it for the replacement to take effect.
DRAWS_WITH = "_get_new_csrf_string"
CALLERS = ("_mask_cipher_secret", "_add_new_csrf_cookie")


def check() -> None:
    """Fail at start-up, loudly, if Django's CSRF module changed under ``install``:
    if the function it replaces were gone or renamed, or no longer what masks and
    secrets are drawn with, the replacement would silently do nothing."""
    function = getattr(csrf, DRAWS_WITH, None)
    if function is random_csrf_string:
        return  # installed already
    if not callable(function) or inspect.signature(function).parameters:
        raise CsrfInternalsChanged(f"django.middleware.csrf.{DRAWS_WITH}() is gone or changed: review accounts/csrf.py")
    for name in CALLERS:
        caller = getattr(csrf, name, None)
        if caller is None or f"{DRAWS_WITH}()" not in inspect.getsource(caller):
            raise CsrfInternalsChanged(
                f"django.middleware.csrf.{name} no longer draws with {DRAWS_WITH}(): review accounts/csrf.py"
            )
    sample = function()
    if len(sample) != csrf.CSRF_SECRET_LENGTH or set(sample) - set(ALPHABET):
        raise CsrfInternalsChanged("Django's CSRF strings changed their length or alphabet: review accounts/csrf.py")


def install() -> None:
    """Make Django's CSRF middleware draw its masks and secrets with ``random_csrf_string``."""
    check()
    csrf._get_new_csrf_string = random_csrf_string
