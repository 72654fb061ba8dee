"""Running games rebuilt by a host that starts (again): a restart loses no game.

A running game's inputs are written as they come (games/journal.py). A host that
starts rebuilds each running game of its tables that an earlier process hosted: its
live adapter, begun as the table began it, every stored input played again as a
replay plays it (games/replays.py ``play_entry``), and its clocks run to the engine's
clock at the last write. The rebuilt engine's log must be the stored log, entry for
entry: anything else is a game this code does not play as it was played, and is not
resumed. The table then counts down again from there (games/host.py): the clocks
stood still from the last write to the resumption.

    for stored in load(game_ids):                        # the database, once
        rebuilt = resumed(stored, start_at=3.0)          # CannotResume: abort it, say why
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext_noop

from games import journal, services
from games.core.protocol import RunsOnAClock
from games.core.rules import UnknownRules
from games.live import live_game_class, live_game_for
from games.models import Game
from games.registry import GAMES
from games.replays import engine_entries, play_entry

# Why a game could not be resumed: stored in English, shown translated (games/results.html).
NOT_RESUMABLE = gettext_noop("The game server restarted and could not rebuild this game; stakes were returned.")


class CannotResume(Exception):
    """A running game that this host cannot rebuild: ``detail`` says why, for the log."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


@dataclass(frozen=True)
class Rebuilt:
    """A running game rebuilt: its live adapter, how many log entries and batches are
    stored already, and the host's time at which it goes on (its clocks at the last write)."""

    game_id: int
    table_id: int
    live: Any
    written: int
    batches: int
    resume_at: float


@dataclass(frozen=True)
class Stored:
    """What the database holds of a running game to rebuild it: its setup, the version
    of its rules, and its batches of inputs in order (``load``, one trip for them all)."""

    game_id: int
    table_id: int
    kind: str
    setup: dict[str, Any]
    rules_version: int
    batches: list[bytes]


def load_to_resume(*, shards: list[int] | None, started_before) -> list[Stored]:
    """The running games of these shards (None: all) that began before ``started_before``
    (``services.games_to_resume``), as stored."""
    game_ids = services.games_to_resume(shards=shards, started_before=started_before)
    return load(game_ids) if game_ids else []


def load(game_ids: list[int]) -> list[Stored]:
    """The running games of ``game_ids`` as stored, in one trip to the database."""
    games = Game.objects.filter(pk__in=game_ids, status=Game.Status.RUNNING).prefetch_related(
        "participations__user"
    )
    found = []
    for game in games.order_by("pk"):
        setup = services.setup_of(game)
        for player in setup["players"]:
            player["handling"] = None  # each seat's handling is in its log, as in a replay
        found.append(Stored(game.pk, game.table_id, game.kind, setup, game.rules_version, services.journal_of(game.pk)))
    return found


def resumed(stored: Stored, *, start_at: float) -> Rebuilt:
    """Rebuild a running game from what was stored of it; ``start_at`` is the host's
    time at which its table began the game. No database: any thread may do it."""
    if stored.kind not in GAMES:
        raise CannotResume(f"a game of a kind this server does not offer: {stored.kind!r}")
    try:
        log, clock = journal.stored(stored.batches)
    except ValueError as err:
        raise CannotResume(f"its stored inputs are damaged: {err}") from None
    live, resume_at = rebuild(stored.setup, stored.rules_version, log, clock, start_at=start_at)
    return Rebuilt(stored.game_id, stored.table_id, live, len(log), len(stored.batches), resume_at)


def rebuild(
    setup: dict[str, Any], rules_version: int, log: Any, clock: float | None, *, start_at: float
) -> tuple[Any, float]:
    """The live adapter of a game of ``setup`` begun at the host's ``start_at``, with the
    entries of ``log`` played and its clocks run to ``clock`` (the engine's; None: none
    stored), and the host's time it stands at."""
    live_class: Any = live_game_class(setup["kind"])
    try:
        rules = live_class.rules(rules_version)
    except UnknownRules as err:
        raise CannotResume(str(err)) from None
    if rules.version != live_class.RULES_VERSION:
        # Its engine is kept to replay it, but pages play today's rules: not live.
        raise CannotResume(f"played under rules version {rules.version}, and this server plays {live_class.RULES_VERSION}")
    live: Any = live_game_for(setup)
    live.begin(start_at)
    turn_based = isinstance(live.game, RunsOnAClock)
    try:
        for t, seat, text in engine_entries(rules, log):
            play_entry(live, t, seat, text, turn_based=turn_based)
        if clock is not None:
            events = live.advance(live.host_time(rules.clock(clock)))
            if turn_based and events:
                live.keep_events(events)
    except Exception as err:  # an input the engine refuses: not the game that was played
        raise CannotResume(f"its log does not replay: {type(err).__name__}: {err}") from None
    if live.game.log != log:
        raise CannotResume(f"its log does not replay: {len(log)} entries stored, {len(live.game.log)} played")
    return live, live.host_time(live.game.now)
