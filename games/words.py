"""English words of the pure engines, marked for translation on Django's side.

Engines and games/core import nothing of Django (import-linter's "pure rules"
contract), so the words they carry (``Termination.words``, Te-Trix's verdicts) are
marked here, and translated where they are rendered: ``gettext(words)``.
tests/games/test_refusal_words.py checks that every Termination's words are here.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext, gettext_lazy, gettext_noop, pgettext_lazy

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

# Computer players (issue 30): a bot's seat and participation store its name and its
# level, both language-neutral (lobby/services.py ``bot_add``); every reader sees
# the word "bot" and the level in their own language, wherever a name shows.
BOT_NAME = gettext_lazy("%(name)s (bot, %(level)s)")
BOT_LEVELS = {
    "easy": pgettext_lazy("bot level", "easy"),
    "medium": pgettext_lazy("bot level", "medium"),
    "hard": pgettext_lazy("bot level", "hard"),
    "greedy": pgettext_lazy("bot level", "greedy"),
}


def bot_level(level: str) -> Any:
    """A bot level's words, translated when shown (a level of no game's: as it is)."""
    return BOT_LEVELS.get(level, level)


def bot_name(name: str, level: str) -> Sentence:
    """A bot's name as people read it, ``Ada (bot, greedy)``, worded when shown: in a
    page, ``str()`` of it now; in a game's log, kept and worded per reader. ``name``
    goes in as it is (escape it first for HTML kept unescaped)."""
    return Sentence(BOT_NAME, name=name, level=bot_level(level))


# A guest's name, marked so in each reader's language (accounts/identity.py, which
# knows nothing of games, writes the same words).
GUEST_NAME = gettext_lazy("%(name)s (guest)")


def guest_mark(name: str) -> str:
    """A guest's name marked so, in the active language: ``Bea (guest)``; in a game's
    log, ``Sentence(GUEST_NAME, name=…)`` instead, worded per reader."""
    return str(Sentence(GUEST_NAME, name=name))


def player_name(name: str, bot_level: str = "") -> str:
    """A seat's or a participation's name in the active language: a bot's with its words."""
    return str(bot_name(name, bot_level)) if bot_level else name


# games/core/outcome.py TERMINATION_WORDS, word for word.
TERMINATIONS: tuple[str, ...] = (
    gettext_noop("Time is up."),
    gettext_noop("Only one side is left standing."),
    gettext_noop("The game ended when players left it."),
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
