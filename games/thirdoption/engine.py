"""The Third Option rules engine (RULES.md §3): a pure state machine, standard library only.

    game = Game(Options(round_seconds=90), seed=42, seats=[1, 2, 3], now=0.0)
    game.cards                                # ("T4", "P5"): this round's two cards
    game.offered(1)                           # [(0, "T4"), (1, "P5")]: what seat 1 may place
    events = game.apply(1, Intent(round=1, card=1, turns=1, mirrored=False, row=0, column=0), now=4.5)
    events += game.advance(now=95.0)          # the round clock places for whoever has not
    game.grids[1].rows()                      # ("##.......", ...): '#' filled, '.' empty

Every seat plays its own grid, all at the same time: a round ends when everyone who has
a card to place has placed it; the next round then begins at once with two new cards.
At a round's start, in seat order, each player still in for whom neither card fits gets
a third option, one more card for them alone: they must place it if it fits, and are out
if it does not. The players eliminated in the round of the first elimination get a free
1 × 1 square to place in that round. The game ends when a player fills the grid (they
win at once), when every player is out, or when the deck cannot reveal the next round's
two cards; the fewest empty squares wins, equal counts share the place. A player who
leaves is ranked last; the game ends when one player is left at a table of two or more.

Time is always passed in, never read, and randomness (the deck's order) comes from the
seed, so a game is reproduced exactly by ``Game.replay(options, seed, seats, start,
game.log, end)``. Illegal intents raise :class:`IllegalIntent` (a ``ValueError``) with a
stable code and change nothing.
"""

from __future__ import annotations

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
from games.thirdoption import constants as C
from games.thirdoption.board import Grid, cells_of, grid, shape
from games.thirdoption.events import Eliminated, Finished, Placed, PlayerLeft, RoundStarted, ThirdOption
from games.thirdoption.intents import OWN_CARD, Intent
from games.thirdoption.options import Options

__all__ = [
    "Eliminated",
    "Event",
    "Finished",
    "Game",
    "Grid",
    "IllegalIntent",
    "Intent",
    "InvalidOptions",
    "Options",
    "Outcome",
    "Placed",
    "Player",
    "PlayerLeft",
    "RoundStarted",
    "Standing",
    "Termination",
    "ThirdOption",
    "grid",
]

TIMEOUT = "timeout"  # a placement by the round clock is logged as "timeout:<placement>"

IN, OUT, LEFT = "in", "out", "left"  # a player's state
THIRD, FREE = "third", "free"  # the kinds of a player's own card


@dataclass
class Player:
    seat: int
    grid: Grid
    state: str = IN
    placed: bool = False  # has placed this round (or has nothing to place)
    own: str | None = None  # their own card this round: a third option or the free square
    own_kind: str | None = None  # THIRD or FREE
    out_round: int | None = None  # the round they were eliminated in
    left_at: float | None = None
    third_options: int = 0  # third options received in the game

    @property
    def must_place(self) -> bool:
        """Whether the round waits for this player."""
        if self.placed:
            return False
        return self.state == IN or (self.state == OUT and self.own_kind == FREE)

    def text(self) -> str:
        pieces = " ".join(f"{name}:{mask:x}" for name, mask in self.grid.pieces)
        return (
            f"seat {self.seat} {self.state} placed {int(self.placed)} own {self.own}/{self.own_kind} "
            f"out {self.out_round} left {self.left_at!r} thirds {self.third_options} pieces [{pieces}]"
        )


def deck_for(options: Options, seed: int | str) -> list[str]:
    """The game's deck in drawing order: every card of the options, shuffled from the seed."""
    cards = [name for name, count in options.deck_counts().items() for _ in range(count)]
    stream(seed, "thirdoption", "deck").shuffle(cards)
    return cards


class Game(RunsOnAClock, Replayable):
    Intent, Options = Intent, Options

    def __init__(self, options: Options, seed: int | str, seats: Iterable[int], now: float) -> None:
        self._begin(options, seed, seats, now, players=(C.MIN_PLAYERS, C.MAX_PLAYERS))
        # RULES.md: each seat's own starting shape, over the dot
        self.players: dict[int, Player] = {seat: Player(seat, Grid.for_seat(seat)) for seat in self.seats}
        self.deck: list[str] = deck_for(options, seed)
        self.round = 0
        self.cards: tuple[str, ...] = ()
        self.round_started = now
        self.first_out_round: int | None = None  # the round of the first elimination
        self.log = InputLog()
        self._pending: list[Event] = []  # clock events of a refused intent, reported next
        self.opening: list[Event] = self._start_round(now)  # round 1's events (no one asked)

    # --- the protocol ------------------------------------------------------------------
    def apply(self, seat: int, intent: Intent, now: float) -> list[Event]:
        """Place a card for ``seat`` at ``now``; returns what changed (clock events first)."""
        if not isinstance(intent, Intent):
            raise IllegalIntent("UNKNOWN_INTENT", f"Not an intent: {intent!r}.")
        self._check_playing(seat)
        now = max(now, self.now)  # a late message acts at the game's current time
        events = self._run_clock(now)
        try:
            self._check_playing(seat)  # the clock may have ended the game
            player = self.players[seat]
            name, mask = self._placement(player, intent)
        except IllegalIntent:
            self._pending = events  # the clock did run: report its events next time
            raise
        self.now = now
        self._place(player, name, mask, now, intent.text, events, timeout=False)
        return events

    def forfeit(self, seat: int, now: float) -> list[Event]:
        """The player leaves: ranked last; the round no longer waits for them. A player
        already out has nothing to leave: their score, their empty squares, stands
        (RULES.md §3), and the leave is refused (a free square still to place is placed
        by the round clock)."""
        events = self._leaving(seat, now, self._check_may_leave)
        now = self.now
        player = self.players[seat]
        player.state, player.left_at, player.placed = LEFT, now, True
        player.own = player.own_kind = None
        self.log.append((now, seat, FORFEIT))
        events.append(PlayerLeft(seat))
        remaining = [s for s in self.seats if self.players[s].state != LEFT]
        if not remaining or (len(self.seats) > 1 and len(remaining) == 1):
            self._finish(events, Termination.FORFEIT)
        elif self.round_complete():
            self._end_round(now, events)
        return events

    def next_deadline(self) -> float | None:
        """When the round clock runs out (None once finished)."""
        if self.finished:
            return None
        return self.round_started + self.options.round_seconds

    # --- state and results -------------------------------------------------------------
    @property
    def deadline(self) -> float | None:
        return self.next_deadline()

    @property
    def grids(self) -> dict[int, Grid]:
        return {seat: player.grid for seat, player in self.players.items()}

    @property
    def left(self) -> dict[int, float]:
        """The seats that left, and when (every game's adapter reads this)."""
        return {s: p.left_at for s, p in self.players.items() if p.state == LEFT and p.left_at is not None}

    def offered(self, seat: int) -> list[tuple[int, str]]:
        """What ``seat`` may place now, as (card number, card name): the two revealed
        cards (0, 1), or their own card (2) when they have one; nothing once placed."""
        player = self.players[seat]
        if self.finished or not player.must_place:
            return []
        if player.own is not None:
            return [(OWN_CARD, player.own)]
        return list(enumerate(self.cards))

    def waiting_for(self) -> tuple[int, ...]:
        """The seats the round waits for, in seat order (none once finished)."""
        if self.finished:
            return ()
        return tuple(seat for seat in self.seats if self.players[seat].must_place)

    def round_complete(self) -> bool:
        return not self.waiting_for()

    def active_seats(self) -> tuple[int, ...]:
        """The seats still in (neither out nor gone), in seat order."""
        return tuple(seat for seat in self.seats if self.players[seat].state == IN)

    def empty(self, seat: int) -> int:
        """``seat``'s empty squares: their score, lower is better (RULES.md §3)."""
        return self.players[seat].grid.empty

    def results(self) -> list[Standing]:
        """Places, best first: fewest empty squares; equal counts share the place. Those
        who left come last (the earliest to leave the very last)."""
        rows = []
        for seat in self.seats:
            player = self.players[seat]
            left = player.state == LEFT
            key = (1, -(player.left_at or 0.0)) if left else (0, 0.0)
            rows.append(
                (
                    key + (player.grid.empty,),
                    {
                        "seats": (seat,),
                        "score": player.grid.empty,
                        "eliminations": int(player.out_round is not None),
                        "forfeited": left,
                    },
                )
            )
        return ranked(rows)

    def to_text(self) -> str:
        """The whole game as text: equal texts mean equal games."""
        head = (
            f"thirdoption {self.options.to_dict()} seed {self.seed!r} seats {list(self.seats)} "
            f"start {self.start!r} now {self.now!r} finished {int(self.finished)} "
            f"termination {self.termination.value if self.termination else None}\n"
            f"round {self.round} since {self.round_started!r} cards {list(self.cards)} "
            f"first out {self.first_out_round} deck {self.deck}"
        )
        lines = [head]
        for seat in self.seats:
            player = self.players[seat]
            lines.append(player.text())
            lines.extend(player.grid.rows())
        return "\n".join(lines)

    def setup(
        self,
        *,
        grids: Mapping[int, Grid | Sequence[str]] | None = None,
        deck: Sequence[str] | None = None,
        out: Iterable[int] = (),
        first_out_round: int | None = None,
    ) -> list[Event]:
        """Arrange a position for a test and start a new round on it: ``grids`` by seat
        (a :class:`Grid` or its drawing), the ``deck`` in drawing order (the next round
        reveals its first two cards), the seats already ``out`` (in an earlier round, so
        the free square is gone unless ``first_out_round`` says otherwise). Returns the
        new round's events. Not logged, so a game arranged this way cannot be replayed."""
        for seat, drawn in (grids or {}).items():
            if seat not in self.players:
                raise ValueError(f"seat {seat} is not in the game")
            self.players[seat].grid = drawn.copy() if isinstance(drawn, Grid) else Grid.from_rows(drawn)
        if deck is not None:
            for name in deck:
                shape(name)  # a known card
            self.deck = list(deck)
        for seat in out:
            player = self.players[seat]
            player.state, player.out_round = OUT, self.round
            self.first_out_round = self.first_out_round or self.round
        if first_out_round is not None:
            self.first_out_round = first_out_round
        for player in self.players.values():
            player.own = player.own_kind = None
        return self._start_round(self.now)

    # --- inside --------------------------------------------------------------------------
    def _check_may_leave(self, seat: int) -> None:
        self._check_playing(seat)
        player = self.players[seat]
        if player.state == OUT:
            raise IllegalIntent(
                "ALREADY_OUT", f"You are out of the game: your {player.grid.empty} empty squares stand."
            )

    def _check_playing(self, seat: int) -> None:
        if self.finished:
            raise IllegalIntent("GAME_OVER", "The game is over.")
        if seat not in self.players:
            raise IllegalIntent("NOT_PLAYING", f"Seat {seat!r} is not playing in this game.")
        if self.players[seat].state == LEFT:
            raise IllegalIntent("NOT_PLAYING", f"Seat {seat} has left the game.")

    def _placement(self, player: Player, intent: Intent) -> tuple[str, int]:
        """The card and cells an intent places, or the refusal that says why not."""
        if player.state == OUT and player.own_kind != FREE:
            raise IllegalIntent(
                "ELIMINATED",
                f"You are out of the game: your score is your {player.grid.empty} empty squares.",
            )
        if player.placed:
            if player.state == OUT:
                raise IllegalIntent("ELIMINATED", "You are out of the game and have placed your free square.")
            raise IllegalIntent(
                "ALREADY_PLACED", f"You have placed a card in round {self.round}: wait for the next."
            )
        if intent.round != self.round:
            raise IllegalIntent(
                "WRONG_ROUND",
                f"That placement was meant for round {intent.round}; this is round {self.round}.",
            )
        offered = dict(self.offered(player.seat))
        if intent.card not in offered:
            if intent.card == OWN_CARD:
                why = "You have no card of your own this round: pick one of the two revealed cards."
            elif player.own_kind == THIRD:
                why = "Neither revealed card fits your grid: place your third option."
            else:
                why = "Your free square is the one card you may place."
            raise IllegalIntent("CARD_NOT_OFFERED", why)
        name = offered[intent.card]
        placed = shape(name).orientation(intent.turns, intent.mirrored).at(intent.row, intent.column)
        if placed is None:
            raise IllegalIntent("OUT_OF_GRID", "The shape must lie wholly inside the grid.")
        if placed & player.grid.filled:
            raise IllegalIntent("OVERLAP", "The shape must lie on empty squares only.")
        return name, placed

    def _place(
        self, player: Player, name: str, mask: int, now: float, text: str, events: list[Event], timeout: bool
    ) -> None:
        player.grid.place(name, mask)
        player.placed = True
        self.log.append((now, player.seat, f"{TIMEOUT}:{text.partition(':')[2]}" if timeout else text))
        events.append(Placed(player.seat, name, cells_of(mask), player.grid.empty, timeout))
        if player.grid.is_full():
            self._finish(events, Termination.FULL_GRID)  # RULES.md: that player wins at once
        elif self.round_complete():
            self._end_round(now, events)

    def _run_clock(self, now: float) -> list[Event]:
        """Make the clock's placements due by ``now``; ``self.now`` moves only as far as
        the last deadline (so a refused intent changes nothing when no clock ran out)."""
        events, self._pending = self._pending, []
        while not self.finished:
            deadline = self.round_started + self.options.round_seconds
            if deadline > now:
                break
            self.now = deadline
            round_ = self.round
            for seat in self.waiting_for():
                self._place_first_fit(self.players[seat], deadline, events)
                if self.finished or self.round != round_:
                    break
        return events

    def _place_first_fit(self, player: Player, now: float, events: list[Event]) -> None:
        """RULES.md: on timeout, the first legal placement of the first card that fits."""
        for card, name in self.offered(player.seat):
            found = shape(name).first_placement(player.grid.filled)
            if found is not None:
                orientation, row, column = found
                intent = Intent(self.round, card, orientation.turns, orientation.mirrored, row, column)
                mask = orientation.at(row, column)
                assert mask is not None
                self._place(player, name, mask, now, intent.text, events, timeout=True)
                return
        raise AssertionError(f"seat {player.seat} had to place a card that fits nowhere")  # pragma: no cover

    def _end_round(self, now: float, events: list[Event]) -> None:
        if not self.active_seats():
            self._finish(events, Termination.ALL_OUT)
        else:
            events.extend(self._start_round(now))

    def _draw(self) -> str | None:
        return self.deck.pop(0) if self.deck else None

    def _start_round(self, now: float) -> list[Event]:
        """Reveal two cards, deal the third options, eliminate (RULES.md §3)."""
        events: list[Event] = []
        if len(self.deck) < C.CARDS_PER_ROUND:
            self._finish(events, Termination.DECK_EMPTY)
            return events
        self.round += 1
        self.round_started = now
        self.cards = tuple(self.deck.pop(0) for _ in range(C.CARDS_PER_ROUND))
        for player in self.players.values():
            player.own = player.own_kind = None
            player.placed = player.state != IN
        events.append(
            RoundStarted(0, self.round, self.cards, len(self.deck), now + self.options.round_seconds)
        )
        out_now = []
        for seat in self.active_seats():  # in seat order (RULES.md: third options dealt so)
            player = self.players[seat]
            if any(player.grid.fits(name) for name in self.cards):
                continue
            card = self._draw()  # None: the deck is empty, there is no third option
            fits = card is not None and player.grid.fits(card)
            if card is not None:
                player.third_options += 1
                events.append(ThirdOption(seat, card, fits))
            if fits:
                player.own, player.own_kind = card, THIRD
            else:
                out_now.append((player, card is None))
        if out_now:
            # RULES.md: the first to be eliminated (all of that round) get a free square
            free = self.first_out_round in (None, self.round)
            self.first_out_round = self.first_out_round or self.round
            for player, deck_empty in out_now:
                player.state, player.out_round = OUT, self.round
                player.placed = not free
                if free:
                    player.own, player.own_kind = C.FREE_SQUARE, FREE
                events.append(Eliminated(player.seat, free, deck_empty))
        if self.round_complete():  # nobody has anything to place: every player is out
            self._end_round(now, events)
        return events

    def _finish(self, events: list[Event], termination: Termination) -> None:
        self.finished = True
        self.termination = termination
        for player in self.players.values():
            player.own = player.own_kind = None
        events.append(Finished(0))
