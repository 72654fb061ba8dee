from __future__ import annotations

from functools import cache

from django.urls import reverse

from accounts.identity import player_from_request


@cache
def _language_url() -> str:
    return reverse("language")  # once per process, as games.context_processors.site_urls


def player(request):
    return {"player": player_from_request(request), "language_url": _language_url()}
