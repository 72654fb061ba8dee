"""Scale-out as operators run it: Debian's nginx, serving the site config/nginx.py
writes (docs/operations.md's), in front of two Daphne processes each hosting one of two
shards and a third hosting none, for the pages, on PostgreSQL and Redis. Every request
and socket of these tests goes through nginx: a table's sockets reach the process
hosting the table, a game is played and saved once, the lobby's page, its socket and
its static files come from the process that hosts no table, nginx limits each address
in front of the site, and the Daphnes see the client's address, not nginx's.

Skips without nginx (/usr/sbin/nginx), PostgreSQL (127.0.0.1:5432) or Redis
(127.0.0.1:6379), except under CI=true, where it must run.
"""

from __future__ import annotations

import asyncio
import http.client
import re
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from http.cookies import SimpleCookie

import pytest

from bench.proxy import Nginx, binary
from tests.needs import need
from tests.services.test_hosting_servers import servers_of
from tests.services.test_scale_out import (
    SHORT_GAME_LOG,
    assert_saved_once,
    play_a_short_game,
    receive_until,
    running_cluster,
)

pytestmark = pytest.mark.services


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    need(binary() is not None, "nginx is not installed at /usr/sbin/nginx (apt-get install -y nginx)")
    tmp = tmp_path_factory.mktemp("nginx")
    # The Daphnes believe nginx's X-Forwarded-For (it connects from 127.0.0.1), as the
    # docs/operations.md's "Behind a proxy" asks.
    with running_cluster(tmp, GAME_HOST_SHARDS="2", TRUSTED_PROXIES="127.0.0.1") as cluster:
        cluster.daphne("s0", HOSTED_SHARDS="0")
        cluster.daphne("s1", HOSTED_SHARDS="1")
        cluster.daphne("pages", HOSTED_SHARDS="")
        for name in ("s0", "s1"):
            cluster.wait_for_heartbeat(name)
        proxy = Nginx(tmp / "proxy", [f"127.0.0.1:{cluster.ports[n]}" for n in ("s0", "s1")], shards=2,
                      pages=[f"127.0.0.1:{cluster.ports['pages']}"])
        proxy.start()
        cluster.proxy = proxy
        try:
            yield cluster
        finally:
            proxy.stop()


# --- a browser, through nginx ----------------------------------------------------------


def request(cluster, method: str, path: str, cookie: str = "", *, data: dict | None = None,
            source: str = "127.0.0.1", headers: dict | None = None) -> tuple[int, str, SimpleCookie]:
    """One request to nginx from ``source`` (a loopback address), as a browser sends it."""
    conn = http.client.HTTPConnection("127.0.0.1", cluster.proxy.port, timeout=30, source_address=(source, 0))
    body = urllib.parse.urlencode(data).encode() if data is not None else None
    sent = {"Cookie": cookie, **(headers or {})}
    if body is not None:
        sent["Content-Type"] = "application/x-www-form-urlencoded"
    try:
        conn.request(method, path, body=body, headers=sent)
        response = conn.getresponse()
        cookies = SimpleCookie()
        for value in response.headers.get_all("Set-Cookie") or []:
            cookies.load(value)
        return response.status, response.read().decode(), cookies
    finally:
        conn.close()


def post(cluster, path: str, cookie: str, data: dict | None = None, *, source: str = "127.0.0.1",
         headers: dict | None = None) -> None:
    """Press a button of the table's page through nginx, with its CSRF token, as htmx does."""
    status, _page, cookies = request(cluster, "GET", "/lobby/", cookie, source=source)
    assert status == 200
    token = cookies["csrftoken"].value
    status, body, _ = request(
        cluster, "POST", path, f"{cookie}; csrftoken={token}",
        data={"csrfmiddlewaretoken": token, **(data or {})}, source=source,
        headers={"Origin": cluster.proxy.base, "HX-Request": "true", **(headers or {})},
    )
    assert status == 200 and "message error" not in body, (status, body[-2000:])


async def connect(cluster, table: int, cookie: str, origin: str | None = None):
    import websockets

    return await websockets.connect(
        f"ws://127.0.0.1:{cluster.proxy.port}/ws/table/{table}/",
        additional_headers={"Cookie": cookie, "Origin": origin or cluster.proxy.base},
        proxy=None,
    )


def open_sockets(cluster, server: str) -> float:
    """The sockets open in one Daphne, from its own /metrics (each process counts its own)."""
    conn = http.client.HTTPConnection("127.0.0.1", cluster.ports[server], timeout=10)
    try:
        conn.request("GET", "/metrics")
        text = conn.getresponse().read().decode()
    finally:
        conn.close()
    return float(re.search(r"^tetriwar_open_websockets (\S+)$", text, re.M).group(1))


async def sockets_settle(cluster, expected: dict[str, int]) -> None:
    """Until each Daphne has the expected sockets open (a closed one goes in a moment)."""
    deadline = time.monotonic() + 10
    while True:
        seen = {name: open_sockets(cluster, name) for name in expected}
        if seen == expected or time.monotonic() > deadline:
            assert seen == expected
            return
        await asyncio.sleep(0.1)


def logged(cluster, uri: str, count: int) -> list[str]:
    """The Daphnes nginx sent the requests for ``uri`` to, from its access log, once it
    names ``count`` of them (it writes a line once the response has gone, a socket's
    once it has closed), or after 10 s."""
    deadline = time.monotonic() + 10
    while True:
        upstreams = [u for _c, _m, logged_uri, _s, u in cluster.proxy.requests() if logged_uri == uri]
        if len(upstreams) >= count or time.monotonic() > deadline:
            return upstreams
        time.sleep(0.1)


# --- the tests --------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["even", "odd"])
def test_a_tables_sockets_reach_its_host_and_a_game_is_played_through_nginx(cluster, name):
    # An even table and an odd one, so that each Daphne is the host once (the ids run
    # on from the other tests': the next one has the other parity).
    setup = cluster.setup_table(f"nginx_{name}")
    if setup["table"] % 2 != ("even", "odd").index(name):
        setup = cluster.setup_table(f"nginx_{name}_next")
    table = setup["table"]
    assert table % 2 == ("even", "odd").index(name)
    home, away = servers_of(table)

    async def play():
        a = await connect(cluster, table, setup["cookies"][0])
        b = await connect(cluster, table, setup["cookies"][1])
        watcher = await connect(cluster, table, setup["cookies"][2])
        # All three in the process hosting the table, none in the other.
        await sockets_settle(cluster, {home: 3, away: 0})
        await asyncio.to_thread(post, cluster, f"/lobby/table/{table}/start/", setup["cookies"][0])
        for ws in (a, b, watcher):
            await receive_until(ws, "data-remaining-ms", timeout=15)
        await play_a_short_game(a, b, watcher)

    asyncio.run(play())
    assert_saved_once(cluster, setup, SHORT_GAME_LOG)
    home_address = f"127.0.0.1:{cluster.ports[home]}"
    assert logged(cluster, f"/ws/table/{table}/", 3) == [home_address] * 3


def test_a_socket_from_a_page_of_another_origin_is_refused_through_nginx(cluster):
    """nginx forwards the browser's Host, so the Origin check compares with the
    address the browser used (nginx's), not a Daphne's."""
    import websockets

    setup = cluster.setup_table("nginx_origin")
    direct = cluster.url("s0")  # a Daphne's own address is not the site's, behind nginx

    async def refused():
        with pytest.raises(websockets.exceptions.InvalidStatus) as refusal:
            await connect(cluster, setup["table"], setup["cookies"][2], origin=direct)
        assert refusal.value.response.status_code == 403
        ws = await connect(cluster, setup["table"], setup["cookies"][2])
        await receive_until(ws, 'id="chat-log"')
        await ws.close()

    asyncio.run(refused())


def test_the_lobby_and_its_files_come_through_nginx_from_the_process_hosting_no_table(cluster):
    pages_process = f"127.0.0.1:{cluster.ports['pages']}"
    before = len(logged(cluster, "/lobby/", 0))
    pages = [request(cluster, "GET", "/lobby/") for _ in range(2)]
    for status, page, _cookies in pages:
        assert status == 200 and 'id="lobby-live"' in page
    assert logged(cluster, "/lobby/", before + 2)[before:] == [pages_process] * 2
    stylesheet = re.search(r'<link rel="stylesheet" href="(/static/[^"]+)"', pages[0][1]).group(1)
    bundle = re.search(r'<script type="module" src="(/bundles/[^"]+)"', pages[0][1]).group(1)
    for path in (stylesheet, bundle):
        status, text, _cookies = request(cluster, "GET", path)
        assert status == 200 and "{" in text
        assert logged(cluster, path.split("?")[0], 1) == [pages_process]


def test_nginx_refuses_a_flooding_address_before_any_daphne_and_others_go_on(cluster):
    """Past the site's burst an address is refused by the site (its own words), past
    nginx's, twice as large, by nginx itself: no Daphne sees those requests (no
    upstream in nginx's log). Another address is served meanwhile. The flood comes 16
    requests at a time until nginx has refused some, however slow the machine."""

    def refused() -> list[str]:
        return [u for c, _m, _uri, status, u in cluster.proxy.requests() if c == "127.0.0.66" and status == "429"]

    assert request(cluster, "GET", "/healthz", source="127.0.0.66")[0] == 200
    with ThreadPoolExecutor(16) as pool:
        for _ in range(40):  # at most 40 × 160 requests: nginx lets 40 a second through
            list(pool.map(lambda _: request(cluster, "GET", "/healthz", source="127.0.0.66"), range(160)))
            if "-" in refused():
                break
    assert "-" in refused()  # nginx's own answers
    assert any(u != "-" for u in refused())  # the site's, before nginx's
    assert request(cluster, "GET", "/healthz", source="127.0.0.67")[0] == 200
