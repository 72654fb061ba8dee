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
back when done (the request's body is read before, on the event loop, so that a
client sending it slowly holds no thread): isolation stays as Django has it (a thread
serves one request at a time), and threads and their database connections
(``CONN_MAX_AGE``) are kept. The
pool holds at most ``REQUEST_THREADS`` threads: a burst of requests waits its turn on
the event loop, in order of arrival, instead of starting a thread (and opening a
database connection) per request in flight, so a burst can neither exhaust the
database's connections nor leave hundreds of idle threads behind. A streamed
response (a static file) is closed after it is sent, as Django does.

One client address (config/network.py) holds at most ``REQUEST_THREADS_PER_ADDRESS``
of those threads at a time; its other requests wait behind it, while other addresses'
requests take the free threads in their order of arrival. A page is mostly Python:
every thread rendering one takes turns at the GIL with the event loop that serves the
live tables, and each thread more that renders lengthens the loop's turns. So a storm
of page requests from one address (within its request budget, lobby/edge.py) renders
on one thread, and costs the tables what one thread costs, not the whole pool.
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

from config.network import address_key, scope_client_address
from config.threads import below_the_loop


class PooledThreadASGIHandler(ASGIHandler):
    def __init__(self) -> None:
        super().__init__()
        self.load_middleware(is_async=False)  # the chain of BaseHandler.get_response
        self.size = settings.REQUEST_THREADS
        self.per_address = settings.REQUEST_THREADS_PER_ADDRESS
        self.idle: list[ThreadPoolExecutor] = []
        self.threads = 0
        self.holding: dict[str, int] = {}  # address key -> threads it holds now
        self.waiting: deque[tuple[str, asyncio.Future]] = deque()

    def _may_hold(self, key: str) -> bool:
        return self.holding.get(key, 0) < self.per_address

    def _hold(self, key: str, executor: ThreadPoolExecutor) -> ThreadPoolExecutor:
        self.holding[key] = self.holding.get(key, 0) + 1
        return executor

    async def borrow(self, key: str = "unknown") -> ThreadPoolExecutor:
        """A thread for a request from address ``key``; give it back with ``give_back``."""
        if self._may_hold(key) and not any(k == key for k, _ in self.waiting):
            if self.idle:
                return self._hold(key, self.idle.pop())
            if self.threads < self.size:
                self.threads += 1
                thread = ThreadPoolExecutor(
                    max_workers=1, thread_name_prefix=f"request-{self.threads}", initializer=below_the_loop
                )
                return self._hold(key, thread)
        turn = asyncio.get_running_loop().create_future()
        self.waiting.append((key, turn))
        try:
            return await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self.give_back(turn.result(), key)  # handed over just as the request went away
            raise

    def give_back(self, executor: ThreadPoolExecutor, key: str = "unknown") -> None:
        held = self.holding.get(key, 0) - 1
        if held > 0:
            self.holding[key] = held
        else:
            self.holding.pop(key, None)
        self.idle.append(executor)
        self._hand_over()

    def _hand_over(self) -> None:
        """Idle threads to the first waiting requests whose addresses may hold one more."""
        if not self.waiting or not self.idle:
            return
        still: deque[tuple[str, asyncio.Future]] = deque()
        for key, turn in self.waiting:
            if turn.done():
                continue  # cancelled while it waited
            if self.idle and self._may_hold(key):
                turn.set_result(self._hold(key, self.idle.pop()))
            else:
                still.append((key, turn))
        self.waiting = still

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        try:
            # The body first: a client that sends it slowly holds no thread meanwhile.
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        try:
            key = address_key(scope_client_address(scope))
            executor = await self.borrow(key)
            try:
                async with ThreadSensitiveContext(executor=executor):
                    await self.handle(scope, body_file, send)
            finally:
                # Back to the pool even if the request was cancelled while its view
                # still runs: the next request on this thread then waits its turn.
                self.give_back(executor, key)
        finally:
            body_file.close()

    async def handle(self, scope, body_file, send):
        set_script_prefix(get_script_prefix(scope))
        response = await sync_to_async(self.respond, thread_sensitive=True)(scope, body_file)
        try:
            await self.send_response(response, send)
        finally:
            if response.streaming:
                await sync_to_async(response.close, thread_sensitive=True)()

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
