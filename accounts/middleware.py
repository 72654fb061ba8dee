"""The language of a signed-in account.

Django's LocaleMiddleware picks the language from the menu's cookie, else from the
browser's Accept-Language. An account that chose a language in the menu keeps it on
every device: this runs after the user is known and activates the saved one.
``language_of_scope`` makes the same choice for a WebSocket, once, as it connects.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation


class AccountLanguageMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        language = getattr(user, "language", "") if user is not None and user.is_authenticated else ""
        if language and translation.check_for_language(language):
            translation.activate(language)
            request.LANGUAGE_CODE = translation.get_language()
        return self.get_response(request)


def language_of_scope(scope: dict[str, Any]) -> str:
    """The language a WebSocket's reader reads, as a page of theirs would be: the
    signed-in account's, else the menu's cookie, else the browser's Accept-Language,
    else the site's. Django's own choice (``get_language_from_request``) reads only a
    request's ``COOKIES`` and ``META``: the scope's cookies and headers stand in for
    them."""
    user = scope.get("user")
    saved = getattr(user, "language", "") if user is not None and user.is_authenticated else ""
    if saved and translation.check_for_language(saved):
        try:
            return translation.get_supported_language_variant(saved)
        except LookupError:
            pass
    accept = next((value for name, value in scope.get("headers", ()) if name == b"accept-language"), b"")
    request = SimpleNamespace(
        COOKIES=scope.get("cookies") or {},
        META={"HTTP_ACCEPT_LANGUAGE": accept.decode("latin-1")} if accept else {},
    )
    return translation.get_language_from_request(request) or settings.LANGUAGE_CODE
