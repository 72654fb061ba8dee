"""Numbers of chips as each language writes them (RULES.md §6's chips, on every page).

Amounts of five digits and more are grouped with the active language's separator
(12,345 · 12.345 · 12 345); shorter ones are not, as German and Spanish usage
leaves four-digit numbers whole, and "1000" reads the same everywhere.
"""

from __future__ import annotations

from django.utils.formats import number_format

GROUP_FROM = 10_000


def chips_text(value) -> str:
    if not isinstance(value, int) or isinstance(value, bool):
        return "" if value is None else str(value)
    return number_format(value, force_grouping=abs(value) >= GROUP_FROM)
