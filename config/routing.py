from __future__ import annotations

from lobby.routing import websocket_urlpatterns as lobby_ws

websocket_urlpatterns = [*lobby_ws]
