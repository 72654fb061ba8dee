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

One frame for a whole table:

- **Broadcasts are framed once.** Every socket of a table receives the same
  fragments. autobahn's public broadcast API (``PreparedMessage``, sent with
  ``sendPreparedMessage``) builds a frame's bytes once for all its sockets, where
  Daphne's ``websocket.send`` encodes and frames the text again for each. Under
  Daphne a relay hands the prepared frame to the connection itself
  (``prepared_sender``: Daphne's send is ``partial(handle_reply, protocol)``);
  under any other server, or a test's communicator, it sends the text as usual.

- **Reads are not described for nobody.** autobahn's Twisted adapter formats a debug
  line for every read (the method's name and the peer, coloured through click) before
  it asks whether anything logs it. Ours hands the bytes to autobahn's own reading
  (``_dataReceived``) without it, as ``send_prepared`` skips ``sendData``'s.

- **Shut addresses cost next to nothing.** ``GatedHTTPFactory`` closes a connection
  from an address that the edge has shut for a while (config/network.py) as it is
  accepted: no HTTP parse, no handshake, no refusal to write.

These read Twisted's buffer attributes, subclass Daphne's protocol and factory, and
set the factory Daphne's server builds. ``check()``
runs before ``install()`` and fails loudly at start-up if those libraries changed
under us (tests/live/test_transport.py holds it to that).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from functools import partial

import daphne.server
from autobahn.twisted.websocket import WebSocketAdapterProtocol
from autobahn.websocket.protocol import PreparedMessage
from autobahn.websocket.protocol import WebSocketProtocol as AutobahnProtocol
from daphne.http_protocol import HTTPFactory
from daphne.ws_protocol import WebSocketFactory, WebSocketProtocol
from django.conf import settings
from twisted.internet import abstract, tcp

from config.network import gate

# What this module relies on, beyond the libraries' documented interfaces.
TWISTED_BUFFER_ATTRIBUTES = ("dataBuffer", "offset", "_tempDataBuffer", "_tempDataLen", "_writeDisconnected")
AUTOBAHN_OPTIONS = ("maxFramePayloadSize", "maxMessagePayloadSize")
# set on every connection by autobahn's _connectionMade: read by the prepared send
AUTOBAHN_SEND_STATE = ("send_queue", "_perMessageCompress")


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
    """Daphne's WebSocket protocol, with a cap on a message and on unsent bytes, a
    broadcast's frame sent as built once (``send_prepared``), and nothing more read
    from a socket closed for flooding."""

    def connectionMade(self) -> None:
        super().connectionMade()  # autobahn copies the factory's options onto self here
        self.maxFramePayloadSize = settings.WS_MAX_MESSAGE_BYTES
        self.maxMessagePayloadSize = settings.WS_MAX_MESSAGE_BYTES
        if isinstance(self.transport, ImmediateWriteServer):
            self.transport.max_unsent = settings.WS_MAX_UNSENT_BYTES

    def dataReceived(self, data: bytes) -> None:
        # autobahn's Twisted adapter, less its debug line (the module's docstring says
        # why): about 5 % of the server's CPU at 100 tables (bench/live.py).
        self._dataReceived(data)

    def handle_reply(self, message) -> None:
        super().handle_reply(message)
        if message.get("stop_reading") and message["type"] == "websocket.close":
            # A socket closed for flooding: what it sends until autobahn's close
            # handshake times out (a second) is not even read.
            self.transport.pauseProducing()

    def send_prepared(self, prepared: PreparedMessage) -> None:
        """Send a broadcast's frame, built once (``prepared_text``); nothing once the
        connection is no longer open (nobody is there to read it)."""
        if self.state != self.STATE_OPEN:
            return
        if self.send_queue or self._perMessageCompress is not None:
            self.sendPreparedMessage(prepared)
        else:
            # what sendPreparedMessage does here, less sendData's debug line, whose
            # arguments autobahn formats for every frame even when nothing logs it
            self.transport.write(prepared.payloadHybi)


def prepared_sender(send) -> Callable[[PreparedMessage], None] | None:
    """The connection's ``send_prepared`` when ``send`` is Daphne's own send for one
    of our connections (``partial(Server.handle_reply, protocol)``), else None (a
    test's communicator, another server). A relay then writes the broadcast's frame
    to the connection directly: no coroutine, no message, no look-up of the
    connection per socket per fragment (the hottest path of the site)."""
    if isinstance(send, partial) and getattr(send.func, "__name__", "") == "handle_reply" and send.args:
        protocol = send.args[0]
        if isinstance(protocol, BoundedWebSocketProtocol):
            return protocol.send_prepared
    return None


class PreparedText:
    """The frame of the text last broadcast, built once for all the sockets it goes to.

    A group send hands the same string object to each member in turn, so the one
    entry held here serves every socket of a table but the first."""

    __slots__ = ("text", "prepared")

    def __init__(self) -> None:
        self.text: str | None = None
        self.prepared: PreparedMessage | None = None

    def __call__(self, text: str) -> PreparedMessage:
        if text is not self.text:
            self.prepared = PreparedMessage(text.encode(), isBinary=False, applyMask=False, doNotCompress=True)
            self.text = text
        return self.prepared


prepared_text = PreparedText()


class GatedHTTPFactory(HTTPFactory):
    """Daphne's factory, closing a connection from an address shut at the gate
    (config/network.py) as it is accepted: Twisted closes the socket when a factory
    builds no protocol for it, before anything of it is read."""

    def buildProtocol(self, addr):
        if not gate.admits(getattr(addr, "host", None)):
            return None
        return super().buildProtocol(addr)


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
    if not callable(getattr(WebSocketProtocol, "sendPreparedMessage", None)) or not hasattr(
        PreparedMessage(b"", isBinary=False, applyMask=False, doNotCompress=True), "payloadHybi"
    ):
        raise LibraryChanged("autobahn's broadcast API (PreparedMessage) changed: review config/transport.py")
    adapter = inspect.getsource(WebSocketAdapterProtocol.dataReceived)
    if not callable(getattr(AutobahnProtocol, "_dataReceived", None)) or "self._dataReceived(data)" not in adapter:
        raise LibraryChanged("autobahn's Twisted adapter no longer reads through _dataReceived: review config/transport.py")
    made = set(re.findall(r"self\.(\w+) = ", inspect.getsource(AutobahnProtocol._connectionMade)))
    missing = [name for name in AUTOBAHN_SEND_STATE if name not in made]
    if missing:
        raise LibraryChanged(f"autobahn's protocol has no {', '.join(missing)}: review config/transport.py")
    if "partial(self.handle_reply, protocol)" not in inspect.getsource(daphne.server.Server.create_application):
        raise LibraryChanged("Daphne's send is no longer partial(handle_reply, protocol): review config/transport.py")
    if daphne.server.HTTPFactory not in (HTTPFactory, GatedHTTPFactory) or "HTTPFactory(self)" not in inspect.getsource(
        daphne.server.Server.run
    ):
        raise LibraryChanged("Daphne's server no longer builds its HTTPFactory in run(): review config/transport.py")
    if "factory.buildProtocol" not in inspect.getsource(tcp.Port.doRead):
        raise LibraryChanged("Twisted's Port no longer asks its factory for each connection: review config/transport.py")
    if not issubclass(WebSocketFactory.protocol, WebSocketProtocol):
        raise LibraryChanged("Daphne's WebSocketFactory no longer builds its WebSocketProtocol")


class _NoReactor:
    """Enough of a reactor for a FileDescriptor that is only looked at."""

    def __bool__(self) -> bool:
        return True


def install() -> None:
    """Check the libraries, then make every TCP port of this process accept
    connections as ImmediateWriteServer, every WebSocket bounded, and Daphne's
    server build the gated factory."""
    check()
    tcp.Port.transport = ImmediateWriteServer
    WebSocketFactory.protocol = BoundedWebSocketProtocol
    daphne.server.HTTPFactory = GatedHTTPFactory
