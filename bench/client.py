"""The benchmarks' client of the site: HTTP as a browser speaks it, and WebSockets as a
page opens them, over loopback only (never through a proxy the environment names) and
from a loopback address of the bench's choosing (``source_address``), so that the
server's per-address limits see people rather than one machine. No Django, no game:
bench/live.py, bench/floor.py, bench/abuse.py, bench/pages.py and bench/latency.py use it.
"""

from __future__ import annotations

import asyncio
import collections
import functools
import http.client
import re
import threading
import time
import urllib.parse
import urllib.request
from functools import lru_cache
from http.cookiejar import CookieJar


def source_address(n: int) -> str:
    """The loopback address of household ``n`` (a table's sockets and requests, or a
    visitor's): one each, so that the server's per-address limits (sockets at once, new
    sockets a minute, page requests) see what they would see from people. 127.0.0.1
    (the bench's own requests) and 127.0.66.0/24 and up (bench/abuse.py's attackers)
    stay apart up to 16,000 households."""
    return f"127.0.{1 + n // 250}.{1 + n % 250}"


# --- HTTP, as the browser does it ---------------------------------------------------------

class SourceHTTPHandler(urllib.request.HTTPHandler):
    """Plain HTTP from a given local address (see ``source_address``)."""

    def __init__(self, source: str) -> None:
        super().__init__()
        self.source = source

    def http_open(self, req):
        connection = functools.partial(http.client.HTTPConnection, source_address=(self.source, 0))
        return self.do_open(connection, req)


def opener(jar: CookieJar, source: str | None = None) -> urllib.request.OpenerDirector:
    """An opener that keeps cookies, never goes through a proxy (loopback only), and
    speaks from ``source`` if given."""
    handlers = [urllib.request.ProxyHandler({}), urllib.request.HTTPCookieProcessor(jar)]
    if source:
        handlers.append(SourceHTTPHandler(source))
    return urllib.request.build_opener(*handlers)


def fetch(url: str, timeout: float = 10) -> bytes:
    """The body of a GET of ``url`` (an answer other than 2xx raises, as urllib does)."""
    with opener(CookieJar()).open(url, timeout=timeout) as response:
        return response.read()


_csrf: dict[tuple[str, str], str] = {}  # (base, session cookie) -> csrftoken
_csrf_lock = threading.Lock()


def _csrf_token(browser, jar: CookieJar, base: str, table_id: int, cookie: str) -> str:
    with _csrf_lock:
        token = _csrf.get((base, cookie))
    if token is None:
        browser.open(f"{base}/lobby/table/{table_id}/", timeout=30).read()
        token = next(c.value for c in jar if c.name == "csrftoken")
        with _csrf_lock:
            _csrf[(base, cookie)] = token
    return token


def post(base: str, table_id: int, action: str, cookie: str, data: dict[str, str] | None = None,
         source: str | None = None) -> str | None:
    """Press one of the table page's buttons (start, ready …) with its CSRF token, as
    htmx does, from ``source``. Returns the error the page shows, or None."""
    jar = CookieJar()
    browser = opener(jar, source)
    browser.addheaders = [("Cookie", cookie)]
    token = _csrf_token(browser, jar, base, table_id, cookie)
    request = urllib.request.Request(
        f"{base}/lobby/table/{table_id}/{action}/",
        data=urllib.parse.urlencode({"csrfmiddlewaretoken": token, **(data or {})}).encode(),
        headers={"Cookie": f"{cookie}; csrftoken={token}", "Origin": base, "HX-Request": "true"},
    )
    html = browser.open(request, timeout=30).read().decode()
    m = re.search(r'<p class="message error" role="alert">([^<]*)</p>', html)
    return m.group(1) if m else None


def start_table(base: str, table_id: int, cookie: str, source: str | None = None) -> str | None:
    """Press the host's start button, as the browser does (with its CSRF token)."""
    return post(base, table_id, "start", cookie, source=source)


def restart_table(base: str, table_id: int, cookies: list[str], source: str | None = None) -> str | None:
    """After a game: every player marks ready, then the host presses start."""
    for cookie in cookies[:4]:
        error = post(base, table_id, "ready", cookie, {"ready": "1"}, source=source)
        if error:
            return error
    return start_table(base, table_id, cookies[0], source)


# --- HTTP/1.1 by hand, on asyncio's streams (many requests from one event loop) -----------

COOKIE = re.compile(rb"^set-cookie:\s*([^=;\s]+)=([^;\r]*)", re.I | re.M)
CONTENT_LENGTH = re.compile(rb"^content-length:\s*(\d+)", re.I | re.M)
CHUNKED = re.compile(rb"^transfer-encoding:\s*chunked", re.I | re.M)
CLOSE = re.compile(rb"^connection:\s*close", re.I | re.M)


def get_request(path: bytes, port: int, agent: bytes, *, cookies: bytes = b"", close: bool = False) -> bytes:
    """A browser's GET of an HTML page, as bytes to write."""
    return (
        b"GET " + path + b" HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port
        + b"User-Agent: " + agent + b"\r\nAccept: text/html\r\n"
        + (b"Cookie: " + cookies + b"\r\n" if cookies else b"")
        + (b"Connection: close\r\n" if close else b"")
        + b"\r\n"
    )


async def read_response(reader: asyncio.StreamReader) -> tuple[int, bytes, bytes, bool]:
    """Status, header block, body and whether the server closes the connection."""
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    m = CONTENT_LENGTH.search(head)
    if m is not None:
        body = await reader.readexactly(int(m.group(1)))
    elif CHUNKED.search(head):
        parts = []
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            parts.append(await reader.readexactly(size + 2))
            if size == 0:
                break
        body = b"".join(parts)
    elif status in (204, 304) or 100 <= status < 200:
        body = b""
    else:  # no length: the body runs to the end of the connection
        body = await reader.read()
        return status, head, body, True
    return status, head, body, CLOSE.search(head) is not None


# --- WebSockets ---------------------------------------------------------------------------

def connect(url: str, *, address: str | None = None, cookie: str | None = None, origin: str | None = None,
            **options):
    """websockets' ``connect`` (await it, or ``async with`` it) as a page opens a socket:
    with its cookie and Origin if given, from ``address``, straight to the server
    (loopback only, whatever the environment says), no limit on a message's size.
    ``options`` go to websockets (``open_timeout``, ``create_connection`` …)."""
    import websockets

    headers = {}
    if origin:
        headers["Origin"] = origin
    if cookie:
        headers["Cookie"] = cookie
    if address:
        # passed on to loop.create_connection (websockets 15 and later)
        options["local_addr"] = (address, 0)
    return websockets.connect(url, additional_headers=headers or None, max_size=None, proxy=None, **options)


@lru_cache(maxsize=1)
def stamped_connection() -> type:
    """websockets' client connection that notes when each message's last frame came out
    of the socket (as the event loop reads it), in ``stamps``: a reader busy elsewhere
    takes the message later, but its time is the socket's."""
    from websockets.asyncio.client import ClientConnection
    from websockets.frames import DATA_OPCODES, Frame

    class StampedConnection(ClientConnection):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self.stamps: collections.deque[float] = collections.deque()

        def process_event(self, event) -> None:
            if (isinstance(event, Frame) and event.fin and event.opcode in DATA_OPCODES
                    and self.response is not None):
                self.stamps.append(time.perf_counter())
            super().process_event(event)

    return StampedConnection


def received_at(ws) -> float:
    """When the message just taken from ``ws`` came out of its socket."""
    stamps = getattr(ws, "stamps", None)
    return stamps.popleft() if stamps else time.perf_counter()
