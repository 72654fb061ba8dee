from __future__ import annotations

from functools import cache

from django.urls import reverse

from games.registry import GAMES

# The links of every page's header and footer. Reversed once per process, not at
# every page: each ``{% url %}`` costs a resolver walk and two thread-local lookups,
# and these never change.
SITE_URL_NAMES = (
    "home", "lobby:index", "games:leaderboard_index", "games:index",
    "profile", "admin:index", "logout", "login", "signup", "guest",
)


@cache
def site_urls() -> dict[str, str]:
    return {name.replace(":", "_"): reverse(name) for name in SITE_URL_NAMES}


def games(request):
    return {"available_games": list(GAMES.values()), "site_urls": site_urls()}
