from __future__ import annotations

from django import template
from django.utils.safestring import mark_safe

from games.tetriwar.render import pieces_css

register = template.Library()


@register.simple_tag
def tetriwar_pieces_css() -> str:
    return mark_safe(pieces_css())
