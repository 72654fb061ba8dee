"""Block-Killer table options (RULES.md §4), validated on the server."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext, gettext_noop
from django.utils.translation import gettext_lazy as _

from games.blockkiller import constants as C
from games.blockkiller.engine import Options
from games.forms import GameOptionsForm, words


class BlockKillerOptionsForm(GameOptionsForm):
    Options = Options

    seats = forms.TypedChoiceField(
        label=_("Players"),
        choices=[(n, str(n)) for n in range(C.MIN_PLAYERS, C.MAX_PLAYERS + 1)],
        coerce=int,
        initial=3,
        help_text=words(
            gettext_noop("%(low)s to %(high)s players; the last one holding %(limit)s garbage cards or fewer wins."),
            low=C.MIN_PLAYERS, high=C.MAX_PLAYERS, limit=C.OUT_ABOVE_GARBAGE,
        ),
    )
    turn_seconds = forms.IntegerField(
        label=_("Seconds per turn"),
        min_value=C.TURN_SECONDS_RANGE[0],
        max_value=C.TURN_SECONDS_RANGE[1],
        initial=C.TURN_SECONDS_DEFAULT,
        help_text=_(
            "For a turn, and for a defence. When it runs out, a play under way is called off, "
            "every card back in hand: the turn is passed (obliged to play: one garbage card "
            "drawn), and a defence counts as nothing."
        ),
    )
    mini = forms.BooleanField(
        label=_("Mini T-spins"),
        required=False,
        initial=False,
        help_text=_("A T-spin with fewer than two front corners filled counts as no spin."),
    )
    no_mercy = forms.BooleanField(
        label=_("No Mercy"),
        required=False,
        initial=False,
        help_text=_("Bigger attacks and combos; lines beyond the table attack directly (no offset)."),
    )

    @staticmethod
    def describe(options: dict[str, Any]) -> str:
        parts = [gettext("%(seconds)s s a turn") % {"seconds": options.get("turn_seconds", C.TURN_SECONDS_DEFAULT)}]
        if options.get("mini"):
            parts.append(gettext("Mini"))
        if options.get("no_mercy"):
            parts.append(gettext("No Mercy"))
        return " · ".join(parts)
