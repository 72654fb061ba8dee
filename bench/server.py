"""The site under a benchmark: its servers' environment, the data written before they
start, and the server processes themselves (Daphnes, workers), started on the server
CPUs (bench/machine.py: pinned before they run anything, so every thread they start is
too), measured from /proc and always stopped. Django is set up only when asked
(``django_setup``), so that bench/floor.py, which serves no site, needs none of it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from bench import machine
from bench.client import fetch

ROOT = Path(__file__).resolve().parent.parent
PG = "postgresql://postgres@127.0.0.1:5432"  # the machine's PostgreSQL (scale-out)
REDIS = "redis://127.0.0.1:6379"  # the machine's Redis (scale-out)
# A TetriWar table as the benchmarks open it (bench/live.py's --minutes changes its copy)
TETRIWAR_OPTIONS = {"minutes": 15, "start_level": 1, "lines_per_level": 10, "bombs": "manual", "pairs": False}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_env(
    tmp: str, *, database_url: str = "", redis_url: str = "", shards: int = 1, **settings: str
) -> dict[str, str]:
    """The environment of every server process (and of the bench's own Django): its
    whole configuration, whatever the settings' defaults are (``DEBUG=false``, a random
    ``SECRET_KEY``, ``SECURE_SSL_REDIRECT=false``, ``ALLOWED_HOSTS``), SQLite in ``tmp``
    unless ``database_url``, the in-memory channel layer unless ``redis_url``, and any
    further ``settings`` of the bench's own."""
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        SQLITE_NAME=os.path.join(tmp, "bench.sqlite3"),
        STATIC_ROOT=os.path.join(tmp, "static"),
        DEBUG="false",
        SECRET_KEY="bench-" + secrets.token_urlsafe(48),
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_SSL_REDIRECT="false",
        LOG_LEVEL="WARNING",
        GAME_HOST_SHARDS=str(shards),
    )
    env.update(settings)
    for name, value in (("DATABASE_URL", database_url), ("REDIS_URL", redis_url)):
        if value:
            env[name] = value
        else:
            env.pop(name, None)
    return env


# --- the site's data, written before the servers start --------------------------------------

def django_in_process() -> None:
    """Django in the bench's own process, on the development settings unless the
    environment names others: for a bench of the site's code with no server
    (bench/render.py, bench/replay.py, bench/matching.py)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("DEBUG", "true")
    import django

    django.setup()


def django_setup(env: dict[str, str]) -> None:
    """The bench's own Django, on the servers' environment: the database migrated and
    the static files collected, before any server starts. The collected files are
    shared by every run of these same files (``env``'s ``STATIC_ROOT`` is set to them)."""
    static_root = Path(tempfile.gettempdir()) / f"tetriwar-bench-static-{static_key(env)}"
    env["STATIC_ROOT"] = str(static_root)
    os.environ.update(env)
    for name in ("DATABASE_URL", "REDIS_URL"):  # settings read these at django.setup()
        if name not in env:
            os.environ.pop(name, None)
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    database = settings.DATABASES["default"]
    if database["ENGINE"] == "django.db.backends.sqlite3":
        migrated_sqlite(database["NAME"])
    else:
        call_command("migrate", verbosity=0)
    with open(f"{static_root}.lock", "w") as lock:  # one run collects; the others wait for it
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (static_root / ".collected").exists():
            call_command("collectstatic", verbosity=0, interactive=False)
            (static_root / ".collected").touch()


def files_key(words: str, paths) -> str:
    """A short name for ``words`` and the files at ``paths`` (each one's path and content)."""
    import hashlib

    digest = hashlib.sha256(words.encode())
    for path in sorted(path for path in paths if path.is_file()):
        digest.update(b"\0" + str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def static_key(env: dict[str, str]) -> str:
    """What the collected static files depend on: the packages that bring some (Django's
    admin, django-htmx), the project's own files, and ``DEBUG`` (whose storage names
    them with their hashes, or not)."""
    from importlib.metadata import version

    return files_key(f"{env.get('DEBUG')} {version('django')} {version('django-htmx')}", (ROOT / "static").rglob("*"))


def migrations_key() -> str:
    """What a migrated database depends on: Django's version and every migration file."""
    from importlib.metadata import version

    return files_key(version("django"), ROOT.glob("*/migrations/*.py"))


def sqlite_copy(source: str | Path, copy: str | Path) -> None:
    """The SQLite database ``source`` written whole into ``copy`` (SQLite's backup: its
    write-ahead log included)."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(source)) as a, contextlib.closing(sqlite3.connect(copy)) as b:
        a.backup(b)


def migrated_sqlite(name: str) -> None:
    """The SQLite database ``name``, migrated: a copy of the database migrated once for
    these migrations (in the temporary folder), made by the first run that needs it.
    Each point of a sweep and each benchmark of a test run starts from it instead of
    migrating again (two seconds each)."""
    from django.core.management import call_command
    from django.db import connections

    template = Path(tempfile.gettempdir()) / f"tetriwar-bench-migrated-{migrations_key()}.sqlite3"
    if template.exists():
        sqlite_copy(template, name)
        return
    call_command("migrate", verbosity=0)
    connections["default"].close()
    partial = template.with_name(f"{template.name}.{os.getpid()}")
    sqlite_copy(name, partial)
    os.replace(partial, template)  # whole or not at all: another run may be reading it


def session_backend() -> str:
    """The authentication backend a session names, as a log-in through the site would:
    ``SESSION_AUTH_BACKEND`` if the settings name one, else the first backend that can
    load a user (django-axes' backend, listed first, only checks log-ins)."""
    from django.conf import settings
    from django.contrib.auth import load_backend

    named = getattr(settings, "SESSION_AUTH_BACKEND", "")
    if named:
        return named
    return next(path for path in settings.AUTHENTICATION_BACKENDS if hasattr(load_backend(path), "get_user"))


def login(username: str):
    """A new user with a session in the database: ``(user, its PlayerRef, "sessionid=…")``."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    from accounts.identity import PlayerRef
    from accounts.models import User

    user = User.objects.create_user(username, password="bench-pass-123")
    store = SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = session_backend()
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    ref = PlayerRef(user_id=user.pk, guest_token="", name=user.username)
    return user, ref, f"{settings.SESSION_COOKIE_NAME}={store.session_key}"


# --- the server processes ---------------------------------------------------------------------

def stop_on_sigterm() -> None:
    """A SIGTERM to the bench ends it as an error does, through its cleanup (its servers
    stopped, a scratch database dropped), rather than at once."""
    def terminated(signum, frame) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, terminated)


def die_with_parent() -> None:
    """In a server process before exec: get SIGTERM if the bench dies (Linux)."""
    try:
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except Exception:
        pass


class Servers:
    """The server processes (Daphnes and workers): started on the server CPUs (``cpus``;
    None: wherever the bench runs), measured, always stopped. Each one's output goes to
    ``<tmp>/<name>.log``."""

    def __init__(self, tmp: str, cpus: frozenset[int] | None = None) -> None:
        self.tmp = tmp
        self.cpus = cpus
        self.procs: list[tuple[str, subprocess.Popen, object]] = []

    @classmethod
    @contextlib.contextmanager
    def scratch(cls, prefix: str, cpus: frozenset[int] | None = None, *,
                keep: bool = False) -> Iterator[Servers]:
        """The servers of one run, in a temporary folder of its own (``tmp``: their logs,
        the SQLite database, the static files): on an error their logs' last lines go to
        standard error; at the end every one is stopped and the folder removed (named on
        standard error and left, with ``keep``)."""
        servers = cls(tempfile.mkdtemp(prefix=prefix), cpus)
        try:
            yield servers
        except BaseException:
            servers.dump_logs()
            raise
        finally:
            servers.stop()
            if keep:
                print(f"kept: {servers.tmp}", file=sys.stderr)
            else:
                shutil.rmtree(servers.tmp, ignore_errors=True)

    def start(self, name: str, args: list[str], env: dict[str, str]) -> subprocess.Popen:
        log = open(os.path.join(self.tmp, f"{name}.log"), "w")
        preexec = None
        if sys.platform.startswith("linux"):
            # pinned before it runs anything, so that every thread it starts is pinned too
            preexec = machine.pin_at_exec(self.cpus, then=die_with_parent) if self.cpus else die_with_parent
        proc = subprocess.Popen([sys.executable, *args], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                preexec_fn=preexec)
        self.procs.append((name, proc, log))
        return proc

    def daphne(self, name: str, port: int, env: dict[str, str],
               application: str = "config.asgi:application") -> subprocess.Popen:
        return self.start(name, ["-m", "daphne", "-b", "127.0.0.1", "-p", str(port), application], env)

    def wait_for_port(self, port: int, seconds: float = 30) -> None:
        """Until a server listens on ``port``; raises if one of them exits first."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.check()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"no server on port {port} after {seconds:.0f} s")

    def check(self) -> None:
        for name, proc, _log in self.procs:
            if proc.poll() is not None:
                raise RuntimeError(f"server process {name} exited with {proc.returncode}")

    @property
    def names(self) -> list[str]:
        return [name for name, _proc, _log in self.procs]

    @property
    def pids(self) -> list[int]:
        return [proc.pid for _name, proc, _log in self.procs]

    def stop(self) -> None:
        for _name, proc, _log in self.procs:
            if proc.poll() is None:
                proc.terminate()
        deadline = time.monotonic() + 5
        for _name, proc, _log in self.procs:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for _name, _proc, log in self.procs:
            log.close()

    def dump_logs(self) -> None:
        """The last lines of every server's log, on the bench's standard error (its
        standard output holds figures only)."""
        for name, _proc, log in self.procs:
            log.flush()
            with open(log.name, errors="replace") as f:
                lines = [line for line in f if "WSCONNECT" not in line and "WSDISCONNECT" not in line]
            sys.stderr.write(f"--- {name} log (last lines) ---\n" + "".join(lines)[-4000:])


def warm_up(base: str) -> None:
    """One page from a fresh server, so its baseline memory holds Django's first request."""
    try:
        fetch(f"{base}/")
    except OSError:
        pass


def cpu_of(pid: int) -> float:
    """User + system CPU of a process (all its threads), from /proc/<pid>/stat."""
    task = machine.read_task(pid)
    if task is None:
        raise ProcessLookupError(f"process {pid} is gone")
    return task.cpu / machine.CLOCK_TICKS


def cpu_seconds(pids: list[int]) -> float:
    return sum(cpu_of(pid) for pid in pids)


def rss_mb(pids: list[int]) -> float:
    """Resident memory of these processes (VmRSS of /proc/<pid>/status), in MB."""
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/status") as f:
            total += next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    return total / 1024


# --- the services a scale-out run uses (not started by the bench) -----------------------------

class ScratchDatabase:
    """A PostgreSQL database of this run's own on the server at ``server`` (a URL without
    a database), created when asked and dropped (WITH (FORCE)) at the end."""

    def __init__(self, server: str = PG, prefix: str = "tetriwar_bench_") -> None:
        self.server = server
        self.name = f"{prefix}{secrets.token_hex(4)}"
        self.created = False

    @property
    def url(self) -> str:
        return f"{self.server}/{self.name}"

    def create(self, *, migrated: bool = False) -> None:
        """The database, empty, or ``migrated``: a copy of the one migrated once for
        these migrations (``migrated_postgres``)."""
        import psycopg

        with psycopg.connect(f"{self.server}/postgres", autocommit=True) as conn:
            if migrated:
                with migrated_postgres(conn, self.server) as template:
                    conn.execute(f'CREATE DATABASE "{self.name}" TEMPLATE "{template}"')
            else:
                conn.execute(f'CREATE DATABASE "{self.name}"')
        self.created = True

    def drop(self) -> None:
        if not self.created:
            return
        import psycopg

        try:
            from django.db import connections

            connections.close_all()
        except Exception:
            pass
        with psycopg.connect(f"{self.server}/postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
        self.created = False


TEMPLATE_LOCK = 7_317_447  # the advisory lock under which a migrated template is made or copied


@contextlib.contextmanager
def migrated_postgres(conn, server: str = PG) -> Iterator[str]:
    """The name of a database on ``server`` migrated for these migrations, made by
    ``manage.py migrate`` the first time it is asked for (under an advisory lock, so
    that two processes asking at once make it once), to copy while the block runs
    (``CREATE DATABASE … TEMPLATE``, which must not meet anyone in the template: the
    lock is held until the block ends). A copy takes a fraction of a second; migrating
    a new database, several seconds."""
    name = f"tetriwar_migrated_{migrations_key()}"
    conn.execute("SELECT pg_advisory_lock(%s)", (TEMPLATE_LOCK,))
    try:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
            partial = f"{name}_partial"
            conn.execute(f'DROP DATABASE IF EXISTS "{partial}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{partial}"')
            env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "DEBUG": "true",
                   "DATABASE_URL": f"{server}/{partial}"}
            env.pop("REDIS_URL", None)
            subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True,
                           timeout=300)
            conn.execute(f'ALTER DATABASE "{partial}" RENAME TO "{name}"')  # whole or not at all
        yield name
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (TEMPLATE_LOCK,))


def scale_out_sampler(scratch: ScratchDatabase | None) -> machine.Machine:
    """The machine's sampler of a run, which in scale-out (``scratch``: its database)
    counts the machine's PostgreSQL and Redis as the bench's own, not as others': they
    work for it, though it did not start them (and does not pin them): its scratch
    database's backends and the Redis server."""
    if scratch is None:
        return machine.Machine()
    return machine.Machine(claim=lambda line: scratch.name in line or line.startswith("redis-server"))


def flush_redis(url: str) -> None:
    import redis

    client = redis.Redis.from_url(url)
    try:
        client.flushdb()
    finally:
        client.close()


def wait_for_heartbeats(shards: int, since, servers: Servers, seconds: float = 60) -> None:
    """Until every shard's worker has beaten since ``since`` (it listens by then)."""
    from django.db import close_old_connections

    from games.models import HostHeartbeat

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        servers.check()
        close_old_connections()
        if HostHeartbeat.objects.filter(shard__in=range(shards), beat_at__gte=since).count() == shards:
            return
        time.sleep(0.2)
    raise RuntimeError(f"the workers' heartbeats did not appear within {seconds:.0f} s")
