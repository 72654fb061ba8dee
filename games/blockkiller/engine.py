"""The Block-Killer rules engine (RULES.md §4): a pure state machine, standard library only.

    game = Game(Options(), seed=42, seats=[1, 2, 3], now=0.0)
    game.turn, game.phase                     # 2, "play": seat 2 has drawn and may play
    game.apply(2, Intent.parse("attack:3"), now=1.0)
    game.apply(2, Intent.parse("stack:95,96f"), now=2.0)          # garbage rows, lowest first
    game.apply(2, Intent.parse("place:12:LLD"), now=3.0)          # a block card, keys, lock
    game.apply(2, Intent.parse("done"), now=4.0)                  # the attack goes to seat 3
    game.apply(3, Intent.parse("done"), now=5.0)                  # seat 3 defends (here: not)
    game.advance(now=200.0)                   # the turn clock: a timeout passes (or penalises)

A turn: the draw (a choice of 1 block + 1 garbage or 2 blocks with ≥ 10 garbage cards in
hand, automatic otherwise), then a pass or an attack. An attack is a *play*: a target,
a garbage stack, pieces placed one at a time and locked; ``done`` sends its attack, and
the target answers with a play of their own. Offset cancels attack, then defence does;
defence left over is halved (rounded up) and drawn by the attacker, attack left over is
drawn by the defender. More than 12 garbage cards in hand: out. The last player in wins.

Time is always passed in, never read, and randomness (the decks' orders, who begins)
comes from the seed, so ``Game.replay(options, seed, seats, start, game.log, end)``
rebuilds a game exactly. Illegal intents raise :class:`IllegalIntent` with a stable
code and change nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from games.blockkiller import constants as C
from games.blockkiller.cards import (
    BLOCK_KIND,
    BLOCKS,
    GARBAGE,
    GARBAGE_KIND,
    clear_attack,
    is_block,
    is_garbage,
    is_special,
)
from games.blockkiller.events import (
    Attacked,
    Cleared,
    Drew,
    Exchange,
    FieldChanged,
    Finished,
    Out,
    Passed,
    PlayerLeft,
    TurnChanged,
)
from games.blockkiller.field import Field, Piece
from games.blockkiller.intents import Intent, Row
from games.blockkiller.options import Options
from games.blockkiller.search import step
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

__all__ = [
    "Draft", "Event", "Field", "Game", "IllegalIntent", "Intent", "InvalidOptions", "Options",
    "Outcome", "Piece", "Player", "Standing", "Termination",
]

TIMEOUT = "timeout"
DRAW, PLAY, ATTACK, DEFEND = "draw", "play", "attack", "defend"
MOVES = {"left": "L", "right": "R", "down": "D", "rotate": "U", "rotate_ccw": "C"}


def _refuse(code: str, message: str) -> IllegalIntent:
    return IllegalIntent(code, message)


@dataclass
class Player:
    seat: int
    blocks: list[int] = field(default_factory=list)
    garbage: list[int] = field(default_factory=list)
    out: int | None = None  # the order of elimination (1 = first out)
    left_at: float | None = None
    sent: int = 0  # garbage cards others drew from this player's attacks and counters
    lines: int = 0

    @property
    def active(self) -> bool:
        return self.out is None and self.left_at is None


@dataclass
class Draft:
    """A play in progress: an attack (``target`` set) or a defence."""

    seat: int
    target: int | None
    placed: list[tuple[str, tuple[tuple[int, int], ...]]] = field(default_factory=list)  # kind, cells, in order
    used: list[int] = field(default_factory=list)  # block cards locked, now in the discard
    cleared: list[int] = field(default_factory=list)  # garbage cards cleared, now in the discard
    field: Field = field(default_factory=Field)
    stack: tuple[Row, ...] = ()
    piece: Piece | None = None
    piece_card: int | None = None
    locked: int = 0
    lines: int = 0
    combo: int = 0
    last_special: bool = False
    attack: int = 0
    offset: int = 0


class Game(RunsOnAClock, Replayable):
    Intent, Options = Intent, Options

    def __init__(self, options: Options, seed: int | str, seats: Iterable[int], now: float) -> None:
        self._begin(options, seed, seats, now, players=(C.ENGINE_MIN_PLAYERS, C.MAX_PLAYERS))
        self.players = {seat: Player(seat) for seat in self.seats}
        self.log = InputLog()
        self.shuffles = {"blocks": 0, "garbage": 0}
        self.block_deck = self._shuffled("blocks", list(BLOCKS))
        self.garbage_deck = self._shuffled("garbage", list(GARBAGE))
        self.block_discard: list[int] = []
        self.garbage_discard: list[int] = []
        self.outs = 0
        self.turn: int | None = None  # the attacker's seat (None once finished)
        self.phase = PLAY
        self.draft: Draft | None = None
        self.attack: tuple[int, int] | None = None  # (attacker, attack) while the target defends
        self.clock_started = now
        self.exchanges: list[Exchange] = []
        self._pending: list[Event] = []
        for seat in self.seats:
            self._deal(seat, C.START_BLOCKS, C.START_GARBAGE)
        first = stream(seed, "blockkiller", "first").choice(self.seats)
        events: list[Event] = []
        self._start_turn(first, now, events)
        self._pending = events  # reported with the first call

    # --- the protocol ------------------------------------------------------------------
    def apply(self, seat: int, intent: Intent, now: float) -> list[Event]:
        if not isinstance(intent, Intent):
            raise _refuse("UNKNOWN_INTENT", f"Not an intent: {intent!r}.")
        self._check_playing(seat)
        now = max(now, self.now)
        events = self._run_clock(now)
        try:
            self._check_playing(seat)
            self._act(seat, intent, now, events)
        except IllegalIntent:
            self._pending = events
            raise
        self.now = now
        self.log.append((now, seat, intent.text))
        return events

    def forfeit(self, seat: int, now: float) -> list[Event]:
        events = self._leaving(seat, now)
        now = self.now
        self.log.append((now, seat, FORFEIT))
        player = self.players[seat]
        draft = self.draft
        if draft is not None and draft.seat == seat:
            self._dissolve(draft)
        player.left_at = now
        self._discard_hand(player)
        events.append(PlayerLeft(seat))
        if len(self.active_seats()) <= 1:
            self._finish(events, Termination.FORFEIT)
            return events
        if self.phase == DEFEND and draft is not None and draft.seat == seat:
            self._resolve(events, now, defence=0, offset=0)
        elif self.turn == seat and self.phase != DEFEND:
            self._next_turn(seat, now, events)
        return events

    def next_deadline(self) -> float | None:
        if self.finished:
            return None
        return self.clock_started + self.options.turn_seconds

    @property
    def deadline(self) -> float | None:
        return self.next_deadline()

    # --- state -------------------------------------------------------------------------
    def active_seats(self) -> tuple[int, ...]:
        return tuple(seat for seat in self.seats if self.players[seat].active)

    @property
    def acting(self) -> int | None:
        """The seat that acts now: the defender while defending, else the turn's player."""
        if self.finished:
            return None
        return self.draft.seat if self.phase == DEFEND and self.draft else self.turn

    def next_seat(self, seat: int) -> int:
        i = self.seats.index(seat)
        for k in range(1, len(self.seats) + 1):
            candidate = self.seats[(i + k) % len(self.seats)]
            if self.players[candidate].active:
                return candidate
        return seat

    def obliged(self, seat: int) -> bool:
        """Must this player play (6 block cards or more in hand)?"""
        return len(self.players[seat].blocks) >= C.MUST_PLAY_BLOCKS

    def can_choose_draw(self, seat: int) -> bool:
        return len(self.players[seat].garbage) >= C.CHOICE_GARBAGE

    def card_count(self) -> int:
        """Every card, wherever it is: always 201."""
        in_hands = sum(len(p.blocks) + len(p.garbage) for p in self.players.values())
        in_field = 0
        if self.draft is not None:
            in_field = len(self.draft.field.garbage_cards()) + (self.draft.piece_card is not None)
        return (len(self.block_deck) + len(self.garbage_deck) + len(self.block_discard)
                + len(self.garbage_discard) + in_hands + in_field)

    def results(self) -> list[Standing]:
        """The last player in first, then the later out before the earlier; leavers last."""
        rows = []
        for seat in self.seats:
            p = self.players[seat]
            if p.left_at is not None:
                key = (2, -p.left_at)
            elif p.out is not None:
                key = (1, -p.out)
            else:
                key = (0, 0)
            rows.append((key, {"seats": (seat,), "score": p.sent, "lines": p.lines,
                               "forfeited": p.left_at is not None}))
        return ranked(rows)

    def to_text(self) -> str:
        """The whole game as text: equal texts mean equal games."""
        lines = [
            f"blockkiller {self.options.to_dict()} seed {self.seed!r} seats {list(self.seats)} "
            f"start {self.start!r} now {self.now!r} finished {int(self.finished)} "
            f"termination {self.termination.value if self.termination else None}",
            f"turn {self.turn} phase {self.phase} clock {self.clock_started!r} attack {self.attack} "
            f"shuffles {self.shuffles}",
            f"blocks {self.block_deck} / {self.block_discard}",
            f"garbage {self.garbage_deck} / {self.garbage_discard}",
        ]
        for seat in self.seats:
            p = self.players[seat]
            lines.append(f"seat {seat}: blocks {p.blocks} garbage {p.garbage} out {p.out} "
                         f"left {p.left_at!r} sent {p.sent} lines {p.lines}")
        d = self.draft
        if d is not None:
            lines.append(f"draft {d.seat} target {d.target} stack {d.stack} piece {d.piece} card {d.piece_card} "
                         f"locked {d.locked} combo {d.combo} special {d.last_special} attack {d.attack} "
                         f"offset {d.offset} used {d.used} cleared {d.cleared} lines {d.lines}")
            lines.extend(d.field.text())
        return "\n".join(lines)

    def setup(self, *, hands: dict[int, tuple[Sequence[int], Sequence[int]]] | None = None,
              turn: int | None = None) -> None:
        """Arrange a position for a test: the hands given (cards taken from wherever they
        are, so none is made or lost) and whose turn it is, in its play phase, the clock
        starting now. Not logged: a game arranged this way cannot be replayed."""
        if self.draft is not None:
            self._dissolve(self.draft)
            self.draft = None
        for seat, (blocks, garbage) in (hands or {}).items():
            player = self.players[seat]
            for card in [*player.blocks, *player.garbage]:
                (self.block_discard if is_block(card) else self.garbage_discard).append(card)
            player.blocks, player.garbage = [], []
            for card in [*blocks, *garbage]:
                for pile in (self.block_deck, self.block_discard, self.garbage_deck, self.garbage_discard,
                             *(p.blocks for p in self.players.values()),
                             *(p.garbage for p in self.players.values())):
                    if card in pile:
                        pile.remove(card)
                        break
                (player.blocks if is_block(card) else player.garbage).append(card)
            player.blocks.sort()
            player.garbage.sort()
        if turn is not None:
            self.turn, self.phase, self.attack, self.clock_started = turn, PLAY, None, self.now

    # --- acting ------------------------------------------------------------------------
    def _check_playing(self, seat: int) -> None:
        if self.finished:
            raise _refuse("GAME_OVER", "The game is over.")
        if seat not in self.players:
            raise _refuse("NOT_PLAYING", f"Seat {seat!r} is not playing in this game.")
        if not self.players[seat].active:
            raise _refuse("NOT_PLAYING", "You are out of the game.")

    def _act(self, seat: int, intent: Intent, now: float, events: list[Event]) -> None:
        if self.acting != seat:
            raise _refuse("NOT_YOUR_TURN", "It is not your turn.")
        name = intent.name
        if self.phase == DRAW:
            if name != "draw":
                raise _refuse("DRAW_FIRST", "Draw your cards first.")
            if intent.blocks and not self.can_choose_draw(seat):
                raise _refuse("NO_DRAW_CHOICE", f"Two block cards need {C.CHOICE_GARBAGE} garbage cards in hand.")
            self._draw(seat, now, events, two_blocks=intent.blocks)
            return
        if self.phase == PLAY:
            if name == "pass":
                if self.obliged(seat):
                    raise _refuse("MUST_PLAY", f"With {C.MUST_PLAY_BLOCKS} block cards in hand you must play.")
                events.append(Passed(seat))
                self._next_turn(seat, now, events)
            elif name == "attack":
                target = intent.target
                if target == seat or target not in self.players or not self.players[target].active:
                    raise _refuse("BAD_TARGET", f"Seat {target} is not an opponent still in.")
                self.phase = ATTACK
                self.draft = Draft(seat, target)
                events.append(TurnChanged(seat, ATTACK, self.next_deadline()))
                events.append(FieldChanged(seat))
            elif name == "draw":
                raise _refuse("ALREADY_DREW", "You have drawn this turn.")
            else:
                raise _refuse("NOT_PLAYING_YET", "Pass, or name a target to attack first.")
            return
        self._play(seat, intent, now, events)

    def _play(self, seat: int, intent: Intent, now: float, events: list[Event]) -> None:
        draft = self.draft
        assert draft is not None
        player = self.players[seat]
        name = intent.name
        if name == "stack":
            if draft.locked or draft.piece is not None:
                raise _refuse("STACK_FIXED", "The garbage is set once a piece has entered.")
            self._check_stack(player, draft, intent.stack)
            old = [card for row in draft.stack for card, _ in row]
            new = [card for row in intent.stack for card, _ in row]
            player.garbage = sorted((set(player.garbage) | set(old)) - set(new))
            draft.stack = intent.stack
            draft.field = Field.stacked(intent.stack)
            events.append(FieldChanged(seat))
        elif name in ("piece", "place"):
            if draft.piece is not None:
                raise _refuse("PIECE_FALLING", "Place the falling piece first.")
            card = intent.card
            if not is_block(card):
                raise _refuse("NOT_A_BLOCK", "That card is not a block card.")
            if card not in player.blocks:
                raise _refuse("NOT_IN_HAND", "That card is not in your hand.")
            piece = draft.field.spawn(BLOCK_KIND[card])
            if piece is None:
                raise _refuse("BLOCKED", "The piece cannot enter: the field is full at the top.")
            if name == "place":
                for key in intent.keys:
                    piece = step(draft.field, piece, key)
                    if piece is None:
                        raise _refuse("UNREACHABLE", f"The piece cannot go {intent.keys!r}: a step is blocked.")
                piece = draft.field.drop(piece)
                if not draft.field.inside(piece):
                    raise _refuse("ABOVE_FIELD", "The piece would lock above the field.")
                player.blocks.remove(card)
                draft.piece_card = card
                self._lock(draft, piece, events)
            else:
                player.blocks.remove(card)
                draft.piece, draft.piece_card = piece, card
                events.append(FieldChanged(seat))
        elif name in MOVES:
            if draft.piece is None:
                raise _refuse("NO_PIECE", "No piece is falling: choose a block card.")
            moved = step(draft.field, draft.piece, MOVES[name])
            if moved is None:
                raise _refuse("BLOCKED", "The piece cannot go there.")
            draft.piece = moved
            events.append(FieldChanged(seat))
        elif name == "drop":
            if draft.piece is None:
                raise _refuse("NO_PIECE", "No piece is falling: choose a block card.")
            piece = draft.field.drop(draft.piece)
            if not draft.field.inside(piece):
                raise _refuse("ABOVE_FIELD", "The piece would lock above the field.")
            self._lock(draft, piece, events)
        elif name == "cancel":  # as logged before "back" and "calloff" (the bot's too)
            if draft.piece is not None:
                self._piece_back(draft, events)
            elif draft.target is not None and not draft.locked:
                self._call_off(draft, now, events)
            else:
                raise _refuse("NOTHING_TO_CANCEL", "Placed pieces stay placed.")
        elif name == "back":
            # One step back, the last thing done: the falling piece, else the top garbage
            # row, else the choice of a target. Placed pieces stay placed.
            if draft.piece is not None:
                self._piece_back(draft, events)
            elif draft.locked:
                raise _refuse("NOTHING_TO_CANCEL", "Placed pieces stay placed.")
            elif draft.stack:
                player.garbage = sorted([*player.garbage, *(card for card, _ in draft.stack[-1])])
                draft.stack = draft.stack[:-1]
                draft.field = Field.stacked(draft.stack)
                events.append(FieldChanged(seat))
            elif draft.target is not None:
                self._call_off(draft, now, events)
            else:
                raise _refuse("NOTHING_TO_CANCEL", "There is nothing to take back.")
        elif name == "calloff":
            if draft.target is None:
                raise _refuse("WRONG_PHASE", "A defence cannot be called off: Done sends it as it stands.")
            if draft.locked:
                raise _refuse("NOTHING_TO_CANCEL", "Placed pieces stay placed: the attack can no longer be called off.")
            self._call_off(draft, now, events)
        elif name == "done":
            if draft.piece is not None:
                raise _refuse("PIECE_FALLING", "Place the falling piece, or put it back, first.")
            if draft.target is not None:
                if not draft.locked:
                    raise _refuse("NO_PIECE_PLACED", "An attack places at least one block card.")
                if self.obliged(seat):
                    raise _refuse("MUST_PLAY", f"End the turn with fewer than {C.MUST_PLAY_BLOCKS} block cards.")
            self._confirm(draft, now, events)
        else:
            raise _refuse("WRONG_PHASE", "That is not possible during a play.")

    def _piece_back(self, draft: Draft, events: list[Event]) -> None:
        player = self.players[draft.seat]
        player.blocks = sorted([*player.blocks, draft.piece_card])
        draft.piece = draft.piece_card = None
        events.append(FieldChanged(draft.seat))

    def _call_off(self, draft: Draft, now: float, events: list[Event]) -> None:
        """An attack called off before any piece is placed: every card back in hand, and
        the player chooses again (a target, or a pass)."""
        self._dissolve(draft)
        self.draft, self.phase = None, PLAY
        events.append(TurnChanged(draft.seat, PLAY, self.next_deadline()))
        events.append(FieldChanged(draft.seat))

    def _check_stack(self, player: Player, draft: Draft, stack: tuple[Row, ...]) -> None:
        mine = set(player.garbage) | {card for row in draft.stack for card, _ in row}
        seen: set[int] = set()
        for row in stack:
            for card, _ in row:
                if not is_garbage(card):
                    raise _refuse("NOT_GARBAGE", "That card is not a garbage card.")
                if card not in mine:
                    raise _refuse("NOT_IN_HAND", "That card is not in your hand.")
                if card in seen:
                    raise _refuse("DUPLICATE_CARD", "That garbage card is in the stack already.")
                seen.add(card)
            if len(row) == 2:
                (a, fa), (b, fb) = row
                if GARBAGE_KIND[a] != C.CHECKERBOARD or GARBAGE_KIND[b] != C.CHECKERBOARD or fa == fb:
                    raise _refuse("BAD_MERGE", "Only two checkerboard cards, one of them flipped, merge.")
        if len(stack) > C.VISIBLE_ROWS - 2:
            raise _refuse("BAD_STACK", "The garbage would fill the field.")

    def _lock(self, draft: Draft, piece: Piece, events: list[Event]) -> None:
        spin = draft.field.is_spin(piece, self.options.mini)
        draft.placed.append((piece.kind, piece.cells()))
        lines, cleared = draft.field.lock(piece)
        self.block_discard.append(draft.piece_card)
        self.garbage_discard.extend(cleared)
        draft.used.append(draft.piece_card)
        draft.cleared.extend(cleared)
        draft.lines += lines
        draft.piece = draft.piece_card = None
        draft.locked += 1
        player = self.players[draft.seat]
        if lines:
            spin = spin and lines > 0
            draft.combo += 1
            special = is_special(lines, spin)
            b2b = special and draft.last_special
            draft.last_special = special
            attack, offset = clear_attack(lines, spin, draft.combo, b2b, self.options.no_mercy)
            draft.attack += attack
            draft.offset += offset
            player.lines += lines
            events.append(Cleared(draft.seat, lines, spin, draft.combo, b2b, attack, offset))
        else:
            draft.combo = 0
        events.append(FieldChanged(draft.seat))

    def _confirm(self, draft: Draft, now: float, events: list[Event]) -> None:
        """The play is over: uncleared garbage back to hand; the attack or the exchange."""
        player = self.players[draft.seat]
        player.garbage = sorted([*player.garbage, *draft.field.garbage_cards()])
        draft.field = Field()
        if draft.target is not None:
            self.draft = None
            events.append(Attacked(draft.seat, draft.target, draft.attack))
            if not self.players[draft.target].active:
                self._next_turn(draft.seat, now, events)
                return
            self.attack = (draft.seat, draft.attack)
            self.phase = DEFEND
            self.draft = Draft(draft.target, None)
            self.clock_started = now
            events.append(TurnChanged(draft.target, DEFEND, self.next_deadline()))
            events.append(FieldChanged(draft.target))
        else:
            self._resolve(events, now, defence=draft.attack, offset=draft.offset)

    def _resolve(self, events: list[Event], now: float, defence: int, offset: int) -> None:
        """RULES.md §4: offset cancels attack first, then defence, 1 : 1; defence left over,
        halved and rounded up, goes back to the attacker; attack left over to the defender."""
        assert self.attack is not None and self.draft is not None
        attacker, attack = self.attack
        defender = self.draft.seat
        self.draft, self.attack = None, None
        left = attack - min(offset, attack)
        cancelled = min(defence, left)
        left -= cancelled
        spare = defence - cancelled
        to_defender = left
        to_attacker = -(-spare // C.COUNTER_DIVISOR) if left == 0 else 0
        if not self.players[defender].active:
            to_defender = 0
        if not self.players[attacker].active:
            to_attacker = 0
        exchange = Exchange(attacker, defender, attack, defence, offset, to_defender, to_attacker)
        self.exchanges.append(exchange)
        events.append(exchange)
        self.players[attacker].sent += to_defender
        self.players[defender].sent += to_attacker
        for seat, n in ((defender, to_defender), (attacker, to_attacker)):
            if n:
                events.append(self._deal(seat, 0, n))
                self._check_out(seat, events)
        if self.finished:
            return
        self._next_turn(attacker, now, events)

    # --- turns, draws, the clock -------------------------------------------------------
    def _start_turn(self, seat: int, now: float, events: list[Event]) -> None:
        self.turn, self.phase, self.draft, self.attack = seat, DRAW, None, None
        self.clock_started = now
        if self.can_choose_draw(seat):
            events.append(TurnChanged(seat, DRAW, self.next_deadline()))
        else:
            self._draw(seat, now, events, two_blocks=False)

    def _draw(self, seat: int, now: float, events: list[Event], two_blocks: bool) -> None:
        blocks, garbage = (C.CHOICE_BLOCKS, 0) if two_blocks else (C.DRAW_BLOCKS, C.DRAW_GARBAGE)
        events.append(self._deal(seat, blocks, garbage))
        self._check_out(seat, events)
        if self.finished:
            return
        if not self.players[seat].active:
            self._next_turn(seat, now, events)
            return
        self.phase = PLAY
        events.append(TurnChanged(seat, PLAY, self.next_deadline()))

    def _next_turn(self, after: int, now: float, events: list[Event]) -> None:
        if self.finished:
            return
        self._start_turn(self.next_seat(after), now, events)

    def _shuffled(self, pile: str, cards: list[int]) -> list[int]:
        stream(self.seed, "blockkiller", pile, self.shuffles[pile]).shuffle(cards)
        self.shuffles[pile] += 1
        return cards

    def _deal(self, seat: int, blocks: int, garbage: int) -> Drew:
        """Up to ``blocks`` and ``garbage`` cards from the piles (an empty pile reshuffled
        from its discard; fewer when both are empty); what was drawn, as an event."""
        player = self.players[seat]
        had = len(player.blocks), len(player.garbage)
        for _ in range(blocks):
            if not self.block_deck and self.block_discard:
                self.block_deck, self.block_discard = self._shuffled("blocks", sorted(self.block_discard)), []
            if self.block_deck:
                player.blocks.append(self.block_deck.pop())
        for _ in range(garbage):
            if not self.garbage_deck and self.garbage_discard:
                self.garbage_deck, self.garbage_discard = self._shuffled("garbage", sorted(self.garbage_discard)), []
            if self.garbage_deck:
                player.garbage.append(self.garbage_deck.pop())
        player.blocks.sort()
        player.garbage.sort()
        return Drew(seat, len(player.blocks) - had[0], len(player.garbage) - had[1])

    def _check_out(self, seat: int, events: list[Event]) -> None:
        player = self.players[seat]
        if player.active and len(player.garbage) > C.OUT_ABOVE_GARBAGE:
            self.outs += 1
            player.out = self.outs
            self._discard_hand(player)
            events.append(Out(seat))
            if len(self.active_seats()) <= 1:
                self._finish(events, Termination.LAST_STANDING)

    def _discard_hand(self, player: Player) -> None:
        self.block_discard.extend(player.blocks)
        self.garbage_discard.extend(player.garbage)
        player.blocks, player.garbage = [], []

    def _dissolve(self, draft: Draft) -> None:
        """A play called off, as if never made: every card it took back to hand (its
        garbage, the falling piece, and the pieces placed and garbage cleared, from the
        discard, where nothing has been drawn since), and its lines uncounted."""
        player = self.players[draft.seat]
        for card in draft.used:
            self.block_discard.remove(card)
        for card in draft.cleared:
            self.garbage_discard.remove(card)
        player.garbage = sorted([*player.garbage, *draft.field.garbage_cards(), *draft.cleared])
        player.blocks = sorted([*player.blocks, *draft.used, *([draft.piece_card] if draft.piece_card is not None else [])])
        player.lines -= draft.lines
        draft.field, draft.stack, draft.piece, draft.piece_card = Field(), (), None, None
        draft.placed.clear()
        draft.used.clear()
        draft.cleared.clear()
        draft.locked = draft.lines = draft.combo = draft.attack = draft.offset = 0
        draft.last_special = False

    def _run_clock(self, now: float) -> list[Event]:
        events, self._pending = self._pending, []
        while not self.finished:
            deadline = self.clock_started + self.options.turn_seconds
            if deadline > now:
                break
            self.now = deadline
            seat = self.acting
            assert seat is not None
            self.log.append((deadline, seat, TIMEOUT))
            self._timeout(seat, deadline, events)
        return events

    def _timeout(self, seat: int, now: float, events: list[Event]) -> None:
        """RULES.md §4 (reconstruction): on timeout the player passes, or, obliged to play,
        plays nothing and draws one garbage card. A play under way is called off, pieces
        placed and all (``_dissolve``); a defender who runs out of time defends with
        nothing."""
        draft = self.draft
        if draft is not None:
            self._dissolve(draft)
            events.append(FieldChanged(seat))
        if self.phase == DEFEND:
            assert draft is not None
            self._resolve(events, now, defence=0, offset=0)
            return
        if draft is not None:
            self.draft = None
        if self.phase == DRAW:
            events.append(self._deal(seat, C.DRAW_BLOCKS, C.DRAW_GARBAGE))
            self._check_out(seat, events)
            if self.finished:
                return
        if self.players[seat].active and self.obliged(seat):
            events.append(self._deal(seat, 0, C.TIMEOUT_GARBAGE))
            self._check_out(seat, events)
            if self.finished:
                return
        events.append(Passed(seat, timeout=True))
        self._next_turn(seat, now, events)

    def _finish(self, events: list[Event], termination: Termination) -> None:
        self.finished = True
        self.termination = termination
        self.turn, self.draft, self.attack = None, None, None
        events.append(Finished(0))
