from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET

from games import selectors
from games.registry import GAMES, get_game
from games.tetriwar.render import pieces_css

# The rest of the family of RULES.md, named on the home page until each is playable.
FAMILY = ("TetriWar", "Viertris", "Third Option", "Block-Killer", "Te-Trix")


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    games = list(GAMES.values())
    playable = {spec.name for spec in games}
    return render(
        request, "home.html", {"games": games, "coming": [name for name in FAMILY if name not in playable]}
    )


@require_GET
def index(request: HttpRequest) -> HttpResponse:
    return render(request, "games/index.html", {"games": list(GAMES.values())})


@require_GET
def how_to_play(request: HttpRequest, slug: str) -> HttpResponse:
    spec = get_game(slug)
    if spec is None:
        raise Http404(gettext("No such game."))
    return render(request, spec.how_to_template, {"game": spec})


@require_GET
@cache_control(public=True, max_age=365 * 24 * 3600, immutable=True)  # the link carries a version
def tetriwar_pieces_css(request: HttpRequest) -> HttpResponse:
    """Where each cell of a falling piece sits, built from the engine's shape table: a
    stylesheet of its own, as the Content-Security-Policy allows no <style> element."""
    return HttpResponse(pieces_css(), content_type="text/css; charset=utf-8")


@require_GET
def leaderboard_index(request: HttpRequest) -> HttpResponse:
    return redirect("games:leaderboard", game=next(iter(GAMES)))


@require_GET
def leaderboard(request: HttpRequest, game: str) -> HttpResponse:
    spec = get_game(game)
    if spec is None:
        raise Http404(gettext("No such game."))
    period = request.GET.get("period", "all")
    if period not in selectors.PERIODS:
        period = "all"
    rows = selectors.leaderboard(spec.slug, period)
    # A signed-in player outside the top rows still sees where they stand, below them.
    own_row = None
    if request.user.is_authenticated and all(row.user_id != request.user.pk for row in rows):
        own_row = selectors.leaderboard_row(spec.slug, period, user_id=request.user.pk)
    return render(
        request,
        "games/leaderboard.html",
        {
            "game": spec,
            "games": list(GAMES.values()),
            "period": period,
            "periods": selectors.PERIODS,
            "rows": rows,
            "own_row": own_row,
        },
    )
