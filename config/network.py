"""Who is on the other end: the client address every limit and the same-IP rule use.

Without a proxy, the address is the socket's peer. Behind a proxy the peer is the
proxy, and the client is named in ``X-Forwarded-For``, a header anybody can send:
it is believed only when the peer is one of ``TRUSTED_PROXIES`` (addresses or
networks, from the environment), and then only as far as the chain of trusted
proxies goes: the rightmost address that is not a trusted proxy is the client.

Daphne's own ``--proxy-headers`` rewrites the peer from that header for every
connection, trusted or not; use it only when Daphne listens on an address that
nothing but the proxy can reach (docs/operations.md shows both set-ups).
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Iterable
from functools import lru_cache
from urllib.parse import urlsplit

from django.conf import settings
from django.http import HttpRequest
from django.http.request import split_domain_port, validate_host

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@lru_cache(maxsize=8)
def _networks(trusted: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(entry, strict=False) for entry in trusted)


def _trusted(address: str, networks: tuple[Network, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in net for net in networks)


def client_address(peer: str | None, forwarded_for: Iterable[str] = ()) -> str | None:
    """The client's address, from the socket's ``peer`` and the values of any
    ``X-Forwarded-For`` headers (oldest first, as the proxies appended them)."""
    if not peer:
        return None
    networks = _networks(tuple(settings.TRUSTED_PROXIES))
    if not networks or not _trusted(peer, networks):
        return peer
    hops = [hop.strip() for value in forwarded_for for hop in value.split(",") if hop.strip()]
    for hop in reversed(hops):
        if not _trusted(hop, networks):
            try:
                return str(ipaddress.ip_address(hop))
            except ValueError:
                return peer  # a forged or garbled chain: the proxy itself is all we know
    return peer


def address_key(address: str | None) -> str:
    """The unit an address limit counts: an IPv4 address, or an IPv6 /64."""
    if not address:
        return "unknown"
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


class ConnectionGate:
    """Addresses whose new TCP connections are closed as they are accepted.

    An address that the edge has just refused for its rate (lobby/edge.py: new
    sockets a minute, a flood's cool-off, page requests) would otherwise go on
    costing the server an HTTP parse, a WebSocket handshake and a refusal for every
    connection it opens: a few milliseconds each, paid by every table of the
    process. Until its time is up, its connections are closed before a byte of them
    is read (config/transport.py), for some microseconds each.

    Only the socket's peer can be gated: behind a proxy (``TRUSTED_PROXIES``) the
    peer is the proxy, so a trusted peer is never gated, and the edge's own limits
    (which read ``X-Forwarded-For``) still hold there."""

    SWEEP_AT = 4096  # entries before the expired ones are dropped

    def __init__(self) -> None:
        self.shut: dict[str, float] = {}  # address key -> monotonic time it opens again
        self.closed = 0  # connections closed as accepted

    def close_until(self, key: str, until: float) -> None:
        if len(self.shut) >= self.SWEEP_AT:
            now = time.monotonic()
            self.shut = {k: t for k, t in self.shut.items() if t > now}
        if until > self.shut.get(key, 0.0):
            self.shut[key] = until

    def shut_for(self, peer: str | None) -> float:
        """Seconds before a connection from ``peer`` (the socket's, not a header's)
        may be read; 0 when it may be read now."""
        if not self.shut or not peer:
            return 0.0
        key = address_key(peer)
        until = self.shut.get(key)
        if until is None:
            return 0.0
        left = until - time.monotonic()
        if left <= 0:
            del self.shut[key]
            return 0.0
        networks = _networks(tuple(settings.TRUSTED_PROXIES))
        if networks and _trusted(peer, networks):
            return 0.0
        return left

    def admits(self, peer: str | None) -> bool:
        """Whether a connection from ``peer`` may be read; counts those that may not."""
        if self.shut_for(peer):
            self.closed += 1
            return False
        return True

    def clear(self) -> None:
        self.__init__()


gate = ConnectionGate()


def scope_client_address(scope: dict) -> str | None:
    """The client address of an ASGI connection (HTTP or WebSocket).

    A connection with no peer address came through a Unix socket (``daphne -u``),
    which only processes of this machine can reach: the proxy in front. Its
    ``X-Forwarded-For`` names the client."""
    client = scope.get("client")
    peer = client[0] if client else None
    forwarded = [value.decode("latin-1") for name, value in scope.get("headers", ()) if name == b"x-forwarded-for"]
    if peer is None and forwarded:
        last = forwarded[-1].split(",")[-1].strip()
        try:
            return str(ipaddress.ip_address(last))
        except ValueError:
            return None
    return client_address(peer, forwarded)


def request_client_address(request: HttpRequest) -> str | None:
    """The client address of a Django request (also django-axes' callable)."""
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
    return client_address(request.META.get("REMOTE_ADDR") or None, [forwarded] if forwarded else [])


def request_client_address_for_axes(request: HttpRequest, *args) -> str:
    return request_client_address(request) or ""


# --- the WebSocket Origin check -------------------------------------------------------
DEFAULT_PORTS = {"http": 80, "https": 443}


def scope_scheme(scope: dict) -> str:
    """``http`` or ``https``: how the browser reached us. Behind a trusted proxy that
    ends TLS, its ``X-Forwarded-Proto`` says; otherwise Daphne's own scheme does."""
    scheme = {"ws": "http", "wss": "https"}.get(scope.get("scheme") or "", scope.get("scheme") or "http")
    client = scope.get("client")
    networks = _networks(tuple(settings.TRUSTED_PROXIES))
    if client and networks and _trusted(client[0], networks):
        for name, value in scope.get("headers", ()):
            if name == b"x-forwarded-proto":
                proto = value.decode("latin-1").split(",")[0].strip().lower()
                if proto in DEFAULT_PORTS:
                    scheme = proto
    return scheme if scheme in DEFAULT_PORTS else "http"


def _origin_tuple(url: str, scheme_default: str | None = None) -> tuple[str, str, int] | None:
    parts = urlsplit(url if "://" in url or scheme_default is None else f"{scheme_default}://{url}")
    scheme = (parts.scheme or "").lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    try:
        port = parts.port or DEFAULT_PORTS[scheme]
    except ValueError:
        return None
    return scheme, parts.hostname.lower(), port


def origin_allowed(scope: dict) -> bool:
    """The page that opened this socket was served by this site: its Origin has the
    scheme, host and port the browser used to reach us (the Host header, which
    must be one of ``ALLOWED_HOSTS``), or is one of ``CSRF_TRUSTED_ORIGINS``."""
    headers = dict(scope.get("headers", ()))
    raw_origin = headers.get(b"origin")
    raw_host = headers.get(b"host")
    if not raw_origin or not raw_host:
        return False
    origin = _origin_tuple(raw_origin.decode("latin-1"))
    if origin is None:
        return False
    for trusted in settings.CSRF_TRUSTED_ORIGINS:
        want = _origin_tuple(trusted.replace("*.", "", 1))
        if want is None:
            continue
        if trusted.startswith(f"{want[0]}://*.") and origin[0] == want[0] and origin[2] == want[2]:
            if origin[1] == want[1] or origin[1].endswith("." + want[1]):
                return True
        elif origin == want:
            return True
    host = raw_host.decode("latin-1")
    domain, _ = split_domain_port(host)
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return False
    return origin == _origin_tuple(host, scope_scheme(scope))


class SameOriginValidator:
    """Refuses (HTTP 403, before the session is read) a WebSocket whose Origin is not
    this site's own, compared by scheme, host and port. Channels'
    ``AllowedHostsOriginValidator`` compares the host alone: a page on any port, over
    http or https, of an allowed host name passed."""

    def __init__(self, inner) -> None:
        self.inner = inner

    async def __call__(self, scope, receive, send):
        if scope["type"] == "websocket" and not origin_allowed(scope):
            return await refuse_handshake(receive, send)
        return await self.inner(scope, receive, send)


async def refuse_handshake(receive, send) -> None:
    """Refuse a WebSocket before accepting it: Daphne answers HTTP 403."""
    message = await receive()
    if message["type"] == "websocket.connect":
        await send({"type": "websocket.close"})
