"""Addresses the edge refused for their rate are shut at the gate: their next
connections are closed as they are accepted (config/network.py, config/transport.py),
and page requests have a budget per address (lobby/edge.py)."""

from __future__ import annotations

import time

import pytest
from twisted.internet.address import IPv4Address

from config.network import gate
from config.transport import GatedHTTPFactory
from lobby.edge import RequestBudgetMiddleware, edge
from tests.live.test_edge import attempt, from_address

pytestmark = pytest.mark.django_db(transaction=True)


async def test_an_address_over_its_new_sockets_is_shut_until_its_next_one(db, settings):
    settings.WS_NEW_SOCKETS_PER_MINUTE = 2  # one every 30 s
    for _ in range(2):
        ws, connected = await attempt(from_address("198.51.100.7"))
        assert connected
        await ws.disconnect()
    assert gate.admits("198.51.100.7")
    _, connected = await attempt(from_address("198.51.100.7"))
    assert not connected
    assert not gate.admits("198.51.100.7")
    assert 25 < gate.shut["198.51.100.7"] - time.monotonic() <= 30  # till its next socket
    settings.WS_NEW_SOCKETS_PER_MINUTE = 120  # one every 0.5 s: the shut still lasts a few seconds
    edge.clear()
    for _ in range(200):
        ws, connected = await attempt(from_address("198.51.100.10"))
        if not connected:
            break
        await ws.disconnect()
    assert not connected
    assert 4 < gate.shut_for("198.51.100.10") <= 5
    assert gate.admits("198.51.100.8")  # the neighbours are not


async def test_a_flooders_address_is_shut_for_its_cool_off(db, settings):
    settings.WS_FLOOD_COOLOFF_SECONDS = 60
    edge.book("198.51.100.9").cool_until = time.monotonic() + 60
    _, connected = await attempt(from_address("198.51.100.9"))
    assert not connected
    assert not gate.admits("198.51.100.9")
    gate.shut["198.51.100.9"] = time.monotonic() - 1  # the cool-off is over
    assert gate.admits("198.51.100.9")
    assert "198.51.100.9" not in gate.shut


def test_a_shut_ipv6_address_shuts_its_64():
    gate.close_until("2001:db8:1:2::/64", time.monotonic() + 10)
    assert not gate.admits("2001:db8:1:2::99")
    assert gate.admits("2001:db8:1:3::99")


def test_a_trusted_proxy_is_never_shut(settings):
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]
    gate.close_until("10.1.2.3", time.monotonic() + 10)
    assert gate.admits("10.1.2.3")  # its peer address is the proxy's, not a client's


def test_the_gated_factory_builds_no_protocol_for_a_shut_address():
    factory = GatedHTTPFactory(server=None)
    gate.close_until("198.51.100.7", time.monotonic() + 5)
    assert factory.buildProtocol(IPv4Address("TCP", "198.51.100.7", 40000)) is None  # Twisted closes it
    assert factory.buildProtocol(IPv4Address("TCP", "198.51.100.8", 40000)) is not None
    assert gate.closed == 1


async def test_page_requests_over_the_budget_are_answered_429_before_django(settings):
    settings.HTTP_REQUESTS_PER_SECOND = 1
    settings.HTTP_REQUEST_BURST = 3
    reached = []

    async def django(scope, receive, send):
        reached.append(scope["path"])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    app = RequestBudgetMiddleware(django)

    async def get(address: str) -> int:
        sent = []

        async def send(message):
            sent.append(message)

        scope = {"type": "http", "path": "/", "client": (address, 40000), "headers": []}
        await app(scope, None, send)
        return sent[0]["status"]

    settings.HTTP_COOLOFF_SECONDS = 10
    assert [await get("198.51.100.7") for _ in range(4)] == [200, 200, 200, 429]
    assert len(reached) == 3
    assert 9 < gate.shut_for("198.51.100.7") <= 10
    assert await get("198.51.100.8") == 200
