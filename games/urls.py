from __future__ import annotations

from django.urls import path

from games import views

app_name = "games"
urlpatterns = [
    path("", views.index, name="index"),
    path("<slug:slug>/how-to-play/", views.how_to_play, name="how_to_play"),
    path("tetriwar/pieces.css", views.tetriwar_pieces_css, name="tetriwar_pieces_css"),
    path("leaderboard/", views.leaderboard_index, name="leaderboard_index"),
    path("leaderboard/<slug:game>/", views.leaderboard, name="leaderboard"),
    path("<int:game_id>/replay/", views.replay, name="replay"),
    path("<int:game_id>/replay/at/", views.replay_at, name="replay_at"),
]
