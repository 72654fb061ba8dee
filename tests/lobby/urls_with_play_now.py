"""The site's URLs with a quick-play ``lobby:play_now`` of its own: what the lobby's
cards show once the queue (issue 32, point 2) is merged. Only the lobby's tests use it."""

from __future__ import annotations

from django.http import HttpResponse
from django.urls import include, path

from config.urls import urlpatterns as site_urlpatterns
from lobby.urls import urlpatterns as lobby_urlpatterns


def play_now(request, kind: str) -> HttpResponse:
    return HttpResponse(kind)


# The first "lobby" namespace is the one reversed: this one, with play_now in it.
urlpatterns = [
    path("lobby/", include(([*lobby_urlpatterns, path("play/<slug:kind>/", play_now, name="play_now")], "lobby"))),
    *site_urlpatterns,
]
