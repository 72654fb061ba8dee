"""The nginx site in front of several Daphne processes: the one place its text is
written. docs/operations.md shows it, the tests serve it with Debian's nginx
(tests/services/test_nginx_scale_out.py) and ``bench/live.py --proxy nginx``
measures through it, so what an operator copies is what was tested.

    python -m config.nginx --servers 127.0.0.1:8001,127.0.0.1:8002 --shards 2 \\
                           [--pages 127.0.0.1:8003] [--listen 80] [--server-name tetriwar.example]

prints the site (``upstream``s, ``map``s, limits and a ``server`` block) for nginx's
``http`` context (``/etc/nginx/sites-enabled/tetriwar``). Process n of ``--servers``
hosts the shards s with s % processes == n (``HOSTED_SHARDS``), and table t lives in
shard t % ``GAME_HOST_SHARDS``: a table's socket, ``/ws/table/<t>/``, goes to the
process hosting its shard. Any other request (pages, static files, the lobby's socket)
goes to the ``--pages`` processes, which host no table, so a storm of pages never
shares a process with live tables (issue 52); without ``--pages``, to any process.

In front of the site's own limits (docs/operations.md, "Limits"), which hold behind it,
nginx limits each client address too, at twice the site's defaults: an honest address
meets the site's clear refusals first, and a flood stops here, in C, before it costs a
Daphne anything.
"""

from __future__ import annotations

import argparse
import os

# Table ids are decimal, and nginx cannot compute t % K: the map reads the last
# digits. That decides (t % K) % processes whenever it repeats every 10**d ids (any
# even K over two processes, by the last digit); beyond three digits the map would
# have more lines than it is worth.
MAX_DIGITS = 3

# Per client address, twice the site's defaults (config/settings.py): requests a second
# and their burst (HTTP_REQUESTS_PER_SECOND, HTTP_REQUEST_BURST), new sockets a minute
# (WS_NEW_SOCKETS_PER_MINUTE), and connections at once, sockets and requests under way
# (WS_MAX_SOCKETS_PER_ADDRESS, and a browser's six).
REQUESTS_PER_SECOND = 40
REQUEST_BURST = 240
SOCKETS_PER_MINUTE = 120
CONNECTIONS = 52


def host_of(table: int, shards: int, processes: int) -> int:
    """The process (an index into the list of servers) hosting table ``table``."""
    return table % shards % processes


def _digits(shards: int, processes: int) -> int:
    """The fewest trailing digits of a table id that decide its process."""
    for d in range(1, MAX_DIGITS + 1):
        # host_of repeats every ``shards`` ids: it repeats every 10**d ids too when
        # each of one period's ids agrees with the id 10**d further on.
        if all(host_of(t, shards, processes) == host_of(t + 10**d, shards, processes) for t in range(shards)):
            return d
    raise ValueError(
        f"{shards} shards over {processes} processes: no rule on the last {MAX_DIGITS} digits of a table id "
        "sends each table to its host (an even number of shards over two processes has one, and so do 10 or 100 "
        "shards over any number)"
    )


def _pattern(ends: list[str], shorter: list[str]) -> str:
    """A regex for ``/ws/table/<id>/`` whose id ends with one of ``ends`` (all of one
    length) or is one of the ``shorter`` ids."""
    by_head: dict[str, list[str]] = {}
    for end in ends:
        by_head.setdefault(end[:-1], []).append(end[-1])
    parts = [head + (last[0] if len(last) == 1 else "[" + "".join(last) + "]") for head, last in by_head.items()]
    tail = r"\d*" + (parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")")
    alternatives = [tail, *shorter]
    body = alternatives[0] if len(alternatives) == 1 else "(?:" + "|".join(alternatives) + ")"
    return rf"~^/ws/table/{body}/$"


def socket_map(shards: int, processes: int) -> list[tuple[str, str]]:
    """``(regex, upstream)`` lines sending each table's socket to the upstream of the
    process hosting its shard."""
    if processes < 2:
        return []  # one process hosts everything: the default upstream is it
    d = _digits(shards, processes)
    lines = []
    for n in range(processes):
        ends = [f"{r:0{d}d}" for r in range(10**d) if host_of(r, shards, processes) == n]
        if not ends:
            continue
        # An id shorter than d digits is its own residue: named whole, as \d* cannot pad it.
        shorter = [str(r) for r in range(10 ** (d - 1)) if d > 1 and host_of(r, shards, processes) == n]
        lines.append((_pattern(ends, shorter), f"tetriwar_{n}"))
    return lines


SITE = """\
# {generated}
# The sockets of a table go to the Daphne process hosting it, each upstream on its own;
# everything else (pages, static files, the lobby's socket) to {pages}.
{upstreams}
upstream tetriwar {{
{servers}
    keepalive 16;
}}

# Per client address, in front of the site's own limits (twice their defaults): requests,
# new sockets, and connections at once (sockets and requests under way). Over them: 429.
limit_req_zone $binary_remote_addr zone=tetriwar_requests:10m rate={requests_per_second}r/s;
limit_req_zone $binary_remote_addr zone=tetriwar_sockets:10m rate={sockets_per_minute}r/m;
limit_conn_zone $binary_remote_addr zone=tetriwar_addresses:10m;

# A table's socket, /ws/table/<id>/, goes to the process hosting the table: table id
# % {shards} shards, process n hosting the shards s with s % {processes} == n (HOSTED_SHARDS).
map $uri $tetriwar_socket_host {{
{routes}    default tetriwar;
}}

map $http_upgrade $tetriwar_connection {{
    default upgrade;
    ""      close;
}}

server {{
    listen {listen};
    server_name {server_name};
    limit_req_status 429;
    limit_conn_status 429;
    limit_conn tetriwar_addresses {connections};

    # Each location repeats the forwarded headers: a proxy_set_header in a location
    # drops every one set around it. Daphne believes them from TRUSTED_PROXIES only.
    location /ws/ {{
        limit_req zone=tetriwar_sockets burst={sockets_per_minute} nodelay;
        proxy_pass http://$tetriwar_socket_host;
        proxy_http_version 1.1;
        proxy_set_header Upgrade $http_upgrade;
        proxy_set_header Connection $tetriwar_connection;
        proxy_set_header Host $http_host;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_set_header X-Forwarded-Proto $scheme;
        # A socket may stay quiet for minutes (a lobby nobody moves in); nginx's
        # default would close it after 60 s.
        proxy_read_timeout 1h;
        proxy_send_timeout 1h;
    }}

    location / {{
        limit_req zone=tetriwar_requests burst={request_burst} nodelay;
        proxy_pass http://tetriwar;
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_set_header Host $http_host;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_set_header X-Forwarded-Proto $scheme;
    }}
}}
"""


def site(servers: list[str], shards: int, listen: str = "80", server_name: str = "tetriwar.example",
         pages: list[str] | None = None) -> str:
    """The site for nginx's ``http`` context: Daphne processes at ``servers``
    (``host:port``), process n hosting the shards s with s % len(servers) == n, and
    ``pages``, processes hosting no table, for everything but the tables' sockets (none:
    ``servers`` serve it). ``shards`` 0: no process hosts tables (``runworker`` workers
    do), so every socket goes to any process."""
    if not servers:
        raise ValueError("at least one Daphne process")
    pages = list(pages or [])
    if set(pages) & set(servers):
        raise ValueError("a process serving pages hosts no table: it is not among --servers")
    routes = socket_map(shards, len(servers)) if shards else []
    width = max((len(pattern) for pattern, _ in routes), default=0)
    command = f"python -m config.nginx --servers {','.join(servers)} --shards {shards}"
    if pages:
        command += f" --pages {','.join(pages)}"
    if listen != "80":
        command += f" --listen {listen}"
    if server_name != "tetriwar.example":
        command += f" --server-name {server_name}"
    return SITE.format(
        generated=f"Generated by `{command}` (config/nginx.py).",
        upstreams="\n".join(f"upstream tetriwar_{n} {{ server {s}; }}" for n, s in enumerate(servers)),
        pages="the processes that host no table" if pages else "any of them",
        servers="\n".join(f"    server {s};" for s in pages or servers),
        requests_per_second=REQUESTS_PER_SECOND,
        request_burst=REQUEST_BURST,
        sockets_per_minute=SOCKETS_PER_MINUTE,
        connections=CONNECTIONS,
        shards=shards or "no",
        processes=len(servers),
        routes="".join(f"    {pattern:<{width}} {upstream};\n" for pattern, upstream in routes),
        listen=listen,
        server_name=server_name,
    )


# The access log names the process each request reached ($upstream_addr): the test
# and the bench read from it that a table's sockets went to its host.
LOG_FORMAT = "$remote_addr $request_method $uri $status $upstream_addr"


def standalone(site_text: str, prefix: str, *, user: str | None = None) -> str:
    """A whole nginx.conf serving ``site_text`` with everything of its own in
    ``prefix`` (pid, logs, temporary files): for a test or a benchmark, never the
    system's nginx. One worker: on this machine's two cores the server side gets
    one (bench/live.py's pinning)."""
    path = os.path.abspath(prefix)
    try:
        import resource

        files = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    except (ImportError, ValueError):
        files = 4096
    files = min(files if files > 0 else 65536, 65536)
    lines = [
        # As root, nginx would run its worker as nobody, who cannot enter a private
        # temporary directory.
        f"user {user};" if user else None,
        "worker_processes 1;",
        f"worker_rlimit_nofile {files};",
        f"pid {path}/nginx.pid;",
        f"error_log {path}/error.log warn;",
        f"events {{ worker_connections {max(1024, files // 2)}; }}",
        "http {",
        f"    log_format tetriwar '{LOG_FORMAT}';",
        f"    access_log {path}/access.log tetriwar;",
        *(f"    {kind}_temp_path {path}/{kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")),
        *("    " + line if line else "" for line in site_text.splitlines()),
        "}",
        "",
    ]
    return "\n".join(line for line in lines if line is not None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--servers", required=True, help="the Daphne processes, host:port, comma-separated")
    parser.add_argument("--shards", type=int, default=2, help="GAME_HOST_SHARDS (0: tables hosted by workers)")
    parser.add_argument("--pages", default="",
                        help="the Daphne processes hosting no table (HOSTED_SHARDS empty), host:port, "
                             "comma-separated: pages, static files and the lobby go there alone")
    parser.add_argument("--listen", default="80")
    parser.add_argument("--server-name", default="tetriwar.example")
    args = parser.parse_args()
    servers = [s.strip() for s in args.servers.split(",") if s.strip()]
    try:
        pages = [s.strip() for s in args.pages.split(",") if s.strip()]
        print(site(servers, args.shards, args.listen, args.server_name, pages), end="")
    except ValueError as err:
        parser.error(str(err))


if __name__ == "__main__":
    main()
