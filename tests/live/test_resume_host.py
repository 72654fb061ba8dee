"""A restart loses no game (issue 50), in one process: a host whose process "died" (its
tables stopped where they stood, nothing more written) is replaced by a new host, which
rebuilds the running game from what was written (games/journal.py, games/resume.py).
The pages that come back see the game as it stood, told that the server restarted and
counted down; then it goes on, and ends once, its chips settled once."""

from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async

from games import host as game_host
from games.core.log import InputLog
from games.journal import stored
from games.models import Game, JournalBatch
from games.viertris.constants import MOVE_SECONDS_DEFAULT
from tests.live.conftest import (
    cookie_for,
    open_socket,
    quiet,
    ready_table,
    receive_until,
    started_sockets,
    tick,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

OPTIONS = {"move_seconds": MOVE_SECONDS_DEFAULT}


def the_host() -> game_host.GameHost:
    return game_host.GameHostConsumer.host


async def killed(table_id: int) -> None:
    """The process dies: its table stops where it stands, and nothing more is written
    (neither what is pending nor any end); its host hears nothing more."""
    host = the_host()
    table = host.tables[table_id]
    host.journal.games.clear()
    table.done = True
    table.task.cancel()
    host.tables.pop(table_id, None)
    hosting = game_host._started.pop(asyncio.get_running_loop())
    hosting.cancel()


async def restarted(monkeypatch) -> game_host.GameHost:
    """A new process's host, started as a process starts it: games begun before it
    started are an earlier process's."""
    from django.utils import timezone

    old = the_host()
    monkeypatch.setattr(game_host, "PROCESS_STARTED", timezone.now())
    game_host.start_hosting()
    while the_host() is old:
        await asyncio.sleep(0.01)
    await the_host().ready.wait()
    return the_host()


async def chips_of(*users) -> list[int]:
    from accounts.models import User

    return await database_sync_to_async(
        lambda: sorted(User.objects.filter(pk__in=[u.pk for u in users]).values_list("chips", flat=True))
    )()


def stored_log(game_id: int) -> InputLog:
    return stored([bytes(d) for d in JournalBatch.objects.filter(game_id=game_id).order_by("seq").values_list("data", flat=True)])[0]


async def test_a_viertris_game_goes_on_after_a_restart_from_its_last_written_move(
    fake_clock, host, opponent, monkeypatch
):
    table = await database_sync_to_async(ready_table)("viertris", OPTIONS, (host, opponent), 100)
    p1, p2 = await started_sockets(table, (host, opponent), fake_clock, "to move")
    game_id = (await database_sync_to_async(Game.objects.get)(table=table)).pk
    await p1.send_json_to({"intent": "drop", "column": 3, "seq": 1})
    await receive_until(p1, r"a1:1\b")
    await the_host().journal.flush()  # the batch of its moves so far: written
    await p2.send_json_to({"intent": "drop", "column": 4, "seq": 1})
    await receive_until(p2, r"a2:1\b")  # applied, not yet written when the process dies
    assert len(await database_sync_to_async(stored_log)(game_id)) == 1
    await killed(table.pk)
    for ws in (p1, p2):
        await ws.disconnect()

    new = await restarted(monkeypatch)
    assert table.pk in new.tables
    live = new.tables[table.pk]
    assert live.resumed and not live.started
    # The pages come back: the board as written (one disc), the restart said, a countdown.
    p1 = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(host))
    p2 = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(opponent))
    for ws in (p1, p2):
        page = await receive_until(ws, "data-countdown-ms")  # the whole game, as a page gets it
        assert "The server restarted: the game goes on in" in page
        assert page.count("vt-disc") == 1 or page.count('class="disc') == 1 or "drop:3" not in page
    # Before the countdown ends, a move is refused and changes nothing.
    await p2.send_json_to({"intent": "drop", "column": 4, "seq": 2})
    assert "NOT_STARTED" in await receive_until(p2, "NOT_STARTED")
    fake_clock.t += 3.01
    await tick(table.pk)
    await receive_until(p2, "to move")
    # Bert's move was lost with the process: it is his turn again, on his clock as it stood.
    await p2.send_json_to({"intent": "drop", "column": 4, "seq": 3})
    await receive_until(p2, r"a2:3\b")
    assert len(live.live.game.log) == 2
    # The game ends as any does: a leave. One result, the stakes settled once.
    await p2.send_json_to({"intent": "forfeit"})
    await receive_until(p1, 'id="results-title"')
    await quiet([p1, p2])
    game = await database_sync_to_async(Game.objects.get)(pk=game_id)
    assert game.status == Game.Status.FINISHED
    assert not await database_sync_to_async(JournalBatch.objects.filter(game_id=game_id).exists)()
    chips = await chips_of(host, opponent)
    assert sum(chips) == 2000 and chips != [1000, 1000]
    for ws in (p1, p2):
        await ws.disconnect()


async def test_a_game_that_does_not_replay_is_aborted_with_its_stakes_back_and_its_pages_told(
    fake_clock, host, opponent, monkeypatch
):
    table = await database_sync_to_async(ready_table)("viertris", OPTIONS, (host, opponent), 100)
    p1, p2 = await started_sockets(table, (host, opponent), fake_clock, "to move")
    game_id = (await database_sync_to_async(Game.objects.get)(table=table)).pk
    await p1.send_json_to({"intent": "drop", "column": 3, "seq": 1})
    await receive_until(p1, r"a1:1\b")
    await the_host().journal.flush()
    await killed(table.pk)
    # What was written no longer replays here (a move this server's rules refuse).
    batch = await database_sync_to_async(JournalBatch.objects.get)(game_id=game_id)
    entries, start, end = InputLog.unpack(bytes(batch.data))
    t, seat, _ = entries[0]
    batch.data = InputLog([(t, seat, "drop:99")]).pack(start, end)
    await database_sync_to_async(batch.save)()
    new = await restarted(monkeypatch)
    assert table.pk not in new.tables
    assert "could not rebuild" in await receive_until(p2, "Game aborted")
    game = await database_sync_to_async(Game.objects.get)(pk=game_id)
    assert game.status == Game.Status.ABORTED and "could not rebuild" in game.abort_reason
    chips = await chips_of(host, opponent)
    assert chips == [1000, 1000]
    for ws in (p1, p2):
        await ws.disconnect()
