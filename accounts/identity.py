"""Who is acting: a signed-in user, a guest with a chosen name, or nobody.

Views and consumers both ask here, so a guest is the same person over HTTP and
over the WebSocket (the guest's token lives in the session).
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext

GUEST_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{3,20}$")
SESSION_GUEST_NAME = "guest_name"
SESSION_GUEST_TOKEN = "guest_token"


@dataclass(frozen=True)
class PlayerRef:
    user_id: int | None
    guest_token: str
    name: str

    @property
    def is_guest(self) -> bool:
        return self.user_id is None

    @property
    def display_name(self) -> str:
        """The name as a page shows it: a guest's marked so, in the active language."""
        # the words of games/words.py GUEST_NAME (accounts know nothing of games)
        return gettext("%(name)s (guest)") % {"name": self.name} if self.is_guest else self.name


def _from(user: Any, session: Any) -> PlayerRef | None:
    if user is not None and user.is_authenticated:
        return PlayerRef(user_id=user.pk, guest_token="", name=user.get_username())
    if session is not None:
        name = session.get(SESSION_GUEST_NAME)
        token = session.get(SESSION_GUEST_TOKEN)
        if name and token:
            return PlayerRef(user_id=None, guest_token=token, name=name)
    return None


def player_from_request(request: Any) -> PlayerRef | None:
    return _from(getattr(request, "user", None), getattr(request, "session", None))


def player_from_scope(scope: dict[str, Any]) -> PlayerRef | None:
    return _from(scope.get("user"), scope.get("session"))


def guest_start(session: Any, name: str) -> PlayerRef:
    """Give this browser session a guest identity under ``name`` (already validated)."""
    session[SESSION_GUEST_NAME] = name
    session.setdefault(SESSION_GUEST_TOKEN, secrets.token_urlsafe(16))
    return PlayerRef(user_id=None, guest_token=session[SESSION_GUEST_TOKEN], name=name)
