"""Finished games, rebuilt from their records: the seed, the options, the seats and the
input log (``GameLog.data``: exact times, the engine's clock at the start and the end),
by the version of the game's rules it was played under (``Game.rules_version``).

    record = recorded(game)          # None for a game with no packed log (older games)
    live = rebuilt(record)           # its live adapter, the engine played to the end

The live adapter is today's; its engine is the one of the record's rules (``Rules``, from
the adapter's ``rules``: TetriWar keeps its older versions' engines in
games/tetriwar/legacy). Clocks differ between versions (TetriWar's version 3 counts whole
milliseconds, 1 and 2 float seconds): the record's doubles are turned into the engine's
time (``Rules.clock``) before the engine sees them, and what people read (the seek bar,
the moments) is in seconds (``Rules.seconds``).

Every engine is deterministic (games/core/protocol.py, ``Replayable``), so a rebuilt
game is the game that was played: the replay page shows it (games/views.py) and
``manage.py verify_games`` checks it against what was recorded (games/verify.py).
"""

from __future__ import annotations

import bisect
import itertools
import logging
import math
import pickle
import threading
import zlib
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from html import unescape
from typing import Any

from django.utils.html import strip_tags
from django.utils.translation import gettext, gettext_lazy, gettext_noop, ngettext

from games.core.log import Entry, InputLog
from games.core.outcome import Outcome
from games.core.protocol import FORFEIT, RunsOnAClock
from games.core.rules import Rules
from games.live import LiveGame, live_game_class, live_game_for
from games.models import Game, GameLog
from games.registry import GAMES
from games.services import setup_of
from games.words import Sentence

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Recorded:
    """What a finished game's replay is made of."""

    game: Game
    setup: dict[str, Any]
    log: InputLog  # its times as recorded: ``rules.clock`` makes them the engine's
    start: float  # the engine's clock at the start and the end (``rules.clock`` made)
    end: float
    rules: Rules  # the rules it was played under: their engine replays it


def recorded(game: Game) -> Recorded | None:
    """The game's record, or None if it has none to replay (not finished, or recorded
    before logs were packed). ValueError for a record that cannot be replayed here: a
    damaged log, or rules this code does not know (``UnknownRules``)."""
    if game.status != Game.Status.FINISHED:
        return None
    data = getattr(getattr(game, "log", None), "data", b"")
    if not data:
        return None
    log, start, end = InputLog.unpack(bytes(data))
    rules = live_game_class(game.kind).rules(game.rules_version)
    setup = setup_of(game)
    for player in setup["players"]:
        player["handling"] = None  # a replay takes each seat's handling from its log
    return Recorded(game=game, setup=setup, log=log, start=rules.clock(start), end=rules.clock(end), rules=rules)


def last_results(table_id: int) -> str:
    """The results panel of a table's last game, for a page opened after it ended (a
    reload, Back, a second tab, a spectator who comes in): what its players saw at the
    end, from what the game recorded (its outcome and its participations), played again
    for nobody. Empty while a game runs or before the first, and for a game this server
    cannot show (a kind it does not know, a record without its outcome)."""
    game = Game.objects.filter(table_id=table_id).order_by("-pk").first()
    if game is None or game.kind not in GAMES:
        return ""
    if game.status == Game.Status.ABORTED:
        reason = game.abort_reason or gettext_noop("The game was aborted.")
        return live_game_class(game.kind).render_aborted(reason, game_id=game.pk, oob=False)
    if game.status != Game.Status.FINISHED:
        return ""
    summary = GameLog.objects.filter(game=game).values_list("summary", flat=True).first()
    try:
        outcome = Outcome.from_dict(summary)
        live = live_game_for(setup_of(game))  # options this server no longer takes: a Refusal
    except (KeyError, TypeError, ValueError):
        log.warning("game %s: its results cannot be shown from its record", game.pk)
        return ""
    return live.render_results(game, outcome, oob=False)


def last_results_region(table_id: int) -> str:
    """The game region of a page of the table after its last game, out of band: its
    results alone (what the page shows when opened then). For a socket that connects
    after the end, its page perhaps still showing the boards of a game that ended while
    it was away; nothing when there is no such game."""
    results = last_results(table_id)
    return f'<div id="game" hx-swap-oob="true">{results}</div>' if results else ""


def rebuilt(record: Recorded) -> LiveGame:
    """The game's live adapter with its engine, the record's rules', played through the
    whole log to the end."""
    live: Any = live_game_for(record.setup)
    live.replaying = True
    live.use_rules(record.rules)
    live.start = record.rules.seconds(record.start)
    entries = engine_entries(record.rules, record.log)
    live.game = record.rules.game.replay(live.options, live.seed, live.seats, record.start, entries, record.end)
    return live


def play_entry(live: Any, t: float, seat: int, text: str, *, turn_based: bool) -> list[Any]:
    """One log entry played again on a live adapter: a turn-based game's through the
    adapter, as ``RunsOnAClock.replay_entry`` does on the engine (games/core/protocol.py),
    its events kept as the adapter keeps what it shows (its log, the plays on show),
    without their HTML;
    a real-time game's on its engine alone. Its events (none for a real-time game's)."""
    if not turn_based:
        live.game.replay_entry(t, seat, text)
        return []
    timeout = live.game.TIMEOUT
    if text == FORFEIT:
        events = live.forfeit(seat, t)
    elif text == timeout or text.startswith(timeout + ":"):
        events = live.advance(t)
    else:
        events = live.apply(seat, text, t)
    live.keep_events(events)
    return events


def engine_entries(rules: Rules, log: InputLog) -> Iterable[Entry]:
    """The log's entries with their times as the rules' engine counts them."""
    if not rules.whole:
        return log  # the doubles are the engine's own times
    clock = rules.clock
    return ((clock(t), seat, text) for t, seat, text in log)


# --- playing a record back: the state at any moment ------------------------------------------
# A seek copies the nearest snapshot at or before the moment and plays the log from there, so
# it never replays more than this many entries. bench/replay.py, 15 minutes of four hard
# TetriWar bots (40,000 entries): every 500, opening takes about 560 ms (the one full replay
# is most of it), a seek and its render 4 ms (99th percentile 14 ms), and the replay holds
# about 6 MB; every 100 opens in over a second, every 5000 seeks in up to 60 ms.
SNAPSHOT_EVERY = 500
# A turn-based game's entry costs more to play again (its events are rendered, ~0.4 ms for
# Block-Killer) and its games have few: a 6-player Block-Killer game of bots, 954 entries,
# seeks in 7 ms at the 99th percentile with a snapshot every 10 (200 ms every 500), opens
# in 460 ms (380) and holds 2.3 MB.
SNAPSHOT_EVERY_TURN_BASED = 10
# The kinds of TetriWar's events that may mean lines cleared, a board out or a player
# gone (games/tetriwar/events.py): only after those are the boards probed.
CHANGES_MARKED = frozenset({"score", "eliminated", "over", "left"})
CACHED_REPLAYS = 8  # replays kept open in each process, the most recently watched: at most ~50 MB
MOMENT_LABEL_MAX = 120  # characters of a moment's words on the seek bar
# A turn-based game's entry that neither its log nor its words for moves say: a leave
# (Viertris logs none), a clock's step, a move of no consequence.
UNSAID_LEAVE = gettext_lazy("%(name)s leaves the game")
UNSAID_TIME = gettext_lazy("Time runs out for %(who)s")
UNSAID_CLOCK = gettext_lazy("The clock runs out")
UNSAID_MOVE = gettext_lazy("%(who)s moves")


@dataclass(frozen=True)
class Moment:
    """Something that happened, marked on the replay's seek bar: ``t`` seconds after the
    start, ``entry`` the number of log entries played by then.

    A replay is opened once per process for viewers of every language (``replay_of``), so
    a moment keeps what happened (``who``, ``count``) and its ``label`` is worded when read,
    in the active language. A turn-based game's move keeps its words (``lines``:
    ``games.words.Sentence``, worded when read too): the lines the table's log gained,
    with the game's words for the move where the log does not say it
    (``LiveGameBase.move_words``)."""

    t: float
    entry: int
    kind: str  # "move" (turn-based: every entry), or "clear", "bomb", "out", "left"
    who: str = ""
    count: int = 0
    lines: tuple[Any, ...] = ()
    clock: float | None = None  # the engine's time of a change its clocks made alone

    @property
    def label(self) -> str:
        if self.kind == "bomb":
            text = gettext("%(name)s drops a bomb") % {"name": self.who}
        elif self.kind == "clear":
            text = ngettext(
                "%(name)s clears %(count)d line", "%(name)s clears %(count)d lines", self.count
            ) % {"name": self.who, "count": self.count}
        elif self.kind == "out":
            text = gettext("%(name)s tops out") % {"name": self.who}
        elif self.kind == "left":
            text = gettext("%(name)s leaves the game") % {"name": self.who}
        else:
            text = " · ".join(unescape(strip_tags(str(line))).replace("\xa0", " ").strip() for line in self.lines)
        return text[:MOMENT_LABEL_MAX]


class _Discarded:
    """A replay's engine writes every entry into its own log again as it plays it: nobody
    reads that copy, and each snapshot would carry all of it."""

    __slots__ = ()

    def append(self, entry: Any) -> None:
        pass


def _snapshot(live: Any) -> bytes:
    """A copy of the live adapter to play on from, kept as its pickle: pickling and
    unpickling is about twice as fast as ``copy.deepcopy`` of a TetriWar game, and the
    bytes are smaller than the objects they stand for."""
    return pickle.dumps(live, protocol=pickle.HIGHEST_PROTOCOL)


class Replay:
    """A finished game, open for watching: its state at any moment, as the table showed it.

        replay = Replay.of(record)
        replay.render(12.5)          # the #game region 12.5 s after the start
        replay.moments               # what the seek bar marks

    Opening plays the whole log once, keeping a copy of the live adapter (engine and what
    the adapter itself shows, such as its log of moves) every ``every`` entries. Turn-based
    games are played through their adapter, as the table played them, and their events
    rendered, so the adapter's own log and the plays on show follow; TetriWar's adapter
    shows its engine alone, whose ``replay_entry`` suffices (and rendering thousands of
    key presses would cost more than the rest of the replay)."""

    def __init__(
        self,
        setup: dict[str, Any],
        log: InputLog,
        start: float,
        end: float,
        *,
        every: int | None = None,
        rules: Rules | None = None,
    ) -> None:
        """``start`` and ``end``: the engine's clock; ``rules``: the record's (by default,
        the rules the game's adapter plays now)."""
        if rules is None:
            live_class: Any = live_game_class(setup["kind"])
            rules = live_class.rules(live_class.RULES_VERSION)
        self.rules = rules
        self.setup = setup
        self.log = log
        self.start = start
        self.end = max(end, start)
        self.duration = rules.seconds(self.end - self.start)
        self._entries = list(engine_entries(rules, log))
        # the latest time played by each entry: a lagging board's input may be logged
        # after another's later one (TetriWar: each board keeps its own time), and a seek
        # plays a prefix of the log
        self._times = list(itertools.accumulate((t for t, _, _ in self._entries), max))
        # the earliest time of any entry from each one on: every board's clocks may run
        # that far before the entry is played, whatever its board (no later entry can be
        # earlier, so none finds its board past its time)
        self._settled = list(itertools.accumulate((t for t, _, _ in reversed(self._entries)), min))[::-1]
        live = self._opened()
        self.turn_based = isinstance(live.game, RunsOnAClock)
        if every is None:
            every = SNAPSHOT_EVERY_TURN_BASED if self.turn_based else SNAPSHOT_EVERY
        if every < 1:
            raise ValueError("snapshots are at least one entry apart")
        self.every = every
        self._names: dict[int, str] = {}
        self._snapshots: list[bytes] = [_snapshot(live)]
        self.moments: list[Moment] = []
        before = self._probe(live)
        for i, (t, seat, text) in enumerate(self._entries):
            if not self.turn_based:
                before = self._clock_moments(live, i, self._settled[i], before)
            events = self._play(live, t, seat, text)
            found, before = self._moments(live, before, i, t, seat, text, events)
            self.moments.extend(found)
            if (i + 1) % every == 0:
                self._snapshots.append(_snapshot(live))
        if not self.turn_based:
            self._clock_moments(live, len(log), self.end, self._probe(live))
            self.moments.sort(key=lambda m: m.t)  # a clock's moment may be found after a later entry's
        self._moment_times = [m.t for m in self.moments]

    @classmethod
    def of(cls, record: Recorded, *, every: int | None = None) -> Replay:
        return cls(record.setup, record.log, record.start, record.end, every=every, rules=record.rules)

    # --- the state at a moment ------------------------------------------------------------------
    def clamp(self, t: float) -> float:
        """Seconds after the start, within the game."""
        return min(max(t, 0.0), self.duration)

    def at(self, t: float) -> Any:
        """The live adapter as it stood ``t`` seconds after the start: every entry up to then
        played, and the clocks run to that moment."""
        now = self._now(t)
        return self._state(bisect.bisect_right(self._times, now), now)

    def render(self, t: float) -> str:
        """The whole ``#game`` region ``t`` seconds after the start, as the live table drew it."""
        now = self._now(t)
        return self._state(bisect.bisect_right(self._times, now), now).render_full(self._host(now), self._host(self.start))

    def _now(self, t: float) -> float:
        """The engine's time ``t`` seconds after the start; the end itself at the end (the
        sum of the start and the duration may miss it by a bit, and the last entry with it)."""
        t = self.clamp(t)
        return self.end if t >= self.duration else self.start + self.rules.ticks(t)

    def render_moment(self, i: int) -> str:
        """The ``#game`` region just after moment ``i`` (its entry played, and not the next
        even if it came in the same millisecond; or its clock run to the step that made it)."""
        moment = self.moments[i]
        n = moment.entry
        now = moment.clock if moment.clock is not None else self._times[n - 1]
        return self._state(n, now).render_full(self._host(now), self._host(self.start))

    def _state(self, n: int, now: float) -> Any:
        """A copy of the nearest snapshot, played on to ``n`` entries and ``now``."""
        k = min(n // self.every, len(self._snapshots) - 1)
        live = pickle.loads(self._snapshots[k])
        for i in range(k * self.every, n):
            self._play(live, *self._entries[i])
        events = live.advance(self._host(now))
        if self.turn_based and events:
            live.keep_events(events)
        return live

    def moment_before(self, t: float) -> int:
        """The number of the last moment at or before ``t`` (-1: none yet)."""
        return bisect.bisect_right(self._moment_times, self.clamp(t)) - 1

    # --- opening ----------------------------------------------------------------------------------
    def _opened(self) -> Any:
        live: Any = live_game_for(self.setup)
        live.bots = {}  # nobody plays: the log does
        live.bot_seats = []
        live.replaying = True
        live.use_rules(self.rules)
        live.begin(self._host(self.start))
        if type(live.game) is not self.rules.game:  # an older version's engine plays it
            live.game = self.rules.game.replay(live.options, live.seed, live.seats, self.start, ())
        live.game.log = _Discarded()
        return live

    def _play(self, live: Any, t: float, seat: int, text: str) -> list[Any]:
        return play_entry(live, t, seat, text, turn_based=self.turn_based)

    def _probe(self, live: Any) -> Any:
        """What a moment is made of, to compare before and after an entry: the log's
        length (turn-based), or each TetriWar board's lines, eliminations and leaving, in
        the order of its seats (not the score, which most key presses change and no moment
        marks). Read off the engine's boards (``player_stats`` and ``has_left`` say the
        same): an open probes after every entry, tens of thousands of times."""
        if self.turn_based:
            return len(live.log_lines) if hasattr(live, "log_lines") else 0
        return [(p.lines, p.eliminations, p.left) for p in live.game.players.values()]

    def _name(self, live: Any, seat: int) -> str:
        """A seat's name as the table shows it, found once per open (a bot's is a
        translated phrase: tens of thousands of moments would each format it again)."""
        name = self._names.get(seat)
        if name is None:
            name = self._names[seat] = live.name(seat) if seat in live.players else ""
        return name

    def _host(self, now: float) -> float:
        """The adapter's time (the host's seconds) at the engine's ``now``."""
        return self.rules.seconds(now)

    def _clock_moments(self, live: Any, n: int, t: float, before: Any) -> Any:
        """What TetriWar's clocks did on their own up to the entry at ``t`` (``n`` entries
        played): a piece that gravity locked clearing lines, a board topping out, each
        marked at the time of the clock's step that did it (``advance_timed``), not at the
        next key press, which may come seconds later. Running the clocks first plays the
        same game as the entry running them (tests/games/test_replay_seek.py compares every
        state with a full replay). ``before`` is the probe of the state so far; returns it
        as the clocks left it. ``t`` is no later than any entry still to play (TetriWar's
        log may hold a lagging board's input after another's later one: each board keeps
        its own time)."""
        game = live.game
        if game.earliest_due() > t:
            return before  # most entries: no clock comes due before them
        events, times = game.advance_timed(t)
        when = {event.seat: at for event, at in zip(events, times, strict=True) if event.kind in CHANGES_MARKED}
        if not when:
            return before
        after = self._probe(live)
        self.moments.extend(self._changes(live, before, after, None, n, clock_of=when))
        return after

    def _at(self, t: float) -> float:
        """Seconds after the start, in ms, not before ``t`` (a link at ?t= shows what
        happened then) and not after the end."""
        seconds = self.rules.seconds(t - self.start)
        if not self.rules.whole:  # whole ticks are whole ms already: no rounding up past them
            seconds = math.ceil(seconds * 1000) / 1000
        return min(seconds, self.duration)

    def _moments(
        self, live: Any, before: Any, i: int, t: float, seat: int, text: str, events: list[Any]
    ) -> tuple[list[Moment], Any]:
        """The moments entry ``i`` made, and the probe after it (the next entry's before)."""
        if self.turn_based:
            at = self._at(t)
            lines = list(getattr(live, "log_lines", [])[before:])
            if text != FORFEIT and not self._is_timeout(live, text) and seat in live.players:
                lines = live.move_words(seat, text, events, lines)
            moment = Moment(at, i + 1, "move", lines=tuple(lines) or (self._unsaid(live, seat, text),))
            return [moment], self._probe(live)
        after = self._probe(live)
        bomb = text == "bomb" or text.startswith("bomb:")
        if not bomb and after == before:
            return [], after  # most key presses: no moment
        at = self._at(t)
        found = [Moment(at, i + 1, "bomb", who=self._name(live, seat))] if bomb else []
        if after != before:
            found.extend(self._changes(live, before, after, at, i + 1))
        return found, after

    @staticmethod
    def _is_timeout(live: Any, text: str) -> bool:
        timeout = live.game.TIMEOUT
        return text == timeout or text.startswith(timeout + ":")

    def _unsaid(self, live: Any, seat: int, text: str) -> Sentence:
        """Words for an entry that neither the log nor the game's words for moves say."""
        if seat not in live.players:
            return Sentence(UNSAID_CLOCK)
        if text == FORFEIT:
            return Sentence(UNSAID_LEAVE, name=live.who(seat))
        if self._is_timeout(live, text):
            return Sentence(UNSAID_TIME, who=live.who(seat))
        return Sentence(UNSAID_MOVE, who=live.who(seat))

    def _changes(
        self, live: Any, before: Any, after: Any, at: float | None, n: int, clock_of: dict[int, float] | None = None
    ) -> list[Moment]:
        """The lines cleared, the boards topped out and the players gone between two
        probes of a TetriWar game: at ``at``, or (``clock_of``) at the time the clocks
        changed each seat (the latest time they changed any, for a seat they did not)."""
        found = []
        for s, probe, now_probe in zip(live.game.players, before, after, strict=True):
            if probe == now_probe:
                continue
            clock = None
            if clock_of:
                clock = clock_of.get(s, max(clock_of.values()))
                at = self._at(clock)
            lines, eliminations, left = probe
            now_lines, now_eliminations, now_left = now_probe
            who = self._name(live, s)
            if now_lines > lines:
                found.append(Moment(at, n, "clear", who=who, count=now_lines - lines, clock=clock))
            if now_eliminations > eliminations:
                found.append(Moment(at, n, "out", who=who, clock=clock))
            if not left and now_left:
                found.append(Moment(at, n, "left", who=who, clock=clock))
        return found


_cache: OrderedDict[tuple, Replay] = OrderedDict()
_cache_lock = threading.Lock()
# Opening plays a whole game (half a second of CPU for 15 minutes of TetriWar): one at a
# time per process, so visitors asking for many different replays at once queue behind
# each other instead of taking every thread from the live tables. And few wait: each
# waiting open holds one of the process's request threads (REQUEST_THREADS, shared by
# every page of the site), so past OPENS_WAITING the others are told to come back.
_open_lock = threading.Lock()
OPENS_WAITING = 1  # opens that may wait while one is under way
_opening = 0  # opens under way or waiting (under _cache_lock)


class ReplayBusy(Exception):
    """Other replays are being opened: this one is not started; ask again in a moment."""


def replay_of(record: Recorded) -> Replay:
    """The game's Replay, opened once per process for the games being watched: playback
    asks for a frame ten times a second, and opening plays the whole game. Raises
    ``ReplayBusy`` rather than queue behind more than ``OPENS_WAITING`` other opens."""
    global _opening
    data = bytes(record.game.log.data)
    key = (record.game.pk, record.rules.version, len(data), zlib.crc32(data))
    with _cache_lock:
        replay = _cache.get(key)
        if replay is not None:
            _cache.move_to_end(key)
            return replay
        if _opening > OPENS_WAITING:
            raise ReplayBusy
        _opening += 1
    try:
        with _open_lock:
            with _cache_lock:
                replay = _cache.get(key)  # opened meanwhile, for another viewer of the same game
            if replay is not None:
                return replay
            replay = Replay.of(record)
            with _cache_lock:
                _cache[key] = replay
                _cache.move_to_end(key)
                while len(_cache) > CACHED_REPLAYS:
                    _cache.popitem(last=False)
        return replay
    finally:
        with _cache_lock:
            _opening -= 1
