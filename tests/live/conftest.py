from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from config.asgi import application

ORIGIN = (b"origin", b"http://localhost")


def session_cookie_for(user) -> bytes:
    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}".encode()


def guest_cookie(name: str) -> bytes:
    client = Client()
    client.post("/accounts/guest/", {"name": name})
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}".encode()


async def connect(path: str, cookie: bytes | None = None, origin: bool = True) -> WebsocketCommunicator:
    headers = [ORIGIN] if origin else []
    if cookie:
        headers.append((b"cookie", cookie))
    communicator = WebsocketCommunicator(application, path, headers=headers)
    return communicator


async def cookie_for(user) -> bytes:
    return await database_sync_to_async(session_cookie_for)(user)


@pytest.fixture(autouse=True)
def _in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": settings.EMBEDDED_CHANNEL_LAYER}
