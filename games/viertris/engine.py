"""The Viertris rules engine (RULES.md §2): a pure state machine, standard library only.

    game = Game(Options(move_seconds=60), seed=42, seats=[1, 2], now=0.0)
    events = game.apply(1, Intent("drop", 3), now=4.5)
    events += game.advance(now=70.0)         # move clocks: a timeout plays a random column
    sleep_until = game.next_deadline()
    game.board()                             # ("........", ..., "...1...."): row 0 on top

Time is always passed in, never read, and randomness comes from the seed, so a game is
reproduced exactly by ``Game.replay(options, seed, seats, start, game.log, end)``.
Illegal intents raise :class:`IllegalIntent` (a ``ValueError``) and change nothing.

The rules are split by concern: ``options`` (the table options), ``intents`` (``Intent``
and its text form), ``events`` (what a change reports), ``board`` (the board, its falling
pieces, runs and scoring cascades, and ``board(...)`` for tests). This module keeps the
game: turns, the move clock, forfeits, results and the log. It re-exports the names of
the parts, so ``from games.viertris.engine import Board, Intent, ...`` keeps working.

A cell is ``(row, column)``: row 0 is the top row, column 0 the left column. A piece
is stored as its owner's seat number (1–4), an empty cell as 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from games.core.log import InputLog
from games.core.outcome import Outcome, Standing, Termination, ranked
from games.core.protocol import (
    FORFEIT,
    Event,
    IllegalIntent,
    InvalidOptions,
    Replayable,
    RunsOnAClock,
)
from games.core.rng import stream
from games.viertris import constants as C
from games.viertris.board import Board, Run, Step, board
from games.viertris.events import (
    Cascade,
    Dropped,
    Finished,
    PlayerLeft,
    ScoreChanged,
    Settled,
    TurnChanged,
)
from games.viertris.intents import Intent
from games.viertris.options import Options

__all__ = [
    "Board",
    "Cascade",
    "Dropped",
    "Event",
    "Finished",
    "Game",
    "IllegalIntent",
    "Intent",
    "InvalidOptions",
    "Options",
    "PlayerLeft",
    "Run",
    "ScoreChanged",
    "Settled",
    "Outcome",
    "Standing",
    "Step",
    "Termination",
    "TurnChanged",
    "board",
]

TIMEOUT = "timeout"  # a timed-out move is logged as "timeout:<column>"


@dataclass
class _Clock:
    turn: int | None  # whose turn (None once finished)
    started: float  # when this turn's clock began


class Game(RunsOnAClock, Replayable):
    Intent, Options = Intent, Options

    def __init__(self, options: Options, seed: int | str, seats: Iterable[int], now: float) -> None:
        self._begin(options, seed, seats, now, players=(C.MIN_PLAYERS, C.MAX_PLAYERS))
        self.grid = Board()  # the pieces; read them through board()
        self.scores: dict[int, int] = {seat: 0 for seat in self.seats}
        self.left: dict[int, float] = {}  # seat -> when the player left
        self.moves = 0  # moves played, timeouts included
        self.log = InputLog()
        self._clock = _Clock(self.seats[0], now)
        self._pending: list[Event] = []  # clock events of a refused intent, reported next

    # --- the protocol ------------------------------------------------------------------
    def apply(self, seat: int, intent: Intent, now: float) -> list[Event]:
        """Drop a piece for ``seat`` at ``now``; returns what changed (clock events first)."""
        if not isinstance(intent, Intent):
            raise IllegalIntent("UNKNOWN_INTENT", f"Not an intent: {intent!r}.")
        self._check_playing(seat)
        now = max(now, self.now)  # a late message acts at the game's current time
        events = self._run_clock(now)
        try:
            self._check_playing(seat)  # the clocks may have ended the game
            if self._clock.turn != seat:
                raise IllegalIntent("NOT_YOUR_TURN", f"It is seat {self._clock.turn}'s turn, not yours.")
            if self.grid.is_full(intent.column):
                raise IllegalIntent("COLUMN_FULL", f"Column {intent.column + 1} is full.")  # counted from 1, as shown
        except IllegalIntent:
            self._pending = events  # the clocks did run: report their events next time
            raise
        self._move(seat, intent.column, now, events, timeout=False)
        return events

    def forfeit(self, seat: int, now: float) -> list[Event]:
        """The player leaves: ranked last, their turns skipped; one player left ends the game."""
        events = self._leaving(seat, now)
        now = self.now
        self.left[seat] = now
        self.log.append((now, seat, FORFEIT))
        events.append(PlayerLeft(seat))
        if len(self.active_seats()) <= 1:
            self._finish(events, Termination.FORFEIT)
        elif self._clock.turn == seat:
            self._pass_turn(now, events)
        return events

    def next_deadline(self) -> float | None:
        """When the current turn's clock runs out (None once finished)."""
        if self.finished:
            return None
        return self._clock.started + self.options.move_seconds

    # --- state and results -------------------------------------------------------------
    @property
    def turn(self) -> int | None:
        """The seat to move (None once finished)."""
        return self._clock.turn

    @property
    def deadline(self) -> float | None:
        """When the current turn's clock runs out (None once finished)."""
        return self.next_deadline()

    def board(self) -> tuple[str, ...]:
        """The board, read only: 6 strings of 8 cells, row 0 on top, '.' empty, else the
        owner's seat digit."""
        return self.grid.rows()

    def active_seats(self) -> tuple[int, ...]:
        """The seats still playing, in turn order."""
        return tuple(seat for seat in self.seats if seat not in self.left)

    def next_seat(self, seat: int) -> int:
        """Whose turn follows ``seat``'s: the next active seat in seat order, going round."""
        i = self.seats.index(seat)
        for offset in range(1, len(self.seats) + 1):
            candidate = self.seats[(i + offset) % len(self.seats)]
            if candidate not in self.left:
                return candidate
        return seat

    def ends_after(self, board: Board, scores: dict[int, int], moves: int) -> bool:
        """Whether a move leaving ``board``, ``scores`` and ``moves`` ends the game."""
        return self.end_reason(board, scores, moves) is not None

    def end_reason(self, board: Board, scores: dict[int, int], moves: int) -> Termination | None:
        """Why a move leaving ``board``, ``scores`` and ``moves`` ends the game, or None."""
        target, limit = self.options.target_score, self.options.move_limit
        if target is not None and any(score >= target for score in scores.values()):
            return Termination.TARGET_SCORE
        if board.is_full():
            return Termination.FULL_BOARD
        if limit is not None and moves >= limit:
            return Termination.MOVE_LIMIT
        return None

    def results(self) -> list[Standing]:
        """Places, best first: most points; equal points share the place. Forfeits come
        last (the earliest to leave the very last)."""
        rows = []
        for seat in self.seats:
            left = seat in self.left
            key = (1, -self.left[seat]) if left else (0, 0.0)
            rows.append((key + (-self.scores[seat],), {"seats": (seat,), "score": self.scores[seat], "forfeited": left}))
        return ranked(rows)

    def to_text(self) -> str:
        """The whole game as text: equal texts mean equal games."""
        scores = " ".join(f"{seat}:{self.scores[seat]}" for seat in self.seats)
        left = " ".join(f"{seat}@{t!r}" for seat, t in sorted(self.left.items()))
        head = (
            f"viertris {self.options.to_dict()} seed {self.seed!r} seats {list(self.seats)} "
            f"start {self.start!r} now {self.now!r} finished {int(self.finished)}\n"
            f"turn {self._clock.turn} since {self._clock.started!r} moves {self.moves} "
            f"scores {scores} left [{left}]"
        )
        return "\n".join([head, *self.grid.rows()])

    def setup(
        self,
        *,
        board: Board | Sequence[str] | None = None,
        turn: int | None = None,
        scores: dict[int, int] | None = None,
        moves: int | None = None,
    ) -> None:
        """Arrange a position for a test: a board (a :class:`Board` or its drawing, which
        must be at rest: no run of 4), whose turn (their clock starts now), scores, the
        number of moves played. Not logged, so a game arranged this way cannot be replayed."""
        if board is not None:
            new = board.copy() if isinstance(board, Board) else Board.from_rows(board)
            owners = {owner for stack in new.columns for owner in stack}
            if not owners <= set(self.seats):
                raise ValueError(f"the board holds pieces of seats {sorted(owners)}, not all in the game")
            if new.runs():
                raise ValueError("the board holds a run of 4: a board at rest has none")
            self.grid = new
        if turn is not None:
            if turn not in self.active_seats():
                raise ValueError(f"seat {turn} is not playing")
            self._clock = _Clock(turn, self.now)
        if scores is not None:
            for seat, score in scores.items():
                if seat not in self.scores:
                    raise ValueError(f"seat {seat} is not in the game")
                self.scores[seat] = score
        if moves is not None:
            self.moves = moves

    # --- inside --------------------------------------------------------------------------
    def _check_playing(self, seat: int) -> None:
        if self.finished:
            raise IllegalIntent("GAME_OVER", "The game is over.")
        if seat not in self.scores:
            raise IllegalIntent("NOT_PLAYING", f"Seat {seat!r} is not playing in this game.")
        if seat in self.left:
            raise IllegalIntent("NOT_PLAYING", f"Seat {seat} has left the game.")

    def _run_clock(self, now: float) -> list[Event]:
        """Play the timeouts due by ``now``; ``self.now`` moves only as far as the last one
        (so that a refused intent changes nothing when no clock ran out)."""
        events, self._pending = self._pending, []
        while not self.finished:
            deadline = self._clock.started + self.options.move_seconds
            if deadline > now:
                break
            self.now = deadline
            seat = self._clock.turn
            assert seat is not None
            legal = self.grid.legal_columns()
            column = stream(self.seed, "viertris", "timeout", self.moves).choice(legal)
            self._move(seat, column, deadline, events, timeout=True)
        return events

    def _move(self, seat: int, column: int, now: float, events: list[Event], timeout: bool) -> None:
        self.now = now
        row, steps = self.grid.play(column, seat)
        self.moves += 1
        self.log.append((now, seat, f"{TIMEOUT}:{column}" if timeout else f"drop:{column}"))
        events.append(Dropped(seat, column, row, timeout))
        for step in steps:
            events.append(
                Cascade(
                    0,
                    step.number,
                    tuple((run.owner, run.base, run.base * step.number, run.cells) for run in step.runs),
                    step.removed,
                )
            )
            for owner, points in sorted(step.points().items()):
                self.scores[owner] += points
                events.append(ScoreChanged(owner, self.scores[owner]))
            events.append(Settled(0, step.number, step.moves))
        termination = self.end_reason(self.grid, self.scores, self.moves)
        if termination is not None:
            self._finish(events, termination)
        else:
            self._pass_turn(now, events)

    def _pass_turn(self, now: float, events: list[Event]) -> None:
        current = self._clock.turn
        assert current is not None
        self._clock = _Clock(self.next_seat(current), now)
        events.append(TurnChanged(self._clock.turn, now + self.options.move_seconds))

    def _finish(self, events: list[Event], termination: Termination) -> None:
        self.finished = True
        self.termination = termination
        self._clock = _Clock(None, self.now)
        events.append(Finished(0))
