"""Every recorded game carries the version of its rules it was played under, and its
replay and its check use that version (issue #31, point 4): a TetriWar game played under
rules version 2, the float-seconds engine now frozen in games/tetriwar/legacy, still
verifies and plays back; the same record read as another version does not; a version this
server does not know is reported, never a crash."""

from __future__ import annotations

import random
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from games import services as game_services
from games.core.protocol import IllegalIntent
from games.live import live_game_for
from games.models import Game
from games.replays import Replay, rebuilt, recorded
from games.services import setup_of
from games.tetriwar import rulebook
from games.tetriwar.intents import Intent
from games.tetriwar.legacy.engine import Game as GameV2
from games.tetriwar.legacy.engine import GameV1
from games.tetriwar.live import TetriWarLive
from games.verify import check, record_check
from lobby import services
from tests.personas import ref

pytestmark = pytest.mark.django_db

KEYS = ("left", "right", "rotate", "hard_drop", "hold_left", "release_left", "hold_down", "release_down")


def recorded_v2_game(host, seed: int = 5) -> Game:
    """A short TetriWar game played with the frozen version 2 engine, in seconds, and
    recorded by the services as a table host records a finished game: its packed log,
    its outcome, and ``rules_version`` 2."""
    table = services.practice_create(player=ref(host), game="tetriwar")
    services.table_start(table_id=table.pk, player=ref(host))
    game = Game.objects.get(table=table)
    Game.objects.filter(pk=game.pk).update(seed=seed, options={**game.options, "minutes": 1}, rules_version=2)
    game.refresh_from_db()
    live = live_game_for(setup_of(game))
    live.use_rules(rulebook.rules(2))  # the adapter as it ran the float-seconds engine
    start = 4321.5  # the host's clock at the start: version 2 counts seconds on it
    live.start = start
    live.game = GameV2(live.options, live.seed, live.seats, start)
    rng = random.Random(seed)
    t = start
    while t < live.game.end - 1:
        t += rng.random() * 0.3
        try:
            live.game.apply(rng.choice(live.seats), Intent.parse(rng.choice(KEYS)), t)
        except IllegalIntent:
            pass
    live.game.advance(live.game.end)
    assert live.finished
    game_services.game_finish(game_id=game.pk, finished=live.finished_game())
    return Game.objects.select_related("log").get(pk=game.pk)


def as_version(game: Game, version: int) -> Game:
    Game.objects.filter(pk=game.pk).update(rules_version=version)
    return Game.objects.select_related("log").get(pk=game.pk)


def test_a_new_tetriwar_game_records_the_rules_its_engine_plays(host):
    table = services.practice_create(player=ref(host), game="tetriwar")
    services.table_start(table_id=table.pk, player=ref(host))
    assert Game.objects.get(table=table).rules_version == TetriWarLive.RULES_VERSION == rulebook.PLAYED_VERSION


def test_a_new_game_of_another_kind_records_version_1(host):
    table = services.practice_create(player=ref(host), game="viertris")
    services.table_start(table_id=table.pk, player=ref(host))
    assert Game.objects.get(table=table).rules_version == 1


def test_a_game_recorded_under_version_2_verifies_with_the_frozen_engine(host):
    game = recorded_v2_game(host)
    assert game.participations.filter(score__gt=0).exists()  # something was played
    assert check(game) == []
    assert type(rebuilt(recorded(game)).game) is GameV2
    record_check(game)
    assert game.replay_check == Game.ReplayCheck.OK


def test_a_game_recorded_under_version_2_plays_back_on_its_replay_page(client, host):
    game = recorded_v2_game(host)
    response = client.get(reverse("games:replay", args=[game.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="replay-seek"' in html and 'id="board-1"' in html
    frame = client.get(reverse("games:replay_at", args=[game.pk]), {"t": "30"})
    assert frame.status_code == 200 and 'id="board-1"' in frame.json()["html"]


def test_the_replays_seek_bar_reads_version_2s_clock_in_seconds(host):
    record = recorded(recorded_v2_game(host))
    replay = Replay.of(record, every=50)
    assert replay.duration == pytest.approx(60.0)
    assert replay.moments and all(0 <= m.t <= 60 for m in replay.moments)
    assert replay.at(replay.duration).game.to_text() == rebuilt(record).game.to_text()
    assert replay.at(30).game.now == pytest.approx(record.start + 30)


def test_the_same_record_read_as_version_3_does_not_replay_as_recorded(host):
    """The version decides the engine and its clock: a version 2 log read by version 3's
    rules (whole milliseconds) is another game, which the check reports."""
    game = as_version(recorded_v2_game(host), 3)
    problems = check(game)
    assert problems, "the version was not used"
    record_check(game)
    assert game.replay_check == Game.ReplayCheck.MISMATCH


def test_a_version_this_server_does_not_know_is_reported_not_crashed(client, host):
    game = as_version(recorded_v2_game(host), 9)
    assert check(game) == ["recorded under rules version 9, which this server does not know"]
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("verify_games", stdout=out)
    assert "recorded under rules version 9" in out.getvalue()
    game.refresh_from_db()
    assert game.replay_check == Game.ReplayCheck.MISMATCH
    response = client.get(reverse("games:replay", args=[game.pk]))  # the page says it is not available
    assert response.status_code == 200 and "The replay is not available" in response.content.decode()
    assert client.get(reverse("games:replay_at", args=[game.pk]), {"t": "1"}).status_code == 404


def test_a_game_recorded_under_version_1_is_rebuilt_by_version_1s_engine(host):
    game = as_version(recorded_v2_game(host), 1)
    assert type(rebuilt(recorded(game)).game) is GameV1
