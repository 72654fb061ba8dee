"""The chat's controls on the player's own profile (issue 33): whom they hide, each
shown again from there, and until when they are muted."""

from __future__ import annotations

from datetime import timedelta

from django.urls import reverse
from django.utils import timezone

from lobby import chat
from lobby.models import ChatIgnore
from tests.personas import ref


def test_the_profile_lists_whom_the_player_hides_and_shows_them_again(client, host, opponent):
    message = chat.say(player=ref(host), table_id=None, text="hi")
    chat.ignore(owner=opponent, message_id=message.pk)
    hidden = ChatIgnore.objects.get()
    client.force_login(opponent)
    page = client.get(reverse("profile")).content.decode()
    assert 'id="chat-hidden"' in page and "hostess" in page and "Show again" in page
    assert f'name="ignore" value="{hidden.pk}"' in page and "csrfmiddlewaretoken" in page
    response = client.post(reverse("lobby:chat_unignore"), {"ignore": hidden.pk})
    assert response.url == reverse("profile") + "#chat-hidden"
    assert not ChatIgnore.objects.exists()
    assert "hostess" not in client.get(reverse("profile")).content.decode().split('id="chat-hidden"')[1]


def test_one_cannot_show_again_whom_another_hides(client, host, opponent, outsider):
    message = chat.say(player=ref(host), table_id=None, text="hi")
    chat.ignore(owner=opponent, message_id=message.pk)
    client.force_login(outsider)
    client.post(reverse("lobby:chat_unignore"), {"ignore": ChatIgnore.objects.get().pk})
    assert ChatIgnore.objects.filter(owner=opponent).exists()


def test_the_profile_says_until_when_the_player_is_muted(client, host, opponent):
    client.force_login(host)
    assert 'id="chat-muted-until"' not in client.get(reverse("profile")).content.decode()
    until = timezone.now() + timedelta(hours=5)
    chat.mute(user=host, until=until, reason="Insults", by=None)
    page = client.get(reverse("profile")).content.decode()
    assert 'id="chat-muted-until"' in page and f'datetime="{until.isoformat()}"' in page
    assert "Insults" not in page  # the reason is the moderators'
    client.force_login(opponent)  # others see neither
    other = client.get(reverse("player", args=["hostess"])).content.decode()
    assert 'id="chat-muted-until"' not in other and 'id="chat-hidden"' not in other


def test_a_mute_that_ran_out_is_not_shown(client, host):
    chat.mute(user=host, until=timezone.now() - timedelta(minutes=1), reason="x", by=None)
    client.force_login(host)
    assert 'id="chat-muted-until"' not in client.get(reverse("profile")).content.decode()
