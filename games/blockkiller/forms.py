"""Block-Killer table options (RULES.md §4), validated on the server."""

from __future__ import annotations

from typing import Any

from django import forms

from games.blockkiller import constants as C
from games.blockkiller.engine import Options
from games.forms import GameOptionsForm


class BlockKillerOptionsForm(GameOptionsForm):
    Options = Options

    seats = forms.TypedChoiceField(
        label="Players",
        choices=[(n, str(n)) for n in range(C.MIN_PLAYERS, C.MAX_PLAYERS + 1)],
        coerce=int,
        initial=3,
        help_text=f"{C.MIN_PLAYERS} to {C.MAX_PLAYERS} players; the last one holding "
        f"{C.OUT_ABOVE_GARBAGE} garbage cards or fewer wins.",
    )
    turn_seconds = forms.IntegerField(
        label="Seconds per turn",
        min_value=C.TURN_SECONDS_RANGE[0],
        max_value=C.TURN_SECONDS_RANGE[1],
        initial=C.TURN_SECONDS_DEFAULT,
        help_text="For a turn, and for a defence. When it runs out, a play with a piece placed "
        "is sent as it stands; otherwise the turn is passed (obliged to play: one garbage card).",
    )
    mini = forms.BooleanField(
        label="Mini T-spins",
        required=False,
        initial=False,
        help_text="A T-spin with fewer than two front corners filled counts as no spin.",
    )
    no_mercy = forms.BooleanField(
        label="No Mercy",
        required=False,
        initial=False,
        help_text="Bigger attacks and combos; lines beyond the table attack directly (no offset).",
    )

    @staticmethod
    def describe(options: dict[str, Any]) -> str:
        parts = [f"{options.get('turn_seconds', C.TURN_SECONDS_DEFAULT)} s a turn"]
        if options.get("mini"):
            parts.append("Mini")
        if options.get("no_mercy"):
            parts.append("No Mercy")
        return " · ".join(parts)
