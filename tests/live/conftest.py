from __future__ import annotations

import asyncio
import re

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import Client

from config.asgi import application
from games import host as game_host
from games import messages
from games.hub import hub
from lobby.edge import edge

ORIGIN = (b"origin", b"http://localhost")
HOST = (b"host", b"localhost")


def session_cookie_for(user) -> bytes:
    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}".encode()


def guest_cookie(name: str) -> bytes:
    client = Client()
    client.post("/accounts/guest/", {"name": name})
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}".encode()


async def connect(path: str, cookie: bytes | None = None, origin: bool = True) -> WebsocketCommunicator:
    headers = [HOST, ORIGIN] if origin else [HOST]
    if cookie:
        headers.append((b"cookie", cookie))
    communicator = WebsocketCommunicator(application, path, headers=headers)
    return communicator


async def cookie_for(user) -> bytes:
    return await database_sync_to_async(session_cookie_for)(user)


@pytest.fixture(autouse=True)
def _in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": settings.EMBEDDED_CHANNEL_LAYER}


@pytest.fixture(autouse=True)
def _fresh_edge():
    # Each test starts with the books of a fresh process: no address or player
    # budget spent by an earlier test (lobby/edge.py).
    edge.clear()
    yield
    edge.clear()


class FakeClock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def fake_clock(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(game_host, "clock", clock)
    return clock


async def open_socket(path, cookie=None):
    ws = await connect(path, cookie)
    connected, _ = await ws.connect()
    assert connected
    return ws


async def receive_until(ws, pattern: str, timeout: float = 3.0) -> str:
    """Skip messages until one matches ``pattern`` (a regex); return it."""

    async def wait():
        while True:
            message = await ws.receive_from(timeout=timeout)
            if re.search(pattern, message):
                return message

    return await asyncio.wait_for(wait(), timeout)


async def received(ws, seconds: float = 0.3) -> list[str]:
    """Whatever reaches ``ws`` within ``seconds`` of quiet."""
    out = []
    while not await ws.receive_nothing(timeout=seconds):
        out.append(await ws.receive_from())
    return out


async def quiet(sockets, seconds: float = 0.3) -> list[list[str]]:
    """``received`` for every one of ``sockets`` at once: what reached each within
    ``seconds`` of quiet on it (the sockets' waits overlap; they do not add up)."""
    return list(await asyncio.gather(*(received(ws, seconds) for ws in sockets)))


async def tick(table_id: int) -> None:
    await hub().send(messages.Tick(table_id=table_id))


# --- a game's table, seated, ready and started ---------------------------------------------
def ready_table(game: str, options: dict, users, stake: int = 0):
    """A table of ``game`` hosted by the first of ``users``, the others seated in order,
    everyone ready."""
    from lobby import services
    from tests.personas import ref

    table = services.table_create(
        player=ref(users[0]), game=game, options=dict(options), seats_total=len(users), stake=stake
    )
    for number, user in enumerate(users[1:], start=2):
        services.seat_take(table_id=table.pk, player=ref(user), number=number)
    for user in users:
        services.seat_ready(table_id=table.pk, player=ref(user), ready=True)
    return table


async def started_sockets(table, users, fake_clock, running: str) -> list:
    """A socket for each of ``users`` (the first hosts), the game started and its 3 s
    countdown run out: every page has seen ``running`` (a pattern of the running game)."""
    from lobby import services
    from tests.personas import ref

    sockets = [await open_socket(f"/ws/table/{table.pk}/", await cookie_for(u)) for u in users]
    await database_sync_to_async(services.table_start)(table_id=table.pk, player=ref(users[0]))
    for ws in sockets:
        await receive_until(ws, 'id="game"')
    fake_clock.t += 3.01
    await tick(table.pk)
    for ws in sockets:
        await receive_until(ws, running)
    await quiet(sockets, 0.2)  # the start's seat panels, pushed through the layer, may still come
    return sockets


def engine(table):
    """The running game's engine, in the host of this process."""
    return game_host.GameHostConsumer.host.tables[table.pk].live.game
