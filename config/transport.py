"""Daphne's TCP connections, sending a WebSocket frame as soon as it is written.

Twisted buffers every ``transport.write`` and sends it on the reactor's next turn:
the write registers the socket for writability (an ``epoll_ctl``), the loop wakes up
for it, sends, and unregisters it again (another ``epoll_ctl``). Coalescing small
writes that way is worth it when Nagle's algorithm would otherwise hold them back,
but a live table sends one small frame per socket per broadcast, on sockets that
Twisted and autobahn put in ``TCP_NODELAY`` mode, so the round trip through the
reactor only costs: about a fifth of the server's time under a full room of tables
(Twisted's own issue #5303, "Default transport implementation doesn't write out bytes
immediately", suggests exactly this policy: write at once when Nagle is off).

``ImmediateWriteServer`` does what asyncio's transports do: when nothing is waiting in
its buffer and Nagle is off, ``write`` hands the bytes to the kernel at once; whatever
the kernel does not take (a full send buffer) and every error take Twisted's usual
path, so order, back-pressure and the report of a lost connection stay Twisted's.
``writeSequence`` still buffers: an HTTP response starts with its headers that way,
so its headers and body still leave together, on the next turn. TLS is untouched.

Two bounds on what one WebSocket client can make the server hold:

- **Unsent bytes.** A client that stops reading leaves what we write in the
  transport's buffer, which Twisted lets grow without limit. A WebSocket connection
  whose unsent bytes pass ``WS_MAX_UNSENT_BYTES`` is dropped: it is not reading, and
  the page's reconnect gets a fresh state when it comes back.
- **Incoming messages.** Daphne lets autobahn buffer a message of up to 1 MiB, in
  one frame or many, per socket. Our frames are a few dozen bytes: our WebSocket
  protocol sets autobahn's own options ``maxFramePayloadSize`` and
  ``maxMessagePayloadSize`` to ``WS_MAX_MESSAGE_BYTES`` (64 KiB) when a connection
  is made, and autobahn drops a connection whose message grows past it. Smaller
  frames over ``WS_MAX_FRAME_BYTES`` get an error frame at the edge (lobby/edge.py).

These read Twisted's buffer attributes and subclass Daphne's protocol. ``check()``
runs before ``install()`` and fails loudly at start-up if those libraries changed
under us (tests/live/test_transport.py holds it to that).
"""

from __future__ import annotations

from daphne.ws_protocol import WebSocketFactory, WebSocketProtocol
from django.conf import settings
from twisted.internet import abstract, tcp

# What this module relies on, beyond the libraries' documented interfaces.
TWISTED_BUFFER_ATTRIBUTES = ("dataBuffer", "offset", "_tempDataBuffer", "_tempDataLen", "_writeDisconnected")
AUTOBAHN_OPTIONS = ("maxFramePayloadSize", "maxMessagePayloadSize")


class ImmediateWriteServer(tcp.Server):
    nodelay = False
    max_unsent: int | None = None  # set on WebSocket connections (BoundedWebSocketProtocol)

    def setTcpNoDelay(self, enabled: bool) -> None:
        super().setTcpNoDelay(enabled)
        self.nodelay = bool(enabled)

    def write(self, data: bytes) -> None:
        if (
            self.nodelay
            and data
            and not self.TLS
            and self.connected
            and not self._writeDisconnected
            and not self.dataBuffer
            and not self._tempDataBuffer
        ):
            sent = self.writeSomeData(data)
            if not isinstance(sent, Exception):  # an error: Twisted's write path reports it
                if sent == len(data):
                    return
                data = data[sent:]  # the rest waits for writability, as Twisted does
        super().write(data)
        if self.max_unsent is not None and self.unsent() > self.max_unsent:
            self.abortConnection()  # a client that does not read is not buffered for

    def unsent(self) -> int:
        """Bytes written but not yet taken by the kernel."""
        return len(self.dataBuffer) - self.offset + self._tempDataLen


class BoundedWebSocketProtocol(WebSocketProtocol):
    """Daphne's WebSocket protocol, with a cap on a message and on unsent bytes."""

    def connectionMade(self) -> None:
        super().connectionMade()  # autobahn copies the factory's options onto self here
        self.maxFramePayloadSize = settings.WS_MAX_MESSAGE_BYTES
        self.maxMessagePayloadSize = settings.WS_MAX_MESSAGE_BYTES
        if isinstance(self.transport, ImmediateWriteServer):
            self.transport.max_unsent = settings.WS_MAX_UNSENT_BYTES


class LibraryChanged(RuntimeError):
    """Twisted, autobahn or Daphne no longer look the way this module relies on."""


def check() -> None:
    """Fail loudly, at start-up, if what this module relies on has changed."""
    probe = abstract.FileDescriptor(reactor=_NoReactor())
    missing = [name for name in TWISTED_BUFFER_ATTRIBUTES if not hasattr(probe, name)]
    if missing:
        raise LibraryChanged(f"Twisted's FileDescriptor has no {', '.join(missing)}: review config/transport.py")
    if not callable(getattr(tcp.Server, "writeSomeData", None)) or not hasattr(tcp.Server, "TLS"):
        raise LibraryChanged("Twisted's tcp.Server changed (writeSomeData, TLS): review config/transport.py")
    options = getattr(WebSocketProtocol, "CONFIG_ATTRS_COMMON", ())
    missing = [name for name in AUTOBAHN_OPTIONS if name not in options]
    if missing:
        raise LibraryChanged(f"autobahn has no protocol option {', '.join(missing)}: review config/transport.py")
    if not issubclass(WebSocketFactory.protocol, WebSocketProtocol):
        raise LibraryChanged("Daphne's WebSocketFactory no longer builds its WebSocketProtocol")


class _NoReactor:
    """Enough of a reactor for a FileDescriptor that is only looked at."""

    def __bool__(self) -> bool:
        return True


def install() -> None:
    """Check the libraries, then make every TCP port of this process accept
    connections as ImmediateWriteServer, and every WebSocket bounded."""
    check()
    tcp.Port.transport = ImmediateWriteServer
    WebSocketFactory.protocol = BoundedWebSocketProtocol
