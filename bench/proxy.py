"""Debian's nginx in front of the Daphne processes, as operators run it: the site
config/nginx.py writes (the one docs/operations.md shows), served by an nginx master process of its own
with its configuration, pid, logs and temporary files in one directory, listening on
a loopback port, and stopped at the end. The system's nginx service is never used.

Used by ``bench/live.py --proxy nginx`` and tests/services/test_nginx_scale_out.py.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from bench import machine
from bench.server import free_port
from config import nginx as site_config

SBIN = "/usr/sbin/nginx"  # Debian's; not on a non-root user's PATH


def binary() -> str | None:
    """Where nginx is, or None (``apt-get install -y nginx``)."""
    if os.access(SBIN, os.X_OK):
        return SBIN
    return shutil.which("nginx")


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (the master's workers)."""
    return [task.pid for task in machine.scan().values() if task.ppid == pid]


class Nginx:
    """nginx proxying ``127.0.0.1:<port>`` to the Daphnes at ``servers`` (``host:port``),
    process n hosting the shards s with s % len(servers) == n (``shards`` 0: none), and
    at ``pages`` for what is not a table's socket (none: ``servers``)."""

    def __init__(self, directory: str | Path, servers: list[str], shards: int, *, port: int | None = None,
                 preexec_fn: Callable[[], None] | None = None, pages: list[str] | None = None) -> None:
        self.dir = Path(directory)
        self.servers = servers
        self.pages = list(pages or [])
        self.shards = shards
        self.port = port or free_port()
        self.preexec_fn = preexec_fn
        self.proc: subprocess.Popen | None = None
        self.log = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def conf(self) -> Path:
        return self.dir / "nginx.conf"

    def write(self) -> Path:
        self.dir.mkdir(parents=True, exist_ok=True)
        site = site_config.site(self.servers, self.shards, listen=f"127.0.0.1:{self.port}", server_name="_",
                                pages=self.pages)
        user = pwd.getpwuid(os.geteuid()).pw_name if os.geteuid() == 0 else None
        self.conf.write_text(site_config.standalone(site, str(self.dir), user=user))
        return self.conf

    def command(self, *extra: str) -> list[str]:
        nginx = binary()
        if nginx is None:
            raise RuntimeError("nginx is not installed (apt-get install -y nginx)")
        # -e: the error log before the configuration is read, in the same directory.
        return [nginx, "-p", f"{self.dir}/", "-c", str(self.conf), "-e", str(self.dir / "error.log"), *extra]

    def start(self, seconds: float = 15) -> None:
        self.write()
        check = subprocess.run(self.command("-t", "-q"), capture_output=True, text=True, timeout=30)
        if check.returncode != 0:
            raise RuntimeError(f"nginx -t refused {self.conf}:\n{check.stderr}")
        self.log = open(self.dir / "nginx.out", "w")
        # In the foreground, so that the master is this Popen and SIGTERM stops it.
        self.proc = subprocess.Popen(self.command("-g", "daemon off;"), stdout=self.log, stderr=subprocess.STDOUT,
                                     preexec_fn=self.preexec_fn)
        deadline = time.monotonic() + seconds
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"nginx exited with {self.proc.returncode}:\n{self.errors()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"nginx did not listen on {self.port}:\n{self.errors()}") from None
                time.sleep(0.05)

    @property
    def pids(self) -> list[int]:
        """The master and its workers."""
        if self.proc is None or self.proc.poll() is not None:
            return []
        return [self.proc.pid, *_children(self.proc.pid)]

    def check(self) -> None:
        if self.proc is not None and self.proc.poll() is not None:
            raise RuntimeError(f"nginx exited with {self.proc.returncode}:\n{self.errors()}")

    def stop(self) -> None:
        """A fast shutdown (SIGTERM): open sockets are cut, as the Daphnes' are."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.log is not None:
            self.log.close()
            self.log = None

    def errors(self) -> str:
        texts = []
        for name in ("error.log", "nginx.out"):
            path = self.dir / name
            if path.exists():
                texts.append(path.read_text()[-3000:])
        return "\n".join(texts)

    def requests(self) -> list[tuple[str, str, str, str, str]]:
        """The access log: ``(client, method, uri, status, upstream)`` per request, a
        WebSocket's written when it closes. ``upstream`` is the Daphne it reached."""
        path = self.dir / "access.log"
        if not path.exists():
            return []
        rows = []
        for line in path.read_text().splitlines():
            fields = line.split(" ", 4)
            if len(fields) == 5:
                rows.append(tuple(fields))
        return rows

    def socket_routes(self) -> tuple[int, int]:
        """Of the table sockets the access log shows, how many reached the Daphne
        hosting their table, and how many there were."""
        to_host = total = 0
        for _client, _method, uri, _status, upstream in self.requests():
            parts = uri.strip("/").split("/")
            if len(parts) != 3 or parts[:2] != ["ws", "table"] or not parts[2].isdigit():
                continue
            total += 1
            if self.shards and upstream == self.servers[site_config.host_of(int(parts[2]), self.shards,
                                                                             len(self.servers))]:
                to_host += 1
        return to_host, total
