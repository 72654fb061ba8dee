"""Daphne's connections send a frame at once when Nagle is off (config/transport.py).

Each test holds a real connected socket pair: the server's end is an
``ImmediateWriteServer`` as Twisted would build it, minus the reactor, whose
``startWriting`` (register for writability, send on the loop's next turn) is recorded
instead of run.
"""

from __future__ import annotations

import inspect
import socket
from functools import partial

import daphne.server
import pytest
from autobahn.websocket.protocol import WebSocketProtocol as AutobahnProtocol
from daphne.ws_protocol import WebSocketFactory, WebSocketProtocol
from twisted.internet import abstract, tcp

from config.transport import (
    AUTOBAHN_SEND_STATE,
    TWISTED_BUFFER_ATTRIBUTES,
    BoundedWebSocketProtocol,
    GatedHTTPFactory,
    ImmediateWriteServer,
    LibraryChanged,
    check,
    install,
    prepared_sender,
    prepared_text,
)


class Recorded(ImmediateWriteServer):
    def __init__(self, sock: socket.socket) -> None:  # Twisted's attributes, no reactor
        self.socket = sock
        self.connected = 1
        self.disconnected = 0
        self.disconnecting = False
        self._writeDisconnected = False
        self._writeDisconnecting = False
        self.dataBuffer = b""
        self.offset = 0
        self._tempDataBuffer: list[bytes] = []
        self._tempDataLen = 0
        self.producer = None
        self.TLS = False
        self.waits_for_writability = 0
        self.aborted = 0

    def startWriting(self) -> None:
        self.waits_for_writability += 1

    def stopWriting(self) -> None:
        pass

    def abortConnection(self) -> None:
        self.aborted += 1


@pytest.fixture
def pair():
    server, client = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    server.setblocking(False)
    client.setblocking(False)
    yield server, client
    server.close()
    client.close()


def received(sock: socket.socket) -> bytes:
    chunks = []
    while True:
        try:
            chunk = sock.recv(1 << 20)
        except BlockingIOError:
            return b"".join(chunks)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def nodelay(transport: Recorded) -> Recorded:
    transport.nodelay = True  # what setTcpNoDelay(True) records on a TCP socket
    return transport


def test_a_frame_on_a_nodelay_socket_leaves_at_once(pair):
    server, client = pair
    transport = nodelay(Recorded(server))
    transport.write(b"<!--v1-->frame")
    transport.write(b"<!--v2-->frame")
    assert received(client) == b"<!--v1-->frame<!--v2-->frame"
    assert transport.waits_for_writability == 0  # no reactor turn, no epoll registration
    assert transport.dataBuffer == b"" and transport._tempDataBuffer == []


def test_with_nagle_on_twisted_buffers_for_the_next_turn(pair):
    server, client = pair
    transport = Recorded(server)
    transport.write(b"HTTP/1.1 200 OK\r\n")
    assert received(client) == b""
    assert transport.waits_for_writability == 1
    assert transport._tempDataBuffer == [b"HTTP/1.1 200 OK\r\n"]


def test_what_the_kernel_does_not_take_waits_in_order_behind_it(pair):
    server, client = pair
    server.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    transport = nodelay(Recorded(server))
    big = bytes(range(256)) * 4096  # 1 MiB: more than the socket's buffers hold
    transport.write(big)
    assert transport.waits_for_writability == 1
    assert 0 < len(b"".join(transport._tempDataBuffer)) < len(big)
    transport.write(b"after")  # something is buffered: it queues behind, never jumps ahead
    assert transport._tempDataBuffer[-1] == b"after"
    got = received(client)
    # drain the rest the way the reactor would, on writability
    while transport._tempDataBuffer or transport.offset < len(transport.dataBuffer):
        transport.doWrite()
        got += received(client)
    assert got == big + b"after"


def test_a_lost_connection_takes_twisteds_path(pair):
    server, client = pair
    client.close()
    transport = nodelay(Recorded(server))
    transport.write(b"frame")  # the send fails: buffered, so that doWrite reports the loss
    assert transport.waits_for_writability == 1
    assert isinstance(transport.doWrite(), Exception)


def test_nothing_is_written_after_the_connection_is_gone(pair):
    server, client = pair
    transport = nodelay(Recorded(server))
    transport.connected = 0
    transport.write(b"frame")
    assert received(client) == b"" and transport.waits_for_writability == 0


def test_set_tcp_no_delay_is_what_turns_it_on():
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        transport = Recorded(sock)
        assert transport.nodelay is False
        transport.setTcpNoDelay(True)
        assert transport.nodelay is True
        transport.setTcpNoDelay(False)
        assert transport.nodelay is False
    finally:
        sock.close()


def test_install_makes_every_tcp_port_use_it():
    before = tcp.Port.transport, WebSocketFactory.protocol, daphne.server.HTTPFactory
    try:
        install()
        assert tcp.Port.transport is ImmediateWriteServer
        assert WebSocketFactory.protocol is BoundedWebSocketProtocol
        assert daphne.server.HTTPFactory is GatedHTTPFactory
    finally:
        tcp.Port.transport, WebSocketFactory.protocol, daphne.server.HTTPFactory = before


def test_a_websocket_that_does_not_read_is_dropped_past_its_unsent_bound(pair):
    server, client = pair  # the client never reads
    server.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    transport = nodelay(Recorded(server))
    transport.max_unsent = 64 * 1024
    frame = b"x" * 1000
    writes = 0
    while not transport.aborted and writes < 10_000:
        transport.write(frame)
        writes += 1
    assert transport.aborted == 1
    assert transport.unsent() <= 64 * 1024 + len(frame)


def test_without_a_bound_nothing_is_dropped(pair):
    server, client = pair  # an HTTP response to a slow client: Twisted's own back-pressure
    transport = nodelay(Recorded(server))
    for _ in range(300):
        transport.write(b"x" * 1000)
    assert transport.aborted == 0


def test_the_libraries_still_look_as_config_transport_relies_on():
    check()  # this fails, and so does start-up, when Twisted, autobahn or Daphne change


@pytest.mark.parametrize("name", TWISTED_BUFFER_ATTRIBUTES)
def test_the_check_fails_loudly_when_twisted_changes(monkeypatch, name):
    original = abstract.FileDescriptor.__init__

    def without(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self.__dict__.pop(name, None)

    monkeypatch.setattr(abstract.FileDescriptor, "__init__", without)
    if name in vars(abstract.FileDescriptor):
        monkeypatch.delattr(abstract.FileDescriptor, name)
    with pytest.raises(LibraryChanged):
        check()


def test_the_check_fails_loudly_when_autobahn_drops_an_option(monkeypatch):
    options = [o for o in WebSocketProtocol.CONFIG_ATTRS_COMMON if o != "maxMessagePayloadSize"]
    monkeypatch.setattr(WebSocketProtocol, "CONFIG_ATTRS_COMMON", options)
    with pytest.raises(LibraryChanged):
        check()


@pytest.mark.parametrize("name", AUTOBAHN_SEND_STATE)
def test_the_check_fails_loudly_when_autobahn_no_longer_sets_what_a_prepared_send_reads(monkeypatch, name):
    source = f"def _connectionMade(self):\n    self.other = None\n    # was: self.{name}\n"
    namespace: dict = {}
    exec(source, namespace)  # noqa: S102 (a stand-in method without that assignment)
    monkeypatch.setattr(AutobahnProtocol, "_connectionMade", namespace["_connectionMade"])
    monkeypatch.setattr(inspect, "getsource", lambda obj: source)  # exec'd code has no file to read
    with pytest.raises(LibraryChanged):
        check()


def test_the_check_fails_loudly_when_daphne_builds_its_factory_elsewhere(monkeypatch):
    monkeypatch.setattr(inspect, "getsource", lambda obj: "def run(self):\n    self.factory = make(self)\n")
    with pytest.raises(LibraryChanged):
        check()


def test_a_broadcast_is_framed_once_as_the_text_frame_of_its_text():
    text = "<div id=\"piece-1\">é</div>" * 10
    prepared = prepared_text(text)
    payload = text.encode()
    assert prepared.payloadHybi == bytes([0x81, 126]) + len(payload).to_bytes(2, "big") + payload
    assert prepared_text(text) is prepared  # the next socket of the table: the same frame
    assert prepared_text("<p>other</p>") is not prepared


def open_protocol(transport) -> BoundedWebSocketProtocol:
    protocol = BoundedWebSocketProtocol.__new__(BoundedWebSocketProtocol)
    protocol.state = protocol.STATE_OPEN
    protocol.send_queue = []
    protocol._perMessageCompress = None
    protocol.transport = transport
    return protocol


def test_a_prepared_broadcast_goes_out_as_those_bytes_and_not_after_the_close(pair):
    server, client = pair
    protocol = open_protocol(nodelay(Recorded(server)))
    protocol.send_prepared(prepared_text("<p>hi</p>"))
    assert received(client) == b"\x81\x09<p>hi</p>"
    protocol.state = protocol.STATE_CLOSING
    protocol.send_prepared(prepared_text("<p>late</p>"))  # nobody reads it any more
    assert received(client) == b""


def test_a_relay_writes_to_daphnes_connection_directly_and_to_anything_else_through_send(pair):
    protocol = open_protocol(nodelay(Recorded(pair[0])))
    server = daphne.server.Server.__new__(daphne.server.Server)  # as create_application makes its send
    assert prepared_sender(partial(server.handle_reply, protocol)) == protocol.send_prepared

    async def communicator_send(message):
        pass

    assert prepared_sender(communicator_send) is None
    assert prepared_sender(partial(server.handle_reply, object())) is None  # not one of our connections


def test_the_check_fails_loudly_when_daphnes_send_is_no_longer_a_partial(monkeypatch):
    real = inspect.getsource

    def without_partial(obj):
        source = real(obj)
        return source.replace("partial(self.handle_reply, protocol)", "self.make_send(protocol)")

    monkeypatch.setattr(inspect, "getsource", without_partial)
    with pytest.raises(LibraryChanged, match="partial"):
        check()


def test_a_socket_closed_for_flooding_is_read_no_more(monkeypatch):
    closes = []
    monkeypatch.setattr(WebSocketProtocol, "handle_reply", lambda self, message: closes.append(message["code"]))

    class Transport:
        reading = True

        def pauseProducing(self) -> None:
            self.reading = False

    protocol = BoundedWebSocketProtocol.__new__(BoundedWebSocketProtocol)
    protocol.transport = Transport()
    protocol.handle_reply({"type": "websocket.close", "code": 1000})
    assert protocol.transport.reading  # an ordinary close waits for the client's answer
    protocol.handle_reply({"type": "websocket.close", "code": 4008, "stop_reading": True})
    assert closes == [1000, 4008]
    assert not protocol.transport.reading


def test_bytes_read_go_to_autobahn_without_formatting_its_debug_line(monkeypatch):
    import autobahn.twisted.websocket as adapter

    def formatted(*args, **kwargs):
        raise AssertionError("autobahn's debug line was formatted for a read")

    monkeypatch.setattr(adapter, "hltype", formatted)
    monkeypatch.setattr(adapter, "hlval", formatted)
    read: list[bytes] = []
    monkeypatch.setattr(AutobahnProtocol, "_dataReceived", lambda self, data: read.append(data))
    protocol = BoundedWebSocketProtocol.__new__(BoundedWebSocketProtocol)
    protocol.dataReceived(b"\x81\x82abcd\x1a\x1a")
    protocol.dataReceived(b"more")
    assert read == [b"\x81\x82abcd\x1a\x1a", b"more"]  # as they came, in order


def test_the_check_fails_loudly_when_autobahns_adapter_no_longer_reads_through_data_received(monkeypatch):
    real = inspect.getsource

    def elsewhere(obj):
        return real(obj).replace("self._dataReceived(data)", "self._consume(data)")

    monkeypatch.setattr(inspect, "getsource", elsewhere)
    with pytest.raises(LibraryChanged, match="_dataReceived"):
        check()
