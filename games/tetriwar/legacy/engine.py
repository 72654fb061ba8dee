"""The TetriWar rules engine of rules versions 1 and 2, frozen (see the package's
docstring): ``Game`` plays version 2, ``GameV1`` version 1. Only replays of games
recorded under those versions use it (``games.tetriwar.rulebook.game_class``).

What follows is the engine's own description as it was.

    game = Game(Options(minutes=3, bombs="manual"), seed=42, seats=[1, 2], now=0.0,
                handling={2: Handling(das=120, arr=0)})   # optional, per seat
    events = game.apply(1, Intent.parse("left"), now=0.25)
    events += game.apply(2, Intent.parse("hold_right"), now=0.3)   # repeats by itself
    events += game.advance(now=1.0)          # gravity, lock delay, auto-repeat, the end
    sleep_until = game.next_deadline()

Time is always passed in, never read, and randomness comes from the seed, so a game is
reproduced exactly by ``Game.replay(options, seed, seats, start, game.log, end)``: a
seat's handling, when not the default, is the first entry of the log
(``handling:das:arr:soft_drop``), as a forfeit is an entry.
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

from games.core.log import InputLog
from games.core.outcome import Outcome, Standing, Termination, ranked
from games.core.protocol import FORFEIT, Event, IllegalIntent, InvalidOptions, Replayable
from games.core.rng import stream, weighted_choice
from games.tetriwar import constants as C
from games.tetriwar.events import (
    BoardOver,
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
from games.tetriwar.legacy.player import PieceView, Player, PlayerView
from games.tetriwar.options import Options
from games.tetriwar.pieces import SHAPES, X_OFFSET, Bag

__all__ = [
    "BoardOver",
    "BombReceived",
    "ControlChanged",
    "Eliminated",
    "Event",
    "FeedEntry",
    "Field",
    "FieldChanged",
    "Game",
    "GameFinished",
    "GameV1",
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

INF = math.inf
# What each intent does to the player's board (the bombs are the game's: ``_bomb``).
MOVES = {
    "left": lambda player, now, events: player.step_key(-1, now, events),
    "right": lambda player, now, events: player.step_key(1, now, events),
    "rotate": lambda player, now, events: player.rotate(now, events),
    "hold_left": lambda player, now, events: player.hold(-1, now, events),
    "hold_right": lambda player, now, events: player.hold(1, now, events),
    "release_left": lambda player, now, events: player.release(-1, now),
    "release_right": lambda player, now, events: player.release(1, now),
    "soft_drop_on": lambda player, now, events: player.set_soft_drop(True, now),
    "soft_drop_off": lambda player, now, events: player.set_soft_drop(False, now),
    "hold_down": lambda player, now, events: player.set_soft_drop(True, now),
    "release_down": lambda player, now, events: player.set_soft_drop(False, now),
}


class Game(Replayable):
    RULES_VERSION = 2
    OLD_LOCK_RULE = False  # each board's lock delay as rules version 1 had it (Player)

    def __init__(
        self,
        options: Options,
        seed: int | str,
        seats: Iterable[int],
        now: float,
        handling: Mapping[int, Handling] | None = None,
    ) -> None:
        """``handling``: each seat's auto-repeat and soft drop (RULES.md's defaults for
        a seat not named)."""
        if not isinstance(options, Options):
            raise TypeError("options must be an Options")
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
        self.seats: tuple[int, ...] = tuple(sorted(seats))
        self.start = now
        self.end = now + options.minutes * 60
        self.now = now
        self.finished = False
        self.termination: Termination | None = None
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
                old_lock_rule=self.OLD_LOCK_RULE,
            )
        for player in self.players.values():
            # 1 is oneself, 2–4 the others in seat order after oneself (going round)
            i = self.seats.index(player.seat)
            order = self.seats[i:] + self.seats[:i]
            player.numbers = {seat: number for number, seat in enumerate(order, start=1)}
            player.seats_by_number = {number: seat for seat, number in player.numbers.items()}
        self._order = list(self.players.values())
        for player in self._order:
            player.spawn(now, [])
        for seat in self.seats:
            if handling.get(seat, DEFAULT_HANDLING) != DEFAULT_HANDLING:
                self._set_handling(seat, handling[seat], now)
        self._due = self._compute_due()

    # --- the protocol ------------------------------------------------------------------
    def apply(self, seat: int, intent: Intent, now: float) -> list[Event]:
        """Apply a player's intent at ``now``; returns what changed (clock events first).
        Once the game is over the intent is ignored: the clocks run to the end and
        their events come back, nothing else happens."""
        if not isinstance(intent, Intent):
            raise IllegalIntent("UNKNOWN_INTENT", f"Not an intent: {intent!r}.")
        if self.finished or now >= self.end:
            return self.advance(now)
        player = self.players.get(seat)
        if player is None or player.left:
            self._playing(seat, now)  # raises the reason
        if now < self.now:
            now = self.now  # a late message acts at the game's current time
        events = self._advance(now) if now >= self._due or self._pending else []
        name = intent.name
        move = MOVES.get(name)
        if move is not None:
            move(player, now, events)
        elif name == "hard_drop":
            for bomb in player.hard_drop(now, events):
                self._drop_auto(player, bomb, now, events)
        else:
            try:
                self._bomb(player, intent, now, events)
            except IllegalIntent:
                self._pending = events  # the clocks did run: report their events next time
                raise
        self.log.append((now, seat, intent.text))
        # the clocks of this player may have come nearer (an earlier due is harmless)
        due = player.due()
        if due < self._due:
            self._due = due
        if self._due <= now:
            events.extend(self._advance(now))
        return events

    def advance(self, now: float) -> list[Event]:
        """Run every clock up to ``now``: gravity, lock delay, lack of control, the end."""
        if self.finished:
            events, self._pending = self._pending, []
            return events
        return self._advance(max(now, self.now))

    def forfeit(self, seat: int, now: float) -> list[Event]:
        """The player leaves: their board stops and they take the last place. When at
        most one side is left playing, the game ends. Once the game is over, a forfeit
        is ignored like an intent (the time ran out first: nobody is penalised)."""
        if self.finished or now >= self.end:
            return self.advance(now)
        player = self._playing(seat, now)
        now = max(now, self.now)
        events = self._advance(now)
        player.left = True
        player.left_at = now
        player.release_all()
        events.append(PlayerLeft(seat))
        self.log.append((now, seat, FORFEIT))
        playing = {self._side(p.seat) for p in self._order if not p.left}
        if not playing or (len(playing) == 1 and len(self._sides()) > 1):
            self._finish(events, Termination.FORFEIT)
        self._due = self._compute_due()
        return events

    def advance_timed(self, now: float) -> tuple[list[Event], list[float]]:
        """``advance``, and the time of the clock's step that made each event (a replay
        marks a line cleared by a piece gravity locked when it happened)."""
        if self.finished:
            events, self._pending = self._pending, []
            return events, [self.now] * len(events)
        times: list[float] = []
        return self._advance(max(now, self.now), times), times

    def earliest_due(self) -> float:
        """A time no later than the next thing that happens without input (infinity once
        finished), known without working it out: a key press may have brought a clock
        nearer and left this earlier than ``next_deadline``, never later."""
        return INF if self.finished else self._due

    def next_deadline(self) -> float | None:
        """The earliest time something happens without input (None once finished)."""
        if self.finished:
            return None
        self._due = self._compute_due()
        return self._due

    def replay_entry(self, t: float, seat: int, text: str) -> None:
        if text == FORFEIT:
            self.forfeit(seat, t)
        elif text.startswith(HANDLING + ":"):
            self._set_handling(seat, Handling.parse(text), t)
        else:
            self.apply(seat, intent(text), t)

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
                player.place_new(piece, self.now, [])
            else:
                kind, rotation, x, y = piece
                shape = SHAPES[kind][rotation][x + X_OFFSET]
                player.kind, player.rotation, player.x = kind, rotation, x
                player.y = player.lowest = y + C.HIDDEN_ROWS
                player.shape = shape
                if not player.fits(shape, player.y):
                    raise ValueError(f"the piece {piece!r} does not fit there")
                player.resets = 0
                player.touched = False
                player.lock_at = INF
                player._touch(self.now, moved=False)
                player.last_fall = self.now
                player.fall_at = self.now + player.interval()
        self._due = self._compute_due()
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

    def _compute_due(self) -> float:
        due = self.end
        for player in self._order:
            player_due = player.due()
            if player_due < due:
                due = player_due
        return due

    def _advance(self, now: float, times: list[float] | None = None) -> list[Event]:
        """Every clock run to ``now``, one step at a time in time order; ``times`` (if
        given) gets the time of the step that made each event."""
        events, self._pending = self._pending, []
        if times is not None:
            times.extend([self.now] * len(events))
        end = self.end
        order = self._order
        while True:
            # the player whose clock comes first (lowest seat on a tie): players interact
            # through automatic bombs, so clocks run in one time order for all
            first, due = None, INF
            for player in order:
                if player.left:
                    continue
                player_due = player.fall_at
                if player.lock_at < player_due:
                    player_due = player.lock_at
                if player.control_until < player_due:
                    player_due = player.control_until
                if player.repeat_at < player_due:
                    player_due = player.repeat_at
                if player_due < due:
                    first, due = player, player_due
            if first is None or due > now or due >= end:
                break
            dropped = first.step(due, events)
            for bomb in dropped:
                self._drop_auto(first, bomb, due, events)
            if times is not None:
                times.extend([due] * (len(events) - len(times)))
        self.now = max(self.now, min(now, end))
        if now >= end and not self.finished:
            self._finish(events, Termination.TIME)
        if times is not None:
            times.extend([self.now] * (len(events) - len(times)))
        self._due = self._compute_due()
        return events

    def _finish(self, events: list[Event], termination: Termination) -> None:
        """The end: every board still playing stops (its piece goes), then the game."""
        self.finished = True
        self.termination = termination
        for player in self._order:
            if not player.left:
                player.over = True
                events.append(BoardOver(player.seat))
        events.append(GameFinished(0))

    # --- bombs ---------------------------------------------------------------------------
    def _bomb(self, player: Player, intent: Intent, now: float, events: list) -> None:
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
            candidates = self._enter_candidates(player, bomb)
            if not candidates:
                raise IllegalIntent(
                    "NO_OPPONENT",
                    "There is no opponent to drop a red bomb on; use key 1 to drop it on yourself.",
                )
            target = self._draw_target(player, candidates)
        else:
            seat = player.seats_by_number.get(intent.target)
            if seat is None:
                raise IllegalIntent("BAD_TARGET", f"There is no player {intent.target} in this game.")
            target = self.players[seat]
            if target.left:
                raise IllegalIntent("TARGET_LEFT", f"Player {intent.target} has left the game.")
        del player.store[0]
        events.append(StoreChanged(player.seat, tuple(player.store)))
        self._hit(player, target, bomb, now, events)

    def _drop_auto(self, player: Player, bomb: str, now: float, events: list) -> None:
        """Automatic mode: a caught bomb drops at once, aimed as Enter aims. A red bomb
        with no opponent left is lost (our choice)."""
        candidates = self._enter_candidates(player, bomb)
        if candidates:
            self._hit(player, self._draw_target(player, candidates), bomb, now, events)

    def _hit(self, sender: Player, target: Player, bomb: str, now: float, events: list) -> None:
        target.receive(bomb, sender.seat, now, events)
        self._due = min(self._due, target.due())  # its clocks may have changed

    def _opponents(self, player: Player) -> list[Player]:
        side = self._side(player.seat)
        return [p for p in self._order if not p.left and p.seat not in side]

    def _side(self, seat: int) -> tuple[int, ...]:
        if self.options.pairs:
            return next(pair for pair in C.PAIRS if seat in pair)
        return (seat,)

    def _enter_candidates(self, player: Player, bomb: str) -> list[Player]:
        """Whom Enter may hit: oneself with a green bomb, else the opponents (RULES.md)."""
        return [player] if bomb in C.GREEN_BOMBS else self._opponents(player)

    def _draw_target(self, player: Player, candidates: list[Player]) -> Player:
        """Enter's target among ``candidates``: the highest-scoring opponent (each, when
        tied: our choice) weighs 3, each other opponent 1 (RULES.md)."""
        if len(candidates) == 1:
            return candidates[0]
        best = max(p.score for p in candidates)
        weights = [C.ENTER_WEIGHT_LEADER if p.score == best else C.ENTER_WEIGHT_OTHER for p in candidates]
        return weighted_choice(player.chance, candidates, weights)


class GameV1(Game):
    """Rules version 1: version 2 with the lock-delay rule from before it (a move or
    rotation counts only on the ground; see ``Player._touch``)."""

    RULES_VERSION = 1
    OLD_LOCK_RULE = True
