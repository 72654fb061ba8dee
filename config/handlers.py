"""Django's ASGI handler, with the thread of each request reused, and its
middleware run synchronously in one hop.

Django runs the synchronous part of every request (middleware, the view, the ORM)
on a thread made for that request, and asgiref joins it afterwards from one more new
thread: two thread starts per page, and a new database connection per page, since
connections belong to threads. Under load that was a third of the server's time.

And under ASGI Django builds the middleware chain async. Django's own middleware
(``MiddlewareMixin``) then runs each ``process_request`` and ``process_response``
through ``sync_to_async``, and a sync-only one (WhiteNoise) bounces back to the event
loop: a page crossed between the loop and its thread many times. The site's
middleware and views are all synchronous, so this handler builds the synchronous
chain, as under WSGI, and runs it whole on the request's thread: one crossing.

Here a request borrows a one-thread executor from a pool and gives it back when it
is done. Isolation stays as Django has it (a thread runs one request at a time, and
concurrent requests get threads of their own: the pool grows to the highest number
of requests in flight at once), but the threads, and their database connections
(``CONN_MAX_AGE``), are kept.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.core.handlers.asgi import ASGIHandler


class PooledThreadASGIHandler(ASGIHandler):
    def __init__(self) -> None:
        super().__init__()
        self.load_middleware(is_async=False)  # the chain of BaseHandler.get_response
        self.idle: list[ThreadPoolExecutor] = []
        self.threads = 0

    def borrow(self) -> ThreadPoolExecutor:
        if self.idle:
            return self.idle.pop()
        self.threads += 1
        return ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"request-{self.threads}")

    async def get_response_async(self, request):
        return await sync_to_async(self.get_response, thread_sensitive=True)(request)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        executor = self.borrow()
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.handle(scope, receive, send)
        finally:
            # Back to the pool even if the request was cancelled while its view
            # still runs: the next request on this thread then waits its turn.
            self.idle.append(executor)
