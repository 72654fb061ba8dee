"""A restart loses no game (issue 50), in one process: a host whose process "died" (its
tables stopped where they stood, nothing more written) is replaced by a new host, which
rebuilds the running game from what was written (games/journal.py, games/resume.py).
The pages that come back see the game as it stood, told that the server restarted and
counted down; then it goes on, and ends once, its chips settled once."""

from __future__ import annotations

import asyncio
import re

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


@pytest.fixture(autouse=True)
def written_when_the_test_says(monkeypatch):
    """The journal writes only when a test flushes it (or the host stops): its own
    writes every 250 ms, on their own thread, could land between a test's look at what
    is stored and the process's "death", and store what the test means to lose."""
    from games import journal

    monkeypatch.setattr(journal, "FLUSH_SECONDS", 3600.0)


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


async def test_a_resumed_bot_watched_the_countdown_and_moves_as_it_ends(fake_clock, host, monkeypatch):
    """A bot whose turn it was when the process died does not think again after the
    countdown: it watched the board through it, as the players did, and drops at its
    end (a fresh turn's pause is 0.6–1.2 s of the host's clock)."""
    from lobby import services
    from tests.live.test_names import table_with_a_bot
    from tests.personas import ref

    table = await database_sync_to_async(table_with_a_bot)(host)
    await database_sync_to_async(services.bot_add)(table_id=table.pk, player=ref(host), number=2, level="greedy")
    (p1,) = await started_sockets(table, (host,), fake_clock, "to move")
    game_id = (await database_sync_to_async(Game.objects.get)(table=table)).pk
    await p1.send_json_to({"intent": "drop", "column": 3, "seq": 1})
    await receive_until(p1, r"a1:1\b")
    await the_host().journal.flush()
    await killed(table.pk)
    await p1.disconnect()

    new = await restarted(monkeypatch)
    live = new.tables[table.pk]
    p1 = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(host))
    await receive_until(p1, "The server restarted")
    fake_clock.t += 3.01  # the countdown's end, and not a moment more
    await tick(table.pk)
    await receive_until(p1, r"\(bot, greedy\): column")
    assert [seat for _, seat, _ in live.live.game.log] == [1, 2]
    assert len(await database_sync_to_async(stored_log)(game_id)) == 1  # the bot's drop: not yet written
    await p1.send_json_to({"intent": "forfeit"})
    await receive_until(p1, 'id="results-title"')
    await p1.disconnect()


async def test_the_journal_writes_on_time_while_the_database_thread_is_busy(fake_clock, host, opponent):
    """The journal has a thread and a connection of its own: a batch is written while
    the thread the pages' database work shares is held (under load it is busy for
    seconds, and runs below the event loop)."""
    import threading

    table = await database_sync_to_async(ready_table)("viertris", OPTIONS, (host, opponent))
    p1, p2 = await started_sockets(table, (host, opponent), fake_clock, "to move")
    game_id = (await database_sync_to_async(Game.objects.get)(table=table)).pk
    await p1.send_json_to({"intent": "drop", "column": 3, "seq": 1})
    await receive_until(p1, r"a1:1\b")
    release = threading.Event()
    held = asyncio.ensure_future(database_sync_to_async(release.wait)())
    try:
        assert await asyncio.wait_for(the_host().journal.flush(), 10) == 1
        read = database_sync_to_async(stored_log, thread_sensitive=False)
        assert len(await read(game_id)) == 1
        assert not held.done()
    finally:
        release.set()
        await held
    await p2.send_json_to({"intent": "forfeit"})
    await receive_until(p1, 'id="results-title"')
    for ws in (p1, p2):
        await ws.disconnect()


async def test_a_key_pressed_as_the_server_stops_is_refused_with_the_restart_said(fake_clock, host, opponent):
    """A graceful stop stands every table still, its inputs written; a key that comes
    after is refused as the page was told, not as if there were no game."""
    table = await database_sync_to_async(ready_table)("viertris", OPTIONS, (host, opponent))
    p1, p2 = await started_sockets(table, (host, opponent), fake_clock, "to move")
    game_id = (await database_sync_to_async(Game.objects.get)(table=table)).pk
    await p1.send_json_to({"intent": "drop", "column": 3, "seq": 1})
    await receive_until(p1, r"a1:1\b")
    await the_host().stop()
    assert "The server is restarting: your game will continue." in await receive_until(p2, "restarting")
    await p2.send_json_to({"intent": "drop", "column": 4, "seq": 1})
    refusal = await receive_until(p2, 'id="ws-error"')
    assert 'data-code="RESTARTING"' in refusal and "The server is restarting" in refusal
    assert len(await database_sync_to_async(stored_log)(game_id)) == 1  # the drop before the stop
    for ws in (p1, p2):
        await ws.disconnect()


async def test_what_comes_while_the_games_are_rebuilt_is_bounded(monkeypatch):
    """While a starting host rebuilds, what comes waits in it: each table's keys up to
    the table's queue (then refused as busy, as at a full table), everything else up to
    WAITING_LIMIT (then dropped and said once), and all of it handled once it is done."""
    from channels.exceptions import ChannelFull

    from games import messages

    monkeypatch.setattr(game_host, "WAITING_LIMIT", game_host.QUEUE_LIMIT + 5)
    new = game_host.GameHost(resuming=True)  # rebuilding
    for n in range(game_host.QUEUE_LIMIT):
        await new.accept(messages.Intent(table_id=7, seat=1, intent="drop:3", seq=n))
    with pytest.raises(ChannelFull):
        await new.accept(messages.Intent(table_id=7, seat=1, intent="drop:3", seq=0))
    await new.accept(messages.Intent(table_id=8, seat=1, intent="drop:3", seq=0))  # another table's
    for _ in range(10):
        await new.accept(messages.Sync(table_id=9, seat=None, reply=""))
    assert len(new.waiting) == game_host.QUEUE_LIMIT + 5 and new.dropped == 6


async def killed_after_a_written_move(host, opponent, fake_clock):
    """A Viertris game at a stake whose first move was written, then its process died
    and its pages went; the table, and the version of the broadcast of that move."""
    table = await database_sync_to_async(ready_table)("viertris", OPTIONS, (host, opponent), 100)
    p1, p2 = await started_sockets(table, (host, opponent), fake_clock, "to move")
    await p1.send_json_to({"intent": "drop", "column": 3, "seq": 1})
    moved = version(await receive_until(p1, r"a1:1\b"))
    await the_host().journal.flush()
    await killed(table.pk)
    for ws in (p1, p2):
        await ws.disconnect()
    return table, moved


def version(frame: str) -> int:
    return int(re.match(r"<!--v(\d+)", frame).group(1))


def countdown_ms(page: str) -> int:
    """The milliseconds to the game's going on that the restart's notice gives."""
    found = re.search(r'class="reconnect-seat reconnect-server"[^>]*data-back-ms="(\d+)"', page)
    assert found, page[-1500:]
    return int(found.group(1))


async def test_a_rebuilt_game_counts_down_once_all_its_players_are_back(
    fake_clock, host, opponent, monkeypatch, caplog
):
    """The first page back is told the game goes on in at most RESUME_WAIT_SECONDS and the
    countdown; once the other is back too, both are told 3 s, and it goes on 3 s later,
    whenever they came back: each player sees the whole countdown."""
    table, before = await killed_after_a_written_move(host, opponent, fake_clock)

    await restarted(monkeypatch)
    fake_clock.t += 2.5  # the pages take their time to come back
    p1 = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(host))
    page = await receive_until(p1, "data-countdown-ms")
    # Numbered on past the old host's broadcasts: a page that kept its socket sees a gap.
    assert version(page) > before + 1
    assert countdown_ms(page) == (game_host.RESUME_WAIT_SECONDS + game_host.COUNTDOWN_SECONDS - 2.5) * 1000
    fake_clock.t += 4.0
    await tick(table.pk)
    p2 = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(opponent))
    for ws in (p1, p2):  # (p1 saw the other's old page go first: the region said so)
        await receive_until(ws, r'reconnect-server"[^>]*data-back-ms="3000"')
    assert "waited=6.500 all_back=True" in caplog.text  # 2.5 s and 4 s
    fake_clock.t += 2.9
    await tick(table.pk)
    await p2.send_json_to({"intent": "drop", "column": 4, "seq": 2})
    assert "NOT_STARTED" in await receive_until(p2, "NOT_STARTED")
    fake_clock.t += 0.11
    await tick(table.pk)
    await receive_until(p2, "to move")
    await p2.send_json_to({"intent": "drop", "column": 4, "seq": 3})
    await receive_until(p2, r"a2:3\b")
    await p2.send_json_to({"intent": "forfeit"})
    await receive_until(p1, 'id="results-title"')
    for ws in (p1, p2):
        await ws.disconnect()


async def test_a_player_who_does_not_come_back_holds_a_rebuilt_game_only_so_long(
    fake_clock, host, opponent, monkeypatch, caplog
):
    """RESUME_WAIT_SECONDS and the countdown after the rebuild, the game goes on without
    the page that did not come back (whose seat then has its 30 s, as any seat away)."""
    table, _ = await killed_after_a_written_move(host, opponent, fake_clock)

    new = await restarted(monkeypatch)
    p2 = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(opponent))
    await receive_until(p2, "data-countdown-ms")
    fake_clock.t += game_host.RESUME_WAIT_SECONDS + game_host.COUNTDOWN_SECONDS - 0.1
    await tick(table.pk)
    await p2.send_json_to({"intent": "drop", "column": 4, "seq": 2})
    assert "NOT_STARTED" in await receive_until(p2, "NOT_STARTED")
    fake_clock.t += 0.11
    await tick(table.pk)
    await receive_until(p2, "to move")
    assert new.tables[table.pk].started
    assert f"game counts down table={table.pk} game=" in caplog.text
    assert "waited=10.000 all_back=False" in caplog.text
    await p2.send_json_to({"intent": "drop", "column": 4, "seq": 3})
    await receive_until(p2, r"a2:3\b")
    await p2.send_json_to({"intent": "forfeit"})
    await receive_until(p2, 'id="results-title"')
    await p2.disconnect()


async def test_a_page_elsewhere_first_heard_of_while_a_rebuilt_game_waits_is_told_of_the_restart(
    fake_clock, host, opponent, monkeypatch
):
    """In scale-out a page that stayed open on another process is told of the restart
    by the game itself, sent once: if that process's news of the rebuild comes late (or
    never), its next Watch is the first this host hears of the page, and the page is sent
    the game as it stands, notice and all. A Watch again sends nothing more, and a page
    first heard of once the game goes on gets only what every page gets."""
    from channels.layers import get_channel_layer

    from games import messages

    table, _ = await killed_after_a_written_move(host, opponent, fake_clock)
    new = await restarted(monkeypatch)
    layer = get_channel_layer()
    far = await layer.new_channel()
    await new.accept(messages.Watch(table_id=table.pk, channels=[far]))
    told = await asyncio.wait_for(layer.receive(far), 3)
    assert told["type"] == "game.fragment"
    assert "The server restarted" in told["html"] and 'id="game"' in told["html"]
    await new.accept(messages.Watch(table_id=table.pk, channels=[far]))  # its process says it again
    await tick(table.pk)
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(layer.receive(far), 0.3)

    fake_clock.t += game_host.RESUME_WAIT_SECONDS + game_host.COUNTDOWN_SECONDS + 0.1
    await tick(table.pk)
    p2 = await open_socket(f"/ws/table/{table.pk}/", await cookie_for(opponent))
    await receive_until(p2, "to move")  # the game goes on
    later = await layer.new_channel()
    await new.accept(messages.Watch(table_id=table.pk, channels=[later]))
    await tick(table.pk)
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(layer.receive(later), 0.3)
    await p2.send_json_to({"intent": "forfeit"})
    await receive_until(p2, 'id="results-title"')
    await p2.disconnect()
