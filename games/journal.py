"""A running game's inputs, written down as they come, so that a restart loses no game.

Each host keeps one ``Journal`` for its live tables. Every ``FLUSH_SECONDS`` it writes
the inputs each game logged since the last write, one batch per game that has new
ones (``JournalBatch``: the entries packed as a finished game's log is, with the
engine's clock at the write), all of them in one transaction. A game's decisive inputs
(a forfeit) are written at once (``flush``); its end writes the whole log with the
result (games/services.py ``game_finish``), and its batches go.

A process that dies loses at most the last ``FLUSH_SECONDS`` of inputs; a host that
starts again rebuilds each running game of its tables from its seed and these batches
(games/resume.py), with its clocks stopped at the last batch's clock.

The writes go through a thread (and so a database connection) of their own,
at the event loop's priority: the shared database thread runs below the loop and, under
load, behind every page's work, where a batch due every 250 ms would wait for seconds.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any

from channels.db import DatabaseSyncToAsync

from config.metrics import JOURNAL_BATCHES, JOURNAL_CPU
from config.threads import thread_of_its_own
from games import services
from games.core.log import InputLog

log = logging.getLogger(__name__)

FLUSH_SECONDS = 0.25  # the most inputs a process that dies may lose: this long's

def write_batches(*, batches: list[tuple[int, int, bytes]]) -> Any:
    """``services.journal_write`` on the journal's thread (its connection closed and
    opened again as Django's request cycle would, when it is old or broken)."""
    return DatabaseSyncToAsync(_write, thread_sensitive=False, executor=thread_of_its_own("journal"))(batches=batches)


def _write(*, batches: list[tuple[int, int, bytes]]) -> None:
    spent = time.thread_time()
    try:
        services.journal_write(batches=batches)
    finally:
        JOURNAL_CPU.inc(time.thread_time() - spent)


@dataclass
class Kept:
    """A game the journal writes: its engine (through its live adapter), how many of
    its log's entries are written, and the number of its next batch."""

    live: Any
    written: int = 0
    seq: int = 0


class Journal:
    """The batches of one host's running games (one per ``GameHost``)."""

    def __init__(self, write=None) -> None:
        self.games: dict[int, Kept] = {}
        self.lock = asyncio.Lock()  # one write at a time, in order
        # Where batches go: the database (a test may catch them instead).
        self.write = write or write_batches
        self.task: asyncio.Task | None = None

    def track(self, game_id: int, live: Any, *, written: int = 0, seq: int = 0) -> None:
        """Write ``game_id``'s inputs from now on; ``written`` of its log's entries are
        stored already, in batches numbered up to ``seq`` (a resumed game's)."""
        self.games[game_id] = Kept(live, written, seq)
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._run())

    async def forget(self, game_id: int) -> None:
        """The game ended: nothing more of it is written (once a write under way is
        done, so that none lands after its end)."""
        async with self.lock:
            self.games.pop(game_id, None)

    def pending(self) -> list[tuple[int, int, bytes, int]]:
        """Each game's entries not yet written: (game id, batch number, packed batch,
        entries it brings the game to). Taken at one moment, between two steps of the
        loop: each game's log and clock as they stand together."""
        batches = []
        for game_id, kept in self.games.items():
            game = kept.live.game
            if game is None:
                continue
            game_log = game.log
            n = len(game_log)
            if n <= kept.written:
                continue
            data = game_log.pack_part(kept.written, n, game.start, game.now)
            batches.append((game_id, kept.seq, data, n))
        return batches

    async def flush(self) -> int:
        """Write what is pending now; the number of batches written."""
        async with self.lock:
            spent = time.thread_time()
            batches = self.pending()
            JOURNAL_CPU.inc(time.thread_time() - spent)
            if not batches:
                return 0
            await self.write(batches=[(game_id, seq, data) for game_id, seq, data, _ in batches])
            for game_id, seq, _, n in batches:
                kept = self.games.get(game_id)
                if kept is not None:
                    kept.written, kept.seq = n, seq + 1
            JOURNAL_BATCHES.inc(len(batches))
            return len(batches)

    async def _run(self) -> None:
        while self.games:
            await asyncio.sleep(FLUSH_SECONDS)
            try:
                await self.flush()
            except Exception:  # the next write tries again with everything pending
                log.exception("journal: writing %d games' inputs failed", len(self.games))


def stored(batches: list[bytes]) -> tuple[InputLog, float | None]:
    """A game's stored inputs from its batches in order, and the engine's clock at the
    last write (None: nothing written). ValueError for a damaged batch."""
    entries = InputLog()
    clock = None
    for data in batches:
        batch, _, clock = InputLog.unpack(bytes(data))
        for entry in batch:
            entries.append(entry)
    return entries, clock
