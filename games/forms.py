"""What every game's table-options form shares."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.functional import lazy
from django.utils.translation import gettext


def _filled(text: str, values: dict[str, Any]) -> str:
    return gettext(text) % values


_filled_lazy = lazy(_filled, str)


def words(text: str, **values: Any) -> str:
    """``text`` (English, marked with ``gettext_noop``) with ``values`` put in its
    ``%(name)s`` placeholders, in the language active when it is shown: a form's
    labels and help are built once, at import, and shown in every language."""
    return _filled_lazy(text, values)


class GameOptionsForm(forms.Form):
    """A game's options form: fields for people, and its engine's ``Options`` as the
    one authority on a stored options dict. Every form has a ``seats`` field."""

    Options: Any  # the engine's frozen Options dataclass

    @classmethod
    def validate(cls, options: dict[str, Any]) -> None:
        """The engine's own check of a stored options dict (raises InvalidOptions)."""
        cls.Options.from_dict(options)

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        """The options a table gets when nobody chooses (a practice table)."""
        return cls.Options().to_dict()
