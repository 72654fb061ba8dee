from __future__ import annotations

import functools
import hashlib
import ipaddress
import re

from django.conf import settings
from django.contrib import admin
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.templatetags.static import static
from django.urls import include, path
from django.utils import translation
from django.views.decorators.cache import cache_control
from django.views.decorators.gzip import gzip_page
from django.views.decorators.http import etag, require_safe
from django.views.i18n import JavaScriptCatalog
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from config import bundles
from config import metrics as site_metrics
from config.network import request_client_address
from games import views as game_views


@require_safe
def healthz(request: HttpRequest) -> HttpResponse:
    """For a load balancer in front of several Daphne processes: this one answers."""
    return HttpResponse("ok\n", content_type="text/plain")


@require_safe
def metrics(request: HttpRequest) -> HttpResponse:
    """Prometheus' scrape (config/metrics.py), for a scraper on this machine or a staff
    member; anybody else gets the 404 of a page that does not exist."""
    if not (_is_loopback(request_client_address(request)) or request.user.is_staff):
        raise Http404
    return HttpResponse(generate_latest(site_metrics.registry()), content_type=CONTENT_TYPE_LATEST)


@require_safe
@cache_control(public=True, max_age=24 * 3600)
def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask for /favicon.ico on pages that name no icon (the stand-alone error
    pages, the admin's, a file opened directly): the site's icon, not a 404. Resolved
    per request, since the static file's name carries its hash once collected."""
    return HttpResponseRedirect(static("img/favicon.svg"))


@functools.cache
def _javascript_catalog(lang: str) -> tuple[str, str]:
    """The scripts' words in ``lang`` (the djangojs catalogues, locale/*/LC_MESSAGES/
    djangojs.po) as Django's JavaScriptCatalog writes them, with their hash: built once
    per process and language, as the catalogues change only with a deploy. ``packages``
    names one app without a catalogue of its own, so only LOCALE_PATHS is read (not the
    admin's scripts' words)."""
    with translation.override(lang):
        response = JavaScriptCatalog(packages=["games"]).get(None)
    text = response.content.decode()
    return text, hashlib.sha256(response.content).hexdigest()[:16]


@require_safe
@cache_control(public=True, max_age=3600)
@etag(lambda request, lang: _javascript_catalog(lang)[1] if lang in LANGUAGE_CODES else None)
def javascript_catalog(request: HttpRequest, lang: str) -> HttpResponse:
    """``gettext()``, ``ngettext()``, ``interpolate()`` for static/js in ``lang``, loaded by
    templates/base.html before the site's scripts (a file, as the Content-Security-Policy
    allows no inline script). The language is in the address, so a browser's cached copy
    never answers for another."""
    if lang not in LANGUAGE_CODES:
        raise Http404
    return HttpResponse(_javascript_catalog(lang)[0], content_type="text/javascript; charset=utf-8")


LANGUAGE_CODES = frozenset(code for code, _name in settings.LANGUAGES)


def _bundle(name: str) -> str:
    """The bundle ``name`` (config/bundles.py): ``tetriwar_play``, the module
    js/tetriwar_play.js and those it imports; ``live+invite``, the classic scripts
    js/live.js and js/invite.js. Http404 for any other name."""
    if not re.fullmatch(r"[a-z0-9_]{1,64}(\+[a-z0-9_]{1,64}){0,7}", name):
        raise Http404
    paths = [f"js/{part}.js" for part in name.split("+")]
    try:
        text = bundles.scripts(paths) if len(paths) > 1 else bundles.entry(paths[0])
    except bundles.BundleError as error:
        raise Http404 from error
    if text is None:  # a module that imports nothing: its static file, not a bundle
        raise Http404
    return text


# Bounded: the names a visitor may ask for are many more than the pages use (any 2 to 8
# classic scripts in any order), and one past the cache is only built again.
_bundle_once = functools.lru_cache(maxsize=32)(_bundle)


@require_safe
@gzip_page  # as WhiteNoise serves the static files: TetriWar's is 54 kB, 16 kB gzipped
@cache_control(public=True, max_age=365 * 24 * 3600, immutable=True)  # the link carries its hash
def module_bundle(request: HttpRequest, name: str) -> HttpResponse:
    """A page's ES module with every module it imports, or classic scripts joined
    (games/templatetags/modules.py): built once per process (on every request while
    DEBUG is on, as the files are edited). Nothing in it is secret: compressing it
    tells an eavesdropper nothing."""
    text = _bundle(name) if settings.DEBUG else _bundle_once(name)
    return HttpResponse(text, content_type="text/javascript; charset=utf-8")


def _is_loopback(address: str | None) -> bool:
    try:
        ip = ipaddress.ip_address(address or "")
    except ValueError:
        return False
    return (getattr(ip, "ipv4_mapped", None) or ip).is_loopback  # ::ffff:127.0.0.1 too


urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("metrics", metrics, name="metrics"),
    path("favicon.ico", favicon, name="favicon"),
    path("jsi18n/<str:lang>.js", javascript_catalog, name="javascript_catalog"),
    path("bundles/<str:name>.js", module_bundle, name="module_bundle"),
    path("", game_views.home, name="home"),
    path("games/", include("games.urls")),
    path("leaderboard/", game_views.leaderboard_index),
    path("accounts/", include("accounts.urls")),
    path("lobby/", include("lobby.urls")),
    path("admin/", admin.site.urls),
]
