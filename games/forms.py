"""What every game's table-options form shares."""

from __future__ import annotations

from typing import Any

from django import forms


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
