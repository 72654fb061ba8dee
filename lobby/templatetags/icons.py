from __future__ import annotations

from django import template
from django.utils.safestring import mark_safe

register = template.Library()

# Inline icons as constants: an {% include %} per lobby row cost more than the row.
EYE = mark_safe(
    '<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path fill="currentColor" '
    'd="M12 5C6.5 5 2.7 9.4 1.5 12c1.2 2.6 5 7 10.5 7s9.3-4.4 10.5-7C21.3 9.4 17.5 5 12 5zm0 11.5a4.5 4.5 0 110-9 '
    '4.5 4.5 0 010 9zm0-2.5a2 2 0 100-4 2 2 0 000 4z"/></svg>'
)


@register.simple_tag
def eye_icon() -> str:
    return EYE


LINK = mark_safe(
    '<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path fill="none" '
    'stroke="currentColor" stroke-width="2.2" stroke-linecap="round" d="M10 14a4.5 4.5 0 006.4 0l3.2-3.2a4.5 4.5 '
    '0 00-6.4-6.4L12 5.6M14 10a4.5 4.5 0 00-6.4 0l-3.2 3.2a4.5 4.5 0 006.4 6.4l1.2-1.2"/></svg>'
)


@register.simple_tag
def link_icon() -> str:
    return LINK


# Away (a seat's player has no page of the table open): the power sign, drawn, since the
# fonts of many systems (Debian's among them) have no glyph for U+23FB.
AWAY = mark_safe(
    '<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path fill="none" '
    'stroke="currentColor" stroke-width="2.4" stroke-linecap="round" d="M12 3v8M6.7 6.5a7.5 7.5 0 1010.6 0"/></svg>'
)


@register.simple_tag
def away_icon() -> str:
    return AWAY
