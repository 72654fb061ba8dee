from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from games import views as game_views

urlpatterns = [
    path("", game_views.home, name="home"),
    path("games/", include("games.urls")),
    path("leaderboard/", game_views.leaderboard_index),
    path("accounts/", include("accounts.urls")),
    path("lobby/", include("lobby.urls")),
    path("admin/", admin.site.urls),
]
