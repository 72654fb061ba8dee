from __future__ import annotations

from django import forms
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts import names
from accounts.identity import GUEST_NAME_RE
from accounts.models import DEFAULT_KEY_BINDINGS, KEY_ACTION_LABELS, User
from accounts.selectors import lookalike_exists

LOOKALIKE_MESSAGE = _("That name looks too much like a player's name; pick another.")


def name_problem(name: str) -> str | None:
    """Why ``name`` may not be taken by a new player or a guest, or None. Names that
    only look like another (accounts/names.py) would let one player pass for another."""
    if names.is_reserved(name):
        return gettext("That name is kept for the site's staff; pick another.")
    if lookalike_exists(name):
        return LOOKALIKE_MESSAGE
    if names.is_deceptive_mix(name):
        return gettext("That name mixes alphabets whose letters look alike; write it in one alphabet.")
    return None


class SignupForm(UserCreationForm):
    email = forms.EmailField(required=True, help_text=_("For password resets only."))

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")

    def clean_username(self) -> str:
        username = super().clean_username()  # None: the same name in any case exists
        problem = username and name_problem(username)
        if problem:
            raise forms.ValidationError(problem, code="lookalike")
        return username


class LoginForm(AuthenticationForm):
    error_messages = {
        **AuthenticationForm.error_messages,
        "inactive": _("This account is banned."),
    }

    def confirm_login_allowed(self, user: User) -> None:
        if user.is_banned or not user.is_active:
            raise forms.ValidationError(self.error_messages["inactive"], code="inactive")

    def clean(self):
        try:
            return super().clean()
        except forms.ValidationError:
            # Django's ModelBackend refuses inactive users silently; tell a banned
            # player plainly instead of "wrong password". Only after authenticate()
            # refused, so that django-axes has counted the try, and never while it
            # locks the name or address out: the password is not checked then.
            if getattr(self.request, "axes_locked_out", False):
                raise
            username = self.cleaned_data.get("username")
            banned = username and User.objects.filter(
                username__iexact=username, banned_at__isnull=False
            ).first()
            if banned and banned.check_password(self.cleaned_data.get("password") or ""):
                raise forms.ValidationError(self.error_messages["inactive"], code="inactive") from None
            raise


class GuestForm(forms.Form):
    name = forms.CharField(
        label=_("Guest name"),
        max_length=20,
        help_text=_("3–20 letters, digits, - or _. Guests play at friendly tables."),
    )

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if not GUEST_NAME_RE.match(name):
            raise forms.ValidationError(gettext("Use 3–20 letters, digits, - or _."))
        if User.objects.filter(username__iexact=name).exists():
            raise forms.ValidationError(gettext("That name belongs to a registered player; pick another."))
        problem = name_problem(name)
        if problem:
            raise forms.ValidationError(problem)
        return name


# Keys a binding may use: KeyboardEvent.key values of ordinary keys.
_ALLOWED_SPECIAL_KEYS = {
    "ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Control", "Meta", "Enter", "Shift",
    "Alt", " ", "Tab", "Backspace",
}


class KeyBindingsForm(forms.Form):
    """One field per game action; every key used at most once."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for action, default in DEFAULT_KEY_BINDINGS.items():
            self.fields[action] = forms.CharField(
                label=KEY_ACTION_LABELS[action], max_length=20, initial=default, strip=False,
                widget=forms.TextInput(attrs={"class": "key-capture", "data-action": action}),
            )

    def clean(self):
        data = super().clean()
        seen: dict[str, str] = {}
        for action in DEFAULT_KEY_BINDINGS:
            key = data.get(action)
            if key is None:
                continue
            if not (len(key) == 1 and key.isprintable()) and key not in _ALLOWED_SPECIAL_KEYS:
                self.add_error(action, gettext("“%(key)s” is not a key we can bind.") % {"key": key})
                continue
            if key == " " and action != "hard_drop":
                # Space is the hard drop's fixed alias (RULES.md §1): it cannot mean two things.
                self.add_error(action, gettext("Space always hard-drops, so it cannot do anything else."))
                continue
            normal = key.lower() if len(key) == 1 else key
            if normal in seen:
                self.add_error(action, gettext("Already used for “%(action)s”.") % {"action": KEY_ACTION_LABELS[seen[normal]]})
            seen[normal] = action
        return data
