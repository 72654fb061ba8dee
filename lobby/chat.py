"""Chat (issue 33): one room in the lobby, and at every table a room for the table
and one for its spectators.

Who writes where, decided here from the database and never by the page:

- the lobby's room: anybody with an account who is not muted (guests too where
  ``settings.CHAT_GUESTS_MAY_WRITE``);
- a table's room: its seated players always, and its spectators before and after a
  game;
- its spectators' room: the spectators, while a game runs (as lichess's spectator
  room: nothing they say reaches the players of the game they watch). Whoever is not
  seated reads it; a seated player never does.

A message is text only: cleaned here (``clean_text``: no control or direction
characters, no pile of accents), escaped where rendered, links shown as text. Each
room keeps its last ``settings.CHAT_HISTORY``; a page gets them as it loads and every
time its socket (re)connects (``arrival``). A new message is rendered once, in the
site's language, and sent to the room's group; a socket that reads another language
renders it again, once per message and language in its process (lobby/consumers.py).

How fast a writer may go is the edge's business (lobby/edge.py ``ChatBudget``); a
writer refused too often in a row is muted here for a while (``mute_for_flood``), as
a moderator mutes (``mute``), and the mute is kept on the account: every process sees
it, the player sees until when, the admin lists it. Every moderation leaves a
``ModerationAction``.
"""

from __future__ import annotations

import re
import secrets
import unicodedata
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache

from django.conf import settings
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.crypto import salted_hmac
from django.utils.safestring import mark_safe

from accounts.identity import PlayerRef
from accounts.models import FLOOD_MUTE_REASON, ModerationAction, User
from config import sends
from games.core.errors import Refusal
from lobby.broadcast import arena_group, identity_key, table_group, user_group
from lobby.models import Arena, ChatIgnore, ChatMessage, ChatReport, Table
from lobby.selectors import seat_and_status

LOBBY_CHAT_GROUP = "chat-lobby"
Room = ChatMessage.Room


class ChatRefused(Refusal):
    """A message that is not written: who may not write, or what may not be written."""


# --- the text ------------------------------------------------------------------------
# Removed: control characters (C0, C1), the characters that turn text around or hide
# it (bidi embeddings, overrides and isolates; zero-width space, word joiner, BOM), and
# private-use or unassigned code points. Kept: the zero-width joiner (emoji sequences).
_REMOVED_CATEGORIES = {"Cc", "Cf", "Co", "Cn", "Cs"}
_KEPT_FORMAT = {"\u200d"}  # zero-width joiner
_MAX_MARKS = 2  # combining marks on one letter (Vietnamese needs two): "Zalgo" text piles dozens
_SPACES = re.compile(r"\s+")


def clean_text(text: str) -> str:
    """``text`` as it is shown: NFC, one line, spaces collapsed, nothing invisible or
    direction-changing, at most two accents on a letter."""
    out: list[str] = []
    marks = 0
    for char in unicodedata.normalize("NFC", text):
        if char in "\t\n\r\v\f":
            char = " "
        category = unicodedata.category(char)
        if category in _REMOVED_CATEGORIES and char not in _KEPT_FORMAT:
            continue
        if category in ("Mn", "Me"):
            marks += 1
            if marks > _MAX_MARKS:
                continue
        else:
            marks = 0
        out.append(char)
    return _SPACES.sub(" ", "".join(out)).strip()


# --- who writes ----------------------------------------------------------------------
def author_tag(author_key: str) -> str:
    """What a page may know of a writer: enough to tell their messages apart (one's own,
    one hidden), nothing to act as them (a guest's key is their session's secret)."""
    return salted_hmac("lobby.chat.author", author_key).hexdigest()[:16]


def player_key(player: PlayerRef) -> str:
    return identity_key(player.user_id, player.guest_token)


@dataclass(frozen=True)
class Writer:
    """What a viewer may do in a room's chat box, as its form shows it."""

    state: str  # "ok", "anon" (log in), "guest" (guests read), "muted", "closed", "banned"
    muted_until: datetime | None = None
    room: str = ""  # where a message goes: Room.TABLE, Room.SPECTATORS, Room.LOBBY
    flooded: bool = False  # muted by the site itself, for writing too fast (the box says so)


def muted_until(user: User) -> datetime | None:
    if user.muted_until is not None and user.muted_until > timezone.now():
        return user.muted_until
    return None


@dataclass(frozen=True)
class Place:
    """Where a viewer is: the table's status (None: no such table) and their seat there."""

    status: str | None
    seat: int | None


def place_of(table_id: int, player: PlayerRef | None) -> Place:
    status = Table.objects.filter(pk=table_id).values_list("status", flat=True).first()
    seat = seat_and_status(table_id, player)[0] if status is not None else None
    return Place(status, seat)


def writer(
    player: PlayerRef | None, table_id: int | None, place: Place | None = None, *, arena_id: int | None = None
) -> Writer:
    """May ``player`` write in this room's chat, and where would it go? (``place``: where
    the viewer is at the table, if the caller knows it already; ``arena_id``: an arena's
    room, open while the arena is.)"""
    room = Room.LOBBY
    if arena_id is not None:
        room = Room.ARENA
        if not Arena.objects.filter(pk=arena_id).exists():
            return Writer("closed", room=room)
    elif table_id is not None:
        place = place or place_of(table_id, player)
        if place.status is None or place.status == Table.Status.CLOSED:
            return Writer("closed")
        running = place.status == Table.Status.RUNNING
        room = Room.SPECTATORS if running and place.seat is None else Room.TABLE
    if player is None:
        return Writer("anon", room=room)
    if player.user_id is None:
        return Writer("ok" if settings.CHAT_GUESTS_MAY_WRITE else "guest", room=room)
    user = User.objects.filter(pk=player.user_id).only("muted_until", "mute_reason", "banned_at").first()
    if user is None:
        return Writer("anon", room=room)
    if user.is_banned:
        return Writer("banned", room=room)
    until = muted_until(user)
    if until is not None:
        return Writer("muted", until, room, flooded=user.mute_reason == FLOOD_MUTE_REASON)
    return Writer("ok", room=room)


_REFUSALS = {
    "anon": ("CHAT_LOG_IN", "Log in to write in the chat."),
    "guest": ("CHAT_ACCOUNTS_ONLY", "Guests read the chat; writing in it needs an account."),
    "closed": ("CHAT_CLOSED", "This table is closed: its chat too."),
    "banned": ("BANNED", "This account is banned."),
    "muted": ("MUTED", "You are muted in the chat for now."),
}


def may_try(player: PlayerRef | None) -> None:
    """Refuse, without the database, who may never write here: nobody (no name), and
    guests unless ``CHAT_GUESTS_MAY_WRITE`` (``writer`` says the rest)."""
    if player is None:
        raise ChatRefused(*_REFUSALS["anon"])
    if player.user_id is None and not settings.CHAT_GUESTS_MAY_WRITE:
        raise ChatRefused(*_REFUSALS["guest"])


def checked_text(text: str) -> str:
    """``text`` cleaned, or refused for its length (before anything is asked of the database)."""
    text = clean_text(text)
    if not text:
        raise ChatRefused("CHAT_EMPTY", "Write something first.")
    if len(text) > settings.CHAT_MAX_LENGTH:
        raise ChatRefused(
            "CHAT_TOO_LONG", f"A message is at most {settings.CHAT_MAX_LENGTH} characters; this one has {len(text)}."
        )
    return text


@transaction.atomic
def say(*, player: PlayerRef | None, table_id: int | None, text: str, arena_id: int | None = None) -> ChatMessage:
    """Write ``text`` in the room ``player`` writes to, and announce it once committed."""
    text = checked_text(text)
    who = writer(player, table_id, arena_id=arena_id)
    if who.state != "ok":
        raise ChatRefused(*_REFUSALS[who.state])
    assert player is not None
    message = ChatMessage.objects.create(
        room=who.room, table_id=table_id, arena_id=arena_id, author_key=player_key(player),
        author_id=player.user_id, author_name=player.name, text=text,
    )
    _trim(table_id, who.room, message.pk, arena_id)
    transaction.on_commit(lambda: _announce(message))
    return message


def _in_room(table_id: int | None, room: str, arena_id: int | None = None):
    return ChatMessage.objects.filter(table_id=table_id, arena_id=arena_id, room=room)


def _trim(table_id: int | None, room: str, newest: int, arena_id: int | None = None) -> None:
    """Keep the room's last ``CHAT_HISTORY`` messages (reports keep their own copy)."""
    rows = _in_room(table_id, room, arena_id).filter(id__lte=newest).order_by("-id")
    cut = rows.values_list("id", flat=True)[settings.CHAT_HISTORY : settings.CHAT_HISTORY + 1]
    if cut:
        _in_room(table_id, room, arena_id).filter(id__lte=cut[0]).delete()


# --- rendering -----------------------------------------------------------------------
def fields_of(message: ChatMessage) -> dict:
    """A message as every page renders it, in any language, without the database."""
    return {
        "id": message.pk,
        "room": message.room,
        "name": message.author_name,
        "guest": message.is_guest,
        "author": author_tag(message.author_key),
        "text": message.text,
        "at": message.created_at.isoformat(),
    }


def message_html(fields: dict, *, oob: bool = True) -> str:
    """One message, appended to the page's log (the active language's words)."""
    # The time in the active language's TIME_FORMAT (config/formats), as chat.js writes it.
    at = datetime.fromisoformat(fields["at"])
    item = render_to_string("lobby/chat.html#chat_message", {"m": fields, "at": at})
    if not oob:
        return item
    return f'<div hx-swap-oob="beforeend:#chat-log">{item}</div>'


def message_in(language: str, fields: dict) -> str:
    with translation.override(language):
        return message_html(fields)


def group_of(table_id: int | None, arena_id: int | None = None) -> str:
    if arena_id is not None:
        return arena_group(arena_id)
    return table_group(table_id) if table_id is not None else LOBBY_CHAT_GROUP


def _announce(message: ChatMessage) -> None:
    fields = fields_of(message)
    with translation.override(settings.LANGUAGE_CODE):
        html = message_html(fields)
    sends.group_send(
        group_of(message.table_id, message.arena_id),
        {"type": "chat.message", "html": html, "key": secrets.token_hex(8), "fields": fields,
         "room": message.room, "author": fields["author"]},
    )


def readable_rooms(table_id: int | None, seated: bool, arena_id: int | None = None) -> list[str]:
    if arena_id is not None:
        return [Room.ARENA]
    if table_id is None:
        return [Room.LOBBY]
    return [Room.TABLE] if seated else [Room.TABLE, Room.SPECTATORS]


def history(
    table_id: int | None, player: PlayerRef | None, place: Place | None = None, hidden: set[str] | None = None,
    *, arena_id: int | None = None,
) -> list[int]:
    """The ids of the messages a viewer reads, oldest first: each readable room's last
    ``CHAT_HISTORY``, without the deleted and the hidden (``place`` and ``hidden``, the
    viewer's ``ignored_keys``, if the caller knows them already)."""
    if table_id is not None and place is None:
        place = place_of(table_id, player)
    seated = place is not None and place.seat is not None
    if hidden is None:
        hidden = ignored_keys(player)
    ids: list[int] = []
    for room in readable_rooms(table_id, seated, arena_id):
        rows = _in_room(table_id, room, arena_id).order_by("-id")
        rows = rows.values_list("id", "deleted_at", "author_key")[: settings.CHAT_HISTORY]
        ids.extend(pk for pk, deleted_at, author_key in rows if deleted_at is None and author_key not in hidden)
    ids.sort()
    return ids


# A message's markup never changes once written (a deleted one leaves the log), so each
# is rendered once per language in a process, however many pages (re)connect and read
# it: a log of 100 messages read and rendered anew at every connection cost ~20 ms.
ITEMS_KEPT = 4096
_items: OrderedDict[tuple[str, int], str] = OrderedDict()


def items_html(language: str, ids: list[int]) -> list[str]:
    """Each message's ``<li>``, in ``language`` (which must be the active one)."""
    missing = [pk for pk in ids if (language, pk) not in _items]
    if missing:
        for message in ChatMessage.objects.filter(pk__in=missing):
            _items[(language, message.pk)] = mark_safe(message_html(fields_of(message), oob=False))
        while len(_items) > ITEMS_KEPT:
            _items.popitem(last=False)
    return [_items[(language, pk)] for pk in ids if (language, pk) in _items]


def arrival(
    language: str, table_id: int | None, player: PlayerRef | None, arena_id: int | None = None
) -> tuple[str, frozenset[str]]:
    """What a socket is sent as it (re)connects: the viewer's whole log and chat box, out
    of band, so that what it missed meanwhile is there; and the tags of the writers the
    viewer hides. Each thing asked of the database once (a reconnecting crowd pays it
    for every socket)."""
    place = place_of(table_id, player) if table_id is not None else None
    hidden = ignored_keys(player)
    with translation.override(language):
        items = items_html(language, history(table_id, player, place, hidden, arena_id=arena_id))
        log = render_to_string("lobby/chat.html#chat_log", {"chat_items": items, "oob": True})
        box = render_to_string(
            "lobby/chat.html#chat_form", form_context(table_id, player, oob=True, place=place, arena_id=arena_id)
        )
    return log + box, frozenset(author_tag(key) for key in hidden)


def form_html(table_id: int | None, player: PlayerRef | None, *, oob: bool = True, arena_id: int | None = None) -> str:
    """The chat box as ``player`` may use it (write, log in, muted until when), in the
    active language."""
    return render_to_string("lobby/chat.html#chat_form", form_context(table_id, player, oob=oob, arena_id=arena_id))


@cache
def _urls() -> dict[str, str]:
    return {"login": reverse("login"), "signup": reverse("signup"), "lobby": reverse("lobby:index"),
            "report": reverse("lobby:chat_report"), "ignore": reverse("lobby:chat_ignore")}


def form_context(
    table_id: int | None, player: PlayerRef | None, *, oob: bool = False, place: Place | None = None,
    arena_id: int | None = None,
) -> dict:
    urls = _urls()
    if arena_id is not None:
        page = reverse("lobby:arena", args=[arena_id])
    else:
        page = reverse("lobby:table", args=[table_id]) if table_id is not None else urls["lobby"]
    return {
        "writer": writer(player, table_id, place, arena_id=arena_id), "max_length": settings.CHAT_MAX_LENGTH, "oob": oob,
        "me": author_tag(player_key(player)) if player else "",
        "may_report": player is not None and player.user_id is not None,
        "urls": {**urls, "next": page},
    }


def panel_html(table_id: int | None, player: PlayerRef | None, *, arena_id: int | None = None) -> str:
    """The chat as a page first shows it (in the active language)."""
    language = translation.get_language()
    items = items_html(language, history(table_id, player, arena_id=arena_id))
    context = {**form_context(table_id, player, arena_id=arena_id), "chat_items": items}
    return render_to_string("lobby/chat.html#chat_panel", context)


# --- hiding a player -------------------------------------------------------------------
def ignored_keys(player: PlayerRef | None) -> set[str]:
    if player is None or player.user_id is None:
        return set()
    return set(ChatIgnore.objects.filter(owner_id=player.user_id).values_list("author_key", flat=True))


def _anothers_message(message_id: int, user: User) -> ChatMessage:
    """The message ``user`` acts on (reports, hides the writer of): there, and not theirs."""
    message = ChatMessage.objects.filter(pk=message_id, deleted_at__isnull=True).first()
    if message is None:
        raise ChatRefused("NO_SUCH_MESSAGE", "That message is no longer there.")
    if message.author_key == identity_key(user.pk, ""):
        raise ChatRefused("CHAT_SELF", "That is your own message.")
    return message


@transaction.atomic
def ignore(*, owner: User, message_id: int) -> ChatIgnore:
    """``owner`` no longer sees the messages of the writer of ``message_id``, anywhere."""
    message = _anothers_message(message_id, owner)
    hidden, _ = ChatIgnore.objects.get_or_create(
        owner=owner, author_key=message.author_key, defaults={"author_name": message.author_name}
    )
    _ignores_changed(owner.pk)
    return hidden


@transaction.atomic
def unignore(*, owner: User, ignore_id: int) -> None:
    ChatIgnore.objects.filter(owner=owner, pk=ignore_id).delete()
    _ignores_changed(owner.pk)


def _ignores_changed(user_id: int) -> None:
    # Every page of the player's reads the log again, without (or with) the writer.
    transaction.on_commit(
        lambda: sends.group_send(user_group(user_id), {"type": "chat.ignores"})
    )


# --- reports ---------------------------------------------------------------------------
@transaction.atomic
def report(*, reporter: User, message_id: int) -> ChatReport:
    """``reporter`` asks the moderators to look at a message (once per message)."""
    message = _anothers_message(message_id, reporter)
    found, _ = ChatReport.objects.get_or_create(
        message=message, reporter=reporter,
        defaults={"author_id": message.author_id, "author_name": message.author_name, "text": message.text,
                  "room": message.room, "table_id": message.table_id},
    )
    return found


@transaction.atomic
def dismiss(*, chat_report: ChatReport, by: User | None) -> bool:
    """A moderator looked at a report and leaves the message be. False when it was
    already resolved (by another moderator, or as its message was deleted)."""
    if not ChatReport.objects.filter(pk=chat_report.pk, resolved_at__isnull=True).update(
        resolved_at=timezone.now(), resolved_by=by
    ):
        return False
    ModerationAction.objects.create(
        admin=by, action=ModerationAction.Action.DISMISS_REPORT, user_id=chat_report.author_id,
        table_id=chat_report.table_id, chat_message_id=chat_report.message_id,
        reason=f"Reported by {chat_report.reporter}: {chat_report.author_name}: {chat_report.text}"[:200],
    )
    return True


# --- moderation ------------------------------------------------------------------------
@transaction.atomic
def delete(*, message: ChatMessage, by: User | None, reason: str = "") -> bool:
    """A moderator takes a message down: gone from every page at once, kept (marked) for the
    record. False when it was down already."""
    # Claimed in one update: two moderators deleting it at once log it once.
    if not ChatMessage.objects.filter(pk=message.pk, deleted_at__isnull=True).update(
        deleted_at=timezone.now(), deleted_by=by
    ):
        return False
    ChatReport.objects.filter(message=message, resolved_at__isnull=True).update(
        resolved_at=timezone.now(), resolved_by=by
    )
    ModerationAction.objects.create(
        admin=by, action=ModerationAction.Action.DELETE_MESSAGE, user_id=message.author_id,
        table_id=message.table_id, chat_message_id=message.pk,
        reason=(reason or f"{message.author_name}: {message.text}")[:200],
    )
    group, pk = group_of(message.table_id, message.arena_id), message.pk
    # Who wrote it, and where: a page that never showed it (its reader hides the writer,
    # or a player's page and the spectators' room) is not sent its removal.
    event = {
        "type": "chat.deleted", "html": f'<li id="chat-{pk}" hx-swap-oob="delete"></li>',
        "room": message.room, "author": author_tag(message.author_key),
    }
    transaction.on_commit(lambda: sends.group_send(group, event))
    return True


@transaction.atomic
def mute(*, user: User, until: datetime, reason: str, by: User | None) -> None:
    """``user`` reads the chat but writes nothing in it until ``until`` (and sees until when)."""
    User.objects.filter(pk=user.pk).update(muted_until=until, mute_reason=reason[:200])
    user.muted_until, user.mute_reason = until, reason[:200]
    ModerationAction.objects.create(
        admin=by, action=ModerationAction.Action.MUTE, user=user,
        reason=f"{reason[:150]} (until {until:%Y-%m-%d %H:%M} UTC)",
    )
    _mute_changed(user.pk)


@transaction.atomic
def unmute(*, user: User, by: User | None) -> None:
    User.objects.filter(pk=user.pk).update(muted_until=None, mute_reason="")
    user.muted_until, user.mute_reason = None, ""
    ModerationAction.objects.create(admin=by, action=ModerationAction.Action.UNMUTE, user=user)
    _mute_changed(user.pk)


def mute_for_flood(player: PlayerRef) -> datetime:
    """The edge refused ``player`` too often in a row for writing too fast: muted for
    ``CHAT_FLOOD_MUTE_SECONDS`` (logged as a moderation with no moderator). The reason
    is stored in English and read in each reader's language (accounts.models.reason_words)."""
    until = timezone.now() + timedelta(seconds=settings.CHAT_FLOOD_MUTE_SECONDS)
    if player.user_id is not None:
        user = User.objects.filter(pk=player.user_id).first()
        if user is not None:
            mute(user=user, until=until, reason=FLOOD_MUTE_REASON, by=None)
    return until


def _mute_changed(user_id: int) -> None:
    # Every page of the player's shows its chat box as it now is (muted until when, or free).
    transaction.on_commit(
        lambda: sends.group_send(user_group(user_id), {"type": "chat.muted"})
    )
