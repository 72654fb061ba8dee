from __future__ import annotations

import json

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from django_htmx.http import HttpResponseClientRedirect

from accounts.identity import player_from_request
from accounts.models import DEFAULT_KEY_BINDINGS
from config.network import request_client_address
from games import replays
from games.refusals import refusal_text
from games.registry import GAMES, get_game
from lobby import arenas, chat, quickplay, selectors, services
from lobby.forms import ArenaForm, SeatForm, TableForm
from lobby.models import Table
from lobby.selectors import table_page_context


def _client_ip(request: HttpRequest) -> str | None:
    # Behind a trusted proxy REMOTE_ADDR is the proxy's: every player would share
    # it, and with it the same-IP rule and the tables-per-address cap.
    return request_client_address(request)


# never_cache: Back from the wait page must load the lobby afresh, for its word on the
# queue (``_queue_banner_context``), not the browser's stored copy of it.
@never_cache
@require_safe
def index(request: HttpRequest) -> HttpResponse:
    game = request.GET.get("game")
    if game not in GAMES:
        game = None
    player = player_from_request(request)
    # A player in the quick-play queue who came back to the lobby (Back from the wait
    # page) keeps their place while the lobby is open, as on the wait page; a match
    # made meanwhile takes them to its table.
    entry = quickplay.queue_poll(player=player)
    if entry is not None and entry.table_id is not None:
        return redirect(entry.table)
    # Tables nobody has been at for a while close before the list is read (at most
    # every TABLE_IDLE_SWEEP_SECONDS; lobby/services.py).
    services.tables_close_idle_now_and_then()
    rows = selectors.lobby_rows(game)
    activity = selectors.game_activity()
    cards = [{**link, "activity": activity[link["spec"].slug]} for link in selectors.game_links()]
    return render(
        request,
        "lobby/index.html",
        {
            "rows": rows, "game_filter": game, "game_links": selectors.game_links(), "cards": cards,
            "quick_stakes": quickplay.STAKES,
            "chat_panel": chat.panel_html(None, player),
            "arena_cards": arenas.arena_cards(),
            "arena_form": ArenaForm(),
            **_queue_banner_context(entry, was_waiting=False),
        },
    )


def _queue_banner_context(entry, *, was_waiting: bool) -> dict:
    """The lobby's word on the quick-play queue (templates/lobby/index.html#queue_banner):
    the game one waits for, or, for a banner that said so and finds the place gone, that
    it is gone."""
    return {
        "queue_entry": entry,
        "queue_spec": GAMES.get(entry.game) if entry is not None else None,
        "queue_gone": entry is None and was_waiting,
        "poll_seconds": quickplay.POLL_SECONDS,
    }


@never_cache
@require_safe
def queue_banner(request: HttpRequest) -> HttpResponse:
    """The lobby's queue banner asks every POLL_SECONDS while it says one waits: like a
    look of the wait page, it keeps the place and runs the matcher, and a match sends the
    page to the table. ``waiting=1``: the banner said one waits (so a place found gone
    is worth a word)."""
    entry = quickplay.queue_poll(player=player_from_request(request))
    if entry is not None and entry.table_id is not None:
        return HttpResponseClientRedirect(entry.table.get_absolute_url())
    context = _queue_banner_context(entry, was_waiting=request.GET.get("waiting") == "1")
    return render(request, "lobby/index.html#queue_banner", context)


@require_http_methods(["GET", "HEAD", "POST"])
def create(request: HttpRequest, game: str) -> HttpResponse:
    spec = get_game(game)
    if spec is None:
        raise Http404(gettext("There is no such game."))
    player = player_from_request(request)
    if player is None:
        messages.info(request, gettext("Log in, or choose a guest name, to open a table."))
        return redirect(f"{reverse('guest')}?next={request.path}")
    table_form = TableForm(request.POST or None, is_guest=player.is_guest)
    options_form = spec.options_form(request.POST or None, prefix="opt")
    if request.method == "POST" and table_form.is_valid() and options_form.is_valid():
        options = dict(options_form.cleaned_data)
        seats_total = options.pop("seats")
        try:
            table = services.table_create(
                player=player,
                game=spec.slug,
                options=options,
                seats_total=seats_total,
                stake=table_form.cleaned_data["stake"],
                name=table_form.cleaned_data["name"],
                ip=_client_ip(request),
            )
        except services.TableError as err:
            table_form.add_error(None, err.message)
        else:
            return redirect(table)
    return render(
        request,
        "lobby/create.html",
        {"spec": spec, "table_form": table_form, "options_form": options_form},
        status=400 if request.method == "POST" else 200,
    )


# never_cache: Back to a table page must load it afresh (its seats, a game under way),
# not show the browser's stored copy of how the table was.
@never_cache
@require_safe
def table(request: HttpRequest, table_id: int) -> HttpResponse:
    version = selectors.table_version(table_id)
    table = selectors.table_for_page(table_id, version)
    if table is None:
        raise Http404(gettext("There is no such table."))
    player = player_from_request(request)
    panels = selectors.table_panels(table, version, player)
    spec = GAMES.get(table.game)
    context = {
        "table": table,
        "spec": spec,
        "options_text": spec.describe_options(table.options) if spec else "",
        "my_seat": panels.my_seat,
        "panels": mark_safe(panels.html.replace(selectors.PANEL_CSRF, get_token(request))),
        # The top of the page: a free seat offered to whoever followed the table's link.
        "offer": selectors.seat_offer(table, player),
        "player": player,
        "urls": selectors.table_urls(table.pk),
        "chat_panel": chat.panel_html(table.pk, player),
        # After a game, a page opened anew (reload, Back, another tab) shows its results
        # as the pages that were there saw them at the end.
        "last_results": "" if table.status == Table.Status.RUNNING else replays.last_results(table.pk),
    }
    if player is not None:  # whoever may sit gets their keys with the page
        user = request.user
        context["bindings"] = json.dumps(user.bindings() if user.is_authenticated else DEFAULT_KEY_BINDINGS)
    return render(request, "lobby/table.html", context)


# What #table-panels holds, in the page's order (templates/lobby/table.html).
PANELS = ("seat_panel", "table_status", "table_message")


def _act(request: HttpRequest, table_id: int, action) -> HttpResponse:
    """Run one seat action; answer htmx with the fresh panels, others with a redirect.

    The answer goes into ``#table-panels`` as a whole, with no out-of-band part: the
    same action's push over the socket may have replaced the form that asked (htmx
    then looks for out-of-band targets inside that detached form, and finds none)."""
    player = player_from_request(request)
    error = None
    try:
        action(player)
    except services.TableError as err:
        error = err.message
    if not request.htmx:
        if error:
            messages.error(request, error)
        return redirect("lobby:table", table_id=table_id)
    table = selectors.table_for_page(table_id)
    if table is None:
        return HttpResponse(_message_fragment(error or gettext("There is no such table.")), status=404)
    context = table_page_context(table, player)
    context.update(oob=False, error=error)
    return HttpResponse(
        "".join(render_to_string(f"lobby/table.html#{name}", context, request=request) for name in PANELS)
    )


def _message_fragment(error: str | None) -> str:
    return render_to_string("lobby/table.html#table_message", {"error": error})


def _seat_number(request: HttpRequest) -> int:
    """The seat a form names; a missing or malformed one is refused like a bad seat."""
    form = SeatForm(request.POST)
    if not form.is_valid():
        raise services.TableError("NO_SUCH_SEAT", gettext("Choose a seat by its number."))
    return form.cleaned_data["seat"]


@require_POST
def sit(request: HttpRequest, table_id: int) -> HttpResponse:
    return _act(
        request,
        table_id,
        lambda player: services.seat_take(
            table_id=table_id, player=player, number=_seat_number(request), ip=_client_ip(request)
        ),
    )


@require_POST
def stand(request: HttpRequest, table_id: int) -> HttpResponse:
    return _act(request, table_id, lambda player: services.seat_leave(table_id=table_id, player=player))


@require_POST
def ready(request: HttpRequest, table_id: int) -> HttpResponse:
    want = request.POST.get("ready", "1") == "1"
    return _act(
        request, table_id, lambda player: services.seat_ready(table_id=table_id, player=player, ready=want)
    )


@require_POST
def start(request: HttpRequest, table_id: int) -> HttpResponse:
    return _act(request, table_id, lambda player: services.table_start(table_id=table_id, player=player))


@require_POST
def rematch(request: HttpRequest, table_id: int) -> HttpResponse:
    return _act(request, table_id, lambda player: services.table_rematch(table_id=table_id, player=player))


@require_POST
def bot_add(request: HttpRequest, table_id: int) -> HttpResponse:
    level = request.POST.get("level", "")
    return _act(
        request,
        table_id,
        lambda player: services.bot_add(
            table_id=table_id, player=player, number=_seat_number(request), level=level
        ),
    )


@require_POST
def bot_remove(request: HttpRequest, table_id: int) -> HttpResponse:
    return _act(
        request,
        table_id,
        lambda player: services.bot_remove(table_id=table_id, player=player, number=_seat_number(request)),
    )


@require_POST
def free(request: HttpRequest, table_id: int) -> HttpResponse:
    return _act(
        request,
        table_id,
        lambda player: services.seat_free(table_id=table_id, player=player, number=_seat_number(request)),
    )


@require_POST
def practice(request: HttpRequest, game: str) -> HttpResponse:
    """One click in the lobby: a friendly table against a bot, ready to start."""
    return _one_click_table(
        request, game, services.practice_create, gettext("Log in, or choose a guest name, to practise.")
    )


@require_POST
def solo(request: HttpRequest, game: str) -> HttpResponse:
    """One click: a friendly table of one seat for the game's solo variant, ready to start."""
    return _one_click_table(request, game, services.solo_create, gettext("Log in, or choose a guest name, to play."))


def _one_click_table(request: HttpRequest, game: str, create, who_first: str) -> HttpResponse:
    """A table made by ``create`` for the player, or where to go instead: a guest name
    first (``who_first`` says so), or back to the lobby with the refusal."""
    if get_game(game) is None:
        raise Http404(gettext("There is no such game."))
    player = player_from_request(request)
    if player is None:
        messages.info(request, who_first)
        return redirect(f"{reverse('guest')}?next={reverse('lobby:index')}")
    try:
        table = create(player=player, game=game, ip=_client_ip(request))
    except services.TableError as err:
        messages.error(request, err.message)
        return redirect("lobby:index")
    return redirect(table)


# Quick play (issue 32; lobby/quickplay.py). Play now joins a game's queue; the waiting
# page asks every POLL_SECONDS (which runs the matcher) and follows the player to the
# table once matched.


@require_POST
def play_now(request: HttpRequest, game: str) -> HttpResponse:
    """Join ``game``'s queue: friendly, or competitive at the form's ``stake`` (accounts)."""
    if get_game(game) is None:
        raise Http404(gettext("There is no such game."))
    player = player_from_request(request)
    if player is None:
        messages.info(request, gettext("Log in, or choose a guest name, to play."))
        return redirect(f"{reverse('guest')}?next={reverse('lobby:index')}")
    try:
        stake = int(request.POST.get("stake") or 0)
    except ValueError:
        stake = -1
    try:
        quickplay.queue_join(player=player, game=game, stake=stake, ip=_client_ip(request))
    except services.TableError as err:
        if err.code == "ALREADY_PLAYING" and quickplay.queue_game_of(player=player):
            return redirect("lobby:queue")  # a second press after the match: the page follows it
        messages.error(request, err.message)
        return redirect("lobby:index")
    return redirect("lobby:queue")


def _queue_context(entry, now) -> dict:
    waited = max(0, int((now - entry.joined_at).total_seconds())) if entry else 0
    spec = GAMES.get(entry.game) if entry else None
    return {
        "entry": entry,
        "spec": spec,
        "waited": f"{waited // 60}:{waited % 60:02d}",
        "waiting": selectors.queue_waiting(entry.game, stale_before=quickplay.fresh_since(now)) if entry else 0,
        "offer_bot": bool(
            entry and spec and spec.bot_levels and not entry.keep_waiting
            and waited >= quickplay.OFFER_BOT_AFTER_SECONDS
        ),
        "poll_seconds": quickplay.POLL_SECONDS,
        "per_match": quickplay.players_per_match(spec) if spec else 2,
    }


# never_cache: a reload or Back asks the server, which knows whether one still waits.
@never_cache
@require_safe
def queue(request: HttpRequest) -> HttpResponse:
    """The waiting page, and (for htmx) its status: each look keeps the player in the
    queue and runs the matcher; a match sends the page to the table."""
    now = timezone.now()
    entry = quickplay.queue_poll(player=player_from_request(request), now=now)
    if entry is not None and entry.table_id is not None:
        url = entry.table.get_absolute_url()
        return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
    if entry is None and not request.htmx:
        messages.info(request, gettext("You are not waiting for a game: press Play now in the lobby."))
        return redirect("lobby:index")
    template = "lobby/queue.html#queue_status" if request.htmx else "lobby/queue.html"
    return render(request, template, _queue_context(entry, now))


@require_POST
def queue_leave(request: HttpRequest) -> HttpResponse:
    """Leave the queue; with ``then=practice``, for a table against a bot instead. A
    player matched meanwhile goes to their table."""
    player = player_from_request(request)
    # The form names its game too: the entry may have gone stale (the page slept).
    game = quickplay.queue_game_of(player=player) or request.POST.get("game")
    table = quickplay.queue_leave(player=player)
    if table is not None:
        return redirect(table)
    if request.POST.get("then") == "practice" and game is not None:
        # From the wait page the player asked to play now: the game starts (its 3-2-1).
        return _one_click_table(
            request, game, _practice_started, gettext("Log in, or choose a guest name, to practise.")
        )
    messages.info(request, gettext("You left the queue."))
    return redirect("lobby:index")


def _practice_started(*, player, game: str, ip: str | None) -> Table:
    table = services.practice_create(player=player, game=game, ip=ip)
    if table.status == Table.Status.OPEN:
        services.table_start(table_id=table.pk, player=player)
    return table


@require_POST
def queue_keep(request: HttpRequest) -> HttpResponse:
    """Keep on waiting: the offer of a bot goes and is not made again."""
    player = player_from_request(request)
    quickplay.queue_keep_waiting(player=player)
    if not request.htmx:
        return redirect("lobby:queue")
    now = timezone.now()
    return render(request, "lobby/queue.html#queue_status", _queue_context(quickplay.queue_poll(player=player, now=now), now))


# --- chat (lobby/chat.py): a message reported, a writer hidden or shown again -----------------
def _said(text: str, status: int = 200) -> HttpResponse:
    """A sentence for static/js/chat.js to show under the chat box."""
    return HttpResponse(text, status=status, content_type="text/plain; charset=utf-8")


def _on_chat_message(request: HttpRequest, log_in: str, act) -> HttpResponse:
    """A POST about one chat message (field ``message``): ``act(user, message_id)`` gives
    the sentence to show under the chat box; a refusal gives its own."""
    if not request.user.is_authenticated:
        return _said(log_in, 403)
    try:
        message_id = int(request.POST.get("message", ""))
    except ValueError:
        message_id = 0
    if not 0 < message_id < 2**63:
        return _said(gettext("That message is no longer there."), 400)
    try:
        return _said(act(request.user, message_id))
    except chat.ChatRefused as err:
        return _said(refusal_text(err.message, err.code), 400)


@require_POST
def chat_report(request: HttpRequest) -> HttpResponse:
    def act(user, message_id: int) -> str:
        chat.report(reporter=user, message_id=message_id)
        return gettext("Reported. Thank you: a moderator will look at it.")

    return _on_chat_message(request, gettext("Log in to report a message."), act)


@require_POST
def chat_ignore(request: HttpRequest) -> HttpResponse:
    def act(user, message_id: int) -> str:
        hidden = chat.ignore(owner=user, message_id=message_id)
        return gettext("You no longer see the messages of %(name)s. Your profile lists whom you hide.") % {
            "name": hidden.author_name
        }

    return _on_chat_message(request, gettext("Log in to hide a player's messages."), act)


@require_POST
def chat_unignore(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect(f"{reverse('login')}?next={reverse('profile')}")
    try:
        ignore_id = int(request.POST.get("ignore", ""))
    except ValueError:
        ignore_id = 0
    if 0 < ignore_id < 2**63:
        chat.unignore(owner=request.user, ignore_id=ignore_id)
        messages.success(request, gettext("You see that player's messages again."))
    return redirect(reverse("profile") + "#chat-hidden")
