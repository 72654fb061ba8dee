from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _


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
