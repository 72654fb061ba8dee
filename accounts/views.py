from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods, require_POST

from accounts import selectors, services
from accounts.forms import GuestForm, KeyBindingsForm, SignupForm
from accounts.identity import guest_start
from accounts.models import User
from config.network import request_client_address
from games import selectors as game_selectors
from games import services as game_services
from games.tetriwar.forms import HandlingForm
from lobby import chat
from lobby import services as table_services
from lobby.arenas import arena_history
from lobby.models import ChatIgnore


def _safe_next(request: HttpRequest, default: str) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return default


@require_POST
def language(request: HttpRequest) -> HttpResponse:
    """The header's language menu. As Django's ``set_language``: the choice goes in the
    language cookie (a guest's memory of it), and the player is sent back to a page of
    this site; a signed-in account also keeps it, for every device it signs in on."""
    code = request.POST.get("language", "")
    if code not in dict(settings.LANGUAGES):
        return HttpResponseBadRequest("Unknown language.", content_type="text/plain")
    referer = request.META.get("HTTP_REFERER", "")
    fallback = referer if url_has_allowed_host_and_scheme(
        referer, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ) else "home"
    response = redirect(_safe_next(request, fallback))
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        code,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )
    if request.user.is_authenticated:
        services.user_language_set(user=request.user, language=code)
    return response


@require_http_methods(["GET", "HEAD", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("profile")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user = services.user_signup(
                username=form.cleaned_data["username"],
                email=form.cleaned_data["email"],
                password=form.cleaned_data["password1"],
                # No address at all (a test client without one) still counts, as "".
                address=request_client_address(request) or "",
            )
        except services.SignupLimitError as err:
            form.add_error(None, str(err))
            return render(request, "registration/signup.html", {"form": form}, status=429)
        login(request, user, backend=settings.SESSION_AUTH_BACKEND)
        messages.success(
            request,
            gettext("Welcome, %(name)s! You start with %(chips)s chips.") % {"name": user.username, "chips": user.chips},
        )
        return redirect(_safe_next(request, "lobby:index"))
    return render(request, "registration/signup.html", {"form": form}, status=400 if form.errors else 200)


@require_http_methods(["GET", "HEAD", "POST"])
def guest(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect(_safe_next(request, "lobby:index"))
    form = GuestForm(request.POST or None, initial={"name": request.session.get("guest_name", "")})
    sit = _table_to_sit_at(request)
    if request.method == "POST" and form.is_valid():
        player = guest_start(request.session, form.cleaned_data["name"])
        messages.success(
            request, gettext("You are playing as %(name)s (guest).") % {"name": form.cleaned_data["name"]}
        )
        if sit is not None:
            # They pressed Sit at a table (its link, its seat panel): the name was the
            # one thing missing, so they sit down now, at its first free seat.
            try:
                table_services.seat_take_first_free(table_id=sit, player=player, ip=request_client_address(request))
            except table_services.TableError as err:
                messages.error(request, err.message)
        return redirect(_safe_next(request, "lobby:index"))
    return render(
        request,
        "accounts/guest.html",
        {"form": form, "next": _safe_next(request, ""), "sit": sit},
        status=400 if form.errors else 200,
    )


def _table_to_sit_at(request: HttpRequest) -> int | None:
    """The table whose Sit brought a visitor here (``sit``), if any."""
    value = request.POST.get("sit") or request.GET.get("sit") or ""
    return int(value) if value.isdigit() and len(value) < 10 else None


def _profile_context(user: User) -> dict:
    # What anybody may see of a player. Their chips ledger is not here: it is for
    # them (``profile``) and for admins (the Django admin) only.
    return {
        "profile_user": user,
        "history": game_selectors.game_history(user),
        "totals": game_selectors.player_totals(user),
        "ratings": game_selectors.player_ratings(user),
        "arena_history": arena_history(user),
    }


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    context = _profile_context(request.user)
    context["own"] = True
    context["ledger"] = selectors.own_ledger(request.user)[:50]
    context["refill_available"] = services.refill_available(
        request.user, chips_in_pots=game_selectors.chips_in_pots(request.user.pk)
    )
    context["keys_form"] = KeyBindingsForm(initial=request.user.bindings())
    context["handling_form"] = HandlingForm(initial=HandlingForm.initial_for(request.user.handling))
    # The chat's controls outside the chat box: whom the player hides (each shown again
    # from here), and until when a moderator muted them.
    context["chat_hidden"] = ChatIgnore.objects.filter(owner=request.user)
    context["chat_muted_until"] = chat.muted_until(request.user)
    return render(request, "accounts/profile.html", context)


def player_profile(request: HttpRequest, username: str) -> HttpResponse:
    user = User.objects.filter(username=username, is_active=True).first()
    if user is None:
        # A banned (or unknown) player has no public page: the site's own 404, also
        # with DEBUG on, where raising Http404 would show Django's technical page
        # (a link to a banned player's profile is a page people reach, not a bug).
        return render(request, "404.html", {"exception": gettext("There is no such player.")}, status=404)
    if request.user == user:
        return redirect("profile")
    return render(request, "accounts/profile.html", {**_profile_context(user), "own": False})


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def key_bindings(request: HttpRequest) -> HttpResponse:
    form = KeyBindingsForm(request.POST or None, initial=request.user.bindings())
    handling = HandlingForm(request.POST or None, initial=HandlingForm.initial_for(request.user.handling))
    if request.method == "POST":
        if "reset" in request.POST:
            services.key_bindings_set(user=request.user, bindings={}, handling={})
            messages.success(request, gettext("Keys and auto-repeat reset to the defaults."))
            return redirect("profile")
        if form.is_valid() and handling.is_valid():
            services.key_bindings_set(
                user=request.user, bindings=form.cleaned_data, handling=handling.cleaned_data
            )
            messages.success(request, gettext("Your keys are saved."))
            return redirect("profile")
    errors = form.errors or handling.errors
    context = {"keys_form": form, "handling_form": handling}
    return render(request, "accounts/keys.html", context, status=400 if errors else 200)


@login_required
@require_POST
def refill(request: HttpRequest) -> HttpResponse:
    try:
        row = game_services.chips_refill(user=request.user)
    except services.ChipsError as err:
        messages.error(request, str(err))
    else:
        messages.success(request, gettext("Refilled: +%(chips)s chips.") % {"chips": row.delta})
    return redirect("profile")
