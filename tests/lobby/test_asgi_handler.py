"""config/handlers.py: Django's ASGI handler serving each request in one crossing
onto a reused thread, with the synchronous middleware chain."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from channels.testing import HttpCommunicator
from django.core import signals
from django.http import HttpResponse, StreamingHttpResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

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


# How long a test waits for a response it expects: a bound on a hang, not a speed (a
# loaded machine may take over a second to run a few threads' 20 ms).
ANSWER_SECONDS = 10

in_flight = {"now": 0, "most": 0}
lock = threading.Lock()


def slow(request):
    with lock:
        in_flight["now"] += 1
        in_flight["most"] = max(in_flight["most"], in_flight["now"])
    time.sleep(0.02)  # a query that waits on the database
    with lock:
        in_flight["now"] -= 1
    seen.append((threading.current_thread().name, True))
    return HttpResponse("slow")


@csrf_exempt
def posted(request):
    return HttpResponse(request.body)


urlpatterns = [
    path("where", where), path("stream", stream), path("broken", broken), path("slow", slow), path("posted", posted),
]


@pytest.fixture
def handler(settings):
    settings.ROOT_URLCONF = __name__
    settings.ALLOWED_HOSTS = ["localhost"]
    seen.clear()
    closed.clear()
    return PooledThreadASGIHandler()


def get(handler, url, client=None):
    communicator = HttpCommunicator(handler, "GET", url, headers=[(b"host", b"localhost")])
    if client is not None:
        communicator.scope["client"] = [client, 40000]
    return communicator.get_response(timeout=ANSWER_SECONDS)


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
    assert (await communicator.receive_output(ANSWER_SECONDS))["status"] == 200
    body = b""
    while True:
        chunk = await communicator.receive_output(ANSWER_SECONDS)
        body += chunk.get("body", b"")
        if not chunk.get("more_body"):
            break
    assert body == b"one,two"
    await communicator.wait(ANSWER_SECONDS)
    assert closed == ["request-1_0"]


async def test_a_failing_view_is_a_server_error_page(handler):
    response = await get(handler, "/broken")
    assert response["status"] == 500
    assert handler.threads == 1


async def test_a_burst_of_requests_waits_for_the_bounded_pool_and_leaves_no_threads_behind(settings):
    settings.ROOT_URLCONF = __name__
    settings.ALLOWED_HOSTS = ["localhost"]
    settings.REQUEST_THREADS = 3
    seen.clear()
    in_flight["most"] = 0
    handler = PooledThreadASGIHandler()
    threads_before = threading.active_count()
    # from several addresses: one alone would hold one thread at a time (below)
    responses = await asyncio.gather(*(get(handler, "/slow", f"10.0.0.{i % 8}") for i in range(40)))
    assert [r["status"] for r in responses] == [200] * 40
    assert handler.threads == 3 and len(handler.idle) == 3  # all given back
    assert len({name for name, _ in seen}) == 3
    assert in_flight["most"] <= 3
    assert threading.active_count() <= threads_before + 3
    for executor in handler.idle:
        executor.shutdown()


async def test_a_request_cancelled_while_it_waits_for_a_thread_gives_nothing_away(settings):
    settings.REQUEST_THREADS = 1
    handler = PooledThreadASGIHandler()
    first = await handler.borrow()
    waiting = asyncio.ensure_future(handler.borrow())
    await asyncio.sleep(0)
    waiting.cancel()
    handler.give_back(first)
    await asyncio.sleep(0)
    assert handler.idle == [first] and handler.threads == 1
    first.shutdown()


async def test_one_address_holds_one_thread_while_others_take_the_rest(settings):
    settings.ROOT_URLCONF = __name__
    settings.ALLOWED_HOSTS = ["localhost"]
    settings.REQUEST_THREADS = 3
    assert settings.REQUEST_THREADS_PER_ADDRESS == 1
    seen.clear()
    in_flight["most"] = 0
    handler = PooledThreadASGIHandler()
    storm = [asyncio.ensure_future(get(handler, "/slow", "10.0.0.66")) for _ in range(8)]
    while not in_flight["most"]:
        await asyncio.sleep(0.001)
    assert handler.threads == 1 and len(handler.waiting) == 7  # the storm's others wait behind it
    other = await get(handler, "/slow", "10.0.0.7")  # another address: a free thread
    assert other["status"] == 200
    assert not all(request.done() for request in storm)  # it did not wait for the storm
    responses = await asyncio.gather(*storm)
    assert [r["status"] for r in responses] == [200] * 8
    assert in_flight["most"] <= 2  # never more than the storm's one and the other's one
    assert handler.holding == {} and len(handler.idle) == handler.threads == 2
    for executor in handler.idle:
        executor.shutdown()


@pytest.fixture
def two_threads(settings):
    """A pool of two threads, one an address; its threads are shut down after."""
    settings.REQUEST_THREADS = 2
    settings.REQUEST_THREADS_PER_ADDRESS = 1
    handler = PooledThreadASGIHandler()
    yield handler
    for executor in handler.idle:
        executor.shutdown()


async def test_a_waiting_request_of_an_address_is_served_in_its_order(two_threads):
    handler = two_threads
    first = await handler.borrow("a")
    second = asyncio.ensure_future(handler.borrow("a"))
    third = asyncio.ensure_future(handler.borrow("a"))
    await asyncio.sleep(0)
    assert not second.done() and not third.done()
    other = await handler.borrow("b")  # the second thread, though "a" waits
    assert handler.threads == 2
    handler.give_back(first, "a")
    await asyncio.sleep(0)
    assert second.done() and not third.done()
    second.cancel()  # too late to matter: it holds the thread until given back
    handler.give_back(second.result(), "a")
    await asyncio.sleep(0)
    assert third.done()
    handler.give_back(third.result(), "a")
    handler.give_back(other, "b")
    assert handler.holding == {} and len(handler.idle) == 2 and not handler.waiting


async def test_a_request_cancelled_while_it_waits_behind_its_address_leaves_no_trace(two_threads):
    handler = two_threads
    first = await handler.borrow("a")
    waiting = asyncio.ensure_future(handler.borrow("a"))
    await asyncio.sleep(0)
    waiting.cancel()
    await asyncio.sleep(0)
    handler.give_back(first, "a")
    assert handler.holding == {} and handler.idle == [first] and not handler.waiting
    again = await handler.borrow("a")  # not stuck behind the cancelled one
    assert again is first
    handler.give_back(again, "a")


async def test_a_body_sent_slowly_holds_no_thread(settings):
    settings.ROOT_URLCONF = __name__
    settings.ALLOWED_HOSTS = ["localhost"]
    settings.REQUEST_THREADS = 1
    handler = PooledThreadASGIHandler()
    slow_body = HttpCommunicator(handler, "POST", "/posted", headers=[(b"host", b"localhost")])
    slow_body.scope["client"] = ["10.0.0.66", 40000]
    await slow_body.send_input({"type": "http.request", "body": b"a=1", "more_body": True})  # and no more yet
    await asyncio.sleep(0.01)
    assert not slow_body.future.done()  # (reading it starts the application, as sending does)
    assert handler.threads == 0 and not handler.holding
    response = await get(handler, "/where", "10.0.0.66")  # the same address, the pool's one thread
    assert response["status"] == 200
    await slow_body.send_input({"type": "http.request", "body": b"&b=2"})
    assert (await slow_body.receive_output(ANSWER_SECONDS))["status"] == 200  # the body came: served
    assert (await slow_body.receive_output(ANSWER_SECONDS))["body"] == b"a=1&b=2"
    await slow_body.wait(ANSWER_SECONDS)
    assert handler.holding == {} and handler.threads == 1
    handler.idle[0].shutdown()
