"""TetriWar's table options (RULES.md §1, "The game"), validated on the server."""

from __future__ import annotations

from typing import Any

from django import forms

from games.core.errors import InvalidOptions
from games.forms import GameOptionsForm
from games.tetriwar import constants as C
from games.tetriwar.engine import Options
from games.tetriwar.handling import Handling

BOMB_CHOICES = [
    ("manual", "Manual: you choose when and on whom"),
    ("automatic", "Automatic: dropped as soon as caught"),
    ("off", "Off"),
]


class TetriWarOptionsForm(GameOptionsForm):
    Options = Options

    seats = forms.TypedChoiceField(
        label="Players",
        choices=[(n, str(n)) for n in range(1, C.MAX_PLAYERS + 1)],
        coerce=int,
        initial=2,
        help_text="1 to 4 seats; pairs need all 4.",
    )
    # The bounds are the engine's (RULES.md §1), so the form and the game agree.
    minutes = forms.IntegerField(
        label="Minutes per game",
        min_value=C.MINUTES_RANGE[0],
        max_value=C.MINUTES_RANGE[1],
        initial=C.MINUTES_DEFAULT,
        help_text="How long the game lasts: 1 to 15 minutes.",
    )
    start_level = forms.IntegerField(
        label="Starting level",
        min_value=C.START_LEVEL_RANGE[0],
        max_value=C.START_LEVEL_RANGE[1],
        initial=C.START_LEVEL_DEFAULT,
        help_text="1 to 9. Higher levels fall faster and score more.",
    )
    lines_per_level = forms.IntegerField(
        label="Lines to advance a level",
        min_value=C.LINES_PER_LEVEL_RANGE[0],
        max_value=C.LINES_PER_LEVEL_RANGE[1],
        initial=C.LINES_PER_LEVEL_DEFAULT,
        help_text="4 to 10 lines per level.",
    )
    bombs = forms.ChoiceField(label="Bombs", choices=BOMB_CHOICES, initial=C.BOMBS_DEFAULT)
    pairs = forms.BooleanField(
        label="Play in pairs (seats 1+2 against 3+4)",
        required=False,
        help_text="Only with 4 players: partners' scores are added.",
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("pairs") and data.get("seats") != 4:
            self.add_error("pairs", "Pairs need exactly 4 players.")
        return data

    @staticmethod
    def describe(options: dict[str, Any]) -> str:
        bombs = {"off": "no bombs", "manual": "manual bombs", "automatic": "automatic bombs"}
        parts = [
            f"{options.get('minutes', 3)} min",
            f"level {options.get('start_level', 1)}",
            f"{options.get('lines_per_level', 10)} lines/level",
            bombs.get(options.get("bombs", "off"), "no bombs"),
        ]
        if options.get("pairs"):
            parts.append("2 vs 2")
        return " · ".join(parts)


def _setting(label: str, bounds: tuple[int, int], default: int, help_text: str) -> forms.IntegerField:
    """One number of a player's handling, within the engine's bounds; left out, the default."""
    low, high = bounds
    return forms.IntegerField(
        required=False, label=label, min_value=low, max_value=high, initial=default,
        help_text=help_text.format(low=low, high=high),
    )


class HandlingForm(forms.Form):
    """A player's auto-repeat and soft-drop speed, stored on the account (the keys
    page); the bounds are the engine's (games/tetriwar/handling.py). Its fields are
    prefixed (``handling-das``): a key binding is named ``soft_drop`` too."""

    prefix = "handling"

    das = _setting(
        "Auto-repeat delay (ms)", C.DAS_MS_RANGE, C.DAS_MS_DEFAULT,
        "How long ← or → is held before it repeats: {low}–{high} ms.",
    )
    arr = _setting(
        "Auto-repeat rate (ms)", C.ARR_MS_RANGE, C.ARR_MS_DEFAULT,
        "Time between repeated steps: {low}–{high} ms; 0 goes straight to the wall.",
    )
    soft_drop = _setting(
        "Soft drop (rows per second)", C.SOFT_DROP_SPEED_RANGE, C.SOFT_DROP_SPEED_DEFAULT,
        "How fast ↓ drops the piece: {low}–{high} rows a second.",
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
