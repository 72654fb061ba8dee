from __future__ import annotations

from accounts.identity import PlayerRef

TETRIWAR_OPTIONS = {"minutes": 3, "start_level": 1, "lines_per_level": 10, "bombs": "manual", "pairs": False}


def ref(user) -> PlayerRef:
    return PlayerRef(user_id=user.pk, guest_token="", name=user.username)


def guest(name: str = "visitor", token: str = "guest-token-1") -> PlayerRef:
    return PlayerRef(user_id=None, guest_token=token, name=name)
