from __future__ import annotations

import pytest

from accounts.identity import PlayerRef
from lobby import services

TETRIWAR_OPTIONS = {"minutes": 3, "start_level": 1, "lines_per_level": 10, "bombs": "manual", "pairs": False}


def ref(user) -> PlayerRef:
    return PlayerRef(user_id=user.pk, guest_token="", name=user.username)


def guest(name: str = "visitor", token: str = "guest-token-1") -> PlayerRef:
    return PlayerRef(user_id=None, guest_token=token, name=name)


@pytest.fixture
def make_table(db):
    def make(player, *, seats: int = 2, stake: int = 0, options: dict | None = None):
        return services.table_create(
            player=player, game="tetriwar", options=options or dict(TETRIWAR_OPTIONS),
            seats_total=seats, stake=stake,
        )

    return make
