from __future__ import annotations

import math

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext, gettext_noop, ngettext
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe

from games import selectors, words
from games.core.outcome import Termination
from games.core.rules import UnknownRules
from games.models import Game
from games.registry import GAMES, get_game
from games.replays import Recorded, Replay, ReplayBusy, recorded, replay_of
from games.tetriwar.render import pieces_css

# The rest of the family of RULES.md, named on the home page until each is playable.
FAMILY = ("TetriWar", "Viertris", "Third Option", "Block-Killer", "Te-Trix")


@require_safe
def home(request: HttpRequest) -> HttpResponse:
    games = list(GAMES.values())
    playable = {spec.name for spec in games}
    return render(
        request, "home.html", {"games": games, "coming": [name for name in FAMILY if name not in playable]}
    )


@require_safe
def index(request: HttpRequest) -> HttpResponse:
    return render(request, "games/index.html", {"games": list(GAMES.values())})


@require_safe
def how_to_play(request: HttpRequest, slug: str) -> HttpResponse:
    spec = get_game(slug)
    if spec is None:
        raise Http404(gettext("No such game."))
    return render(request, spec.how_to_template, {"game": spec})


@require_safe
@cache_control(public=True, max_age=365 * 24 * 3600, immutable=True)  # the link carries a version
def tetriwar_pieces_css(request: HttpRequest) -> HttpResponse:
    """Where each cell of a falling piece sits, built from the engine's shape table: a
    stylesheet of its own, as the Content-Security-Policy allows no <style> element."""
    return HttpResponse(pieces_css(), content_type="text/css; charset=utf-8")


@require_safe
def leaderboard_index(request: HttpRequest) -> HttpResponse:
    return redirect("games:leaderboard", game=next(iter(GAMES)))


@require_safe
def leaderboard(request: HttpRequest, game: str) -> HttpResponse:
    spec = get_game(game)
    if spec is None:
        raise Http404(gettext("No such game."))
    period = request.GET.get("period", "all")
    if period not in selectors.PERIODS:
        period = "all"
    sort = request.GET.get("sort", "points")
    if sort not in selectors.SORTS:
        sort = "points"
    rows = selectors.leaderboard(spec.slug, period, sort=sort)
    # A signed-in player outside the top rows still sees where they stand, below them.
    own_row = None
    if request.user.is_authenticated and all(row.user_id != request.user.pk for row in rows):
        own_row = selectors.leaderboard_row(spec.slug, period, user_id=request.user.pk, sort=sort)
    return render(
        request,
        "games/leaderboard.html",
        {
            "game": spec,
            "games": list(GAMES.values()),
            "period": period,
            "periods": selectors.PERIODS,
            "sort": sort,
            "sorts": selectors.SORTS,
            "rows": rows,
            "own_row": own_row,
            "recent": selectors.recent_games(spec.slug),
        },
    )


# --- replays --------------------------------------------------------------------------------
# A moment asked for is seconds after the start: no game lasts a day, and a longer number
# is a mistake (or a probe), not a moment to clamp to the end.
MOMENT_MAX_SECONDS = 24 * 3600
BUSY_RETRY_SECONDS = 3  # a replay that could not open now (ReplayBusy): the page asks again then


class BadMoment(ValueError):
    """A moment the replay cannot show, with the words that say why."""


def _get_replayed_game(request: HttpRequest, game_id: int) -> Game:
    """A finished game whose replay the viewer may watch: anyone, as anyone may spectate,
    unless an admin hid it (then staff alone). Anything else is a page that is not there."""
    game = Game.objects.select_related("log", "table").filter(pk=game_id, status=Game.Status.FINISHED).first()
    if game is None or game.kind not in GAMES or (game.replay_hidden and not request.user.is_staff):
        raise Http404(gettext("No replay of such a game."))
    return game


def _record(game: Game) -> Recorded | None:
    """The game's record to replay; None also for one played under rules this server does
    not know (a newer server's game): its page says the replay is not available, and
    ``verify_games`` reports it."""
    try:
        return recorded(game)
    except UnknownRules:
        return None


def _seconds(text: str) -> float:
    if len(text) > 24:
        raise BadMoment(gettext("t is a number of seconds after the start, such as t=12.5."))
    try:
        t = float(text)
    except ValueError:
        raise BadMoment(gettext("t is a number of seconds after the start, such as t=12.5.")) from None
    if not math.isfinite(t) or t < 0:
        raise BadMoment(gettext("t is a number of seconds from 0, the start of the game."))
    if t > MOMENT_MAX_SECONDS:
        raise BadMoment(
            gettext("t is at most %(seconds)s seconds: no game lasts longer.") % {"seconds": MOMENT_MAX_SECONDS}
        )
    return t


def _asked_moment(query, replay: Replay) -> tuple[float, int | None]:
    """``(t, i)`` from ``?t=<seconds>`` (past the end: the end) or ``?i=<moment number>``."""
    if "t" in query and "i" in query:
        raise BadMoment(gettext("Ask for a time (t) or a moment (i), not both."))
    if "i" in query:
        text, count = query["i"], len(replay.moments)
        if not (text.isascii() and text.isdigit() and len(text) <= 9) or int(text) >= count:
            raise BadMoment(
                ngettext(
                    "i is the number of one of the game's %(count)d moment, from 0 to %(last)d.",
                    "i is the number of one of the game's %(count)d moments, from 0 to %(last)d.",
                    count,
                ) % {"count": count, "last": count - 1}
                if count else gettext("This game has no moments to step to.")
            )
        i = int(text)
        return replay.moments[i].t, i
    return replay.clamp(_seconds(query.get("t", "0"))), None


def _replay_players(game: Game) -> list:
    return sorted(game.participations.all(), key=lambda p: (p.place is None, p.place or 0, p.seat))


@require_safe
def replay(request: HttpRequest, game_id: int) -> HttpResponse:
    """A finished game played back in the boards of its table, from its input log."""
    game = _get_replayed_game(request, game_id)
    spec = GAMES[game.kind]
    try:
        termination = words.termination(Termination(game.termination))
    except ValueError:
        termination = ""
    context = {
        "game": game, "spec": spec, "players": _replay_players(game), "termination": termination
    }
    record = _record(game)
    if record is None:
        return render(request, "games/replay.html", context)
    try:
        replay = replay_of(record)
    except ReplayBusy:
        response = render(request, "games/replay.html", {**context, "busy": BUSY_RETRY_SECONDS}, status=503)
        response["Retry-After"] = str(BUSY_RETRY_SECONDS)
        return response
    try:
        t, moment = _asked_moment(request.GET, replay)
    except BadMoment:
        t, moment = 0.0, None  # a page opened with a mistaken link starts at the start
    frame = replay.render_moment(moment) if moment is not None else replay.render(t)
    context.update(_replay_context(replay, t, moment if moment is not None else replay.moment_before(t)), frame=frame)
    return render(request, "games/replay.html", context)


REPLAY_SPEEDS = (("0.5", "1"), ("1", "2"), ("2", "3"), ("4", "4"))  # (speed, its key)
MARK_KINDS = (  # (kind, its words in the legend: translated when shown)
    ("clear", gettext_noop("line clears")),
    ("bomb", gettext_noop("bombs")),
    ("out", gettext_noop("topped out")),
    ("left", gettext_noop("left the game")),
)
MOMENTS_LISTED = 500  # the list under the boards; the seek bar and the keys reach every moment


def _clock(t: float, tenths: bool = True) -> str:
    minutes, seconds = divmod(t, 60)
    return f"{int(minutes)}:{seconds:04.1f}" if tenths else f"{int(minutes)}:{int(seconds):02d}"


def _replay_context(replay: Replay, t: float, moment: int) -> dict:
    """The controls' numbers: the seek bar's marks (one a tenth of a percent and kind, so a
    long game's thousands of moves stay a few hundred marks), the moments listed, and what
    the page's script knows of them."""
    moments = replay.moments
    duration = replay.duration or 1.0
    marks: dict[tuple[float, str], dict] = {}
    labels = [m.label for m in moments]  # worded in the active language (Moment.label)
    for m, label in zip(moments, labels, strict=True):
        key = (round(100 * m.t / duration, 1), m.kind)
        if key in marks:
            marks[key]["more"] += 1
        else:
            marks[key] = {"at": key[0], "kind": m.kind, "label": f"{_clock(m.t, False)} {label}", "more": 0}
    for mark in marks.values():
        more = mark["more"]
        mark["title"] = mark["label"] + (
            " " + ngettext("(and %(count)d more)", "(and %(count)d more)", more) % {"count": more} if more else ""
        )
    shown = [
        {"t": m.t, "clock": _clock(m.t, False), "label": labels[i]} for i, m in enumerate(moments[:MOMENTS_LISTED])
    ]
    return {
        "replay": replay, "t": t, "moment": moment,
        "t_text": _clock(t), "duration_text": _clock(replay.duration),
        "speeds": REPLAY_SPEEDS,
        "marks": list(marks.values()),
        "legend": () if replay.turn_based else [(kind, gettext(text)) for kind, text in MARK_KINDS],
        "caption": labels[moment] if moment >= 0 else gettext("The start."),
        "moments": moments, "moments_shown": shown, "moments_more": len(moments) > MOMENTS_LISTED,
        "moments_data": [[m.t, label] for m, label in zip(moments, labels, strict=True)],
    }


@require_safe
def replay_at(request: HttpRequest, game_id: int) -> HttpResponse:
    """One frame of a replay: ``{"t": seconds, "moment": number of the last moment by
    then (-1: none), "html": the #game region}``, at ``?t=<seconds>`` or ``?i=<moment>``."""
    game = _get_replayed_game(request, game_id)
    record = _record(game)
    if record is None:
        raise Http404(gettext("This game's replay is not available."))
    try:
        replay = replay_of(record)
    except ReplayBusy:
        response = JsonResponse(
            {"error": gettext("Other replays are being opened just now: ask again in a few seconds.")}, status=503
        )
        response["Retry-After"] = str(BUSY_RETRY_SECONDS)
        return response
    try:
        t, moment = _asked_moment(request.GET, replay)
    except BadMoment as err:
        return JsonResponse({"error": str(err)}, status=400)
    html = replay.render_moment(moment) if moment is not None else replay.render(t)
    return JsonResponse({"t": t, "moment": moment if moment is not None else replay.moment_before(t), "html": html})
