"""What a browser may send to a live table: one declared type per frame.

Every frame is a flat JSON object tagged by ``intent``: the table's own two
(``{"intent": "resync"}``, ``{"intent": "forfeit"}``) and the intents of the table's
game, which its live adapter declares (``LiveGame.FRAMES``, e.g. TetriWar's
``{"intent": "bomb", "target": 3, "seq": 41}``). msgspec validates while it parses:
a field of the wrong type, a value out of range, a field nobody declared or a
missing one is refused as the frame is read, before anything acts on it.

``seq`` numbers a player's intents so the host can acknowledge them in its
broadcasts; it is a non-negative 31-bit integer or absent. ``table`` (optional)
names the table the page believes it is on, so a frame meant for another table is
refused rather than applied here.
"""

from __future__ import annotations

import logging
import re
import time
from collections import Counter
from functools import cache
from typing import Annotated, ClassVar

import msgspec
from django.utils.html import escape

from config.metrics import FRAMES_REFUSED
from games.core.errors import Refusal
from games.refusals import refusal_text

log = logging.getLogger(__name__)

MAX_SEQ = 2**31 - 1
Seq = Annotated[int, msgspec.Meta(ge=0, le=MAX_SEQ)]
TableId = Annotated[int, msgspec.Meta(ge=1, le=2**63 - 1)]


class Frame(msgspec.Struct, tag_field="intent", forbid_unknown_fields=True, frozen=True, kw_only=True):
    """The fields every frame may carry."""

    seq: Seq | None = None
    table: TableId | None = None

    # For the table host: the engine's text form of the intent (``"bomb:3"``).
    def intent_text(self) -> str:
        return self.__struct_config__.tag


class Resync(Frame, tag="resync"):
    """The page missed a broadcast: send it the whole state."""

    cost: ClassVar[int] = 10  # a full render of the table, not one region


class Forfeit(Frame, tag="forfeit"):
    """The player leaves the running game (RULES.md §6: it counts as a loss)."""


class Say(Frame, tag="say"):
    """A line of chat (lobby/chat.py), at a table or in the lobby: ``{"intent": "say",
    "text": "gg"}``. Its length is checked once cleaned, with a clear refusal; here
    only what no message can be (settings.CHAT_MAX_LENGTH is at most 500)."""

    text: Annotated[str, msgspec.Meta(max_length=1000)]


TABLE_FRAMES: tuple[type[Frame], ...] = (Resync, Forfeit, Say)
LOBBY_FRAMES: tuple[type[Frame], ...] = (Say,)

# A real-time game's clock, in milliseconds since its start: 24 hours is far beyond
# any game, and keeps a stamp a small integer.
GameTime = Annotated[int, msgspec.Meta(ge=0, le=24 * 3600 * 1000)]
BoardHash = Annotated[int, msgspec.Meta(ge=0, le=2**32 - 1)]


class TimedFrame(Frame):
    """A real-time key that a page has already played on its own board: ``t`` is when
    (the game's clock, ms, as the page keeps it), ``h`` the hash of the page's board
    right after it (games/tetriwar/lag.py, static/js/tetriwar_predict.js). Both are
    optional: a page that does not predict sends neither, and the key acts when it
    arrives."""

    t: GameTime | None = None
    h: BoardHash | None = None


def plain_frame(tag: str, base: type[Frame] = Frame) -> type[Frame]:
    """The type of a frame that is its intent's name alone (``{"intent": "left"}``)."""
    name = "".join(part.title() for part in tag.split("_"))
    return msgspec.defstruct(name, [], bases=(base,), tag=tag, module=__name__)


def error_fragment(message: str, code: str) -> str:
    """The one shape of every refusal sent to a socket: a code for programs, a
    sentence for people, swapped into the page's message area. The sentence is the
    refuser's English ``message``, in the active language (games/refusals.py)."""
    return (
        f'<div id="ws-error" class="message error" role="alert" data-code="{escape(code)}">'
        f"{escape(refusal_text(message, code))}</div>"
    )


class FrameError(Refusal):
    """A frame that is not one of the declared types."""


# Refusals by code, since the process started: what clients send that we do not
# take (an unknown intent is worth a look: an old page, or somebody probing).
refused: Counter[str] = Counter()


# A socket that takes no frames (the lobby's) still reads what comes as JSON, to say
# clearly whether it was malformed or only not wanted.
_ANY_FLAT_OBJECT = dict[str, str | int | float | bool | None]


@cache
def decoder(frames: tuple[type[Frame], ...]) -> msgspec.json.Decoder:
    if not frames:
        return msgspec.json.Decoder(_ANY_FLAT_OBJECT)
    union = frames[0]
    for kind in frames[1:]:
        union = union | kind
    return msgspec.json.Decoder(union)


def decode(text: str, frames: tuple[type[Frame], ...]) -> Frame:
    """The frame in ``text`` as one of the types ``frames``, or a ``FrameError`` with
    a code and a message. With no types, every frame is refused (``READ_ONLY``).

    Our frames are flat objects: one ``{``, no ``[``. Anything nested is refused on
    that count alone (a scan in C), so no frame makes the parser recurse; a frame with
    brackets in a string (a chat message: ``[afk] brb``) is first read as a flat object
    of plain values, which refuses a nested value at its first bracket (``_flat``)."""
    if (text.count("{") != 1 or "[" in text) and not _flat(text):
        raise _refuse("BAD_FRAME", 'A frame is one flat JSON object, such as {"intent": "left", "seq": 1}.')
    try:
        frame = decoder(frames).decode(text)
    except msgspec.ValidationError as err:
        detail = str(err)
        field = _FIELD.search(detail)
        name = field.group(1) if field and "unknown field" not in detail else None
        if name == "intent" and detail.startswith("Invalid value"):
            _log_unknown(text)
            raise _refuse("UNKNOWN_INTENT", f"Unknown intent ({detail}).") from None
        code = f"BAD_{name.upper()}" if name and name != "intent" else "BAD_FRAME"
        raise _refuse(code, f"Malformed frame: {detail}.") from None
    except (msgspec.DecodeError, RecursionError, UnicodeEncodeError):  # a lone surrogate is no UTF-8
        raise _refuse("BAD_FRAME", 'Malformed frame: expected JSON such as {"intent": "left", "seq": 1}.') from None
    if not frames:
        raise _refuse("READ_ONLY", "This page only listens; use the buttons.")
    return frame


def _flat(text: str) -> bool:
    """Whether ``text`` is one JSON object of plain values, whatever its strings hold:
    read in C as such, a nested value is refused at its first ``[`` or ``{``, never
    descended into."""
    try:
        decoder(()).decode(text)
    except (msgspec.ValidationError, msgspec.DecodeError, RecursionError, UnicodeEncodeError):
        return False
    return True


# The field a msgspec error names: "… - at `$.target`", "missing required field `column`".
_FIELD = re.compile(r"(?:at `\$\.|field `)(\w+)`")

_last_logged = [0.0, 0]  # when an unknown intent was last logged, and how many since


def _log_unknown(text: str) -> None:
    """Log unknown intents, at most once a second: a client repeating one cannot
    flood the log, and the count says how many there were."""
    now = time.monotonic()
    _last_logged[1] += 1
    if now - _last_logged[0] >= 1.0:
        log.warning("unknown intent refused (%d since the last report): %.80r", _last_logged[1], text)
        _last_logged[:] = [now, 0]


def _refuse(code: str, message: str) -> FrameError:
    refused[code] += 1
    FRAMES_REFUSED.labels(code).inc()
    return FrameError(code, message)
