"""The chat's moderation in the Django admin (issue 33): reports, messages, mutes.
What the pages see of it as it happens is in tests/live/test_chat_moderation.py."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth.models import Permission
from django.urls import reverse
from django.utils import timezone

from accounts.identity import PlayerRef
from accounts.models import ModerationAction
from lobby import chat
from lobby.models import ChatMessage, ChatReport
from tests.personas import guest, ref

REPORTS = reverse("admin:lobby_chatreport_changelist")
MESSAGES = reverse("admin:lobby_chatmessage_changelist")
PLAYERS = reverse("admin:accounts_user_changelist")


def say(who, text: str):
    """``who`` (a user, or a guest's PlayerRef) writes in the lobby's room."""
    return chat.say(player=who if isinstance(who, PlayerRef) else ref(who), table_id=None, text=text)


def logged(action: str):
    return list(ModerationAction.objects.filter(action=action))


@pytest.fixture
def mod(client, admin_user):
    client.force_login(admin_user)
    return client


def test_the_admin_lists_open_reports_first(mod, host, opponent, outsider):
    old = say(host, "an old insult")
    new = say(host, "a new insult")
    chat.report(reporter=opponent, message_id=old.pk)
    dismissed = chat.report(reporter=outsider, message_id=new.pk)
    chat.dismiss(chat_report=dismissed, by=None)
    chat.report(reporter=outsider, message_id=old.pk)
    page = mod.get(REPORTS).content.decode()
    assert page.index("an old insult") < page.index("a new insult")  # the open ones first, whatever their age
    assert "hostess" in page and "opponent" in page
    assert "a new insult" not in mod.get(REPORTS, {"resolved": "no"}).content.decode()
    assert "a new insult" in mod.get(REPORTS, {"resolved": "yes"}).content.decode()
    assert "an old insult" not in mod.get(REPORTS, {"q": "outsider", "resolved": "yes"}).content.decode()


def test_the_admin_deletes_a_message_which_stays_marked_and_logged(mod, admin_user, host, outsider):
    message = say(host, "spam spam spam")
    kept = say(host, "gg")
    assert mod.get(MESSAGES).status_code == 200
    mod.post(MESSAGES, {"action": "delete_messages", ACTION_CHECKBOX_NAME: [message.pk]})
    message.refresh_from_db()
    assert message.deleted_at is not None and message.deleted_by == admin_user  # kept, marked
    assert chat.history(None, ref(outsider)) == [kept.pk]
    (action,) = logged(ModerationAction.Action.DELETE_MESSAGE)
    assert (action.admin, action.user, action.chat_message_id) == (admin_user, host, message.pk)
    assert "spam spam spam" in action.reason
    mod.post(MESSAGES, {"action": "delete_messages", ACTION_CHECKBOX_NAME: [message.pk]})
    assert len(logged(ModerationAction.Action.DELETE_MESSAGE)) == 1  # a second delete is none
    assert "spam spam spam" in mod.get(MESSAGES, {"deleted": "yes"}).content.decode()
    assert "spam spam spam" not in mod.get(MESSAGES, {"deleted": "no"}).content.decode()


def test_deleting_from_the_reports_resolves_each_report_of_the_message(mod, admin_user, host, opponent, outsider):
    message = say(host, "rude words")
    first = chat.report(reporter=opponent, message_id=message.pk)
    second = chat.report(reporter=outsider, message_id=message.pk)
    mod.post(REPORTS, {"action": "delete_messages", ACTION_CHECKBOX_NAME: [first.pk, second.pk]})
    message.refresh_from_db()
    assert message.deleted_at is not None
    for report in (first, second):
        report.refresh_from_db()
        assert report.resolved_at is not None and report.resolved_by == admin_user
    assert len(logged(ModerationAction.Action.DELETE_MESSAGE)) == 1


def test_a_report_whose_message_left_the_history_stays_open_with_a_word_why(mod, settings, host, opponent):
    settings.CHAT_HISTORY = 1
    message = say(host, "said and gone")
    report = chat.report(reporter=opponent, message_id=message.pk)
    say(host, "the room keeps only this one")  # the reported one is trimmed away
    response = mod.post(REPORTS, {"action": "delete_messages", ACTION_CHECKBOX_NAME: [report.pk]}, follow=True)
    assert "no longer kept" in response.content.decode()
    report.refresh_from_db()
    assert report.message is None and report.text == "said and gone" and report.resolved_at is None
    assert not logged(ModerationAction.Action.DELETE_MESSAGE)


def test_dismissing_a_report_resolves_it_logs_it_and_leaves_the_message(mod, admin_user, host, opponent, outsider):
    message = say(host, "a joke")
    report = chat.report(reporter=opponent, message_id=message.pk)
    mod.post(REPORTS, {"action": "dismiss_reports", ACTION_CHECKBOX_NAME: [report.pk]})
    report.refresh_from_db()
    assert report.resolved_at is not None and report.resolved_by == admin_user
    (action,) = logged(ModerationAction.Action.DISMISS_REPORT)
    assert (action.admin, action.user, action.chat_message_id) == (admin_user, host, message.pk)
    assert chat.history(None, ref(outsider)) == [message.pk]
    mod.post(REPORTS, {"action": "dismiss_reports", ACTION_CHECKBOX_NAME: [report.pk]})
    assert len(logged(ModerationAction.Action.DISMISS_REPORT)) == 1  # dismissed once


def test_the_admin_mutes_the_authors_of_reports_for_a_day_and_skips_guests(mod, settings, admin_user, host, opponent):
    settings.CHAT_GUESTS_MAY_WRITE = True
    reports = [
        chat.report(reporter=opponent, message_id=say(host, "insult one").pk),
        chat.report(reporter=opponent, message_id=say(host, "insult two").pk),
        chat.report(reporter=opponent, message_id=say(guest(), "a guest's insult").pk),
    ]
    selected = {ACTION_CHECKBOX_NAME: [r.pk for r in reports]}
    confirm = mod.post(REPORTS, {"action": "mute_authors", **selected}).content.decode()
    assert "hostess" in confirm and "no account to mute" in confirm
    host.refresh_from_db()
    assert host.muted_until is None  # nothing happens before the length and the reason are given
    before = timezone.now()
    done = mod.post(REPORTS, {"action": "mute_authors", "apply": "1", "length": "1d", "reason": "Insults", **selected},
                    follow=True).content.decode()
    assert "Muted 1 player" in done and "no account to mute" in done
    host.refresh_from_db()
    assert before + timedelta(days=1) <= host.muted_until <= timezone.now() + timedelta(days=1)
    assert host.mute_reason == "Insults"
    (action,) = logged(ModerationAction.Action.MUTE)  # one author, muted once
    assert (action.admin, action.user) == (admin_user, host) and "Insults" in action.reason


def test_the_admin_mutes_authors_from_the_messages_for_an_hour(mod, host):
    message = say(host, "flood")
    mod.post(MESSAGES, {"action": "mute_authors", "apply": "1", "length": "1h", "reason": "Flood",
                        ACTION_CHECKBOX_NAME: [message.pk]})
    host.refresh_from_db()
    assert timedelta(minutes=59) < host.muted_until - timezone.now() <= timedelta(hours=1)


def test_a_mute_needs_a_reason_and_one_of_the_lengths(mod, host):
    url = reverse("admin:accounts_user_mute", args=[host.pk])
    assert "This field is required" in mod.post(url, {"length": "1d"}).content.decode()
    assert "Select a valid choice" in mod.post(url, {"length": "999d", "reason": "x"}).content.decode()
    host.refresh_from_db()
    assert host.muted_until is None and not logged(ModerationAction.Action.MUTE)


def test_the_admin_mutes_a_player_from_their_page_and_unmutes_them(mod, admin_user, host, opponent):
    change = reverse("admin:accounts_user_change", args=[host.pk])
    mute, unmute = (reverse(f"admin:accounts_user_{name}", args=[host.pk]) for name in ("mute", "unmute"))
    assert mute in mod.get(change).content.decode() and unmute not in mod.get(change).content.decode()
    assert mod.get(mute).status_code == 200
    response = mod.post(mute, {"length": "7d", "reason": "Harassment"})
    assert response.status_code == 302 and response.url == change
    host.refresh_from_db()
    assert timedelta(days=6, hours=23) < host.muted_until - timezone.now() <= timedelta(days=7)
    assert unmute in mod.get(change).content.decode()
    listed = mod.get(PLAYERS, {"muted": "yes"}).content.decode()
    assert "hostess" in listed and "opponent" not in listed
    assert "opponent" in mod.get(PLAYERS, {"muted": "no"}).content.decode()
    assert "Unmute" in mod.get(unmute).content.decode()
    host.refresh_from_db()
    assert host.muted_until is not None  # a GET only asks
    mod.post(unmute)
    host.refresh_from_db()
    assert host.muted_until is None and host.mute_reason == ""
    (action,) = logged(ModerationAction.Action.UNMUTE)
    assert (action.admin, action.user) == (admin_user, host)
    assert "hostess" not in mod.get(PLAYERS, {"muted": "yes"}).content.decode()


def test_the_players_list_unmutes_only_who_is_muted(mod, host, opponent):
    chat.mute(user=host, until=timezone.now() + timedelta(hours=1), reason="x", by=None)
    mod.post(PLAYERS, {"action": "unmute_users", ACTION_CHECKBOX_NAME: [host.pk, opponent.pk]})
    host.refresh_from_db()
    assert host.muted_until is None
    assert [a.user for a in logged(ModerationAction.Action.UNMUTE)] == [host]


def test_the_players_list_mutes_but_never_the_admin_themselves(mod, admin_user, host):
    mod.post(PLAYERS, {"action": "mute_users", "apply": "1", "length": "1h", "reason": "x",
                       ACTION_CHECKBOX_NAME: [host.pk, admin_user.pk]})
    host.refresh_from_db()
    admin_user.refresh_from_db()
    assert host.muted_until is not None and admin_user.muted_until is None


def test_reports_and_messages_are_a_record_the_admin_cannot_edit_add_or_remove(mod, host, opponent):
    message = say(host, "as said")
    report = chat.report(reporter=opponent, message_id=message.pk)
    for model, row in (("chatmessage", message), ("chatreport", report)):
        assert mod.get(reverse(f"admin:lobby_{model}_add")).status_code == 403
        change = reverse(f"admin:lobby_{model}_change", args=[row.pk])
        assert mod.get(change).status_code == 200  # to read
        assert mod.post(change, {"text": "rewritten"}).status_code == 403
        assert mod.post(reverse(f"admin:lobby_{model}_delete", args=[row.pk])).status_code == 403
        listing = mod.get(reverse(f"admin:lobby_{model}_changelist")).content.decode()
        assert 'value="delete_selected"' not in listing
        mod.post(reverse(f"admin:lobby_{model}_changelist"), {"action": "delete_selected", "post": "yes",
                                                               ACTION_CHECKBOX_NAME: [row.pk]})
    assert ChatMessage.objects.get(pk=message.pk).text == "as said"
    assert ChatReport.objects.get(pk=report.pk).text == "as said"
    assert ChatMessage.objects.get(pk=message.pk).deleted_at is None


def test_a_guests_secret_key_is_not_shown_in_the_admin(mod, settings):
    settings.CHAT_GUESTS_MAY_WRITE = True
    message = say(guest(token="secret-guest-token"), "hello")
    assert "secret-guest-token" not in mod.get(reverse("admin:lobby_chatmessage_change", args=[message.pk])).content.decode()


def test_a_player_reaches_none_of_the_chats_moderation(client, host, opponent):
    message = say(host, "hello")
    report = chat.report(reporter=opponent, message_id=message.pk)
    client.force_login(opponent)
    for url in (REPORTS, MESSAGES, reverse("admin:lobby_chatreport_change", args=[report.pk]),
                reverse("admin:accounts_user_mute", args=[host.pk]), reverse("admin:accounts_user_unmute", args=[host.pk])):
        response = client.get(url)
        assert response.status_code == 302 and "/admin/login/" in response.url, url
    client.post(MESSAGES, {"action": "delete_messages", ACTION_CHECKBOX_NAME: [message.pk]})
    client.post(reverse("admin:accounts_user_mute", args=[host.pk]), {"length": "7d", "reason": "x"})
    client.post(REPORTS, {"action": "dismiss_reports", ACTION_CHECKBOX_NAME: [report.pk]})
    message.refresh_from_db()
    host.refresh_from_db()
    report.refresh_from_db()
    assert message.deleted_at is None and host.muted_until is None and report.resolved_at is None
    assert not ModerationAction.objects.exists()


def test_staff_who_may_only_read_reports_act_on_nothing(client, make_user, host, opponent):
    reader = make_user("reader")
    reader.is_staff = True
    reader.save()
    reader.user_permissions.add(Permission.objects.get(codename="view_chatreport"))
    message = say(host, "hello")
    report = chat.report(reporter=opponent, message_id=message.pk)
    client.force_login(reader)
    listing = client.get(REPORTS).content.decode()
    assert "hello" in listing and "delete_messages" not in listing and "mute_authors" not in listing
    for action in ("delete_messages", "dismiss_reports", "mute_authors"):
        client.post(REPORTS, {"action": action, "apply": "1", "length": "1d", "reason": "x",
                              ACTION_CHECKBOX_NAME: [report.pk]})
    for url in (reverse("admin:accounts_user_mute", args=[host.pk]), reverse("admin:accounts_user_unmute", args=[host.pk])):
        assert client.get(url).status_code == 403
        assert client.post(url, {"length": "1d", "reason": "x"}).status_code == 403
    message.refresh_from_db()
    host.refresh_from_db()
    report.refresh_from_db()
    assert message.deleted_at is None and host.muted_until is None and report.resolved_at is None
    assert not ModerationAction.objects.exists()
