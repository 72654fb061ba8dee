"""The nginx site config/nginx.py writes: docs/operations.md shows it as written, and its map
sends every table's socket to the process hosting the table. Served by a real nginx
in tests/services/test_nginx_scale_out.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings

from config import nginx

OPERATIONS = Path(__file__).resolve().parents[2] / "docs" / "operations.md"


def routes_of(text: str) -> list[tuple[re.Pattern, str]]:
    """The map's regex lines, compiled (nginx's PCRE and Python agree on \\d, [..] and (?:..))."""
    block = re.search(r"map \$uri \$tetriwar_socket_host \{\n(.*?)\n\}", text, re.S).group(1)
    found = []
    for line in block.splitlines():
        pattern, upstream = line.split()
        if pattern.startswith("~"):
            found.append((re.compile(pattern[1:]), upstream.rstrip(";")))
    return found


def routed_to(routes: list[tuple[re.Pattern, str]], uri: str) -> str:
    """The upstream nginx picks: the first regex that matches (a map's regexes are
    tried in order), else the default."""
    return next((upstream for pattern, upstream in routes if pattern.search(uri)), "tetriwar")


def test_the_readme_shows_the_site_as_config_nginx_writes_it():
    written = nginx.site(["127.0.0.1:8001", "127.0.0.1:8002"], 2, pages=["127.0.0.1:8003"])
    assert f"```nginx\n{written}```" in OPERATIONS.read_text()


@pytest.mark.parametrize(("shards", "processes"), [(2, 2), (4, 2), (6, 2), (5, 2), (25, 2), (10, 3), (100, 3), (1, 2)])
def test_every_tables_socket_goes_to_the_process_hosting_its_shard(shards, processes):
    servers = [f"127.0.0.1:{8001 + n}" for n in range(processes)]
    routes = routes_of(nginx.site(servers, shards))
    for table in [*range(1, 2000), 12345, 99999, 1234567]:
        want = f"tetriwar_{table % shards % processes}"
        assert routed_to(routes, f"/ws/table/{table}/") == want, table


def test_any_other_request_goes_to_any_process():
    routes = routes_of(nginx.site(["127.0.0.1:8001", "127.0.0.1:8002"], 2))
    for uri in ("/ws/lobby/", "/ws/table/12/extra/", "/ws/table/x2/", "/lobby/table/12/", "/static/css/site.css"):
        assert routed_to(routes, uri) == "tetriwar"


def test_tables_hosted_by_workers_leave_every_socket_to_any_process():
    assert routes_of(nginx.site(["127.0.0.1:8001", "127.0.0.1:8002"], 0)) == []


def test_shards_no_last_digits_can_route_are_refused_with_the_reason():
    with pytest.raises(ValueError, match="3 shards over 2 processes"):
        nginx.site(["127.0.0.1:8001", "127.0.0.1:8002"], 3)


def test_the_standalone_configuration_keeps_everything_in_its_own_directory(tmp_path):
    text = nginx.standalone(nginx.site(["127.0.0.1:8001"], 1, listen="127.0.0.1:9"), str(tmp_path))
    paths = re.findall(r"^\s*(?:pid|error_log|access_log|\w+_temp_path) (\S+)", text, re.M)
    assert len(paths) == 8 and all(p.startswith(str(tmp_path)) for p in paths)
    assert "daemon" not in text  # the test or the bench says it: -g 'daemon off;'


def upstream_servers(text: str) -> list[str]:
    block = re.search(r"^upstream tetriwar \{\n(.*?)\n\}", text, re.S | re.M).group(1)
    return re.findall(r"server (\S+);", block)


def test_pages_go_to_the_processes_that_host_no_table_and_sockets_to_their_hosts():
    text = nginx.site(["127.0.0.1:8001", "127.0.0.1:8002"], 2, pages=["127.0.0.1:8003", "127.0.0.1:8004"])
    assert upstream_servers(text) == ["127.0.0.1:8003", "127.0.0.1:8004"]  # pages, static files, the lobby
    routes = routes_of(text)
    assert routed_to(routes, "/ws/table/12/") == "tetriwar_0" and routed_to(routes, "/ws/table/7/") == "tetriwar_1"
    assert re.search(r"^upstream tetriwar_0 \{ server 127.0.0.1:8001; \}$", text, re.M)
    # without pages of their own, every process serves them
    assert upstream_servers(nginx.site(["127.0.0.1:8001", "127.0.0.1:8002"], 2)) == ["127.0.0.1:8001", "127.0.0.1:8002"]
    with pytest.raises(ValueError, match="hosts no table"):
        nginx.site(["127.0.0.1:8001", "127.0.0.1:8002"], 2, pages=["127.0.0.1:8002"])


def test_every_request_and_socket_is_limited_per_address_more_loosely_than_the_site():
    text = nginx.site(["127.0.0.1:8001"], 1, pages=["127.0.0.1:8003"])
    pages = re.search(r"location / \{(.*?)\}", text, re.S).group(1)
    sockets = re.search(r"location /ws/ \{(.*?)\}", text, re.S).group(1)
    assert "limit_req zone=tetriwar_requests" in pages and "limit_req zone=tetriwar_sockets" in sockets
    assert re.search(r"^    limit_conn tetriwar_addresses \d+;$", text, re.M)  # the server: both locations
    assert "limit_req_status 429;" in text and "limit_conn_status 429;" in text
    # in front of the site's own limits, looser than they are: the site refuses first, in its words
    assert nginx.REQUESTS_PER_SECOND >= 2 * settings.HTTP_REQUESTS_PER_SECOND
    assert nginx.REQUEST_BURST >= 2 * settings.HTTP_REQUEST_BURST
    assert nginx.SOCKETS_PER_MINUTE >= 2 * settings.WS_NEW_SOCKETS_PER_MINUTE
    assert nginx.CONNECTIONS >= 2 * settings.WS_MAX_SOCKETS_PER_ADDRESS + 6
    assert f"rate={nginx.REQUESTS_PER_SECOND}r/s" in text and f"burst={nginx.REQUEST_BURST} " in text
