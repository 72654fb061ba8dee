"""TetriWar's table options (RULES.md §1, "The game"), validated on the server."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext, gettext_noop
from django.utils.translation import gettext_lazy as _

from games.core.errors import InvalidOptions
from games.forms import GameOptionsForm, words
from games.tetriwar import constants as C
from games.tetriwar.engine import Options
from games.tetriwar.handling import Handling

BOMB_CHOICES = [
    ("manual", _("Manual: you choose when and on whom")),
    ("automatic", _("Automatic: dropped as soon as caught")),
    ("off", _("Off")),
]


class TetriWarOptionsForm(GameOptionsForm):
    Options = Options

    seats = forms.TypedChoiceField(
        label=_("Players"),
        choices=[(n, str(n)) for n in range(1, C.MAX_PLAYERS + 1)],
        coerce=int,
        initial=2,
        help_text=_("1 to 4 seats; pairs need all 4."),
    )
    # The bounds are the engine's (RULES.md §1), so the form and the game agree.
    minutes = forms.IntegerField(
        label=_("Minutes per game"),
        min_value=C.MINUTES_RANGE[0],
        max_value=C.MINUTES_RANGE[1],
        initial=C.MINUTES_DEFAULT,
        help_text=_("How long the game lasts: 1 to 15 minutes."),
    )
    start_level = forms.IntegerField(
        label=_("Starting level"),
        min_value=C.START_LEVEL_RANGE[0],
        max_value=C.START_LEVEL_RANGE[1],
        initial=C.START_LEVEL_DEFAULT,
        help_text=_("1 to 9. Higher levels fall faster and score more."),
    )
    lines_per_level = forms.IntegerField(
        label=_("Lines to advance a level"),
        min_value=C.LINES_PER_LEVEL_RANGE[0],
        max_value=C.LINES_PER_LEVEL_RANGE[1],
        initial=C.LINES_PER_LEVEL_DEFAULT,
        help_text=_("4 to 10 lines per level."),
    )
    bombs = forms.ChoiceField(label=_("Bombs"), choices=BOMB_CHOICES, initial=C.BOMBS_DEFAULT)
    pairs = forms.BooleanField(
        label=_("Play in pairs (seats 1+2 against 3+4)"),
        required=False,
        help_text=_("Only with 4 players: partners' scores are added."),
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("pairs") and data.get("seats") != 4:
            self.add_error("pairs", gettext("Pairs need exactly 4 players."))
        return data

    @staticmethod
    def describe(options: dict[str, Any]) -> str:
        bombs = {
            "off": gettext_noop("no bombs"), "manual": gettext_noop("manual bombs"),
            "automatic": gettext_noop("automatic bombs"),
        }
        parts = [
            gettext("%(minutes)s min") % {"minutes": options.get("minutes", 3)},
            gettext("level %(level)s") % {"level": options.get("start_level", 1)},
            gettext("%(lines)s lines/level") % {"lines": options.get("lines_per_level", 10)},
            gettext(bombs.get(options.get("bombs", "off"), bombs["off"])),
        ]
        if options.get("pairs"):
            parts.append(gettext("2 vs 2"))
        return " · ".join(parts)


def _setting(label: Any, bounds: tuple[int, int], default: int, help_text: str) -> forms.IntegerField:
    """One number of a player's handling, within the engine's bounds; left out, the default."""
    low, high = bounds
    return forms.IntegerField(
        required=False, label=label, min_value=low, max_value=high, initial=default,
        help_text=words(help_text, low=low, high=high),
    )


class HandlingForm(forms.Form):
    """A player's auto-repeat and soft-drop speed, stored on the account (the keys
    page); the bounds are the engine's (games/tetriwar/handling.py). Its fields are
    prefixed (``handling-das``): a key binding is named ``soft_drop`` too."""

    prefix = "handling"

    das = _setting(
        _("Auto-repeat delay (ms)"), C.DAS_MS_RANGE, C.DAS_MS_DEFAULT,
        gettext_noop("How long ← or → is held before it repeats: %(low)s–%(high)s ms."),
    )
    arr = _setting(
        _("Auto-repeat rate (ms)"), C.ARR_MS_RANGE, C.ARR_MS_DEFAULT,
        gettext_noop("Time between repeated steps: %(low)s–%(high)s ms; 0 goes straight to the wall."),
    )
    soft_drop = _setting(
        _("Soft drop (rows per second)"), C.SOFT_DROP_SPEED_RANGE, C.SOFT_DROP_SPEED_DEFAULT,
        gettext_noop("How fast ↓ drops the piece: %(low)s–%(high)s rows a second."),
    )

    @staticmethod
    def initial_for(stored: dict | None) -> dict[str, int]:
        """The stored setting merged over the defaults (a bad stored value: the defaults)."""
        try:
            return Handling.from_dict(stored or None).to_dict()
        except InvalidOptions:
            return Handling().to_dict()

    def clean(self):
        data = super().clean()
        # a field left out keeps the game's default
        data = {key: value for key, value in data.items() if value is not None}
        if not self.errors:
            data = Handling.from_dict(data).to_dict()  # the engine's own check; the bounds are the same
        return data
