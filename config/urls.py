from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.urls import include, path
from django.views.decorators.http import require_GET

from games import views as game_views


@require_GET
def healthz(request: HttpRequest) -> HttpResponse:
    """For a load balancer in front of several Daphne processes: this one answers."""
    return HttpResponse("ok\n", content_type="text/plain")


urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("", game_views.home, name="home"),
    path("games/", include("games.urls")),
    path("leaderboard/", game_views.leaderboard_index),
    path("accounts/", include("accounts.urls")),
    path("lobby/", include("lobby.urls")),
    path("admin/", admin.site.urls),
]
