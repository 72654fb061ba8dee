"""ASGI entry point: HTTP through Django, WebSockets through Channels.

Django is initialised before anything imports models (the routing does). Pages
go through Django's ASGI handler with pooled request threads (config/handlers.py).
"""

from __future__ import annotations

import gc
import os
import sys

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup(set_prefix=False)

from config.handlers import PooledThreadASGIHandler  # noqa: E402
from config.transport import install as install_server_adjustments  # noqa: E402

django_asgi_app = PooledThreadASGIHandler()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ChannelNameRouter, ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402

from config import sends  # noqa: E402
from config.network import SameOriginValidator  # noqa: E402
from config.routing import websocket_urlpatterns  # noqa: E402
from config.threads import lower_the_database_thread, shorten_the_switch_interval  # noqa: E402
from games.host import GameHostConsumer, install_graceful_stop  # noqa: E402
from games.live import preload  # noqa: E402
from games.shards import HOST_CHANNEL_PREFIX  # noqa: E402
from lobby import presence  # noqa: E402
from lobby.edge import EdgeMiddleware, RequestBudgetMiddleware  # noqa: E402
from lobby.ws import ServerSendMiddleware  # noqa: E402

application = ProtocolTypeRouter(
    {
        # Requests over their address's budget are answered 429 before Django (lobby/edge.py).
        "http": RequestBudgetMiddleware(django_asgi_app),
        # Outside in: the page's origin, then what this client may cost (lobby/edge.py),
        # both before the session is read; then who is speaking, then the consumer.
        "websocket": ServerSendMiddleware(
            SameOriginValidator(EdgeMiddleware(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))))
        ),
        # Table hosts in worker processes: manage.py runworker game-host-0 …
        "channel": ChannelNameRouter(
            {f"{HOST_CHANNEL_PREFIX}{n}": GameHostConsumer.as_asgi() for n in range(settings.GAME_HOST_SHARDS)}
        ),
    }
)

install_server_adjustments()  # Daphne's connections (config/transport.py): checked, then installed
preload()  # every game's live code and partials, before the first table needs them

# As soon as the server runs (not when the first socket of a table connects): remove
# what a killed process left behind and start the table host (lobby/presence.py).
# Daphne runs on Twisted's asyncio reactor, installed before it loads this module;
# anywhere else (tests, management commands) there is no server to start.
if "twisted.internet.reactor" in sys.modules:
    from twisted.internet import reactor

    # Startup triggers fire before the event loop turns: the first turn starts it.
    reactor.callWhenRunning(reactor.callLater, 0, presence.start)
    # SIGTERM (a deploy) stops gracefully: every game written down to go on after the
    # restart (games/host.py). Set once Twisted has set its own handler, which this one
    # replaces.
    reactor.callWhenRunning(reactor.callLater, 0, install_graceful_stop)
    # Layer sends from the database's thread go to this loop, not wait for it (config/sends.py).
    reactor.callWhenRunning(reactor.callLater, 0, sends.serve_from)
    # The threads beside the loop yield to it (config/threads.py).
    shorten_the_switch_interval()
    reactor.callWhenRunning(reactor.callLater, 0, lower_the_database_thread)

# Everything loaded so far (Django, the URLconf, the consumers) lives as long as
# the process: move it out of the collector's sight, so that the full collections that
# requests and games set off walk only what they made (shorter pauses in the tail of
# page and fragment latencies).
gc.collect()
gc.freeze()
