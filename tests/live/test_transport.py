"""Daphne's connections send a frame at once when Nagle is off (config/transport.py).

Each test holds a real connected socket pair: the server's end is an
``ImmediateWriteServer`` as Twisted would build it, minus the reactor, whose
``startWriting`` (register for writability, send on the loop's next turn) is recorded
instead of run.
"""

from __future__ import annotations

import socket

import pytest
from daphne.ws_protocol import WebSocketFactory, WebSocketProtocol
from twisted.internet import abstract, tcp

from config.transport import (
    TWISTED_BUFFER_ATTRIBUTES,
    BoundedWebSocketProtocol,
    ImmediateWriteServer,
    LibraryChanged,
    check,
    install,
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
    before = tcp.Port.transport, WebSocketFactory.protocol
    try:
        install()
        assert tcp.Port.transport is ImmediateWriteServer
        assert WebSocketFactory.protocol is BoundedWebSocketProtocol
    finally:
        tcp.Port.transport, WebSocketFactory.protocol = before


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
