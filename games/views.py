from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from games.registry import GAMES, get_game


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html", {"games": list(GAMES.values())})


@require_GET
def index(request: HttpRequest) -> HttpResponse:
    return render(request, "games/index.html", {"games": list(GAMES.values())})


@require_GET
def how_to_play(request: HttpRequest, slug: str) -> HttpResponse:
    spec = get_game(slug)
    if spec is None:
        raise Http404("No such game.")
    return render(request, spec.how_to_template, {"game": spec})
