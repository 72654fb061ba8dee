from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

from games.forms import words
from games.registry import GAMES


class TableForm(forms.Form):
    """What every table has, whatever its game: a name and a stake."""

    name = forms.CharField(
        label=_("Name"), max_length=60, required=False, help_text=_("Optional; defaults to “your name's table”.")
    )
    stake = forms.IntegerField(
        label=_("Stake"),
        min_value=0,
        max_value=1_000_000,
        initial=0,
        help_text=_("Chips per seat. 0 makes a friendly table; more makes it competitive (⚔)."),
    )

    def __init__(self, *args, is_guest: bool = False, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.is_guest = is_guest
        if is_guest:
            self.fields["stake"].help_text = _("Guests open friendly tables only (stake 0).")

    def clean_stake(self) -> int:
        stake = self.cleaned_data["stake"]
        if self.is_guest and stake:
            raise forms.ValidationError(_("Guests can only open friendly tables. Sign up to play for chips."))
        return stake


class SeatForm(forms.Form):
    seat = forms.IntegerField(min_value=1, max_value=12)


# A player's friendly arena, from the lobby (lobby/arena_views.py).
ARENA_STARTS_IN = (0, 5, 15, 30, 60)  # minutes from now
ARENA_LENGTHS = (10, 20, 30, 45, 60, 90, 120)  # minutes


class ArenaForm(forms.Form):
    title = forms.CharField(label=_("Title"), max_length=80)
    game = forms.ChoiceField(label=_("Game"), choices=lambda: [(s, g.name) for s, g in GAMES.items()])
    minutes = forms.TypedChoiceField(
        label=_("Length"), coerce=int, initial=30,
        choices=[(m, words(gettext_noop("%(n)s minutes"), n=m)) for m in ARENA_LENGTHS],
    )
    starts_in = forms.TypedChoiceField(
        label=_("Starts"), coerce=int, initial=5,
        choices=[(m, words(gettext_noop("in %(n)s minutes"), n=m) if m else _("now")) for m in ARENA_STARTS_IN],
    )
