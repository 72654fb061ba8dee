"""Content-Security-Policy: django-csp's middleware, plus the page's own WebSocket origin.

The policy itself is ``CONTENT_SECURITY_POLICY`` in config/settings.py. CSP Level 3
lets ``'self'`` match ws: and wss: on the page's own host and port, and Chromium
(since 70) and Firefox do; older Safari does not (WebKit bug 201591), and would
refuse the lobby's and the tables' sockets. So ``connect-src`` also names the
socket's origin exactly, as the browser builds it from the page's address:
``ws://host:port`` on http, ``wss://host`` on https. A scheme alone (``wss:``)
would let an injected script talk to any host.
"""

from __future__ import annotations

from csp.middleware import CSPMiddleware, PolicyParts
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponseBase


def websocket_origin(request: HttpRequest) -> str | None:
    """``ws://host:port`` or ``wss://host:port`` for this request's own host, or None."""
    try:
        host = request.get_host()  # validated against ALLOWED_HOSTS: no spaces or ';'
    except DisallowedHost:
        return None
    if host.startswith("["):
        return None  # CSP source expressions cannot name an IPv6 literal; 'self' covers it
    return f"{'wss' if request.is_secure() else 'ws'}://{host}"


class SiteCSPMiddleware(CSPMiddleware):
    def get_policy_parts(
        self, request: HttpRequest, response: HttpResponseBase, report_only: bool = False
    ) -> PolicyParts:
        parts = super().get_policy_parts(request, response, report_only)
        origin = websocket_origin(request)
        if origin:
            update = dict(parts.update or {})
            extra = update.get("connect-src") or ()
            update["connect-src"] = [*([extra] if isinstance(extra, str) else extra), origin]
            parts.update = update
        return parts
