"""config/handlers.py: Django's ASGI handler with pooled request threads and the
synchronous middleware chain run in one hop."""

from __future__ import annotations

import threading

from channels.testing import HttpCommunicator
from django.http import HttpResponse
from django.urls import path

from config.handlers import PooledThreadASGIHandler

seen: list[tuple[str, bool]] = []


def where(request):
    seen.append((threading.current_thread().name, request.user.is_authenticated is False))
    return HttpResponse("here")


urlpatterns = [path("where", where)]


async def test_requests_reuse_their_thread_and_run_the_middleware_on_it(settings):
    settings.ROOT_URLCONF = __name__
    settings.ALLOWED_HOSTS = ["localhost"]
    handler = PooledThreadASGIHandler()
    for _ in range(3):
        response = await HttpCommunicator(handler, "GET", "/where", headers=[(b"host", b"localhost")]).get_response()
        assert response["status"] == 200 and response["body"] == b"here"
        # the middleware ran too: security headers, and the user of the auth middleware
        assert (b"x-frame-options", b"deny") in [(k.lower(), v.lower()) for k, v in response["headers"]]
    assert handler.threads == 1
    assert [name for name, _ in seen] == ["request-1_0"] * 3
    assert all(anonymous for _, anonymous in seen)
