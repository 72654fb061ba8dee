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


def install() -> None:
    """Make Django's CSRF middleware draw its masks and secrets with ``random_csrf_string``."""
    csrf._get_new_csrf_string = random_csrf_string
