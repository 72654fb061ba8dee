"""Chips written the reader's way: ``{% load chips %}{{ user.chips|chips }}``."""

from __future__ import annotations

from django import template

from accounts.formats import chips_text

register = template.Library()


@register.filter(name="chips")
def chips_filter(value):
    return chips_text(value)
