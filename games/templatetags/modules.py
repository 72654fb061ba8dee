"""``{% module_script 'js/chat.js' %}``: a page's ES module, with every module it
imports in the same file (config/bundles.py), so the page finds all of it in its HTML
and asks for it once. ``{% deferred_scripts 'js/live.js' 'js/invite.js' %}``: classic
scripts a page loads one after the other, in one file.

A module that imports nothing is its static file. One that does is its bundle, at
``/bundles/<name>.js?v=<its hash>`` (config.urls ``module_bundle``, kept a year): built
once per process, or on every page while DEBUG is on, so an edited module shows at once.
"""

from __future__ import annotations

import functools
import posixpath

from django import template
from django.conf import settings
from django.templatetags.static import static
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from config.bundles import entry, scripts, version

register = template.Library()


def address(path: str) -> str:
    """Where a page loads the module ``path`` (``js/chat.js``) from."""
    text = entry(path)
    if text is None:
        return static(path)
    name = posixpath.splitext(posixpath.basename(path))[0]
    return f"{reverse('module_bundle', args=[name])}?v={version(text)}"


_address_once = functools.cache(address)


def scripts_address(paths: tuple[str, ...]) -> str:
    """Where a page loads the classic scripts ``paths`` from: one file for all."""
    if len(paths) == 1:
        return static(paths[0])
    name = "+".join(posixpath.splitext(posixpath.basename(path))[0] for path in paths)
    return f"{reverse('module_bundle', args=[name])}?v={version(scripts(list(paths)))}"


_scripts_address_once = functools.cache(scripts_address)


@register.simple_tag
def module_script(path: str) -> SafeString:
    """The page's ``<script type="module">`` for ``path``."""
    return format_html('<script type="module" src="{}"></script>', address(path) if settings.DEBUG else _address_once(path))


@register.simple_tag
def deferred_scripts(*paths: str) -> SafeString:
    """One deferred ``<script>`` for the classic scripts ``paths`` (``js/…``, in their
    order), the page's next ones: each file is a request, six at a time."""
    if any(posixpath.dirname(path) != "js" for path in paths):
        raise template.TemplateSyntaxError("deferred_scripts joins files of static/js")
    src = scripts_address(paths) if settings.DEBUG else _scripts_address_once(paths)
    return format_html('<script src="{}" defer></script>', src)
