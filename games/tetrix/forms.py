"""Te-Trix table options (RULES.md §5), validated on the server."""

from __future__ import annotations

from typing import Any

from django import forms

from games.forms import GameOptionsForm
from games.tetrix import constants as C
from games.tetrix.engine import Options


class TetrixOptionsForm(GameOptionsForm):
    Options = Options

    seats = forms.TypedChoiceField(
        label="Players",
        choices=[(n, str(n)) for n in range(C.MIN_PLAYERS, C.MAX_PLAYERS + 1)],
        coerce=int,
        initial=2,
        help_text=f"{C.MIN_PLAYERS} to {C.MAX_PLAYERS} players, each on a 7 × 7 sheet of their own.",
    )
    arrange_seconds = forms.IntegerField(
        label="Seconds to arrange the dice",
        min_value=C.ARRANGE_SECONDS_RANGE[0],
        max_value=C.ARRANGE_SECONDS_RANGE[1],
        initial=C.ARRANGE_SECONDS_DEFAULT,
        help_text="When the roller's clock runs out, the dice are arranged as rolled into the "
        "first shape that fits.",
    )
    write_seconds = forms.IntegerField(
        label="Seconds to write the shape",
        min_value=C.WRITE_SECONDS_RANGE[0],
        max_value=C.WRITE_SECONDS_RANGE[1],
        initial=C.WRITE_SECONDS_DEFAULT,
        help_text="When it runs out, the shape is written for you where the fewest symbols hang over.",
    )
    solo = forms.BooleanField(
        label="Solo",
        required=False,
        initial=False,
        help_text=f"One player with an {C.BAR_BOXES}-box bar: every symbol hanging over the edge "
        "crosses a box; stop when you like, and get a verdict.",
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("solo") and data.get("seats") not in (None, C.SOLO_PLAYERS):
            self.add_error("seats", "The solo game is for one player.")
        return data

    @staticmethod
    def describe(options: dict[str, Any]) -> str:
        if options.get("solo"):
            return "solo · " + f"{options.get('write_seconds', C.WRITE_SECONDS_DEFAULT)} s to write"
        return (
            f"{options.get('arrange_seconds', C.ARRANGE_SECONDS_DEFAULT)} s to arrange · "
            f"{options.get('write_seconds', C.WRITE_SECONDS_DEFAULT)} s to write"
        )
