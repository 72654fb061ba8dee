"""``manage.py verify_games`` (games/management/commands/verify_games.py): every finished
game rebuilt from its log and checked against its record, each verdict stored on the
game, and a failing exit status when one does not replay as recorded."""

from __future__ import annotations

from io import StringIO

import pytest
from channels.db import database_sync_to_async
from django.core.management import ManagementUtility, call_command
from django.core.management.base import CommandError

from games import host as game_host
from games.core.log import InputLog
from games.models import Game, GameLog
from games.registry import GAMES
from games.verify import NO_RECORD, record_check
from tests.games import test_replays

pytestmark = pytest.mark.django_db


@pytest.fixture
def recorded_bots_game(make_user):
    """A recorded bots' game (test_replays.recorded_bots_game), each at the practice
    table of a player of its own: a player's practice table holds one game at a time."""
    players = iter(range(1, 1000))

    def record(kind: str, seed: int) -> Game:
        return test_replays.recorded_bots_game(make_user(f"player{next(players)}"), kind, seed)

    return record


def verify(*args: str) -> str:
    """The command's output; raises CommandError as the command does on a mismatch."""
    out = StringIO()
    call_command("verify_games", *args, stdout=out)
    return out.getvalue()


def verify_failing(*args: str) -> tuple[str, CommandError]:
    out = StringIO()
    with pytest.raises(CommandError) as failure:
        call_command("verify_games", *args, stdout=out)
    return out.getvalue(), failure.value


def tamper(game: Game) -> None:
    """Take one move out of the game's packed log (as in test_replays)."""
    entries, start, end = InputLog.unpack(bytes(game.log.data))
    tampered = InputLog([*list(entries)[:-3], *list(entries)[-2:]])
    GameLog.objects.filter(pk=game.log.pk).update(data=tampered.pack(start, end))


def unlog(game: Game) -> None:
    """Make it a game recorded before logs were packed."""
    GameLog.objects.filter(game=game).update(data=b"")


def test_recorded_bots_games_of_every_kind_all_replay_as_recorded(recorded_bots_game):
    games = [recorded_bots_game(kind, seed=31) for kind in sorted(GAMES)]
    output = verify()
    assert (
        f"checked {len(games)} games: {len(games)} replay as recorded, 0 mismatches, 0 without a log"
        in output
    )
    for game in games:
        game.refresh_from_db()
        assert game.replay_check == Game.ReplayCheck.OK
        assert game.replay_problem == "" and game.replay_checked_at is not None


def test_a_tampered_log_is_reported_with_the_game_id_and_fails_the_command(recorded_bots_game):
    fine = recorded_bots_game("viertris", seed=7)
    tampered = recorded_bots_game("viertris", seed=8)
    tamper(tampered)
    output, failure = verify_failing()
    assert failure.returncode == 1
    assert f"game {tampered.pk} (viertris): " in output
    assert f"game {fine.pk} " not in output
    assert "checked 2 games: 1 replay as recorded, 1 mismatches, 0 without a log" in output
    tampered.refresh_from_db()
    fine.refresh_from_db()
    assert tampered.replay_check == Game.ReplayCheck.MISMATCH and tampered.replay_problem
    assert fine.replay_check == Game.ReplayCheck.OK


def test_the_exit_status_is_1_from_the_command_line(recorded_bots_game):
    # call_command raises CommandError; manage.py turns it into the exit status.
    tamper(recorded_bots_game("viertris", seed=8))
    with pytest.raises(SystemExit) as exit_:
        ManagementUtility(["manage.py", "verify_games", "--quiet"]).execute()
    assert exit_.value.code == 1


def test_games_without_a_log_are_counted_apart_and_are_no_mismatch(recorded_bots_game):
    old = recorded_bots_game("viertris", seed=7)
    unlog(old)
    recorded_bots_game("thirdoption", seed=7)
    output = verify()
    assert "checked 2 games: 1 replay as recorded, 0 mismatches, 1 without a log" in output
    old.refresh_from_db()
    assert old.replay_check == Game.ReplayCheck.NO_RECORD and old.replay_problem == NO_RECORD


def test_kind_checks_only_games_of_that_kind(recorded_bots_game):
    viertris = recorded_bots_game("viertris", seed=7)
    other = recorded_bots_game("thirdoption", seed=7)
    tamper(other)
    assert "checked 1 games: 1 replay as recorded" in verify("--kind", "viertris")
    viertris.refresh_from_db()
    other.refresh_from_db()
    assert viertris.replay_check == Game.ReplayCheck.OK
    assert other.replay_check == Game.ReplayCheck.UNCHECKED  # not looked at
    output, _ = verify_failing("--kind", "thirdoption")
    assert f"game {other.pk} (thirdoption): " in output


def test_game_checks_only_the_games_named(recorded_bots_game):
    first = recorded_bots_game("viertris", seed=7)
    second = recorded_bots_game("viertris", seed=8)
    third = recorded_bots_game("viertris", seed=9)
    tamper(third)
    assert "checked 2 games: 2 replay as recorded" in verify(
        "--game", str(first.pk), "--game", str(second.pk)
    )
    third.refresh_from_db()
    assert third.replay_check == Game.ReplayCheck.UNCHECKED


def test_unchecked_skips_games_already_checked(recorded_bots_game):
    checked = recorded_bots_game("viertris", seed=7)
    record_check(Game.objects.select_related("log").get(pk=checked.pk))
    tamper(checked)  # changed since: only a full run finds it
    recorded_bots_game("viertris", seed=8)
    assert "checked 1 games: 1 replay as recorded" in verify("--unchecked")
    _, failure = verify_failing()
    assert failure.returncode == 1


def test_running_games_are_not_checked(host):
    from lobby import services
    from tests.personas import ref

    table = services.practice_create(player=ref(host), game="viertris")
    services.table_start(table_id=table.pk, player=ref(host))
    assert Game.objects.get(table=table).status == Game.Status.RUNNING
    assert "checked 0 games: 0 replay as recorded, 0 mismatches, 0 without a log" in verify()


def test_quiet_prints_only_the_mismatches(recorded_bots_game):
    assert verify("--quiet") == ""
    tampered = recorded_bots_game("viertris", seed=8)
    tamper(tampered)
    output, _ = verify_failing("--quiet")
    assert output.strip().startswith(f"game {tampered.pk} (viertris): ") and "checked" not in output


# --- the check the table host runs right after recording a game (games/host.py) ---


@pytest.mark.django_db(transaction=True)
async def test_the_host_checks_a_game_it_has_just_recorded(recorded_bots_game):
    game = await database_sync_to_async(recorded_bots_game)("viertris", 7)
    await game_host._check_replay(game.pk)
    await database_sync_to_async(game.refresh_from_db)()
    assert game.replay_check == Game.ReplayCheck.OK and game.replay_checked_at is not None


@pytest.mark.django_db(transaction=True)
async def test_the_host_logs_a_game_that_does_not_replay(recorded_bots_game, caplog):
    game = await database_sync_to_async(recorded_bots_game)("viertris", 8)
    await database_sync_to_async(tamper)(game)
    await game_host._check_replay(game.pk)
    await database_sync_to_async(game.refresh_from_db)()
    assert game.replay_check == Game.ReplayCheck.MISMATCH
    assert f"game {game.pk} does not replay to its recorded result" in caplog.text


@pytest.mark.django_db(transaction=True)
async def test_a_failing_check_never_reaches_the_host(monkeypatch, caplog):
    def broken(game_id):
        raise RuntimeError("database gone")

    monkeypatch.setattr(game_host, "record_check_of", broken)
    await game_host._check_replay(1)  # logged, not raised
    assert "the replay check failed" in caplog.text
