"""Te-Trix table options (RULES.md §5), validated on the server."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext, gettext_noop
from django.utils.translation import gettext_lazy as _

from games.forms import GameOptionsForm, words
from games.tetrix import constants as C
from games.tetrix.engine import Options


class TetrixOptionsForm(GameOptionsForm):
    Options = Options

    seats = forms.TypedChoiceField(
        label=_("Players"),
        choices=[(n, str(n)) for n in range(C.MIN_PLAYERS, C.MAX_PLAYERS + 1)],
        coerce=int,
        initial=2,
        help_text=words(
            gettext_noop("%(low)s to %(high)s players, each on a 7 × 7 sheet of their own."),
            low=C.MIN_PLAYERS, high=C.MAX_PLAYERS,
        ),
    )
    arrange_seconds = forms.IntegerField(
        label=_("Seconds to arrange the dice"),
        min_value=C.ARRANGE_SECONDS_RANGE[0],
        max_value=C.ARRANGE_SECONDS_RANGE[1],
        initial=C.ARRANGE_SECONDS_DEFAULT,
        help_text=_(
            "When the roller's clock runs out, the dice are arranged as rolled into the first shape that fits."
        ),
    )
    write_seconds = forms.IntegerField(
        label=_("Seconds to write the shape"),
        min_value=C.WRITE_SECONDS_RANGE[0],
        max_value=C.WRITE_SECONDS_RANGE[1],
        initial=C.WRITE_SECONDS_DEFAULT,
        help_text=_("When it runs out, the shape is written for you where the fewest symbols hang over."),
    )
    solo = forms.BooleanField(
        label=_("Solo"),
        required=False,
        initial=False,
        help_text=words(
            gettext_noop(
                "One player with an %(boxes)s-box bar: every symbol hanging over the edge "
                "crosses a box; the clocks to arrange and to write run as at any table; "
                "stop when you like, and get a verdict."
            ),
            boxes=C.BAR_BOXES,
        ),
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("solo") and data.get("seats") not in (None, C.SOLO_PLAYERS):
            self.add_error("seats", gettext("The solo game is for one player."))
        return data

    @staticmethod
    def describe(options: dict[str, Any]) -> str:
        """The table's options in a line; a solo game runs both clocks too (the engine's
        ``next_deadline``), so it says both."""
        write = gettext("%(seconds)s s to write") % {
            "seconds": options.get("write_seconds", C.WRITE_SECONDS_DEFAULT)
        }
        arrange = gettext("%(seconds)s s to arrange") % {
            "seconds": options.get("arrange_seconds", C.ARRANGE_SECONDS_DEFAULT)
        }
        if options.get("solo"):
            return f"{gettext('solo')} · {arrange} · {write}"
        return f"{arrange} · {write}"
