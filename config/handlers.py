"""Django's ASGI handler, serving each request in one crossing onto a reused thread.

The site's middleware and views are synchronous. Django's ``ASGIHandler`` serves
such a page with many crossings between the event loop and a thread, each a wake-up
of the other side:

- it makes a thread for every request (``ThreadSensitiveContext``), and asgiref joins
  it afterwards from one more new thread: two thread starts per page, and a new
  database connection per page, since connections belong to threads;
- it builds the middleware chain async, so Django's own middleware
  (``MiddlewareMixin``) runs each ``process_request`` and ``process_response`` through
  ``sync_to_async``, and a sync-only one (WhiteNoise) bounces back to the loop;
- it sends ``request_started`` and closes the response (``request_finished``) in
  crossings of their own.

This handler builds the synchronous chain, as under WSGI, and runs everything that
is synchronous (the signal, the request, the chain, and the close of a response held
in memory) on the request's thread in one call; the event loop reads the body and
sends the response. A request borrows a one-thread executor from a pool and gives it
back when done: isolation stays as Django has it (a thread serves one request at a
time), and threads and their database connections (``CONN_MAX_AGE``) are kept. The
pool holds at most ``REQUEST_THREADS`` threads: a burst of requests waits its turn on
the event loop, in order of arrival, instead of starting a thread (and opening a
database connection) per request in flight, so a burst can neither exhaust the
database's connections nor leave hundreds of idle threads behind. A streamed
response (a static file) is closed after it is sent, as Django does.
"""

from __future__ import annotations

import asyncio
from collections import deque
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.conf import settings
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.http import FileResponse
from django.http.response import HttpResponseBase
from django.urls import set_script_prefix


class PooledThreadASGIHandler(ASGIHandler):
    def __init__(self) -> None:
        super().__init__()
        self.load_middleware(is_async=False)  # the chain of BaseHandler.get_response
        self.size = settings.REQUEST_THREADS
        self.idle: list[ThreadPoolExecutor] = []
        self.threads = 0
        self.waiting: deque[asyncio.Future] = deque()

    async def borrow(self) -> ThreadPoolExecutor:
        if self.idle:
            return self.idle.pop()
        if self.threads < self.size:
            self.threads += 1
            return ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"request-{self.threads}")
        turn = asyncio.get_running_loop().create_future()
        self.waiting.append(turn)
        try:
            return await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self.give_back(turn.result())  # handed over just as the request went away
            raise

    def give_back(self, executor: ThreadPoolExecutor) -> None:
        while self.waiting:
            turn = self.waiting.popleft()
            if not turn.done():
                turn.set_result(executor)
                return
        self.idle.append(executor)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        executor = await self.borrow()
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.handle(scope, receive, send)
        finally:
            # Back to the pool even if the request was cancelled while its view
            # still runs: the next request on this thread then waits its turn.
            self.give_back(executor)

    async def handle(self, scope, receive, send):
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        try:
            set_script_prefix(get_script_prefix(scope))
            response = await sync_to_async(self.respond, thread_sensitive=True)(scope, body_file)
            try:
                await self.send_response(response, send)
            finally:
                if response.streaming:
                    await sync_to_async(response.close, thread_sensitive=True)()
        finally:
            body_file.close()

    def respond(self, scope, body_file) -> HttpResponseBase:
        """Everything synchronous about one request, on its thread."""
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, error_response = self.create_request(scope, body_file)
        response = error_response if request is None else self.get_response(request)
        response._handler_class = self.__class__
        if isinstance(response, FileResponse):
            response.block_size = self.chunk_size  # the server chunks it again
        if not response.streaming:
            response.close()  # request_finished; its body is in memory, sent next
        return response
