"""The admin speaks the reader's language (issue 49, point 7): every section, model name,
column heading, filter, fieldset and action of the admin is marked for translation, and
every list answers in German. What a German admin then reads depends on the catalogues
(tests/config/test_translations.py checks they are complete).

"Marked" means a lazy translation (``gettext_lazy``/``pgettext_lazy``): a plain string, or
Django's made-up defaults (``"chip transaction"``, ``format_lazy("{}s", …)``), stays English.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib import admin
from django.contrib.admin.utils import label_for_field
from django.test import RequestFactory
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.functional import Promise

from accounts.models import FLOOD_MUTE_REASON, ModerationAction
from lobby import chat
from tests.personas import ref

# Words read alike in every language: Django's own primary key's heading, the site's name.
UNTRANSLATED = {"ID", "TetriWar"}


def translated(label) -> bool:
    """A lazy gettext/pgettext (not a lazy format of untranslated words), or a word above."""
    if isinstance(label, str) and label in UNTRANSLATED:
        return True
    if not isinstance(label, Promise):
        return False
    func = label.__reduce__()[1][0]  # Django's lazy proxy pickles as (func, args, kwargs)
    return func.__module__ == "django.utils.translation"


def filter_title(model_admin, entry):
    """The title of one ``list_filter`` entry, as the changelist shows it (``By …``)."""
    if isinstance(entry, type):
        return entry.title
    name = entry[0] if isinstance(entry, tuple) else entry
    return label_for_field(name, model_admin.model, model_admin)


def untranslated_words(model_admin, request) -> list[str]:
    model = model_admin.model
    opts = model._meta
    app = opts.app_config
    found = []

    def check(where: str, label) -> None:
        if not translated(label):
            found.append(f"{opts.label} {where}: {label!r}")

    check("app verbose_name", app.verbose_name)
    check("verbose_name", opts.verbose_name)
    if "verbose_name_plural" not in opts.original_attrs:  # else Django adds an English "s"
        found.append(f"{opts.label} verbose_name_plural: not set")
    check("verbose_name_plural", opts.verbose_name_plural)
    for name in model_admin.get_list_display(request):
        if name == "__str__":  # headed by the model's name (label_for_field gives it as a str)
            check("column __str__", opts.verbose_name)
        elif name != "action_checkbox":
            check(f"column {name}", label_for_field(name, model, model_admin))
    for entry in model_admin.get_list_filter(request):
        check(f"filter {entry}", filter_title(model_admin, entry))
        if isinstance(entry, type) and issubclass(entry, admin.SimpleListFilter):
            for value, label in entry.lookups(entry, request, model_admin) or ():
                check(f"filter {entry.__name__} choice {value}", label)
    for name in model_admin.get_readonly_fields(request):
        check(f"field {name}", label_for_field(name, model, model_admin))
    for title, _options in model_admin.get_fieldsets(request) if model_admin.fieldsets else ():
        if title is not None:
            check("fieldset", title)
    for _func, name, description in model_admin.get_actions(request).values():
        check(f"action {name}", description)
    for inline in model_admin.get_inline_instances(request):
        for name in inline.get_readonly_fields(request):
            check(f"inline {inline.model.__name__} field {name}", label_for_field(name, inline.model, inline))
    return found


@pytest.fixture
def admin_request(admin_user):
    request = RequestFactory().get("/admin/")
    request.user = admin_user
    return request


# The site's own apps. The others' words are their projects' (Django's are translated;
# django-axes's are in its own catalogues, with no Spanish nor Chinese).
SITE_APPS = {"accounts", "lobby", "games"}
SITE_ADMINS = [model_admin for model, model_admin in admin.site._registry.items() if model._meta.app_label in SITE_APPS]


@pytest.mark.parametrize("model_admin", SITE_ADMINS, ids=lambda model_admin: model_admin.model._meta.label)
def test_every_word_of_a_registered_model_s_admin_is_marked_for_translation(model_admin, admin_request):
    assert untranslated_words(model_admin, admin_request) == []


def test_every_list_of_the_admin_answers_in_german(client, admin_user, host, make_table):
    make_table(ref(host))
    client.force_login(admin_user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "de"
    for model in admin.site._registry:
        opts = model._meta
        response = client.get(reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist"))
        assert response.status_code == 200, opts.label
        assert '<html lang="de"' in response.content.decode(), opts.label


# A catalogue stand-in: shows which words went through gettext as they were shown.
GERMAN = {
    FLOOD_MUTE_REASON: "Zu schnell im Chat geschrieben (automatisch).",
    "%(reason)s (until %(until)s UTC)": "%(reason)s (bis %(until)s UTC)",
}


@pytest.fixture
def german_words(monkeypatch):
    monkeypatch.setattr("accounts.models.gettext", lambda words: GERMAN.get(words, words))


def test_the_automatic_mute_s_reason_is_stored_in_english_and_read_in_the_reader_s_language(host, german_words):
    until = timezone.now() + timedelta(minutes=5)
    chat.mute_for_flood(ref(host))
    host.refresh_from_db()
    action = ModerationAction.objects.get(action=ModerationAction.Action.MUTE)
    assert host.mute_reason == FLOOD_MUTE_REASON  # as the rows written before were
    assert host.mute_reason_words == "Zu schnell im Chat geschrieben (automatisch)."
    assert action.reason_words == f"Zu schnell im Chat geschrieben (automatisch). (bis {host.muted_until:%Y-%m-%d %H:%M} UTC)"
    assert host.muted_until >= until


def test_a_moderator_s_mute_reason_is_shown_as_typed(host, admin_user, german_words):
    until = timezone.now() + timedelta(hours=1)
    chat.mute(user=host, until=until, reason="Insults", by=admin_user)
    host.refresh_from_db()
    action = ModerationAction.objects.get(action=ModerationAction.Action.MUTE)
    assert host.mute_reason_words == "Insults"
    assert action.reason_words == f"Insults (bis {until:%Y-%m-%d %H:%M} UTC)"


def test_an_automatic_mute_shows_in_german_in_the_admin(client, admin_user, host):
    chat.mute(user=host, until=timezone.now() + timedelta(minutes=5), reason=FLOOD_MUTE_REASON, by=None)
    client.force_login(admin_user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "de"
    with translation.override("de"):
        expected = str(translation.gettext(FLOOD_MUTE_REASON))
    page = client.get(reverse("admin:accounts_moderationaction_changelist")).content.decode()
    assert expected in page
    page = client.get(reverse("admin:accounts_user_change", args=[host.pk])).content.decode()
    assert expected in page
