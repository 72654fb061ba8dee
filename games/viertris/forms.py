"""Viertris table options (RULES.md §2), validated on the server."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games.forms import GameOptionsForm
from games.viertris import constants as C
from games.viertris.engine import Options


class ViertrisOptionsForm(GameOptionsForm):
    Options = Options

    seats = forms.TypedChoiceField(
        label=_("Players"),
        choices=[(n, str(n)) for n in range(C.MIN_PLAYERS, C.MAX_PLAYERS + 1)],
        coerce=int,
        initial=2,
        help_text=_("2 to 4 players, each with a colour."),
    )
    move_seconds = forms.IntegerField(
        label=_("Seconds per move"), min_value=C.MOVE_SECONDS_RANGE[0], max_value=C.MOVE_SECONDS_RANGE[1],
        initial=C.MOVE_SECONDS_DEFAULT,
        help_text=_("When the clock runs out, a random column is played for you."),
    )
    target_score = forms.IntegerField(
        label=_("Play to (points)"), required=False, min_value=C.TARGET_SCORE_RANGE[0],
        max_value=C.TARGET_SCORE_RANGE[1], help_text=_("Optional: the game ends when someone reaches it."),
    )
    move_limit = forms.IntegerField(
        label=_("Move limit"), required=False, min_value=C.MOVE_LIMIT_RANGE[0], max_value=C.MOVE_LIMIT_RANGE[1],
        help_text=_("Optional: the game ends after this many moves in all."),
    )

    @staticmethod
    def describe(options: dict[str, Any]) -> str:
        parts = [gettext("%(seconds)s s a move") % {"seconds": options.get("move_seconds", C.MOVE_SECONDS_DEFAULT)}]
        if options.get("target_score"):
            parts.append(gettext("to %(points)s points") % {"points": options["target_score"]})
        if options.get("move_limit"):
            parts.append(gettext("%(moves)s moves") % {"moves": options["move_limit"]})
        if len(parts) == 1:
            parts.append(gettext("until the board is full"))
        return " · ".join(parts)
