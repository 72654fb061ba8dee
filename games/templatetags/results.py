"""Changes written with their sign, as the results show them: ``+10``, ``−5``, ``0``
(``{% load results %}{{ row.points|signed }}``); chips grouped as the language groups
them (``signed_chips``)."""

from __future__ import annotations

from django import template

from accounts.formats import chips_text

register = template.Library()

MINUS = "\u2212"  # the minus sign, as wide as the plus: a column of changes lines up


def _signed(value, text) -> str:
    if not isinstance(value, int) or isinstance(value, bool):
        return "" if value is None else str(value)
    if value > 0:
        return "+" + text(value)
    if value < 0:
        return MINUS + text(-value)
    return "0"


@register.filter
def signed(value) -> str:
    return _signed(value, str)


@register.filter
def signed_chips(value) -> str:
    return _signed(value, chips_text)
