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
"""

from __future__ import annotations

from twisted.internet import tcp


class ImmediateWriteServer(tcp.Server):
    nodelay = False

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


def install() -> None:
    """Make every TCP port of this process accept connections as ImmediateWriteServer."""
    tcp.Port.transport = ImmediateWriteServer
