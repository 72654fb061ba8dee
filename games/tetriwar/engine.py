"""The TetriWar rules engine (RULES.md §1): a pure state machine, standard library only.

    game = Game(Options(minutes=3, bombs="manual"), seed=42, seats=[1, 2], now=0,
                handling={2: Handling(das=120, arr=0)})   # optional, per seat
    events = game.apply(1, Intent.parse("left"), 250)       # at 250 ms, on board 1 only
    events += game.apply(2, Intent.parse("hold_right"), 300)  # repeats by itself
    events += game.advance(1000, behind={2: 150})  # every board's clocks: gravity, lock
                                                   # delay, auto-repeat; board 2 to 850
    sleep_until = game.next_deadline()

Time is integer milliseconds on the game's clock (rules version 3: 0 is the start, the
end ``minutes * 60_000``), always passed in, never read; randomness comes from the seed.

Each board (``Player``) keeps its own time, ``player.now``. ``apply`` runs only its own
board's clocks to the input's time ``t`` (clamped to the board's time, and to no more
than ``MAX_LAG_MS`` behind the game's time ``game.now``, the latest time the game was
given), then applies the input at ``t`` and logs ``(t, seat, text)``. ``advance(now,
behind)`` runs every board to ``now`` (a seat named in ``behind`` that many ms less, at
most ``MAX_LAG_MS``). Boards act on each other only through bombs, which land at least
``BOMB_DELAY_MS`` (> ``MAX_LAG_MS``) after their drop, and Enter weighs its targets by
their scores ``BOMB_DELAY_MS`` before the drop, so however the boards were advanced the
game is the same: ``Game.replay(options, seed, seats, start, game.log, end)`` applies
the log in order, each entry to its own board, then runs every board to the end, and
reproduces the game exactly. A seat's handling, when not the default, is the first
entry of the log (``handling:das:arr:soft_drop``), as a forfeit is an entry.

Illegal intents raise :class:`IllegalIntent` (a ``ValueError``) and change nothing.
Once the game is over (its time ran out, or one side is left), intents and forfeits
are ignored: they return the events still to report, never an error.

The game ends when its time runs out (``Termination.TIME``) or when at most one side
is still playing, every other side having left (``Termination.FORFEIT``): a game of
two whose one player leaves, a practice game whose person leaves the bot alone, a
pairs game where both partners of a pair left. A game of one side ends when its
player leaves. Every board still playing then gets a ``BoardOver`` event.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import ClassVar, Final

from games.core.compiled import mypyc_attr
from games.core.log import InputLog
from games.core.outcome import Outcome, Standing, Termination, ranked
from games.core.protocol import FORFEIT, Event, IllegalIntent, InvalidOptions, Replayable
from games.core.rng import stream, weighted_choice
from games.tetriwar import constants as C
from games.tetriwar.dice import SEED_BITS
from games.tetriwar.events import (
    BoardOver,
    BombLanded,
    BombReceived,
    ControlChanged,
    Eliminated,
    FeedEntry,
    FieldChanged,
    GameFinished,
    NextChanged,
    PieceChanged,
    PlayerLeft,
    ScoreChanged,
    StoreChanged,
)
from games.tetriwar.field import Field, field
from games.tetriwar.handling import DEFAULT_HANDLING, HANDLING, Handling
from games.tetriwar.intents import Intent, intent
from games.tetriwar.options import Options
from games.tetriwar.pieces import SHAPES, X_OFFSET, Bag
from games.tetriwar.player import PieceView, Player, PlayerView

__all__ = [
    "BoardOver",
    "BombLanded",
    "BombReceived",
    "ControlChanged",
    "Eliminated",
    "Event",
    "FeedEntry",
    "Field",
    "FieldChanged",
    "Game",
    "GameFinished",
    "Handling",
    "IllegalIntent",
    "Intent",
    "InvalidOptions",
    "NextChanged",
    "Options",
    "PieceChanged",
    "PieceView",
    "PlayerLeft",
    "PlayerView",
    "ScoreChanged",
    "Outcome",
    "Standing",
    "StoreChanged",
    "Termination",
    "field",
]

INF: Final[int | float] = math.inf  # Final: a compiled build reads them without a dict lookup
MAX_LAG_MS: Final = C.MAX_LAG_MS
RULES_VERSION = C.RULES_VERSION


def ms(t: object, what: str = "a time") -> int:
    """A time as the engine takes it: whole milliseconds, an ``int`` (a float is refused:
    the clocks of rules version 3 are integers, a float means seconds by mistake)."""
    if type(t) is int:
        return t
    if isinstance(t, int) and not isinstance(t, bool):
        return int(t)
    raise TypeError(f"{what} is whole milliseconds (an int), not {t!r}")


def _by_seat(board: tuple[Player, int]) -> int:
    return board[0].seat


def logged_ms(t: object) -> int:
    """A time read back from a packed log (a double holding a whole number of ms)."""
    if isinstance(t, float) and t.is_integer():
        return int(t)
    return ms(t, "a logged time")
# What each intent does to the player's board (the bombs are the game's: ``_bomb``),
# called as ``MOVES[name](player, t, events)``.
MOVES: Final = {
    "left": Player.key_left,
    "right": Player.key_right,
    "rotate": Player.rotate,
    "hold_left": Player.hold_left,
    "hold_right": Player.hold_right,
    "release_left": Player.release_left,
    "release_right": Player.release_right,
    "soft_drop_on": Player.soft_drop_on,
    "soft_drop_off": Player.soft_drop_off,
    "hold_down": Player.soft_drop_on,
    "release_down": Player.soft_drop_off,
}


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # as a plain class (games/core/compiled.py)
class Game(Replayable):
    MAX_LAG_MS: ClassVar[int] = MAX_LAG_MS  # how far behind the game's time an input may still act
    # Rules version 4: a bomb's dice are drawn at its drop (``_hit``); GameV3 draws them
    # from the target's chance as the bomb lands, as games of version 3 were played.
    DICE_AT_DROP: ClassVar[bool] = True
    # What ``Replayable`` says every game has, with this engine's types (for mypyc: the
    # compiled class keeps them as its own attributes)
    options: Options
    seed: int | str
    seats: tuple[int, ...]
    start: int
    now: int
    finished: bool
    termination: Termination | None  # type: ignore[assignment]  # (Replayable: None at the start)

    def __init__(
        self,
        options: Options,
        seed: int | str,
        seats: Iterable[int],
        now: int = 0,
        handling: Mapping[int, Handling] | None = None,
    ) -> None:
        """``now``: the start, in ms on the game's clock (0 unless a test says);
        ``handling``: each seat's auto-repeat and soft drop (RULES.md's defaults for a
        seat not named)."""
        if not isinstance(options, Options):
            raise TypeError("options must be an Options")
        now = ms(now, "the start")
        seats = list(seats)
        if not 1 <= len(seats) <= C.MAX_PLAYERS or len(set(seats)) != len(seats):
            raise InvalidOptions("seats", f"a game has 1 to {C.MAX_PLAYERS} different seats, not {seats!r}")
        if any(type(seat) is not int or not 1 <= seat <= C.MAX_PLAYERS for seat in seats):
            raise InvalidOptions("seats", f"seats are numbered 1 to {C.MAX_PLAYERS}, not {seats!r}")
        if options.pairs and len(seats) != C.MAX_PLAYERS:
            raise InvalidOptions("pairs", "pairs are played by exactly 4 players")
        handling = dict(handling or {})
        for seat, chosen in handling.items():
            if seat not in seats:
                raise InvalidOptions("handling", f"handling for seat {seat!r}, which is not playing")
            if not isinstance(chosen, Handling):
                raise InvalidOptions("handling", f"handling must be a Handling, not {chosen!r}")
        self.options = options
        self.seed = seed
        self.seats = tuple(sorted(seats))
        self.start = now
        self.end = now + options.minutes * 60_000
        self.now = now  # the latest time the game has been given (by apply or advance)
        self.finished = False
        self.termination = None
        self.log = InputLog()
        self._pending: list[Event] = []
        self.players: dict[int, Player] = {}
        for seat in self.seats:
            self.players[seat] = Player(
                seat,
                start_level=options.start_level,
                lines_per_level=options.lines_per_level,
                bombs=options.bombs,
                bag=Bag(stream(seed, "tetriwar", "bag", seat)),
                chance=stream(seed, "tetriwar", "chance", seat),
            )
        for player in self.players.values():
            # 1 is oneself, 2–4 the others in seat order after oneself (going round)
            i = self.seats.index(player.seat)
            order = self.seats[i:] + self.seats[:i]
            player.numbers = {seat: number for number, seat in enumerate(order, start=1)}
            player.seats_by_number = {number: seat for seat, number in player.numbers.items()}
            player.now = now
            player.scores = [(now - 10**9, 0)]
        self._order = list(self.players.values())
        # No board still playing is behind this time (boards' times never go back): an
        # input later than it by less than MAX_LAG_MS finds no board to bring on (apply)
        self._settled = now
        for player in self._order:
            player.spawn(now, [])
        for seat in self.seats:
            if handling.get(seat, DEFAULT_HANDLING) != DEFAULT_HANDLING:
                self._set_handling(seat, handling[seat], now)

    # --- the protocol ------------------------------------------------------------------
    def apply(self, seat: int, intent: Intent, t: int) -> list[Event]:
        """Apply a player's intent at ``t`` (ms), on that board alone: ``t`` is clamped
        to the board's time and to ``game.now - MAX_LAG_MS``, the board's clocks run to
        it, the intent acts then and ``(t, seat, text)`` is logged. Returns what changed
        (clock events first). Once the game is over the intent is ignored: the clocks run
        to the end and their events come back, nothing else happens."""
        # The hot path of every game and replay (bench/engine.py): the checks and the
        # clocks of ``_reach`` are written out here, each a Python call fewer per input.
        if type(t) is not int:
            t = ms(t)
        if type(intent) is not Intent and not isinstance(intent, Intent):
            raise IllegalIntent("UNKNOWN_INTENT", f"Not an intent: {intent!r}.")
        if self.finished or t >= self.end:
            return self.advance(t)
        player = self.players.get(seat)
        if player is None or player.left:
            player = self._playing(seat, t)  # raises the reason
        now = self.now
        if t < player.now:
            t = player.now
        if t < now - MAX_LAG_MS:
            t = now - MAX_LAG_MS
        events, self._pending = self._pending, []
        targets = None
        if t > now:  # the game's time moves on: no other board may lag past the allowance
            self.now = t
            floor = t - MAX_LAG_MS
            if self._settled < floor:  # a board may lag that far: look at each
                settled = t
                for other in self._order:
                    if other is player or other.left:
                        continue
                    if other.now < floor:
                        if targets is None:
                            targets = {player: t}
                        targets[other] = floor
                        settled = floor
                    elif other.now < settled:
                        settled = other.now
                self._settled = settled
        if targets is not None:
            self._run(targets, events)
        else:  # ``_run_board`` when a clock is due: most inputs find none
            due = player.fall_at
            if player.lock_at < due:
                due = player.lock_at
            if player.control_until < due:
                due = player.control_until
            if player.repeat_at < due:
                due = player.repeat_at
            if due <= t:
                self._run_board(player, t, events)
            else:
                player.now = t
        name = intent.name
        move = MOVES.get(name)
        if move is not None:
            move(player, t, events)
        elif name == "hard_drop":
            for bomb in player.hard_drop(t, events):
                self._drop_auto(player, bomb, t, events)
        else:
            try:
                self._bomb(player, intent, t, events)
            except IllegalIntent:
                self._pending = events  # the clocks did run: report their events next time
                raise
        self.log.append((t, seat, intent.text))
        # a clock the intent brought to now (a repeat, a lock)
        due = player.fall_at
        if player.lock_at < due:
            due = player.lock_at
        if player.control_until < due:
            due = player.control_until
        if player.repeat_at < due:
            due = player.repeat_at
        if due <= t:
            self._run_board(player, t, events)
        return events

    def advance(self, now: int, behind: Mapping[int, int] | None = None) -> list[Event]:
        """Run every board's clocks up to ``now`` (gravity, lock delay, repeats, lack of
        control), a seat in ``behind`` only to ``now - behind[seat]`` (0 to MAX_LAG_MS
        ms: its inputs may still come that late); at the end, every board to the end."""
        if self.finished:
            events, self._pending = self._pending, []
            return events
        return self._advance(ms(now), behind)

    def forfeit(self, seat: int, t: int) -> list[Event]:
        """The player leaves at ``t`` (never before the game's time: a leave acts now):
        their board stops and they take the last place. When at most one side is left
        playing, every board runs to then and the game ends. Once the game is over, a
        forfeit is ignored like an intent (the time ran out first: nobody is penalised)."""
        t = ms(t)
        if self.finished or t >= self.end:
            return self.advance(t)
        player = self._playing(seat, t)
        t = max(t, self.now)
        events = self._reach(player, t)
        playing = {self._side(p.seat) for p in self._order if not p.left and p is not player}
        ends = not playing or (len(playing) == 1 and len(self._sides()) > 1)
        if ends:  # every board stops then: each runs to the leave first
            self._run({p: t for p in self._order}, events)
        player.left = True
        player.left_at = t
        player.release_all()
        events.append(PlayerLeft(seat))
        self.log.append((t, seat, FORFEIT))
        if ends:
            self._finish(events, Termination.FORFEIT)
        return events

    def advance_timed(self, now: int | float, behind: Mapping[int, int] | None = None) -> tuple[list[Event], list[int]]:
        """``advance``, and the time of the clock's step that made each event (a replay
        marks a line cleared by a piece gravity locked when it happened). A replay that
        has log entries still to play passes ``behind`` MAX_LAG_MS for every seat: those
        entries may be that far behind ``now``. ``now`` may be a packed log's double
        (whole ms), as a replay reads it."""
        if self.finished:
            events, self._pending = self._pending, []
            return events, [self.now] * len(events)
        times: list[int] = []
        return self._advance(logged_ms(now), behind, times), times

    def earliest_due(self) -> int | float:
        """A time no later than the next thing that happens without input on any board
        (infinity once finished)."""
        if self.finished:
            return INF
        due: int | float = self.end  # a replay asks before every entry: ``Player.due`` written out
        for p in self._order:
            if p.left or p.over:
                continue
            if p.fall_at < due:
                due = p.fall_at
            if p.lock_at < due:
                due = p.lock_at
            if p.control_until < due:
                due = p.control_until
            if p.repeat_at < due:
                due = p.repeat_at
        return due

    def next_deadline(self, behind: Mapping[int, int] | None = None) -> int | None:
        """The earliest time something happens without input (None once finished): each
        board's next clock, plus its ``behind`` (the end at the latest)."""
        if self.finished:
            return None
        lags = self._lags(behind)
        due: int | float = self.end
        for player in self._order:
            player_due = player.due() + lags.get(player.seat, 0)
            if player_due < due:
                due = player_due
        return due  # type: ignore[return-value]  # never past the end

    @classmethod
    def replay(
        cls,
        options: Options,
        seed: int | str,
        seats: Iterable[int],
        start: int | float,
        log: Iterable[Sequence],
        end: int | float | None = None,
    ) -> Game:
        """The game rebuilt from its log (times may be the doubles a packed log holds:
        whole milliseconds)."""
        return super().replay(options, seed, seats, logged_ms(start), log, None if end is None else logged_ms(end))

    def replay_entry(self, t: int | float, seat: int, text: str) -> None:
        at = logged_ms(t)
        if text == FORFEIT:
            self.forfeit(seat, at)
        elif text.startswith(HANDLING + ":"):
            self._set_handling(seat, Handling.parse(text), at)
        else:
            self.apply(seat, intent(text), at)

    def handling(self, seat: int) -> Handling:
        """The seat's auto-repeat and soft-drop settings."""
        return self.players[seat].handling

    # --- results and views -------------------------------------------------------------
    def results(self) -> list[Standing]:
        """Places, best first: score, then fewer eliminations, then more lines; equal
        places are shared. Forfeits come last (the earliest to leave the very last).
        In pairs, partners' numbers are added and the pairs ranked; a pair with a
        leaver ranks as a leaver (``forfeited``: behind every pair without one, ahead
        of a pair both of whose partners left), but only the seats that left are
        named in ``left``: they alone take the leave penalty (RULES.md §6), the
        partner who stayed takes the pair's place."""
        rows = []
        for seats in self._sides():
            members = [self.players[seat] for seat in seats]
            left = tuple(p.seat for p in members if p.left)
            score = sum(p.score for p in members)
            lines = sum(p.lines for p in members)
            eliminations = sum(p.eliminations for p in members)
            if not left:
                key = (0, 0.0)
            elif len(left) < len(members):  # a pair with a partner still playing
                key = (1, -min(p.left_at for p in members))
            else:  # every member left: the side that stayed longest ranks first
                key = (2, -max(p.left_at for p in members))
            rows.append(
                (
                    key + (-score, eliminations, -lines),
                    {
                        "seats": seats,
                        "score": score,
                        "lines": lines,
                        "eliminations": eliminations,
                        "forfeited": bool(left),
                        "left": left,
                    },
                )
            )
        return ranked(rows)

    def view(self, seat: int) -> PlayerView:
        """One board as a renderer shows it (no piece once it left or the game ended)."""
        return self.players[seat].view()

    def opponents(self, seat: int) -> tuple[int, ...]:
        """The seats Enter may aim a red bomb at: still playing, not oneself or partner."""
        return tuple(p.seat for p in self._opponents(self.players[seat]))

    def to_text(self) -> str:
        """The whole game as text: equal texts mean equal games."""
        head = (
            f"tetriwar {self.options.to_dict()} seed {self.seed!r} seats {list(self.seats)} "
            f"start {self.start!r} now {self.now!r} finished {int(self.finished)}"
        )
        return "\n\n".join([head, *(p.to_text() for p in self._order)])

    def canon(self, seat: int) -> str:
        """One board's canonical text (plan31; the JavaScript engine writes the same)."""
        return self.players[seat].canon()

    def board_hash(self, seat: int) -> int:
        return self.players[seat].board_hash()

    def state(self, seat: int) -> dict:
        """One board as JSON for its own page (plan31)."""
        return self.players[seat].state()

    def setup(
        self,
        seat: int,
        *,
        field: Field | None = None,
        piece: str | tuple[str, int, int, int] | None = None,
        next: Sequence[str] | None = None,
        score: int | None = None,
        level: int | None = None,
        lines: int | None = None,
        level_lines: int | None = None,
        store: Sequence[str] | None = None,
    ) -> Player:
        """Arrange a board for a test: a field, a piece (a kind at its spawn place, or
        ``(kind, rotation, x, visible y)``), the next pieces, score... Not logged, so a
        game arranged this way cannot be replayed."""
        player = self.players[seat]
        if piece is not None and not isinstance(piece, str):
            kind, rotation, x, y = piece
            if not (-X_OFFSET <= x < C.WIDTH and -C.HIDDEN_ROWS <= y < C.VISIBLE_ROWS):
                raise ValueError(f"the piece {piece!r} is outside the field")
        if field is not None:
            player.field = field.copy()
        if next is not None:
            player.bag.queue[:0] = list(next)
        if score is not None:
            player.score = score
        if level is not None:
            player.level = level
        if lines is not None:
            player.lines = lines
        if level_lines is not None:
            player.level_lines = level_lines
        if store is not None:
            player.store = list(store)
        if piece is not None:
            if isinstance(piece, str):
                player.place_new(piece, player.now, [])
            else:
                kind, rotation, x, y = piece
                shape = SHAPES[kind][rotation][x + X_OFFSET]
                player.kind, player.rotation, player.x = kind, rotation, x
                player.y = player.lowest = y + C.HIDDEN_ROWS
                player.shape = shape  # type: ignore[assignment]
                if not player.fits(shape, player.y):
                    raise ValueError(f"the piece {piece!r} does not fit there")
                player.resets = 0
                player.touched = False
                player.lock_at = INF
                player._touch(player.now, moved=False)
                player.last_fall = player.now
                player.fall_at = player.now + player.interval()
        if score is not None:
            player.scores = [(player.now - 10**9, score)]
        return player

    # --- inside --------------------------------------------------------------------------
    def _playing(self, seat: int, now: float) -> Player:
        if self.finished or now >= self.end:
            raise IllegalIntent("GAME_OVER", "The game is over.")
        player = self.players.get(seat)
        if player is None:
            raise IllegalIntent("NOT_PLAYING", f"Seat {seat!r} is not playing in this game.")
        if player.left:
            raise IllegalIntent("NOT_PLAYING", f"Seat {seat} has left the game.")
        return player

    def _sides(self) -> tuple[tuple[int, ...], ...]:
        """The sides that are ranked: the pairs, or each seat alone."""
        return C.PAIRS if self.options.pairs else tuple((seat,) for seat in self.seats)

    def _set_handling(self, seat: int, handling: Handling, now: float) -> None:
        """A seat's handling, logged so a replay sets it again (defaults are not logged)."""
        player = self.players.get(seat)
        if player is None:
            raise InvalidOptions("handling", f"handling for seat {seat!r}, which is not playing")
        player.set_handling(handling)
        self.log.append((now, seat, handling.text))

    def _lags(self, behind: Mapping[int, int] | None) -> dict[int, int]:
        """``behind`` checked: whole ms, clamped to 0..MAX_LAG_MS."""
        if not behind:
            return {}
        return {seat: min(max(ms(lag, "behind"), 0), MAX_LAG_MS) for seat, lag in behind.items()}

    def _reach(self, player: Player, t: int) -> list[Event]:
        """Before an input at ``t`` on ``player``'s board: that board's clocks run to
        ``t``. When ``t`` is past the game's time, the game's time moves to it, and any
        other board more than MAX_LAG_MS behind it is first brought to ``t - MAX_LAG_MS``
        (all in one time order), so no board lags further than an input may: a bomb
        dropped by a lagging board could otherwise be due where its target has already
        been."""
        events, self._pending = self._pending, []
        targets = {player: t}
        if t > self.now:
            self.now = t
            floor = t - MAX_LAG_MS
            for other in self._order:
                if other is not player and other.now < floor:
                    targets[other] = floor
        self._run(targets, events)
        return events

    def _advance(self, now: int, behind: Mapping[int, int] | None, times: list[int] | None = None) -> list[Event]:
        events, self._pending = self._pending, []
        if times is not None:
            times.extend([self.now] * len(events))
        if now >= self.end:
            targets = {player: self.end for player in self._order}
        else:
            lags = self._lags(behind)
            targets = {player: now - lags.get(player.seat, 0) for player in self._order}
        self._run(targets, events, times)
        self.now = max(self.now, min(now, self.end))
        if now >= self.end and not self.finished:
            self._finish(events, Termination.TIME)
        if times is not None:
            times.extend([self.now] * (len(events) - len(times)))
        return events

    def _run(self, targets: Mapping[Player, int], events: list[Event], times: list[int] | None = None) -> None:
        """Run each board's clocks up to its target (never back, never past the end),
        one step at a time in time order over all of them (the lowest seat first on a
        tie), as the bombs they drop must reach their targets in time; ``times`` (if
        given) gets the time of the step that made each event."""
        end = self.end
        boards = []  # the boards with a clock due by their target: the others only wait
        waiting = []
        for p, t in targets.items():
            if p.left or p.over:
                continue
            if t < p.now:
                t = p.now
            if t > end:
                t = end
            due = p.fall_at
            if p.lock_at < due:
                due = p.lock_at
            if p.control_until < due:
                due = p.control_until
            if p.repeat_at < due:
                due = p.repeat_at
            if due <= t and due < end:
                boards.append((p, t))
            else:
                waiting.append((p, t))
        # A step changes no other board's clocks (a bomb waits in its target's queue),
        # so a board with nothing due at the start has nothing due until its target.
        if len(boards) == 1:
            self._run_board(*boards[0], events, times)
        elif boards:
            boards.sort(key=_by_seat)
            while True:
                first, due = None, INF
                for player, target in boards:
                    player_due = player.fall_at
                    if player.lock_at < player_due:
                        player_due = player.lock_at
                    if player.control_until < player_due:
                        player_due = player.control_until
                    if player.repeat_at < player_due:
                        player_due = player.repeat_at
                    if player_due < due and player_due <= target and player_due < end:
                        first, due = player, player_due
                if first is None:
                    break
                first.now = due  # type: ignore[assignment]  # a clock due by a target is a time
                dropped = first.step(due, events)  # type: ignore[arg-type]
                for bomb in dropped:
                    self._drop_auto(first, bomb, due, events)  # type: ignore[arg-type]
                if times is not None:
                    times.extend([due] * (len(events) - len(times)))  # type: ignore[list-item]
            for player, target in boards:
                player.now = target
        for player, target in waiting:
            player.now = target

    def _run_board(self, player: Player, target: int, events: list[Event], times: list[int] | None = None) -> None:
        """``_run`` for one board still playing, its ``target`` no earlier than its time."""
        end = self.end
        if target > end:
            target = end
        step = player.step
        while True:
            due = player.fall_at
            if player.lock_at < due:
                due = player.lock_at
            if player.control_until < due:
                due = player.control_until
            if player.repeat_at < due:
                due = player.repeat_at
            if due > target or due >= end:
                break
            player.now = due  # type: ignore[assignment]  # a clock due by the target is a time
            dropped = step(due, events)  # type: ignore[arg-type]
            if dropped:
                for bomb in dropped:
                    self._drop_auto(player, bomb, due, events)  # type: ignore[arg-type]
            if times is not None:
                times.extend([due] * (len(events) - len(times)))  # type: ignore[list-item]
        player.now = target

    def _finish(self, events: list[Event], termination: Termination) -> None:
        """The end: every board still playing stops (its piece goes), then the game."""
        self.finished = True
        self.termination = termination
        for player in self._order:
            if not player.left:
                player.now = max(player.now, min(self.now, self.end))
                player.over = True
                events.append(BoardOver(player.seat))
        events.append(GameFinished(0))

    # --- bombs ---------------------------------------------------------------------------
    def _bomb(self, player: Player, intent: Intent, t: int, events: list) -> None:
        """Drop the oldest stored bomb: Enter (no target) or keys 1–4. Checks first, so a
        refused bomb changes nothing."""
        mode = self.options.bombs
        if mode != "manual":
            raise IllegalIntent(
                "BOMBS_NOT_MANUAL", f"Bombs are {mode} in this game: they cannot be dropped by hand."
            )
        if not player.store:
            raise IllegalIntent("EMPTY_STORE", "There is no bomb in the store to drop.")
        bomb = player.store[0]
        if intent.target is None:
            candidates = self._enter_candidates(player, bomb, t)
            if not candidates:
                raise IllegalIntent(
                    "NO_OPPONENT",
                    "There is no opponent to drop a red bomb on; use key 1 to drop it on yourself.",
                )
            target = self._draw_target(player, candidates, t)
        else:
            seat = player.seats_by_number.get(intent.target)
            if seat is None:
                raise IllegalIntent("BAD_TARGET", f"There is no player {intent.target} in this game.")
            target = self.players[seat]
            if target.left_at < t:
                raise IllegalIntent("TARGET_LEFT", f"Player {intent.target} has left the game.")
        del player.store[0]
        events.append(StoreChanged(player.seat, tuple(player.store)))
        self._hit(player, target, bomb, t, events)

    def _drop_auto(self, player: Player, bomb: str, t: int, events: list) -> None:
        """Automatic mode: a caught bomb drops at once, aimed as Enter aims. A red bomb
        with no opponent left is lost (our choice)."""
        candidates = self._enter_candidates(player, bomb, t)
        if candidates:
            self._hit(player, self._draw_target(player, candidates, t), bomb, t, events)

    def _hit(self, sender: Player, target: Player, bomb: str, t: int, events: list) -> None:
        """The drop is announced to the target at once; it lands at the target's next
        piece at or after ``t + BOMB_DELAY_MS`` (RULES.md), a bomb on oneself too. Its
        random choices are drawn now, as a seed of its own from the dropper's chance
        (RULES.md, rules version 4), and applied to the field as it stands then."""
        sender.drops += 1
        seed = sender.chance.getrandbits(SEED_BITS) if self.DICE_AT_DROP else None
        target.announce(bomb, sender.seat, t, sender.drops, events, seed)

    def _opponents(self, player: Player, t: int | None = None) -> list[Player]:
        """The opponents still playing (at ``t``: who had not left before then; a board
        that left at ``t`` itself still counts, whichever came first in the calls)."""
        side = self._side(player.seat)
        if t is None:
            return [p for p in self._order if not p.left and p.seat not in side]
        return [p for p in self._order if p.left_at >= t and p.seat not in side]

    def _side(self, seat: int) -> tuple[int, ...]:
        if self.options.pairs:
            return next(pair for pair in C.PAIRS if seat in pair)
        return (seat,)

    def _enter_candidates(self, player: Player, bomb: str, t: int) -> list[Player]:
        """Whom Enter may hit at ``t``: oneself with a green bomb, else the opponents who
        had not left by then (RULES.md)."""
        return [player] if bomb in C.GREEN_BOMBS else self._opponents(player, t)

    def _draw_target(self, player: Player, candidates: list[Player], t: int) -> Player:
        """Enter's target among ``candidates``: the highest-scoring opponent (each, when
        tied: our choice) weighs 3, each other opponent 1 (RULES.md), by the scores as
        they stood BOMB_DELAY_MS before the drop: by then every board's score is final
        however far its clocks have run since (inputs act at most MAX_LAG_MS late)."""
        if len(candidates) == 1:
            return candidates[0]
        at = t - C.BOMB_DELAY_MS
        scores = [p.score_at(at) for p in candidates]
        best = max(scores)
        weights = [C.ENTER_WEIGHT_LEADER if score == best else C.ENTER_WEIGHT_OTHER for score in scores]
        return weighted_choice(player.chance, candidates, weights)


class GameV3(Game):
    """Rules version 3, for the games recorded under it: the same engine, but a bomb's
    random choices are drawn from the target board's chance as it lands."""

    DICE_AT_DROP: ClassVar[bool] = False
