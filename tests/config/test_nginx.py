"""The nginx site config/nginx.py writes: docs/operations.md shows it as written, and its map
sends every table's socket to the process hosting the table. Served by a real nginx
in tests/services/test_nginx_scale_out.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

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
    written = nginx.site(["127.0.0.1:8001", "127.0.0.1:8002"], 2)
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
