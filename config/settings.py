"""TetriWar settings.

Twelve-factor: everything that differs between a laptop and a deployment comes
from the environment (see config/env.py), with an embedded default that needs no
service: SQLite and the in-memory channel layer. ``DATABASE_URL`` switches to
PostgreSQL and ``REDIS_URL`` to channels_redis.
"""

from __future__ import annotations

from pathlib import Path

import dj_database_url

from config.env import EnvError, env_bool, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DEBUG", True)

_DEV_SECRET_KEY = "django-insecure-dev-only-key-change-me-in-production-0123456789"
SECRET_KEY = env_str("SECRET_KEY", _DEV_SECRET_KEY if DEBUG else "")
if not SECRET_KEY:
    raise EnvError("SECRET_KEY must be set when DEBUG is off")

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
    "template_partials",
    "accounts",
    "lobby",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Static files never reach sessions or views. The chain runs synchronously, in
    # one hop onto a request thread (config/handlers.py).
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
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

# Channel layer: in-memory (one process) by default; REDIS_URL selects Redis so
# several processes share tables.
REDIS_URL = env_str("REDIS_URL", "")
EMBEDDED_CHANNEL_LAYER = {
    "BACKEND": "config.layers.EmbeddedChannelLayer",
    # Every intent of every table passes through the host's channel.
    "CONFIG": {"channel_capacity": {"game-host-*": 20000}},
}
if REDIS_URL:
    # Redis pub/sub: a group message is published once and each process fans it out
    # to its own sockets (the list-based layer wrote one message per socket, read
    # back one at a time: far too slow for game updates).
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "config.layers.PubSubChannelLayer",
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
AUTHENTICATION_BACKENDS = ["accounts.backends.CachedModelBackend"]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "lobby:index"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False  # the site is not translated: saves a language lookup on every URL and number
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

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.channels.server": {"level": "WARNING"}},
}

# Table hosts: tables are spread over this many shards (table id % shards); in
# scale-out mode each shard's channel, game-host-<n>, is served by one worker.
GAME_HOST_SHARDS = env_int("GAME_HOST_SHARDS", 1)
if GAME_HOST_SHARDS < 1:
    raise EnvError("GAME_HOST_SHARDS must be at least 1")

# Site rules that are our choices rather than a game's (RULES.md §6).
SITE_RULES = {
    "SIGNUP_CHIPS": 1000,  # RULES.md §6
    "REFILL_BELOW": 100,  # RULES.md §6 (reconstruction): refill up to this, once a day
    "WS_MAX_FRAME_BYTES": 1024,  # a game intent is a few dozen bytes
    "WS_MAX_FRAMES_PER_SECOND": 30,  # issue 4: more is a flood
}
