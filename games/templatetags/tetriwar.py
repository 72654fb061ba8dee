from __future__ import annotations

import hashlib

from django import template
from django.urls import reverse

from games.tetriwar.render import pieces_css

register = template.Library()

# The stylesheet is cached for a year (games.views.tetriwar_pieces_css): its link
# changes with its content.
_PIECES_CSS_VERSION = hashlib.sha256(pieces_css().encode()).hexdigest()[:12]


@register.simple_tag
def tetriwar_pieces_css_url() -> str:
    return f"{reverse('games:tetriwar_pieces_css')}?v={_PIECES_CSS_VERSION}"
