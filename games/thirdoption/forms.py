"""Third Option table options (RULES.md §3), validated on the server."""

from __future__ import annotations

from typing import Any

from django import forms

from games.forms import GameOptionsForm
from games.thirdoption import constants as C
from games.thirdoption.engine import Options


class ThirdOptionOptionsForm(GameOptionsForm):
    Options = Options

    seats = forms.TypedChoiceField(
        label="Players",
        choices=[(n, str(n)) for n in range(C.MIN_PLAYERS, C.MAX_PLAYERS + 1)],
        coerce=int,
        initial=4,
        help_text="1 to 12 players, each on a grid of their own.",
    )
    round_seconds = forms.IntegerField(
        label="Seconds per round",
        min_value=C.ROUND_SECONDS_RANGE[0],
        max_value=C.ROUND_SECONDS_RANGE[1],
        initial=C.ROUND_SECONDS_DEFAULT,
        help_text="When the round clock runs out, the first card that fits is placed for you.",
    )
    tetrominoes_only = forms.BooleanField(
        label="Tetrominoes only",
        required=False,
        initial=False,
        help_text=f"A deck of {C.TETROMINO_DECK_SIZE} cards: the five tetrominoes, 7 of each "
        f"(instead of {C.DECK_SIZE} cards of 1 to 7 squares).",
    )

    @staticmethod
    def describe(options: dict[str, Any]) -> str:
        parts = [f"{options.get('round_seconds', C.ROUND_SECONDS_DEFAULT)} s a round"]
        parts.append("tetrominoes only" if options.get("tetrominoes_only") else f"{C.DECK_SIZE} cards")
        return " · ".join(parts)
