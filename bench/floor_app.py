"""The bare ASGI application of bench/floor.py: tables of sockets and nothing else.

``/ws/<table>/<seat>``: every numbered text frame from a seat (a key; a key-up has no
number) is answered by one broadcast of ``FLOOR_BYTES`` bytes to every socket of its
table, headed like the site's (``<!--v12 a3:41-->``); each table also broadcasts ``FLOOR_TICKS`` times a second on
its own. It parses the frame as JSON, as the site does, and nothing more. Daphne's
connections are the site's (``config/transport.py``: a frame leaves at once), so the
floor is that of the server the site runs on.
"""

from __future__ import annotations

import asyncio
import json
import os

from config.transport import install

install()

SIZE = int(os.environ.get("FLOOR_BYTES", "237"))
TICKS = float(os.environ.get("FLOOR_TICKS", "2"))


class Table:
    def __init__(self) -> None:
        self.sends: dict[int, object] = {}
        self.version = 0
        self.ticker: asyncio.Task | None = None

    async def broadcast(self, ack: str = "") -> None:
        self.version += 1
        head = f"<!--v{self.version}{ack}-->"
        message = {"type": "websocket.send", "text": head + "x" * max(0, SIZE - len(head))}
        for send in list(self.sends.values()):
            await send(message)

    async def tick(self) -> None:
        while self.sends:
            await asyncio.sleep(1 / TICKS)
            await self.broadcast()


TABLES: dict[str, Table] = {}


async def application(scope, receive, send):
    if scope["type"] != "websocket":
        if scope["type"] == "http":
            await send({"type": "http.response.start", "status": 404, "headers": []})
            await send({"type": "http.response.body", "body": b""})
        return
    _, _, table_id, seat = scope["path"].rstrip("/").split("/")
    seat = int(seat)
    table = TABLES.setdefault(table_id, Table())
    while True:
        message = await receive()
        if message["type"] == "websocket.connect":
            await send({"type": "websocket.accept"})
            table.sends[id(send)] = send
            if TICKS > 0 and table.ticker is None:
                table.ticker = asyncio.create_task(table.tick())
        elif message["type"] == "websocket.receive":
            frame = json.loads(message.get("text") or "{}")
            if frame.get("seq") is not None:  # a key-up (unnumbered) shows nothing
                await table.broadcast(f" a{seat}:{frame['seq']}")
        elif message["type"] == "websocket.disconnect":
            table.sends.pop(id(send), None)
            return
