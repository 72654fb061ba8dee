"""TetriWar played live: the engine, wrapped for the table host (games/host.py).

Each player's handling (auto-repeat and soft drop, games/tetriwar/handling.py) comes
in the setup, on the player's entry, and defaults to RULES.md's numbers when absent:

    {"seat": 1, "name": "ann", ..., "handling": {"das": 120, "arr": 0, "soft_drop": 40}}

Frames: every intent but a bomb is its name alone. ``hold_left`` / ``release_left``,
``hold_right`` / ``release_right`` and ``hold_down`` / ``release_down`` are a key going
down and coming up (the engine repeats held keys itself); ``left``, ``right``,
``soft_drop_on`` / ``soft_drop_off`` and the rest are single presses.

Clocks: the host speaks float seconds on its own clock; the engine (rules version 3)
integer milliseconds from the game's start (``begin``). This adapter converts at its
edge: ``ms(now)`` in, ``self.start + due / 1000`` out.
"""

from __future__ import annotations

import json
import logging
import random
from typing import Annotated, Any

import msgspec
from django.template.loader import render_to_string
from django.utils.translation import gettext, gettext_lazy, gettext_noop

from config.metrics import CORRECTIONS, TIMED_KEYS
from games import wire
from games.core.errors import InvalidOptions
from games.core.log import Rows
from games.core.rules import Rules
from games.live import FinishedGame, LiveGameBase
from games.tetriwar import render, rulebook
from games.tetriwar.ai import TetriWarAI
from games.tetriwar.constants import HIDDEN_ROWS, MAX_PLAYERS, PAIRS, PREVIEW
from games.tetriwar.engine import Game, Intent, Options
from games.tetriwar.handling import Handling
from games.tetriwar.intents import NAMES
from games.tetriwar.lag import LagQuota

log = logging.getLogger(__name__)

# Every intent but a bomb is its name alone: {"intent": "left", "seq": 41},
# {"intent": "hold_left"}, {"intent": "release_left"} ...
KEYS = tuple(wire.plain_frame(name, wire.TimedFrame) for name in NAMES if name != "bomb")
# What changes a board in ways its page cannot work out: the server sends the board then.
# A bomb dropped on the board, a bomb landing, the board's player gone, the board over.
UNFORESEEN = frozenset({"feed", "landed", "left", "over"})
# What goes out at once, not with the tick's frame (games/host.py ``flush``): a board
# topped out, a player gone, a board or the game over.
DECISIVE = frozenset({"eliminated", "left", "over", "finished"})
OVER_TEXT = gettext_noop("Game over")  # a board when the game has ended with its player still in
LEFT_TEXT = gettext_noop("Left the game")


class Bomb(wire.TimedFrame, tag="bomb"):
    """``{"intent": "bomb", "target": 3}``: drop the next bomb on key 3's player;
    no target: Enter (the automatic target)."""

    target: Annotated[int, msgspec.Meta(ge=1, le=MAX_PLAYERS)] | None = None

    def intent_text(self) -> str:
        return "bomb" if self.target is None else f"bomb:{self.target}"


def _handling(player: dict[str, Any]) -> Handling:
    try:
        return Handling.from_dict(player.get("handling"))
    except InvalidOptions as err:
        log.warning("seat %s plays with the default handling: %s", player.get("seat"), err.message)
        return Handling()


class TetriWarLive(LiveGameBase):
    Game, Options, Intent = Game, Options, Intent
    TEMPLATE = "games/tetriwar/partials.html"
    FRAMES = (*KEYS, Bomb)
    # Keys come many a second from every seat: their changes go out once per tick, the
    # own board's page drawing its keys at once (static/js/tetriwar_predict.js).
    TICKED = True
    # The engine's clock ticks per host second: integer ms from the start (rules version
    # 3); a replay of an older game sets 1, its frozen engine's seconds (``use_rules``).
    per_second = 1000
    RESULT_COLUMNS = (
        (gettext_lazy("Score"), "score"), (gettext_lazy("Lines"), "lines"),
        (gettext_lazy("Topped out"), "eliminations"),
    )

    RULES_VERSION = rulebook.PLAYED_VERSION

    @classmethod
    def rules(cls, version: int) -> Rules:
        return rulebook.rules(version)  # older games replay with the frozen engines

    def use_rules(self, rules: Rules) -> None:
        self.per_second = rules.per_second

    def __init__(self, setup: dict[str, Any]) -> None:
        super().__init__(setup)
        # Each seat's handling ("handling" on its player entry; RULES.md's when absent).
        # The account's form checked it; a stored value that no longer passes (an
        # admin's edit, a narrower range) plays with the defaults rather than stopping
        # everybody's game.
        self.handling = {p["seat"]: _handling(p) for p in setup["players"]}

    def make_bot(self, level: str, rng: random.Random) -> TetriWarAI:
        return TetriWarAI(level, rng)

    def begin(self, now: float) -> None:
        self.start = now
        self.game = Game(self.options, self.seed, self.seats, 0, handling=self.handling)
        # The pages of the people seated play their boards ahead (static/js/
        # tetriwar_predict.js): each seat's lag allowance, and what its page was told.
        self.lag = {} if self.replaying else {seat: LagQuota() for seat in self.seats if seat not in self.bots}
        self.told: dict[int, int] = {}  # seat -> pieces dealt, as its page was last told
        self.acked: dict[int, int] = {}  # seat -> its latest intent applied (seq)
        self.answered: set[int] = set()  # seats with an intent answered this step
        self.wrong: set[int] = set()  # seats whose page's board differed from ours
        self.fresh: set[int] = set(self.lag)  # seats whose page needs the whole board
        self.plain: set[int] = set()  # seats whose page's last key was not played ahead

    # --- the host's seconds, the engine's milliseconds -----------------------------------
    def ms(self, now: float) -> int:
        """The engine's time (ms since the start) at the host's ``now`` (seconds)."""
        if self.per_second == 1:
            return now  # a frozen engine's replay: its clock is the host's seconds
        return round((now - self.start) * 1000)

    engine_time = ms  # a bot's key, as a person's, at the engine's time

    def seconds(self, t: float) -> float:
        """The host's time (seconds) at the engine's ``t`` (ms)."""
        if self.per_second == 1:
            return t
        return self.start + t / 1000

    host_time = seconds

    def behind(self) -> dict[int, int]:
        """How far each seated person's board waits behind the game's clock for keys
        played on a page ahead of it (games/tetriwar/lag.py); bots' boards do not wait."""
        lag = getattr(self, "lag", None)
        if not lag:
            return {}
        # Only the boards that wait: none, for pages that send their keys unstamped
        # (the engine then runs its clocks without looking up a lag per board).
        return {seat: behind for seat, quota in lag.items() if (behind := quota.behind())}

    def apply(self, seat: int, intent: str, now: float, at: int | None = None) -> list[Any]:
        """A key, at the time its page played it (``at``, the game's ms) when within the
        seat's lag allowance, else as near it as the allowance goes (games/tetriwar/lag.py)."""
        game = self.game
        assert game is not None
        t = server = self.ms(now)
        quota = self.lag.get(seat)
        player = game.players.get(seat)
        if quota is not None and player is not None:
            t = quota.when(at, server, player.now)
            if at is not None:
                TIMED_KEYS.labels(applied="clamped" if t != at else "at_stamp").inc()
        return game.apply(seat, Intent.parse(intent), t)

    def acknowledge(self, seat: int, seq: int, claim: int | None, ahead: bool = True) -> None:
        """The seat's key ``seq`` was just applied (or refused); ``claim`` is the hash of
        the page's board after it. A page that claims nothing, though it played ahead,
        was unsure of its board (what only the server knows had happened). A key sent
        unstamped (``ahead`` false) comes from a page that does not play its board ahead
        (a bot, a program, a page before its clock): it is sent no board news, which
        only a predicting page reads, until it stamps a key again."""
        player = self.game.players.get(seat) if self.game is not None else None
        if player is None or seat not in self.lag:
            return
        self.acked[seat] = seq
        if not ahead:
            self.plain.add(seat)
            return
        if seat in self.plain:
            self.plain.discard(seat)
            self.fresh.add(seat)  # it starts predicting: from the whole board
        self.answered.add(seat)
        if claim is None:
            self.fresh.add(seat)
        elif claim != player.board_hash():
            self.wrong.add(seat)

    def own_news(self, events: list[Any], now: float) -> dict[int, str]:
        """For each page that plays its board ahead, after a step: the last key applied,
        the board's time and hash, the preview, and the whole board when the page's
        differed, or when the board changed in a way only the server can work out: a new
        piece (bombs made in the lines it cleared, bombs landing as it enters), a bomb
        dropped on the board. About 1 kB a piece, to the seat's own sockets."""
        game = self.game
        if game is None or not getattr(self, "lag", None):
            return {}
        unforeseen = {event.seat for event in events if event.kind in UNFORESEEN}
        news: dict[int, str] = {}
        for seat, quota in self.lag.items():
            player = game.players[seat]
            dealt = player.bag.dealt
            before = self.told.get(seat)
            if before is not None:
                for _ in range(dealt - before):
                    quota.piece_placed()
            # A new piece: the page learns it, and the board it came onto, which only the
            # server knows whole (bombs appear in cleared lines, bombs land as it enters).
            new_piece = dealt != before
            if seat in self.plain:  # its page does not read the news
                self.told[seat] = dealt
                continue
            whole = new_piece or seat in self.fresh or seat in self.wrong or seat in unforeseen
            if not whole and seat not in self.answered:
                continue
            self.told[seat] = dealt
            message: dict[str, Any] = {
                "now": self.ms(now),
                "seq": self.acked.get(seat),
                "t": player.now,
                "h": player.board_hash(),
                "dealt": dealt,
                "next": list(player.bag.peek(PREVIEW)),
            }
            if whole:
                message["state"] = player.state()
                if seat in self.wrong:
                    message["fix"] = True
                    CORRECTIONS.inc()
            news[seat] = "<!--tw" + json.dumps(message, separators=(",", ":")) + "-->"
        self.answered.clear()
        self.wrong.clear()
        self.fresh.clear()
        return news

    def own_news_due(self) -> bool:
        return bool(getattr(self, "lag", None)) and bool(self.fresh)

    def decisive(self, events: list[Any]) -> bool:
        return any(event.kind in DECISIVE for event in events)

    def render_private(self, seat: int) -> str:
        """A page of the seat that (re)connects: its whole board, to play it ahead (a new
        page plays ahead, whatever the keys of the one before it were)."""
        if self.game is None or seat not in getattr(self, "lag", {}) or self.game.finished:
            return ""
        self.plain.discard(seat)
        self.fresh.add(seat)
        return self.own_news([], self.seconds(self.game.now)).get(seat, "")

    def advance(self, now: float) -> list[Any]:
        if self.game is None:
            return []
        behind = self.behind()  # none in a replay, whose engine may be a frozen one
        return self.game.advance(self.ms(now), behind=behind) if behind else self.game.advance(self.ms(now))

    def forfeit(self, seat: int, now: float) -> list[Any]:
        if self.game is None:
            return super().forfeit(seat, now)  # refuses: not started
        return self.game.forfeit(seat, self.ms(now))

    def next_deadline(self) -> float | None:
        behind = self.behind()
        due = (self.game.next_deadline(behind) if behind else self.game.next_deadline()) if self.game else None
        return None if due is None else self.seconds(due)

    def finished_game(self) -> FinishedGame:
        """As every game's, with the times the record keeps in the engine's ms: the log
        as the engine wrote it, its clock from 0 to the end (rules version 3)."""
        game = self.game
        assert game is not None and game.finished
        return FinishedGame(
            outcome=game.outcome(),
            players={seat: self.player_stats(seat) for seat in self.seats},
            log=Rows(game.log, game.start, scale=self.per_second),
            end=round((game.now - game.start) / self.per_second, 4),
            clock=(game.start, game.now),
        )

    def disconnected(self, seat: int, now: float) -> list[Any]:
        """The seat's last socket closed: the keys it held come up, as a page that is
        gone never sends their key-up (through ``apply``, so the log and replays have
        them). Its pieces keep falling meanwhile (RULES.md §1)."""
        game = self.game
        player = game.players.get(seat) if game is not None else None
        now = self.ms(now)
        if player is None or player.left or game.finished or now >= game.end:
            return []
        held = (
            ("release_left", -1 in player.held),
            ("release_right", 1 in player.held),
            ("release_down", player.soft),
        )
        events: list[Any] = []
        for name, down in held:
            if down:
                events.extend(game.apply(seat, Intent.parse(name), now))
        return events

    def has_left(self, seat: int) -> bool:
        return self.game is not None and self.game.players[seat].left

    def player_stats(self, seat: int) -> dict[str, int]:
        p = self.game.players[seat]
        return {"score": p.score, "lines": p.lines, "eliminations": p.eliminations}

    # --- rendering ------------------------------------------------------------------
    def _piece_fragments(self, seat: int) -> str:
        p = self.game.players[seat]
        if not p.kind or p.left or p.over:
            return render.piece(seat, None, 0, 0, 0, ghost=True) + render.piece(seat, None, 0, 0, 0)
        # The ghost first, so the piece is drawn over it where they overlap.
        return render.piece(
            seat, p.kind, p.rotation, p.x, p.ghost_y() - HIDDEN_ROWS, ghost=True
        ) + render.piece(seat, p.kind, p.rotation, p.x, p.y - HIDDEN_ROWS)

    def render_events(self, events: list[Any]) -> str:
        """One fragment per changed region, each rendered once."""
        if not events or self.game is None:
            return ""
        game = self.game
        parts: list[str] = []
        done: set[tuple[int, str]] = set()
        rows: dict[int, set[int]] = {}
        for event in events:
            kind, seat = event.kind, event.seat
            if kind == "field":
                rows.setdefault(seat, set()).update(event.rows)
                continue
            if (seat, kind) in done:
                continue
            done.add((seat, kind))
            if kind == "finished":
                continue
            p = game.players[seat]
            if kind == "piece":
                parts.append(self._piece_fragments(seat))
            elif kind == "score":
                parts.append(render.score(seat, p.score, p.level, p.lines, p.eliminations))
            elif kind == "next":
                parts.append(render.next_pieces(seat, p.bag.peek(3)))
            elif kind == "store":
                parts.append(render.store(seat, tuple(p.store)))
            elif kind == "feed":
                parts.append(render.feed(seat, tuple(p.feed), self._names()))
            elif kind == "control":
                parts.append(render.control(seat, event.reversed))
            elif kind == "eliminated":
                parts.append(render.status(seat, gettext("Topped out! (%(count)s)") % {"count": p.eliminations}, "flash"))
            elif kind == "left":
                parts.append(render.status(seat, gettext(LEFT_TEXT), "gone"))
                parts.append(self._piece_fragments(seat))
            elif kind == "over":  # the piece and ghost go, the board says so
                parts.append(render.status(seat, gettext(OVER_TEXT), "gone over"))
                parts.append(render.control(seat, False))
                if (seat, "piece") not in done:
                    parts.append(self._piece_fragments(seat))
                    done.add((seat, "piece"))
        for seat, changed in rows.items():
            visible = game.players[seat].field.visible()
            parts.extend(render.row(seat, r, visible[r]) for r in sorted(changed))
            if (seat, "piece") not in done:
                parts.append(self._piece_fragments(seat))
        return "".join(parts)

    def _board_context(self, seat: int) -> dict[str, Any]:
        context: dict[str, Any] = {"seat": seat, "name": self.name(seat)}
        if self.game is None:
            context.update(
                rows="".join(render.row(seat, r, "." * 10, oob=False) for r in range(20)),
                piece=render.piece(seat, None, 0, 0, 0, ghost=True, oob=False)
                + render.piece(seat, None, 0, 0, 0, oob=False),
                score=render.score(seat, 0, self.options.start_level, 0, 0, oob=False),
                next=render.next_pieces(seat, (), oob=False),
                store=render.store(seat, (), oob=False),
                feed=render.feed(seat, (), {}, oob=False),
                control=render.control(seat, False, oob=False),
                status=render.status(seat, "", oob=False),
            )
            return context
        p = self.game.players[seat]
        visible = p.field.visible()
        pieces = self._piece_fragments(seat).replace(' hx-swap-oob="true"', "")
        context.update(
            rows="".join(render.row(seat, r, visible[r], oob=False) for r in range(20)),
            piece=pieces,
            score=render.score(seat, p.score, p.level, p.lines, p.eliminations, oob=False),
            next=render.next_pieces(seat, p.bag.peek(3), oob=False),
            store=render.store(seat, tuple(p.store), oob=False),
            feed=render.feed(seat, tuple(p.feed), self._names(), oob=False),
            control=render.control(seat, self._reversed(seat), oob=False),
            status=self._status(seat, oob=False),
        )
        return context

    def _names(self) -> dict[int, str]:
        """Each seat's name as the table shows it, in the active language (a received
        bomb is marked with its sender's)."""
        return {seat: self.name(seat) for seat in self.seats}

    def _reversed(self, seat: int) -> bool:
        p, game = self.game.players[seat], self.game
        return not p.over and p.reversed_until is not None and p.reversed_until > game.now

    def _status(self, seat: int, oob: bool = True) -> str:
        """A board's status line: left, over (the game ended), or nothing."""
        p = self.game.players[seat]
        if p.left:
            return render.status(seat, gettext(LEFT_TEXT), "gone", oob=oob)
        if p.over:
            return render.status(seat, gettext(OVER_TEXT), "gone over", oob=oob)
        return render.status(seat, "", oob=oob)

    def _groups(self) -> list[dict[str, Any]]:
        boards = {seat: self._board_context(seat) for seat in self.seats}
        if self.options.pairs:
            return [
                {
                    "label": gettext("Pair %(pair)s · seats %(first)s + %(second)s")
                    % {"pair": "AB"[i], "first": a, "second": b},
                    "boards": [boards[a], boards[b]],
                }
                for i, (a, b) in enumerate(PAIRS)
            ]
        return [{"label": "", "boards": [boards[s] for s in self.seats]}]

    def render_full(self, now: float, start_at: float) -> str:
        """The whole game area: before ``start_at`` a countdown, then the clock."""
        countdown_ms = remaining_ms = None
        if now < start_at or self.game is None:
            countdown_ms = int(max(0.0, start_at - now) * 1000)
        else:
            remaining_ms = max(0, self.game.end - self.ms(now))
        return render_to_string(
            "games/tetriwar/partials.html#game",
            {
                "groups": self._groups(),
                "remaining_ms": remaining_ms,
                "countdown_ms": countdown_ms,
                "finished": self.finished,
                "bombs": self.options.bombs,
            },
        )

    def results_context(self) -> dict[str, Any]:
        return {"pairs": self.options.pairs}
