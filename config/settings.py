"""TetriWar settings.

Twelve-factor: everything that differs between a laptop and a deployment comes
from the environment (see config/env.py), with an embedded default that needs no
service: SQLite and the in-memory channel layer. ``DATABASE_URL`` switches to
PostgreSQL and ``REDIS_URL`` to channels_redis.
"""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF, UNSAFE_INLINE

from config.env import EnvError, env_bool, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent

# Off unless asked for: a deployment that forgets a variable must not serve debug
# pages. `make run` and the test suite (pyproject.toml) ask for it.
DEBUG = env_bool("DEBUG", False)

_DEV_SECRET_KEY = "django-insecure-dev-only-key-change-me-in-production-0123456789"
SECRET_KEY = env_str("SECRET_KEY", _DEV_SECRET_KEY if DEBUG else "")
if not SECRET_KEY:
    raise EnvError(
        "SECRET_KEY is not set. For local development run `make run` or set DEBUG=true; "
        "in production set SECRET_KEY to a long random value."
    )

# Proxies whose X-Forwarded-For is believed (addresses or networks such as
# 10.0.0.0/8); empty: the socket's peer is the client (config/network.py).
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES", [])
for _proxy in TRUSTED_PROXIES:
    try:
        ipaddress.ip_network(_proxy, strict=False)
    except ValueError:
        raise EnvError(f"TRUSTED_PROXIES: {_proxy!r} is not an address or network") from None

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    # Daphne first: `manage.py runserver` then serves ASGI, WebSockets included.
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    # games before channels: its runworker (with table-host heartbeats) wins.
    "games",
    "channels",
    "django_htmx",
    "csp",
    "template_partials",
    "accounts",
    "lobby",
    "axes",  # log-in throttling: its attempts are rows, seen and cleared in the admin
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Static files never reach sessions or views. The chain runs synchronously, in
    # one hop onto a request thread (config/handlers.py).
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "config.csp.SiteCSPMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The language: the cookie set by the header's menu, else the browser's
    # Accept-Language; the same URLs in every language (no prefix).
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # A signed-in account's saved language wins: it follows the player across devices.
    "accounts.middleware.AccountLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last: turns a locked-out log-in into the lockout page (AXES_LOCKOUT_TEMPLATE).
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "accounts.context_processors.player",
                "games.context_processors.games",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

# Database: SQLite by default; DATABASE_URL (e.g. postgres://user@127.0.0.1/tetriwar)
# selects another. The test database always has an explicit name: the live-server
# tests run the consumer in a child process that must find the same database
# (STACK.md, pitfall 2).
_SQLITE_PATH = BASE_DIR / env_str("SQLITE_NAME", "db.sqlite3")
DATABASE_URL = env_str("DATABASE_URL", "")
if DATABASE_URL:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60)}
    _test_name = "test_" + (DATABASES["default"].get("NAME") or "tetriwar")
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": _SQLITE_PATH,
            # Keep the connection: the live consumers reach the database often.
            "CONN_MAX_AGE": None,
            # Many sockets write at once (joins, seats, results): take the write
            # lock at BEGIN so a transaction never fails upgrading from a read, and
            # let readers go on beside the writer (WAL).
            "OPTIONS": {
                "timeout": 20,
                "transaction_mode": "IMMEDIATE",
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
        }
    }
    _test_name = str(BASE_DIR / "test_db.sqlite3")
DATABASES["default"]["TEST"] = {"NAME": env_str("TEST_DATABASE_NAME", _test_name)}

# Channel layer: in-memory (one process) by default, Channels' own with its sweep of
# expired messages paced (config/layers.py); REDIS_URL selects Redis so several
# processes share tables.
REDIS_URL = env_str("REDIS_URL", "")
EMBEDDED_CHANNEL_LAYER = {"BACKEND": "config.layers.PacedInMemoryChannelLayer"}
if REDIS_URL:
    # Redis pub/sub: a group message is published once and each process fans it out
    # to its own sockets. The hot path, a table's intents and fragments, stays inside
    # the process that hosts the table (games/hub.py); the layer carries the rest.
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL]},
        }
    }
else:
    CHANNEL_LAYERS = {"default": EMBEDDED_CHANNEL_LAYER}

# The cache holds sessions (read on every request, falling back to the database)
# and rendered lobby rows. One process: its own memory. Several: the shared Redis,
# so that a change made through one process is seen by all.
if REDIS_URL:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "OPTIONS": {"MAX_ENTRIES": 1000}}}
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"

AUTH_USER_MODEL = "accounts.User"
# Django's ModelBackend, with the user of a session read through the cache.
# django-axes first: it refuses a locked-out log-in before any password is checked.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "accounts.backends.CachedModelBackend"]
# The backend that holds sessions (axes' checks log in nobody): name it, not [0].
SESSION_AUTH_BACKEND = "accounts.backends.CachedModelBackend"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "lobby:index"
LOGOUT_REDIRECT_URL = "home"

# The site in four languages (docs/features.md, "Languages"). Names in their own language:
# the menu is read by people who may not read the current one.
LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", "English"),
    ("de", "Deutsch"),
    ("es", "Español"),
    ("zh-hans", "简体中文"),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
# One format per language for a time of day, a date, and both (config/formats/__init__.py).
FORMAT_MODULE_PATH = ["config.formats"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / env_str("STATIC_ROOT", "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "config.storage.StaticFilesStorage"
            if not DEBUG
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

EMAIL_BACKEND = env_str("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "TetriWar <noreply@tetriwar.local>")

# Security: Django's defaults stay on; with DEBUG off we assume TLS in front.
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
if not DEBUG:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SECURE_REFERRER_POLICY = "same-origin"

# Content-Security-Policy (django-csp; config/csp.py adds the page's WebSocket origin
# to connect-src). Scripts and stylesheets come only from our own static files: no
# inline <script> or <style>, no on*= handlers, no eval (base.html turns off htmx's
# eval and its injected indicator <style>). No nonces: table pages are assembled from
# panels cached per version, which a per-response nonce would not match.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        # Style attributes only, never <style> elements: a falling piece is pushed
        # many times a second as its position in custom properties,
        # style="--x:3;--y:17" (games/tetriwar/render.py).
        "style-src-attr": [UNSAFE_INLINE],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

# One handler, on the root logger: every line is written once. Django's own default
# gives the "django" logger a console handler of its own (with DEBUG on), which wrote
# each of its lines twice, once there and once again through root: it is taken off.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {
        "django": {"handlers": [], "level": "INFO", "propagate": True},
        "django.channels.server": {"level": "WARNING"},
        # django-axes announces itself in every process and each successful log-in;
        # its warnings (failures, lockouts) still show.
        "axes": {"level": "WARNING"},
    },
}

# /metrics (config/metrics.py): with several processes, a directory they all share,
# emptied before they start, where prometheus-client keeps each process's values.
# Set at all, even empty, it turns that mode on: then it must name a directory, or
# prometheus-client would fail at the first metric (or write into the working directory).
PROMETHEUS_MULTIPROC_DIR = env_str("PROMETHEUS_MULTIPROC_DIR", "")
if "PROMETHEUS_MULTIPROC_DIR" in os.environ and not (
    PROMETHEUS_MULTIPROC_DIR and Path(PROMETHEUS_MULTIPROC_DIR).is_dir()
):
    raise EnvError(f"PROMETHEUS_MULTIPROC_DIR: {PROMETHEUS_MULTIPROC_DIR!r} is not a directory")

# What one client may cost (lobby/edge.py, config/transport.py, config/handlers.py).
# Frames: a budget per player, shared by all its sockets; a frame costs 1, plus 1 per
# 512 bytes; over it, the socket is closed (4008). A fast human sends about 20 a second
# (a held key repeats every 50 ms), bursts of a few more.
WS_FRAMES_PER_SECOND = env_int("WS_FRAMES_PER_SECOND", 40, minimum=1)
WS_FRAME_BURST = env_int("WS_FRAME_BURST", 80, minimum=1)
WS_FLOOD_COOLOFF_SECONDS = env_int("WS_FLOOD_COOLOFF_SECONDS", 60, minimum=1)  # no new socket from a flooder's address
WS_MAX_FRAME_BYTES = env_int("WS_MAX_FRAME_BYTES", 1024, minimum=1)  # a frame is a few dozen bytes
WS_MAX_MESSAGE_BYTES = env_int("WS_MAX_MESSAGE_BYTES", 65536, minimum=1)  # autobahn fails larger ones (1009)
# Sockets per client address (config/network.py says which address that is):
WS_MAX_SOCKETS_PER_ADDRESS = env_int("WS_MAX_SOCKETS_PER_ADDRESS", 20, minimum=1)
WS_NEW_SOCKETS_PER_MINUTE = env_int("WS_NEW_SOCKETS_PER_MINUTE", 60, minimum=1)
# A socket with more unsent than this is not reading: it is dropped.
WS_MAX_UNSENT_BYTES = env_int("WS_MAX_UNSENT_BYTES", 1024 * 1024, minimum=1)
# Page requests run on at most this many threads, each with its database connection.
# Few: a page is mostly Python, and every thread rendering one shares the GIL with the
# event loop that serves the live tables (bench/abuse.py's page storm: the tables' p99
# 147 ms with 8 threads, 95 with 3); three leave a page a thread while one replay opens
# and another waits for it (games/replays.py).
REQUEST_THREADS = env_int("REQUEST_THREADS", 3, minimum=1)
# Of those, one client address holds at most this many at a time; its other requests
# wait their turn (config/handlers.py). A storm of pages from one address then renders
# on one thread (bench/abuse.py's page storm: the tables' p99 about 22 ms with all
# three threads its, about 8 with one).
REQUEST_THREADS_PER_ADDRESS = env_int("REQUEST_THREADS_PER_ADDRESS", 1, minimum=1)
# Embedded (one process, SQLite in it), the page threads and the database thread run
# in Linux's idle scheduling class and the GIL's switch interval is short, so that a
# key arriving while a page renders is served at once (config/threads.py). Not by
# default in scale-out, where several busy processes share the CPUs: a thread of the
# idle class that holds the GIL then stalls its loop behind the other processes.
BACKGROUND_THREADS_IDLE = env_bool("BACKGROUND_THREADS_IDLE", not REDIS_URL)
GIL_SWITCH_INTERVAL_US = env_int("GIL_SWITCH_INTERVAL_US", 5000 if REDIS_URL else 500, minimum=50)
# HTTP requests per client address (pages, forms and static files alike): a page
# and its assets are about ten; over the budget the answer is 429, and the address's
# next connections are not read for HTTP_COOLOFF_SECONDS (config/network.py).
HTTP_REQUESTS_PER_SECOND = env_int("HTTP_REQUESTS_PER_SECOND", 20, minimum=1)
HTTP_REQUEST_BURST = env_int("HTTP_REQUEST_BURST", 120, minimum=1)
HTTP_COOLOFF_SECONDS = env_int("HTTP_COOLOFF_SECONDS", 10, minimum=1)  # an address over its budget waits this long

# Chat at tables and in the lobby (lobby/chat.py). A message is at most CHAT_MAX_LENGTH
# characters; each room keeps its last CHAT_HISTORY. A player writes at most
# CHAT_BURST messages at once, then one per 60/CHAT_PER_MINUTE s; an address (several
# players behind one router) CHAT_ADDRESS_BURST, then CHAT_ADDRESS_PER_MINUTE. Refused
# CHAT_STRIKES times within CHAT_STRIKE_SECONDS for writing too fast, a writer is muted
# for CHAT_FLOOD_MUTE_SECONDS. Guests read; they write only if CHAT_GUESTS_MAY_WRITE.
CHAT_MAX_LENGTH = env_int("CHAT_MAX_LENGTH", 300, minimum=1)
CHAT_HISTORY = env_int("CHAT_HISTORY", 100, minimum=1)
CHAT_BURST = env_int("CHAT_BURST", 5, minimum=1)
CHAT_PER_MINUTE = env_int("CHAT_PER_MINUTE", 20, minimum=1)
CHAT_ADDRESS_BURST = env_int("CHAT_ADDRESS_BURST", 12, minimum=1)
CHAT_ADDRESS_PER_MINUTE = env_int("CHAT_ADDRESS_PER_MINUTE", 40, minimum=1)
CHAT_STRIKES = env_int("CHAT_STRIKES", 3, minimum=1)
CHAT_STRIKE_SECONDS = env_int("CHAT_STRIKE_SECONDS", 60, minimum=1)
CHAT_FLOOD_MUTE_SECONDS = env_int("CHAT_FLOOD_MUTE_SECONDS", 300, minimum=1)
CHAT_GUESTS_MAY_WRITE = env_bool("CHAT_GUESTS_MAY_WRITE", False)
if 2 * CHAT_MAX_LENGTH + 64 > WS_MAX_FRAME_BYTES:  # a message, each character escaped, fits one frame
    raise EnvError("CHAT_MAX_LENGTH must be at most (WS_MAX_FRAME_BYTES - 64) / 2")

# Table hosts: tables are spread over this many shards (table id % shards); in
# scale-out mode each shard's channel, game-host-<n>, is served by one worker.
GAME_HOST_SHARDS = env_int("GAME_HOST_SHARDS", 1, minimum=1)
# Scale-out: the shards whose tables this Daphne process hosts itself (games/hub.py),
# e.g. "0" or "0,2"; a proxy sends each table's sockets to the process hosting it.
# Empty: this process hosts none (they are hosted by `runworker` workers).
try:
    HOSTED_SHARDS = sorted({int(n) for n in env_list("HOSTED_SHARDS", [])})
except ValueError:
    raise EnvError("HOSTED_SHARDS must be a comma-separated list of shard numbers") from None
if any(not 0 <= n < GAME_HOST_SHARDS for n in HOSTED_SHARDS):
    raise EnvError(f"HOSTED_SHARDS must name shards from 0 to {GAME_HOST_SHARDS - 1} (GAME_HOST_SHARDS)")

# Each table host writes its games' new inputs down every 250 ms (games/journal.py), so
# that a restart resumes them; off, a restart aborts every running game (stakes back),
# as before issue 50 (bench/live.py --journal off measures what writing them costs).
GAME_JOURNAL = env_bool("GAME_JOURNAL", True)
# A real-time table (TetriWar) sends what changed at most once per tick: one frame per
# socket with every region changed since the last, and each seat's latest key applied
# (games/host.py, ``LiveTable.flush``); what decides something (the start, a top-out,
# the end, a refusal, a resync) goes at once. 0 sends every change as it happens.
LIVE_TICK_MS = env_int("LIVE_TICK_MS", 33, minimum=0)
if LIVE_TICK_MS > 250:  # beyond, opponents' boards would stutter and the own keys' answers lag
    raise EnvError("LIVE_TICK_MS must be at most 250")
# Scale-out: a shard that no process has hosted for this long (its host died and did not
# come back) has its running games aborted, stakes back; a host that comes back sooner
# resumes them (games/resume.py).
GAME_HOST_ORPHAN_SECONDS = env_int("GAME_HOST_ORPHAN_SECONDS", 60, minimum=5)

# Site rules that are our choices rather than a game's (RULES.md §6).
SITE_RULES = {
    "SIGNUP_CHIPS": 1000,  # RULES.md §6
    "REFILL_BELOW": 100,  # RULES.md §6 (reconstruction): refill up to this, once a day
}

# Abuse limits of accounts and tables (issue 17); each must be at least 1.
# Log-ins: after LOGIN_FAILURE_LIMIT failures for one user name, or from one client
# address, that name or address is refused for LOGIN_COOLOFF_MINUTES (a try during
# the wait starts it again). Either alone locks: guesses spread over many names are
# stopped by the address, guesses from many addresses by the name.
LOGIN_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 10, minimum=1)
LOGIN_COOLOFF_MINUTES = env_int("LOGIN_COOLOFF_MINUTES", 15, minimum=1)
# Sign-ups from one client address: this many at once, refilled over an hour.
SIGNUPS_PER_ADDRESS_PER_HOUR = env_int("SIGNUPS_PER_ADDRESS_PER_HOUR", 5, minimum=1)
# Tables a host (account or guest) has open or running at once; and tables hosted
# from one client address, since guest names cost nothing to mint.
TABLES_PER_HOST = env_int("TABLES_PER_HOST", 3, minimum=1)
TABLES_PER_ADDRESS = env_int("TABLES_PER_ADDRESS", 10, minimum=1)
# Open tables nobody has had open in a browser for this long close (lobby.services.tables_close_idle),
# looked for when the lobby is listed, at most once every TABLE_IDLE_SWEEP_SECONDS.
TABLE_IDLE_MINUTES = env_int("TABLE_IDLE_MINUTES", 5, minimum=1)
TABLE_IDLE_SWEEP_SECONDS = env_int("TABLE_IDLE_SWEEP_SECONDS", 30, minimum=1)

# django-axes: its failures are rows (the database handler), so every process sees
# them and a cache eviction cannot forgive them; admins clear them in the admin.
AXES_FAILURE_LIMIT = LOGIN_FAILURE_LIMIT
AXES_COOLOFF_TIME = LOGIN_COOLOFF_MINUTES / 60  # axes reads a float as hours
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]  # each alone, not the pair
AXES_CLIENT_IP_CALLABLE = "config.network.request_client_address_for_axes"  # honours TRUSTED_PROXIES
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
# A success does not forgive earlier failures: otherwise logging in to one's own
# account between guesses would reset the address's count.
AXES_RESET_ON_SUCCESS = False
# Failures are kept; a row per successful log-in (with its address) is not needed.
AXES_DISABLE_ACCESS_LOG = True
