"""A restart loses no game (issue 50), against a real Daphne server: the process is
killed (SIGKILL) mid-game and a new one started on the same database, as a supervisor
restarts a crashed server. Every kind of game goes on from where its written inputs end
(games/journal.py, games/resume.py), its page told and counted down, and finishes once.

The games are played by bots in every seat and watched by their table's host. The
server's game clock is moved forward (``ServerClock``, as the browser tests move it),
so that a game of minutes runs its course in seconds through the same engine steps."""

from __future__ import annotations

import asyncio
import datetime
import time
from functools import partial

import pytest
import websockets
from django.conf import settings as django_settings
from django.test import Client

from bench.client import start_table
from games.core.log import InputLog
from games.journal import stored
from games.models import Game, GameLog, JournalBatch
from games.registry import GAMES
from lobby import services
from lobby.models import Seat
from tests.browser.conftest import ServerClock, _in_the_server_process
from tests.personas import ref

pytestmark = pytest.mark.django_db(transaction=True)

KINDS = sorted(GAMES)
SHORT = {"minutes": 1}  # where a game has a length: a short one
FINISH_SECONDS = 90  # a bots' game run on a clock moved forward ends well within this


def _a_new_process(clock: ServerClock) -> None:
    """The forked server is a new process: games that began before it are an earlier one's."""
    from games import host

    _in_the_server_process(clock)
    host.PROCESS_STARTED = datetime.datetime.now(datetime.UTC)


class Site:
    """The site served by a Daphne process that the test may kill and start again, on
    the same port and database."""

    def __init__(self, clock: ServerClock) -> None:
        self.clock = clock
        self.port: int | None = None
        self.server = None

    def start(self) -> None:
        from channels.testing.live import make_application
        from daphne.testing import DaphneProcess
        from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

        self.server = DaphneProcess(
            "localhost",
            partial(make_application, static_wrapper=ASGIStaticFilesHandler),
            setup=partial(_a_new_process, self.clock),
            port=self.port,
        )
        self.server.start()
        while not self.server.ready.wait(timeout=1):
            if not self.server.is_alive():
                raise RuntimeError("the test server did not start")
        self.port = self.server.port.value

    def kill(self) -> None:
        self.server.kill()  # SIGKILL: nothing of the process's own runs
        self.server.join()

    def stop(self) -> None:
        if self.server is not None and self.server.is_alive():
            self.server.terminate()
            self.server.join()

    @property
    def url(self) -> str:
        return f"http://localhost:{self.port}"


@pytest.fixture
def site(transactional_db, settings):
    settings.CHANNEL_LAYERS = {"default": settings.EMBEDDED_CHANNEL_LAYER}
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    site = Site(ServerClock())
    site.start()
    yield site
    site.stop()


def bots_table(kind: str, host) -> int:
    """A friendly table of ``kind`` with a bot in every seat, its host watching."""
    spec = GAMES[kind]
    options = spec.options_form.defaults()
    options.update({key: value for key, value in SHORT.items() if key in options})
    seats = max(2, spec.min_seats)
    table = services.table_create(player=ref(host), game=kind, options=options, seats_total=seats)
    Seat.objects.filter(table=table).delete()
    level = spec.bot_levels[0]
    for number in range(1, seats + 1):
        services.bot_add(table_id=table.pk, player=ref(host), number=number, level=level)
    return table.pk


def cookie_of(user) -> str:
    client = Client()
    client.force_login(user)
    return f"{django_settings.SESSION_COOKIE_NAME}={client.cookies[django_settings.SESSION_COOKIE_NAME].value}"


async def watch(site: Site, table: int, cookie: str):
    return await websockets.connect(
        f"ws://localhost:{site.port}/ws/table/{table}/",
        additional_headers={"Cookie": cookie, "Origin": site.url},
        # No pings: a clock moved ten seconds at a time has the server's bots catch up in
        # long steps (Block-Killer's search), and its answer to a ping waits for them.
        ping_interval=None,
    )


async def seen(ws, text: str, timeout: float = 20.0) -> str:
    async def wait():
        while True:
            message = await ws.recv()
            if text in message:
                return message

    return await asyncio.wait_for(wait(), timeout)


def written(game_id: int) -> InputLog:
    batches = JournalBatch.objects.filter(game_id=game_id).order_by("seq").values_list("data", flat=True)
    return stored([bytes(data) for data in batches])[0]


NUDGE_EVERY = 7  # looks between two resyncs: one each 0.35 s, 10 of a socket's 40 a second


async def moved_on(site: Site, ws, seconds: float, nudge: bool = True) -> None:
    """The server's clock moved ``seconds`` ahead and, with ``nudge``, the table woken to
    see it: its actor sleeps until its next deadline in real time, which the clock's jump
    does not shorten. The watcher asks for the game again (a resync), which wakes it."""
    site.clock.advance(seconds)
    if nudge:
        await ws.send('{"intent": "resync"}')
    await asyncio.sleep(0.05)


async def until(site: Site, ws, predicate, timeout: float, what: str, step: float = 0.0) -> None:
    """Until ``predicate()`` holds, the server's clock moved ``step`` ahead at each look."""
    deadline = time.monotonic() + timeout
    looks = 0
    while not await asyncio.to_thread(predicate):
        assert time.monotonic() < deadline, what
        looks += 1
        await moved_on(site, ws, step, nudge=looks % NUDGE_EVERY == 0)


@pytest.mark.parametrize("kind", KINDS)
def test_a_killed_server_started_again_resumes_the_game_where_its_written_inputs_end(site, host, kind):
    table = bots_table(kind, host)
    cookie = cookie_of(host)

    async def run() -> tuple[int, InputLog]:
        ws = await watch(site, table, cookie)
        assert await asyncio.to_thread(start_table, site.url, table, cookie) is None
        await seen(ws, 'id="game"')
        game_id = (await asyncio.to_thread(Game.objects.get, table_id=table)).pk
        await moved_on(site, ws, 3.0)  # the countdown
        # The bots play a while; a few of their moves are written.
        await until(site, ws, lambda: len(written(game_id)) >= 3, FINISH_SECONDS, f"{kind}: no move written", 0.5)
        site.kill()
        kept = await asyncio.to_thread(written, game_id)
        before = len(kept)
        site.start()
        ws = await watch(site, table, cookie)
        page = await seen(ws, "The server restarted: the game goes on in")
        assert "Game aborted" not in page
        await moved_on(site, ws, 3.0)  # its countdown
        # It goes on: moves made after the restart are written after those from before.
        await until(
            site, ws, lambda: len(written(game_id)) > before or Game.objects.get(pk=game_id).status != "running",
            FINISH_SECONDS, f"{kind}: nothing happened after the restart", 0.5,
        )
        await until(
            site, ws, lambda: Game.objects.get(pk=game_id).status != Game.Status.RUNNING,
            FINISH_SECONDS, f"{kind}: the resumed game never ended", 5.0,
        )
        await seen(ws, 'id="results-title"')
        await ws.close()
        return game_id, kept

    game_id, kept = asyncio.run(run())
    game = Game.objects.get(pk=game_id)
    assert game.status == Game.Status.FINISHED
    assert not JournalBatch.objects.filter(game_id=game_id).exists()
    record, _, _ = InputLog.unpack(bytes(GameLog.objects.get(game_id=game_id).data))
    # The game played on from where its written inputs ended: they begin its record.
    assert len(record) > len(kept) and list(record)[: len(kept)] == list(kept)
    assert Game.objects.filter(table_id=table).count() == 1
