"""English words of the pure engines, marked for translation on Django's side.

Engines and games/core import nothing of Django (import-linter's "pure rules"
contract), so the words they carry (``Termination.words``, Te-Trix's verdicts) are
marked here, and translated where they are rendered: ``gettext(words)``.
tests/games/test_refusal_words.py checks that every Termination's words are here.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext, gettext_noop

from games.core.outcome import Termination


class Sentence:
    """Words a live game keeps to show again (a line of its log), translated each time
    they are shown, into the language active then: a table renders its changes once per
    language read at it (games/host.py), and a page that comes later gets the whole log
    in its own.

    ``text`` is an English sentence marked with ``gettext_lazy`` (or ``ngettext_lazy``
    with the name of its number's value); ``values`` fill its ``%(name)s`` fields, and
    may be Sentences themselves; ``prefix`` goes before it as it is."""

    __slots__ = ("prefix", "text", "values")

    def __init__(self, text: Any, prefix: str = "", **values: Any) -> None:
        self.text = text
        self.prefix = prefix
        self.values = values

    def __str__(self) -> str:
        return self.prefix + (self.text % self.values if self.values else str(self.text))

    def __repr__(self) -> str:
        return f"Sentence({str(self)!r})"

# games/core/outcome.py TERMINATION_WORDS, word for word.
TERMINATIONS: tuple[str, ...] = (
    gettext_noop("Time is up."),
    gettext_noop("Only one side is left standing."),
    gettext_noop("The others left the game."),
    gettext_noop("The board is full."),
    gettext_noop("The target score was reached."),
    gettext_noop("The last move was played."),
    gettext_noop("A player filled the whole grid."),
    gettext_noop("Every player is out."),
    gettext_noop("The deck ran out."),
    gettext_noop("The game was stopped without a result."),
)

# games/tetrix/constants.py VERDICTS, word for word.
VERDICTS: tuple[str, ...] = (
    gettext_noop("Chapeau!"),
    gettext_noop("well played"),
    gettext_noop("keep practising"),
)

# games/tetrix/constants.py SYMBOL_NAMES, word for word.
SYMBOLS: tuple[str, ...] = (gettext_noop("circle"), gettext_noop("square"), gettext_noop("cross"))


def termination(kind: Termination) -> str:
    """Why a game ended, in the active language."""
    return gettext(kind.words)
