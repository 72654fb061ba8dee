"""Games in the admin: results and input logs to read, nothing to edit (RULES.md §6),
and the moderation record."""

from __future__ import annotations

from django.urls import reverse
from django.utils import timezone

from accounts.models import ModerationAction
from games.models import Game, GameLog, Participation
from tests.personas import ref


def finished_game(table, host, opponent) -> Game:
    game = Game.objects.create(
        table=table,
        kind="tetriwar",
        seed=42,
        stake=10,
        pot=20,
        status=Game.Status.FINISHED,
        scored=True,
        ended_at=timezone.now(),
    )
    Participation.objects.create(
        game=game,
        seat=1,
        user=host,
        name=host.username,
        ip="203.0.113.7",
        score=1234,
        lines=12,
        eliminations=0,
        place=1,
        points=10,
        chips_delta=10,
    )
    Participation.objects.create(
        game=game,
        seat=2,
        user=opponent,
        name=opponent.username,
        ip="198.51.100.9",
        score=560,
        lines=4,
        eliminations=1,
        place=2,
        points=-5,
        chips_delta=-10,
    )
    GameLog.objects.create(
        game=game,
        entries=[[0.5, 1, "L"], [1.25, 2, "hard"], [2.0, 1, "<bomb 2>"]],
        summary={"standings": [{"place": 1, "seats": [1]}, {"place": 2, "seats": [2]}], "end": "time"},
    )
    return game


def test_the_admin_lists_games_with_filters(client, admin_user, host, opponent, make_table):
    game = finished_game(make_table(ref(host), stake=10), host, opponent)
    client.force_login(admin_user)

    html = client.get(reverse("admin:games_game_changelist"), {"status__exact": "finished"}).content.decode()

    assert f"{reverse('admin:games_game_change', args=[game.pk])}" in html
    for column in ("Kind", "Status", "Scored", "Stake", "Pot", "Ended at"):
        assert column in html
    assert "By kind" in html and "By status" in html and "By scored" in html


def test_a_games_page_shows_participants_ips_and_the_log(client, admin_user, host, opponent, make_table):
    game = finished_game(make_table(ref(host), stake=10), host, opponent)
    client.force_login(admin_user)

    response = client.get(reverse("admin:games_game_change", args=[game.pk]))

    assert response.status_code == 200
    html = response.content.decode()
    assert "hostess" in html and "opponent" in html
    assert "203.0.113.7" in html and "198.51.100.9" in html
    assert "1234" in html and "-5" in html
    assert '<pre class="game-log">' in html
    assert "seat 2  hard" in html
    assert "&lt;bomb 2&gt;" in html  # the log is text, never markup
    assert "3 entries" in html
    assert "&quot;end&quot;: &quot;time&quot;" in html
    # Read only: no form to save, no way to add a participant.
    assert 'name="_save"' not in html
    assert 'name="participations-MAX_NUM_FORMS" value="0"' in html
    assert "participations-0-DELETE" not in html


def test_a_game_without_a_log_still_shows(client, admin_user, host, make_table):
    game = Game.objects.create(table=make_table(ref(host)), kind="tetriwar", seed=1)
    client.force_login(admin_user)
    html = client.get(reverse("admin:games_game_change", args=[game.pk])).content.decode()
    assert "No input recorded." in html


def test_the_admin_refuses_to_add_change_or_delete_games(client, admin_user, host, opponent, make_table):
    game = finished_game(make_table(ref(host), stake=10), host, opponent)
    client.force_login(admin_user)

    assert client.get(reverse("admin:games_game_add")).status_code == 403
    assert client.get(reverse("admin:games_game_delete", args=[game.pk])).status_code == 403
    client.post(reverse("admin:games_game_change", args=[game.pk]), {"stake": "999", "scored": ""})
    game.refresh_from_db()
    assert (game.stake, game.scored) == (10, True)
    assert Game.objects.filter(pk=game.pk).exists()


def test_a_player_is_sent_away_from_the_games_admin(client, host, opponent, make_table):
    game = finished_game(make_table(ref(host), stake=10), host, opponent)
    client.force_login(host)
    for url in (reverse("admin:games_game_changelist"), reverse("admin:games_game_change", args=[game.pk])):
        response = client.get(url)
        assert response.status_code == 302 and "/admin/login/" in response.url


def test_the_admin_lists_moderation_actions_read_only(client, admin_user, opponent):
    ModerationAction.objects.create(
        admin=admin_user, action=ModerationAction.Action.BAN, user=opponent, reason="Cheating"
    )
    client.force_login(admin_user)

    html = client.get(reverse("admin:accounts_moderationaction_changelist")).content.decode()

    assert "Cheating" in html and "opponent" in html and "moderator" in html
    assert client.get(reverse("admin:accounts_moderationaction_add")).status_code == 403


def test_a_games_page_shows_the_rules_version_it_was_played_under_read_only(client, admin_user, host, make_table):
    game = Game.objects.create(table=make_table(ref(host)), kind="tetriwar", seed=1, rules_version=2)
    client.force_login(admin_user)
    html = client.get(reverse("admin:games_game_change", args=[game.pk])).content.decode()
    row = html.split('class="form-row field-rules_version"', 1)[1].split('class="form-row', 1)[0]
    assert "<label>Rules version:</label>" in row and '<div class="readonly">2</div>' in row
    assert 'name="rules_version"' not in html
