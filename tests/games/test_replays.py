"""Finished games replay from their records to what was recorded (games/replays.py,
games/verify.py): bots' games of every kind, recorded as a live table records them."""

from __future__ import annotations

import pytest

from games import services as game_services
from games.core.log import InputLog
from games.models import Game, GameLog
from games.registry import GAMES
from games.services import setup_of
from games.verify import NO_RECORD, check
from lobby import services
from tests.contract.test_game_contract import bots_game
from tests.personas import ref

pytestmark = pytest.mark.django_db


def recorded_bots_game(host, kind: str, seed: int) -> Game:
    """A game of ``kind`` played to its end by bots in every seat and recorded by the
    services, as a table host records it."""
    table = services.practice_create(player=ref(host), game=kind)
    services.table_start(table_id=table.pk, player=ref(host))
    game = Game.objects.get(table=table)
    Game.objects.filter(pk=game.pk).update(seed=seed)
    game.refresh_from_db()
    setup = setup_of(game)
    spec = GAMES[kind]
    live = bots_game(spec, seed=seed, seats=len(setup["players"]), setup=setup)
    game_services.game_finish(game_id=game.pk, finished=live.finished_game())
    return Game.objects.select_related("log").get(pk=game.pk)


@pytest.mark.parametrize("kind", sorted(GAMES))
def test_a_recorded_bots_game_of_every_kind_replays_to_its_record(host, kind):
    game = recorded_bots_game(host, kind, seed=31)
    assert game.status == Game.Status.FINISHED
    assert check(game) == []


def test_a_tampered_log_is_reported(host):
    game = recorded_bots_game(host, "viertris", seed=7)
    log = game.log
    entries, start, end = InputLog.unpack(bytes(log.data))
    tampered = InputLog([*list(entries)[:-3], *list(entries)[-2:]])  # one move taken out
    GameLog.objects.filter(pk=log.pk).update(data=tampered.pack(start, end))
    game = Game.objects.select_related("log").get(pk=game.pk)
    assert check(game) != []


def test_a_game_without_a_packed_log_says_so(host):
    game = recorded_bots_game(host, "viertris", seed=7)
    GameLog.objects.filter(game=game).update(data=b"")
    assert check(Game.objects.select_related("log").get(pk=game.pk)) == [NO_RECORD]


def test_a_failure_while_recording_leaves_nothing_half_written(host, monkeypatch):
    """Results, chips and the log are written in one transaction: a failure on the way
    (here, packing the log) leaves the game running and its seats untouched."""
    table = services.practice_create(player=ref(host), game="viertris")
    services.table_start(table_id=table.pk, player=ref(host))
    game = Game.objects.get(table=table)
    live = bots_game(GAMES["viertris"], seed=3, setup=setup_of(game))

    def broken(finished):
        raise RuntimeError("the disk is full")

    monkeypatch.setattr(game_services, "packed_log", broken)
    with pytest.raises(RuntimeError):
        game_services.game_finish(game_id=game.pk, finished=live.finished_game())
    game.refresh_from_db()
    assert game.status == Game.Status.RUNNING
    assert list(game.participations.values_list("place", flat=True)) == [None, None]
