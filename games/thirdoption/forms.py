"""Third Option table options (RULES.md §3), validated on the server."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext, gettext_noop
from django.utils.translation import gettext_lazy as _

from games.forms import GameOptionsForm, words
from games.thirdoption import constants as C
from games.thirdoption.engine import Options


class ThirdOptionOptionsForm(GameOptionsForm):
    Options = Options

    seats = forms.TypedChoiceField(
        label=_("Players"),
        choices=[(n, str(n)) for n in range(C.MIN_PLAYERS, C.MAX_PLAYERS + 1)],
        coerce=int,
        initial=4,
        help_text=_("1 to 12 players, each on a grid of their own."),
    )
    round_seconds = forms.IntegerField(
        label=_("Seconds per round"),
        min_value=C.ROUND_SECONDS_RANGE[0],
        max_value=C.ROUND_SECONDS_RANGE[1],
        initial=C.ROUND_SECONDS_DEFAULT,
        help_text=_("When the round clock runs out, the first card that fits is placed for you."),
    )
    tetrominoes_only = forms.BooleanField(
        label=_("Tetrominoes only"),
        required=False,
        initial=False,
        help_text=words(
            gettext_noop(
                "A deck of %(cards)s cards: the five tetrominoes, 7 of each "
                "(instead of %(deck)s cards of 1 to 7 squares)."
            ),
            cards=C.TETROMINO_DECK_SIZE, deck=C.DECK_SIZE,
        ),
    )

    @staticmethod
    def describe(options: dict[str, Any]) -> str:
        parts = [gettext("%(seconds)s s a round") % {"seconds": options.get("round_seconds", C.ROUND_SECONDS_DEFAULT)}]
        if options.get("tetrominoes_only"):
            parts.append(gettext("tetrominoes only"))
        else:
            parts.append(gettext("%(count)s cards") % {"count": C.DECK_SIZE})
        return " · ".join(parts)
