"""One family for every refusal, as python-chess has one for illegal moves.

Whatever the site refuses — an engine's illegal intent, a table option out of range,
a frame of no declared type, a spectator's key press, a seat already taken — is a
:class:`Refusal`: a short, stable ``code`` for programs (``"EMPTY_STORE"``), and a
``message``, a sentence for people. Each kind of refusal is a subclass, so a caller
catches what it can answer and lets the rest through; the socket and the page turn any
``Refusal`` into the same error fragment. Pure Python: engines raise these too.
"""

from __future__ import annotations

import re

CODE = re.compile(r"^[A-Z][A-Z0-9_]*$")  # what every code looks like


class Refusal(ValueError):
    """Something the site will not do. It changed nothing."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"


class IllegalIntent(Refusal):
    """An intent the engine refuses (not your turn, an empty bomb store, …)."""


class InvalidOptions(Refusal):
    """A table option outside its allowed values; ``field`` names the option."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__("INVALID_OPTIONS", message)
        self.field = field

    def __repr__(self) -> str:
        return f"InvalidOptions({self.field!r}, {self.message!r})"
