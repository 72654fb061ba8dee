"""What the parts of the live path say to the table host, as declared types.

A consumer (a player's socket), the services (a game's start, an admin's abort) and
the host's own clock send these to the host of the table's shard (games/host.py).
They travel through the channel layer as Channels' dicts, their ``type`` naming the
kind; the host decodes each into its type once, as it arrives (``decode``), and
handles it through one table of handlers. A message of no declared type, or with
fields of the wrong kind, is logged and counted (``tetriwar_messages_refused_total``)
and dropped: never silently ignored, never half-handled.
"""

from __future__ import annotations

import logging
import time

import msgspec

from config.metrics import MESSAGES_REFUSED

log = logging.getLogger(__name__)


class HostMessage(msgspec.Struct, tag_field="type", kw_only=True, gc=False):
    """Plain values only (gc=False: the collector need not track thousands a second)."""

    table_id: int

    def to_dict(self) -> dict:
        """The message as the channel layer carries it."""
        return msgspec.to_builtins(self)


class Start(HostMessage, tag="host.start"):
    """The game was created (games/services.py): start hosting it."""

    game_id: int


class Intent(HostMessage, tag="host.intent"):
    """A player's key press, in the engine's text form, and the socket to answer."""

    seat: int
    intent: str
    seq: int | None = None
    reply: str = ""
    arrived: float = 0.0  # set by the host as it takes it (the intent latency)
    taken: float | None = None  # set by the host as it takes it: its clock then (LiveTable.now)
    at: int | None = None  # a real-time key: when the page played it (game ms)
    claim: int | None = None  # ... and the hash of the page's board after it


class Sync(HostMessage, tag="host.sync"):
    """A socket of the table wants the whole game (it connected, or missed a version)."""

    seat: int | None = None
    reply: str = ""


class Gone(HostMessage, tag="host.gone"):
    """A seated player's socket closed: their reconnect clock may start."""

    seat: int | None = None
    reply: str = ""


class Forfeit(HostMessage, tag="host.forfeit"):
    """The player leaves the game (their button, a ban)."""

    seat: int | None = None
    reply: str = ""


class Abort(HostMessage, tag="host.abort"):
    """Stop the game without a result (an admin closed the table)."""

    reason: str = ""


class Tick(HostMessage, tag="host.tick"):
    """Nothing to do but run the table's clocks now (tests, a wake-up)."""


class Watch(HostMessage, tag="host.watch", omit_defaults=True):
    """These sockets of another process show the table: publish its fragments to the
    layer too (games/hub.py). Sent as they connect, and again every WATCH_SECONDS.
    ``languages``: the language of each of them that reads another than the site's
    (left out when none does, so such a message is what it was before languages)."""

    channels: list[str]
    languages: dict[str, str] = msgspec.field(default_factory=dict)


class Unwatch(HostMessage, tag="host.unwatch"):
    """These sockets of another process closed."""

    channels: list[str]


TYPES: tuple[type[HostMessage], ...] = (Start, Intent, Sync, Gone, Forfeit, Abort, Tick, Watch, Unwatch)
BY_TAG: dict[str, type[HostMessage]] = {kind.__struct_config__.tag: kind for kind in TYPES}
_LAST_LOG = [0.0]


def decode(message: dict) -> HostMessage | None:
    """The message's declared type, or None (logged at most once a second, and
    counted). Its type is looked up by tag first: converting against the one type
    costs a microsecond, against their union ten."""
    kind = message.get("type") if isinstance(message, dict) else None
    declared = BY_TAG.get(kind) if isinstance(kind, str) else None
    if declared is None:
        refuse_message(kind, "no such type")
        return None
    try:
        return msgspec.convert(message, declared)
    except msgspec.ValidationError as err:
        refuse_message(kind, str(err))
        return None


def refuse_message(kind: object, why: str) -> None:
    """Count a message nobody takes, by its type, and log it (at most once a second:
    a misbehaving sender must not flood the log)."""
    MESSAGES_REFUSED.labels(type=str(kind)[:40]).inc()
    now = time.monotonic()
    if now - _LAST_LOG[0] >= 1.0:
        _LAST_LOG[0] = now
        log.warning("refused a message of type %r: %s", kind, why)
