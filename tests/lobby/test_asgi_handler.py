"""config/handlers.py: Django's ASGI handler serving each request in one crossing
onto a reused thread, with the synchronous middleware chain."""

from __future__ import annotations

import threading

import pytest
from channels.testing import HttpCommunicator
from django.core import signals
from django.http import HttpResponse, StreamingHttpResponse
from django.urls import path

from config.handlers import PooledThreadASGIHandler

seen: list[tuple[str, bool]] = []
closed: list[str] = []


def where(request):
    seen.append((threading.current_thread().name, request.user.is_authenticated is False))
    return HttpResponse("here")


def stream(request):
    async def chunks():
        yield b"one,"
        yield b"two"

    response = StreamingHttpResponse(chunks())
    response._resource_closers.append(lambda: closed.append(threading.current_thread().name))
    return response


def broken(request):
    raise RuntimeError("a bug")


urlpatterns = [path("where", where), path("stream", stream), path("broken", broken)]


@pytest.fixture
def handler(settings):
    settings.ROOT_URLCONF = __name__
    settings.ALLOWED_HOSTS = ["localhost"]
    seen.clear()
    closed.clear()
    return PooledThreadASGIHandler()


def get(handler, url):
    return HttpCommunicator(handler, "GET", url, headers=[(b"host", b"localhost")]).get_response()


async def test_requests_reuse_their_thread_and_run_the_middleware_on_it(handler):
    started, finished = [], []

    def on_started(**kwargs):
        started.append(threading.current_thread().name)

    def on_finished(**kwargs):
        finished.append(threading.current_thread().name)

    signals.request_started.connect(on_started)
    signals.request_finished.connect(on_finished)
    try:
        for _ in range(3):
            response = await get(handler, "/where")
            assert response["status"] == 200 and response["body"] == b"here"
            # the middleware ran too: security headers, and the auth middleware's user
            assert (b"x-frame-options", b"deny") in [(k.lower(), v.lower()) for k, v in response["headers"]]
    finally:
        signals.request_started.disconnect(on_started)
        signals.request_finished.disconnect(on_finished)
    assert handler.threads == 1
    assert [name for name, _ in seen] == ["request-1_0"] * 3
    assert all(anonymous for _, anonymous in seen)
    assert started == finished == ["request-1_0"] * 3  # once per request, on its thread


async def test_a_streamed_response_is_sent_whole_and_closed_after(handler):
    # Read by hand: Django ends a stream with a body message that has no "body"
    # (valid ASGI), which channels' HttpCommunicator does not accept.
    communicator = HttpCommunicator(handler, "GET", "/stream", headers=[(b"host", b"localhost")])
    await communicator.send_input({"type": "http.request", "body": b""})
    assert (await communicator.receive_output(1))["status"] == 200
    body = b""
    while True:
        chunk = await communicator.receive_output(1)
        body += chunk.get("body", b"")
        if not chunk.get("more_body"):
            break
    assert body == b"one,two"
    await communicator.wait(1)
    assert closed == ["request-1_0"]


async def test_a_failing_view_is_a_server_error_page(handler):
    response = await get(handler, "/broken")
    assert response["status"] == 500
    assert handler.threads == 1
