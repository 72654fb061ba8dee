"""The arenas' pages (issue 51): the arena page with its standings, games and Join /
Pause / Leave; its status, which the page asks for every ``arenas.POLL_SECONDS`` (and
so moves the arena on, and takes a paired player to their table); a player's own
friendly arena, made from the lobby."""

from __future__ import annotations

import datetime as dt

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST, require_safe
from django_htmx.http import HttpResponseClientRedirect

from accounts.identity import player_from_request
from config.network import request_client_address
from games.core import arena as rules
from games.registry import GAMES
from games.wire import error_fragment
from lobby import arenas, chat
from lobby.broadcast import identity_key
from lobby.forms import ArenaForm
from lobby.models import Arena, Table


def _arena(arena_id: int) -> Arena:
    arena = Arena.objects.filter(pk=arena_id).first()
    if arena is None:
        raise Http404(gettext("There is no such arena."))
    return arena




def arena_context(arena: Arena, request: HttpRequest, now: dt.datetime | None = None) -> dict:
    """The reader's panel (their state, place and buttons; asked for every
    ``POLL_SECONDS``); the board beside it is everyone's (``arenas.board_context``)."""
    now = now or arenas.clock()
    player = player_from_request(request)
    key = identity_key(player.user_id, player.guest_token) if player else None
    places = list(arenas.ranked(arena).values_list("player_key", flat=True))
    me = arenas.entry_of(arena, player)
    return {
        "arena": arena,
        "spec": GAMES.get(arena.game),
        "player": player,
        "me": me,
        "mine": (places.index(key) + 1, me) if me is not None and key in places else None,
        "players": len(places),
        "starts_in": arenas.time_text((arena.starts_at - now).total_seconds()),
        "time_left": arenas.time_text((arena.ends_at - now).total_seconds()),
        "quiet": arena.status == Arena.Status.RUNNING and (arena.ends_at - now).total_seconds() <= rules.QUIET_SECONDS,
        "poll_seconds": arenas.POLL_SECONDS,
    }


@never_cache
@require_safe
def arena(request: HttpRequest, arena_id: int) -> HttpResponse:
    arena = _arena(arena_id)
    arena = arenas.arena_tick(arena_id=arena.pk)
    context = {**arenas.board_context(arena), **arena_context(arena, request)}
    context["chat_panel"] = chat.panel_html(None, context["player"], arena_id=arena.pk)  # the arena's own room
    return render(request, "lobby/arena.html", context)


@never_cache
@require_safe
def arena_status(request: HttpRequest, arena_id: int) -> HttpResponse:
    """The page's look (htmx): the arena moves on, and a player just paired is taken to
    their table (``from``: the table page that asks, which is left only for a new one)."""
    arena = arenas.arena_tick(arena_id=_arena(arena_id).pk)
    player = player_from_request(request)
    me = arenas.entry_of(arena, player)
    if me is not None and me.table_id is not None and str(me.table_id) != request.GET.get("from"):
        table = Table.objects.filter(pk=me.table_id, status=Table.Status.RUNNING).first()
        if table is not None:
            return HttpResponseClientRedirect(table.get_absolute_url())
    if request.GET.get("from"):
        return HttpResponse(status=204)  # a table page's look: nothing to change there
    return render(request, "lobby/arena.html#arena_live", arena_context(arena, request))


def _act(request: HttpRequest, arena_id: int, act) -> HttpResponse:
    """Join, pause or leave: the arena's live part afresh for htmx (with the refusal's
    code and sentence, if refused), else back to the page (the refusal a message)."""
    refused = None
    try:
        act(player_from_request(request))
    except arenas.ArenaError as err:
        refused = err
        if not request.htmx:
            messages.error(request, err.message)
    if request.htmx:
        arena = Arena.objects.filter(pk=arena_id).first()
        if arena is None:
            return HttpResponse(error_fragment(gettext("There is no such arena."), "NO_SUCH_ARENA"), status=404)
        context = arena_context(arena, request)
        context["refused"] = refused
        return render(request, "lobby/arena.html#arena_live", context)
    return redirect("lobby:arena", arena_id=arena_id) if Arena.objects.filter(pk=arena_id).exists() else redirect("lobby:index")


@require_POST
def arena_join(request: HttpRequest, arena_id: int) -> HttpResponse:
    ip = request_client_address(request)
    return _act(request, arena_id, lambda player: arenas.arena_join(arena_id=arena_id, player=player, ip=ip))


@require_POST
def arena_pause(request: HttpRequest, arena_id: int) -> HttpResponse:
    whose = request.POST.get("player")
    return _act(request, arena_id, lambda player: arenas.arena_pause(arena_id=arena_id, player=player, whose=whose))


@require_POST
def arena_leave(request: HttpRequest, arena_id: int) -> HttpResponse:
    whose = request.POST.get("player")
    return _act(request, arena_id, lambda player: arenas.arena_leave(arena_id=arena_id, player=player, whose=whose))


@require_POST
def arena_new(request: HttpRequest) -> HttpResponse:
    """A signed-in player's friendly arena, from the lobby."""
    if not request.user.is_authenticated:
        messages.error(request, gettext("Log in to hold an arena."))
        return redirect("lobby:index")
    form = ArenaForm(request.POST)
    if not form.is_valid():
        messages.error(request, gettext("Give the arena a title, a game, a length and a start."))
        return redirect("lobby:index")
    data = form.cleaned_data
    now = timezone.now()
    try:
        made = arenas.arena_create(
            by=request.user, title=data["title"], game=data["game"], minutes=data["minutes"],
            starts_at=now + dt.timedelta(minutes=data["starts_in"]), now=now,
        )
    except arenas.ArenaError as err:
        messages.error(request, err.message)
        return redirect("lobby:index")
    return redirect(made)
