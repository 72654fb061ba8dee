from __future__ import annotations

from django.urls import path, re_path

from lobby import consumers

websocket_urlpatterns = [
    path("ws/lobby/", consumers.LobbyConsumer.as_asgi()),
    path("ws/table/<int:table_id>/", consumers.TableConsumer.as_asgi()),
    re_path(r"^ws/", consumers.NotFoundConsumer.as_asgi()),
]
