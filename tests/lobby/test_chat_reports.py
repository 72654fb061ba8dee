"""A player's own moderation in the chat (issue 33): reporting a message to the
moderators, hiding a player's messages for oneself."""

from __future__ import annotations

import pytest
from django.urls import reverse

from lobby import chat
from lobby.models import ChatIgnore, ChatReport
from tests.personas import ref

REPORT = reverse("lobby:chat_report")
IGNORE = reverse("lobby:chat_ignore")


@pytest.fixture
def message(host):
    return chat.say(player=ref(host), table_id=None, text="you all play like bots")


def test_a_report_keeps_the_text_as_it_was_reported(client, settings, host, opponent, message):
    client.force_login(opponent)
    response = client.post(REPORT, {"message": message.pk})
    assert response.status_code == 200 and "moderator" in response.content.decode()
    report = ChatReport.objects.get()
    assert (report.reporter, report.author, report.author_name, report.text, report.room, report.table_id) == (
        opponent, host, "hostess", "you all play like bots", "lobby", None,
    )
    settings.CHAT_HISTORY = 1
    chat.say(player=ref(host), table_id=None, text="a newer message pushes it out")
    report.refresh_from_db()
    assert report.message is None and report.text == "you all play like bots"  # the copy outlives the message


def test_a_player_reports_a_message_once(client, opponent, outsider, message):
    client.force_login(opponent)
    client.post(REPORT, {"message": message.pk})
    client.post(REPORT, {"message": message.pk})
    assert ChatReport.objects.count() == 1
    client.force_login(outsider)
    client.post(REPORT, {"message": message.pk})
    assert ChatReport.objects.count() == 2  # once per reporter and message


def test_nobody_reports_their_own_message(client, host, message):
    client.force_login(host)
    response = client.post(REPORT, {"message": message.pk})
    assert response.status_code == 400 and "your own message" in response.content.decode()
    assert not ChatReport.objects.exists()


def test_a_visitor_not_logged_in_cannot_report_or_hide(client, message):
    assert client.post(REPORT, {"message": message.pk}).status_code == 403
    assert client.post(IGNORE, {"message": message.pk}).status_code == 403
    assert not ChatReport.objects.exists() and not ChatIgnore.objects.exists()


def test_a_deleted_message_can_no_longer_be_reported(client, admin_user, opponent, message):
    chat.delete(message=message, by=admin_user)
    client.force_login(opponent)
    assert client.post(REPORT, {"message": message.pk}).status_code == 400
    assert not ChatReport.objects.exists()


def test_hiding_a_player_is_for_oneself_only(client, host, opponent, outsider, message):
    client.force_login(opponent)
    assert client.post(IGNORE, {"message": message.pk}).status_code == 200
    assert chat.history(None, ref(opponent)) == []
    assert chat.history(None, ref(outsider)) == [message.pk]
    client.post(IGNORE, {"message": message.pk})
    assert ChatIgnore.objects.filter(owner=opponent).count() == 1


def test_nobody_hides_themselves(client, host, message):
    client.force_login(host)
    assert client.post(IGNORE, {"message": message.pk}).status_code == 400
    assert not ChatIgnore.objects.exists()
