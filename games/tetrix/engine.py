"""The Te-Trix rules engine (RULES.md §5): a pure state machine, standard library only.

    game = Game(Options(), seed=42, seats=[1, 2, 3], now=0.0)
    game.roller, game.phase, game.dice          # 2, "arrange", "osxo": seat 2 rolled
    events = game.apply(2, Intent.parse("arrange:T:oxso"), now=3.0)
    events += game.apply(1, Intent.parse("write:1:-1:5"), now=9.5)   # turned once, hanging over
    events += game.advance(now=70.0)            # the write clock writes for whoever has not
    game.sheets[1].rows()                       # ("....o..", ...): o s x written, . empty
    score(game.sheets[1])                       # (areas of ≥ 5) × (their cells), per symbol

A round: the roller's four dice are rolled (from the seed), the roller arranges them
into a tetromino, then every player writes that shape, all at the same time, turned but
never mirrored, on empty cells, hanging over the edge as they like so long as one symbol
is written. A player for whom the shape fits nowhere cannot write; the others still
write, and the game ends after that round, or after a round that filled a sheet. The
next player in seat order rolls next. Highest score wins; equal scores share the place.

Solo (``Options(solo=True)``, one seat): every symbol hanging over crosses a box of the
8-box bar, and with no box left nothing may hang over; the game ends when no shape can
be written, or when the player stops (``stop``); each uncrossed box adds a point, and the
score earns a verdict.

Time is always passed in, never read, and randomness (the dice, the first roller) comes
from the seed, so ``Game.replay(options, seed, seats, start, game.log, end)`` rebuilds a
game exactly. Illegal intents raise :class:`IllegalIntent` (a ``ValueError``) with a
stable code and change nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
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
from games.tetrix import constants as C
from games.tetrix.events import (
    Arranged,
    CannotWrite,
    Finished,
    PlayerLeft,
    Rolled,
    Stopped,
    TurnChanged,
    Wrote,
)
from games.tetrix.intents import ARRANGE, STOP, Intent
from games.tetrix.options import Options
from games.tetrix.sheet import (
    Sheet,
    Spot,
    area_cells,
    areas,
    score,
    score_table,
    scoring_areas,
    sheet,
    spot,
    verdict,
)

__all__ = [
    "Arranged",
    "CannotWrite",
    "Event",
    "Finished",
    "Game",
    "IllegalIntent",
    "Intent",
    "InvalidOptions",
    "Options",
    "Outcome",
    "Player",
    "PlayerLeft",
    "Rolled",
    "Sheet",
    "Standing",
    "Stopped",
    "Termination",
    "TurnChanged",
    "Wrote",
    "area_cells",
    "areas",
    "roll",
    "score",
    "score_table",
    "scoring_areas",
    "sheet",
    "verdict",
]

TIMEOUT = "timeout"  # what the clock does is logged as "timeout:<intent>"
ARRANGING, WRITING = "arrange", "write"  # the phases of a round
IN, LEFT = "in", "left"  # a player's state


@dataclass
class Player:
    seat: int
    sheet: Sheet
    state: str = IN
    wrote: bool = False  # has written this round's shape
    cannot: bool = False  # cannot write this round's shape
    left_at: float | None = None
    writes: int = 0  # shapes written in the game

    @property
    def score(self) -> int:
        """The player's score: the areas, and in solo the bar's uncrossed boxes."""
        return self.sheet.total

    @property
    def done(self) -> bool:
        """Whether this round's writing no longer waits for this player."""
        return self.state != IN or self.wrote or self.cannot

    def text(self) -> str:
        return (
            f"seat {self.seat} {self.state} wrote {int(self.wrote)} cannot {int(self.cannot)} "
            f"left {self.left_at!r} writes {self.writes} bar {self.sheet.bar() or '-'} score {self.score}"
        )


def roll(seed: int | str, round_: int) -> str:
    """The four dice of round ``round_`` (RULES.md §5: six faces, each symbol twice)."""
    rng = stream(seed, "tetrix", "roll", round_)
    return "".join(rng.choice(C.DIE_FACES) for _ in range(C.DICE))


class Game(RunsOnAClock, Replayable):
    Intent, Options = Intent, Options

    def __init__(self, options: Options, seed: int | str, seats: Iterable[int], now: float) -> None:
        self._begin(options, seed, seats, now, players=(C.MIN_PLAYERS, C.MAX_PLAYERS))
        if options.solo and len(self.seats) != C.SOLO_PLAYERS:
            raise InvalidOptions("seats", f"the solo game has one seat, not {list(self.seats)!r}")
        self.players: dict[int, Player] = {
            seat: Player(seat, Sheet.for_seat(seat, options.solo)) for seat in self.seats
        }
        self.round = 0
        self.roller: int | None = None
        self.phase: str | None = None
        self.dice = ""  # this round's roll, four symbols in the order rolled
        self.shape: str | None = None  # the arranged tetromino
        self.symbols = ""  # its symbols, in the order of its cells
        self.phase_started = now
        self.stopped = False  # the solo player stopped the game
        self.log = InputLog()
        self._pending: list[Event] = []  # clock events of a refused intent, reported next
        first = stream(seed, "tetrix", "first").choice(self.seats)  # constants: drawn
        self.opening: list[Event] = self._start_round(first, now)  # round 1's events

    # --- the protocol ------------------------------------------------------------------
    def apply(self, seat: int, intent: Intent, now: float) -> list[Event]:
        """Arrange, write or stop for ``seat`` at ``now``; returns what changed (clock
        events first)."""
        if not isinstance(intent, Intent):
            raise IllegalIntent("UNKNOWN_INTENT", f"Not an intent: {intent!r}.")
        self._check_playing(seat)
        now = max(now, self.now)  # a late message acts at the game's current time
        events = self._run_clock(now)
        try:
            self._check_playing(seat)  # the clock may have ended the game
            act = self._checked(self.players[seat], intent)
        except IllegalIntent:
            self._pending = events  # the clock did run: report its events next time
            raise
        self.now = now
        self.log.append((now, seat, intent.text))
        act(now, events)
        return events

    def forfeit(self, seat: int, now: float) -> list[Event]:
        """The player leaves: ranked last; the round no longer waits for them."""
        events = self._leaving(seat, now)
        now = self.now
        player = self.players[seat]
        player.state, player.left_at = LEFT, now
        self.log.append((now, seat, FORFEIT))
        events.append(PlayerLeft(seat))
        remaining = self.active_seats()
        if not remaining or (len(self.seats) > 1 and len(remaining) == 1):
            self._finish(events, Termination.FORFEIT)
        elif self.phase == ARRANGING and self.roller == seat:
            # constants: the dice, as rolled, pass to the next player, with a new clock
            self.roller, self.phase_started = self.next_seat(seat), now
            events.append(TurnChanged(self.roller, ARRANGING, self.next_deadline()))
        elif self.phase == WRITING and self.round_complete():
            self._end_round(now, events)
        return events

    def next_deadline(self) -> float | None:
        """When this phase's clock runs out (None once finished)."""
        if self.finished:
            return None
        seconds = self.options.arrange_seconds if self.phase == ARRANGING else self.options.write_seconds
        return self.phase_started + seconds

    # --- state and results -------------------------------------------------------------
    @property
    def deadline(self) -> float | None:
        return self.next_deadline()

    @property
    def sheets(self) -> dict[int, Sheet]:
        return {seat: player.sheet for seat, player in self.players.items()}

    @property
    def left(self) -> dict[int, float]:
        """The seats that left, and when (every game's adapter reads this)."""
        return {s: p.left_at for s, p in self.players.items() if p.state == LEFT and p.left_at is not None}

    def active_seats(self) -> tuple[int, ...]:
        """The seats still at the table, in seat order."""
        return tuple(seat for seat in self.seats if self.players[seat].state == IN)

    def next_seat(self, seat: int) -> int:
        """The next seat still at the table after ``seat``, in seat order (round the table)."""
        i = self.seats.index(seat)
        for k in range(1, len(self.seats) + 1):
            candidate = self.seats[(i + k) % len(self.seats)]
            if self.players[candidate].state == IN:
                return candidate
        return seat

    def waiting_for(self) -> tuple[int, ...]:
        """The seats the game waits for: the roller while arranging, the players who
        have not written while writing (none once finished)."""
        if self.finished:
            return ()
        if self.phase == ARRANGING:
            return (self.roller,)
        return tuple(seat for seat in self.seats if not self.players[seat].done)

    def round_complete(self) -> bool:
        return self.phase == WRITING and all(p.done for p in self.players.values())

    def score(self, seat: int) -> int:
        """``seat``'s score (RULES.md §5; solo: with the bar's uncrossed boxes)."""
        return self.players[seat].score

    def verdict(self) -> str | None:
        """The solo verdict for the score so far (None in a game of the table)."""
        if not self.options.solo:
            return None
        return verdict(self.players[self.seats[0]].score)

    def fits(self, seat: int, shape: str | None = None) -> bool:
        """Whether ``shape`` (by default the arranged one) can be written on ``seat``'s sheet."""
        name = shape or self.shape
        return name is not None and self.players[seat].sheet.fits(name)

    def results(self) -> list[Standing]:
        """Places, best first: the highest score; equal scores share the place. Those who
        left come last (the earliest to leave the very last)."""
        rows = []
        for seat in self.seats:
            player = self.players[seat]
            left = player.state == LEFT
            key = (1, -(player.left_at or 0.0)) if left else (0, 0.0)
            rows.append(
                (
                    (*key, -player.score),
                    {"seats": (seat,), "score": player.score, "forfeited": left},
                )
            )
        return ranked(rows)

    def to_text(self) -> str:
        """The whole game as text: equal texts mean equal games."""
        head = (
            f"tetrix {self.options.to_dict()} seed {self.seed!r} seats {list(self.seats)} "
            f"start {self.start!r} now {self.now!r} finished {int(self.finished)} "
            f"termination {self.termination.value if self.termination else None} stopped {int(self.stopped)}\n"
            f"round {self.round} roller {self.roller} phase {self.phase} since {self.phase_started!r} "
            f"dice {self.dice or '-'} shape {self.shape} symbols {self.symbols or '-'}"
        )
        lines = [head]
        for seat in self.seats:
            player = self.players[seat]
            lines.append(player.text())
            lines.extend(player.sheet.rows())
        return "\n".join(lines)

    def setup(
        self,
        *,
        sheets: Mapping[int, Sheet | Sequence[str]] | None = None,
        crossed: Mapping[int, int] | None = None,
        roller: int | None = None,
        dice: str | None = None,
    ) -> list[Event]:
        """Arrange a position for a test and start the round again on it: ``sheets`` by
        seat (a :class:`Sheet` or its drawing; a solo game's keep their bar), the bar's
        ``crossed`` boxes by seat (solo), the ``roller`` (by default this round's) and
        their ``dice`` (by default this round's roll). Returns the round's events. Not
        logged, so a game arranged this way cannot be replayed."""
        for seat, drawn in (sheets or {}).items():
            if seat not in self.players:
                raise ValueError(f"seat {seat} is not in the game")
            new = drawn.copy() if isinstance(drawn, Sheet) else Sheet.from_rows(drawn)
            self.players[seat].sheet = Sheet(new.masks, self.options.solo, new.crossed)
        for seat, boxes in (crossed or {}).items():
            self.players[seat].sheet.crossed = boxes
        if dice is not None and (len(dice) != C.DICE or set(dice) - set(C.SYMBOLS)):
            raise ValueError(f"four dice of {C.SYMBOLS}, not {dice!r}")
        self.round -= 1
        return self._start_round(roller or self.roller, self.now, dice)

    # --- inside --------------------------------------------------------------------------
    def _check_playing(self, seat: int) -> None:
        if self.finished:
            raise IllegalIntent("GAME_OVER", "The game is over.")
        if seat not in self.players:
            raise IllegalIntent("NOT_PLAYING", f"Seat {seat!r} is not playing in this game.")
        if self.players[seat].state == LEFT:
            raise IllegalIntent("NOT_PLAYING", f"Seat {seat} has left the game.")

    def _checked(self, player: Player, intent: Intent):
        """What an intent does (a function of ``now`` and the events), once it is known
        to be legal; else the refusal that says why not. Nothing changes before."""
        if intent.name == STOP:
            if not self.options.solo:
                raise IllegalIntent("NOT_SOLO", "Only the solo game may be stopped; leave the table instead.")
            return lambda now, events: self._stop(player, events)
        if intent.name == ARRANGE:
            return self._checked_arrange(player, intent)
        return self._checked_write(player, intent)

    def _checked_arrange(self, player: Player, intent: Intent):
        if self.phase != ARRANGING or player.seat != self.roller:
            if self.phase == WRITING and player.seat == self.roller:
                raise IllegalIntent("ALREADY_ARRANGED", f"The dice are arranged into {self.shape}: write it.")
            raise IllegalIntent("NOT_YOUR_TURN", f"Seat {self.roller} arranges the dice this round, not you.")
        if Counter(intent.symbols) != Counter(self.dice):
            raise IllegalIntent(
                "NOT_THE_ROLL",
                f"The dice show {' '.join(self.dice)}: arrange those four symbols, each once, none changed.",
            )
        if self.options.solo and not player.sheet.fits(intent.shape):
            raise IllegalIntent("NO_ROOM", f"The {intent.shape} cannot be written anywhere on your sheet.")
        return lambda now, events: self._arrange(intent.shape, intent.symbols, now, events, timeout=False)

    def _checked_write(self, player: Player, intent: Intent):
        if self.phase != WRITING:
            raise IllegalIntent(
                "NOT_YOUR_TURN", f"Wait for seat {self.roller} to arrange the dice: then everyone writes."
            )
        if player.wrote:
            raise IllegalIntent("ALREADY_WROTE", f"You have written the shape of round {self.round}.")
        if player.cannot:
            raise IllegalIntent("CANNOT_WRITE", f"The {self.shape} fits nowhere on your sheet this round.")
        assert self.shape is not None
        where = spot(self.shape, intent.turns, intent.row, intent.column)
        if where is None:
            raise IllegalIntent("NOTHING_WRITTEN", "At least one symbol must be written on the sheet.")
        if where.mask & player.sheet.filled:
            raise IllegalIntent(
                "CELL_WRITTEN", "Symbols are written on empty cells only, never on written ones."
            )
        if where.hanging > player.sheet.may_hang:
            boxes = player.sheet.boxes_left
            raise IllegalIntent(
                "BAR_FULL",
                f"{where.hanging} symbols would hang over the edge; your bar has {boxes} box"
                f"{'' if boxes == 1 else 'es'} left to cross.",
            )
        return lambda now, events: self._write(player, where, now, events, timeout=False)

    def _start_round(self, roller: int, now: float, dice: str | None = None) -> list[Event]:
        """Roll the dice for ``roller`` (RULES.md §5); in solo, end the game if no shape
        can be written."""
        events: list[Event] = []
        self.round += 1
        self.roller, self.phase, self.phase_started = roller, ARRANGING, now
        self.dice = dice or roll(self.seed, self.round)
        self.shape, self.symbols = None, ""
        for player in self.players.values():
            player.wrote = player.cannot = False
        events.append(Rolled(roller, self.round, self.dice))
        if self.options.solo and not any(self.players[roller].sheet.fits(name) for name in C.TETROMINOES):
            self._finish(events, Termination.FULL_BOARD)  # RULES.md: no shape can be written
            return events
        events.append(TurnChanged(roller, ARRANGING, self.next_deadline()))
        return events

    def _arrange(self, shape: str, symbols: str, now: float, events: list[Event], timeout: bool) -> None:
        self.shape, self.symbols = shape, symbols
        self.phase, self.phase_started = WRITING, now
        events.append(Arranged(self.roller, shape, symbols, timeout))
        events.append(TurnChanged(0, WRITING, self.next_deadline()))
        for seat in self.active_seats():  # the engine knows who cannot write: not waited for
            player = self.players[seat]
            if not player.sheet.fits(shape):
                player.cannot = True
                events.append(CannotWrite(seat))
        if self.round_complete():
            self._end_round(now, events)

    def _write(self, player: Player, where: Spot, now: float, events: list[Event], timeout: bool) -> None:
        cells = player.sheet.write(where, self.symbols)
        player.wrote = True
        player.writes += 1
        events.append(Wrote(player.seat, cells, where.hanging, player.score, player.sheet.crossed, timeout))
        if self.round_complete():
            self._end_round(now, events)

    def _stop(self, player: Player, events: list[Event]) -> None:
        self.stopped = True
        events.append(Stopped(player.seat))
        self._finish(events, Termination.MOVE_LIMIT)  # constants: core has no "stopped"

    def _end_round(self, now: float, events: list[Event]) -> None:
        """RULES.md §5: the game ends after a round in which a player could not write the
        shape, or a sheet is full; else the next player in seat order rolls."""
        active = [self.players[seat] for seat in self.active_seats()]
        if any(p.cannot or p.sheet.is_full() for p in active):
            self._finish(events, Termination.FULL_BOARD)
        else:
            events.extend(self._start_round(self.next_seat(self.roller), now))

    def _run_clock(self, now: float) -> list[Event]:
        """Make the clock's moves due by ``now``; ``self.now`` moves only as far as the
        last deadline (so a refused intent changes nothing when no clock ran out)."""
        events, self._pending = self._pending, []
        while not self.finished:
            deadline = self.next_deadline()
            assert deadline is not None
            if deadline > now:
                break
            self.now = deadline
            if self.phase == ARRANGING:
                self._arrange_for(self.roller, deadline, events)
            else:
                round_ = self.round
                for seat in self.waiting_for():
                    self._write_for(self.players[seat], deadline, events)
                    if self.finished or self.round != round_:
                        break
        return events

    def _arrange_for(self, seat: int, now: float, events: list[Event]) -> None:
        """Our choice (constants): the dice as rolled, into the first shape of
        AUTO_ARRANGE_ORDER that the roller can write (else the first)."""
        sheet_ = self.players[seat].sheet
        shape = next((name for name in C.AUTO_ARRANGE_ORDER if sheet_.fits(name)), C.AUTO_ARRANGE_ORDER[0])
        self.log.append((now, seat, f"{TIMEOUT}:{Intent.arrange(shape, self.dice).text}"))
        self._arrange(shape, self.dice, now, events, timeout=True)

    def _write_for(self, player: Player, now: float, events: list[Event]) -> None:
        """Our choice (constants): the legal spot with the fewest symbols hanging over,
        then the fewest turns, then the top-left cell row by row."""
        assert self.shape is not None
        where = player.sheet.first_spot(self.shape)
        assert where is not None, f"seat {player.seat} had to write a shape that fits nowhere"
        self.log.append(
            (now, player.seat, f"{TIMEOUT}:{Intent.write(where.turns, where.row, where.column).text}")
        )
        self._write(player, where, now, events, timeout=True)

    def _finish(self, events: list[Event], termination: Termination) -> None:
        self.finished = True
        self.termination = termination
        self.phase = None
        events.append(Finished(0))
