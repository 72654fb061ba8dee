"""The language of a signed-in account.

Django's LocaleMiddleware picks the language from the menu's cookie, else from the
browser's Accept-Language. An account that chose a language in the menu keeps it on
every device: this runs after the user is known and activates the saved one.
"""

from __future__ import annotations

from collections.abc import Callable

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
