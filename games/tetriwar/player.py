"""One player's board: the field, the falling piece, its clocks, score and bombs.

Times are integer milliseconds on the game's clock (0 = the start); each board keeps
its own time, ``now``, which never goes back (the game runs each board's clocks up to
the time it is given, see engine.py). ``INF`` means "not scheduled". Each method
that changes something appends events to the list it is given. Field rows are counted
from the top hidden row (see ``field``); views convert to visible rows.

Held keys (``hold`` / ``release``) repeat on the player's own clock, as modern
Guideline games do: a key going down moves the piece at once; held for DAS, it repeats
every ARR (ARR 0: straight to the wall). Of ← and → held together the last pressed
wins; releasing it hands over to the other, which starts its DAS again (no step at
once). The charge carries over to the next piece: a charged key moves a new piece
as soon as it spawns. A repeat that is blocked (a wall, a block) stops its clock until
the piece or the field changes, so a key held against a wall costs no work.
"""

from __future__ import annotations

import bisect
import math
import random
import zlib
from dataclasses import dataclass
from typing import Final, NamedTuple

from games.core.compiled import mypyc_attr
from games.core.rng import weighted_choice
from games.tetriwar import constants as C
from games.tetriwar.dice import Dice
from games.tetriwar.events import (
    BombLanded,
    BombReceived,
    ControlChanged,
    Eliminated,
    FeedEntry,
    FieldChanged,
    NextChanged,
    PieceChanged,
    ScoreChanged,
    StoreChanged,
)
from games.tetriwar.field import Field, fits
from games.tetriwar.handling import DEFAULT_HANDLING, Handling
from games.tetriwar.pieces import CELLS, RUNS, SHAPES, TURNS, UNDER, X_OFFSET, Bag

# Final: a compiled build (tools/mypyc_engine.py) reads them without a dict lookup
INF: Final[int | float] = math.inf  # (for mypyc: a clock's type, compared without boxing)
GRAVITY: Final = C.GRAVITY_MS
LOCK_DELAY: Final = C.LOCK_DELAY_MS
MAX_LOCK_RESETS: Final = C.MAX_LOCK_RESETS
HIDDEN: Final = C.HIDDEN_ROWS
FULL_ROW: Final = C.FULL_ROW
SHAPE_COUNT: Final = C.WIDTH + X_OFFSET


class Incoming(NamedTuple):
    """A bomb dropped on a board, waiting to land: ordered by when it is due, then by
    its sender and the sender's drop number."""

    due: int
    from_seat: int
    number: int
    bomb: str
    seed: int | None  # its dice (rules version 4); None: the board's chance draws (3)


@dataclass(frozen=True)
class PieceView:
    kind: str
    rotation: int  # 0 spawn, 1 R, 2, 3 L (clockwise turns)
    x: int  # column of the piece box's left edge
    y: int  # visible row of the box's top edge (negative: in the hidden rows)
    cells: tuple[tuple[int, int], ...]  # (visible row, column)


@dataclass(frozen=True)
class PlayerView:
    """Everything a renderer needs about one board; rows are visible rows, 0 = top."""

    seat: int
    score: int
    level: int
    lines: int
    eliminations: int
    store: tuple[str, ...]
    feed: tuple[FeedEntry, ...]
    next: tuple[str, ...]
    reversed_until: int | None
    piece: PieceView | None
    ghost: tuple[tuple[int, int], ...]
    field: tuple[str, ...]
    left: bool
    over: bool = False  # the game ended: the board stands still, without a piece


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)  # as a plain class (games/core/compiled.py)
class Player:
    def __init__(
        self,
        seat: int,
        *,
        start_level: int,
        lines_per_level: int,
        bombs: str,
        bag: Bag,
        chance: random.Random,
        handling: Handling = DEFAULT_HANDLING,
    ) -> None:
        self.seat = seat
        self.start_level = start_level
        self.lines_per_level = lines_per_level
        self.bombs = bombs
        self.bombs_on = bombs != "off"
        self.automatic = bombs == "automatic"
        self.bag = bag
        self.chance = chance  # bomb positions, bomb types, Enter targets, bomb effects
        self.field = Field()
        self.score = 0
        self.level = start_level
        self.lines = 0  # all lines cleared in this game (a tie-break)
        self.level_lines = 0  # lines toward the next level
        self.eliminations = 0
        self.store: list[str] = []
        self.feed: list[FeedEntry] = []
        self.numbers: dict[int, int] = {}  # seat -> number as this player numbers players
        self.seats_by_number: dict[int, int] = {}
        # the falling piece: kind, rotation, box column, box row (field rows)
        self.kind = ""
        self.rotation = 0
        self.x = 0
        self.y = 0
        self.shape: tuple[tuple[int, int], ...] = ()
        self.lowest = 0
        self.resets = 0  # moves and rotations since the piece first touched down on its lowest row
        self.touched = False  # it has touched down on its lowest row (the count is running)
        self.soft = False
        self.now = 0  # this board's time: its clocks have run up to here
        self.last_fall = 0
        self.fall_at: int | float = INF
        self.lock_at: int | float = INF
        self.control_until: int | float = INF  # lack of control ends then (INF: keys are not swapped)
        self.left = False
        self.left_at: int | float = INF
        # bombs dropped on this board that land at its next spawn at or after ``due``:
        # (due, sender seat, the sender's drop number, bomb, its dice's seed or None),
        # kept sorted, so the order does not depend on which board's clocks ran first
        self.incoming: list[Incoming] = []
        self.feed_keys: list[tuple[int, int, int]] = []  # (drop time, sender, number) of each feed entry
        self.drops = 0  # bombs this board has dropped (numbers its drops)
        # (time, score) whenever the score changed, the last second or so of them: Enter
        # weighs targets by their scores BOMB_DELAY_MS before the drop
        self.scores: list[tuple[int, int]] = [(-(10**12), 0)]
        self.over = False  # the game has ended (the view shows no piece)
        # auto-repeat of held ← → (see the module's docstring)
        self.held: list[int] = []  # directions held, −1 ← and +1 →, the last pressed last
        self.repeat_at: int | float = INF  # the next repeated step (INF: none due)
        self.charged = False  # DAS has run out for the active direction: it repeats
        self.set_handling(handling)
        self.piece_event = PieceChanged(seat)

    def set_handling(self, handling: Handling) -> None:
        self.handling = handling
        self.das = handling.das
        self.arr = handling.arr
        self.soft_drop = C.SOFT_DROP_MS[handling.soft_drop]

    @property
    def reversed_until(self) -> int | None:
        """When lack of control ends, or None when ← and → are not swapped."""
        return None if self.control_until == INF else self.control_until  # type: ignore[return-value]

    # --- clocks ------------------------------------------------------------------------
    def due(self) -> int | float:
        if self.left or self.over:
            return INF
        due = self.fall_at
        if self.lock_at < due:
            due = self.lock_at
        if self.control_until < due:
            due = self.control_until
        if self.repeat_at < due:
            due = self.repeat_at
        return due

    def interval(self) -> int:
        return self.soft_drop[self.level] if self.soft else GRAVITY[self.level]

    def fits(self, shape, y: int) -> bool:
        return fits(self.field.masks, shape, y)

    def resting(self) -> bool:
        """Whether the piece cannot go one row lower (it is where it fits: only the cells
        under it that are not its own can stop it, ``pieces.UNDER``)."""
        masks, y = self.field.masks, self.y
        under = UNDER[self.kind][self.rotation][self.x + X_OFFSET]
        assert under is not None  # (for mypyc: the piece is where it fits, never off the field)
        for offset, mask in under:
            if masks[y + offset] & mask:
                return True
        return False

    def ghost_y(self) -> int:
        under, y = UNDER[self.kind][self.rotation][self.x + X_OFFSET], self.y
        masks = self.field.masks
        assert under is not None  # (for mypyc: the piece is where it fits, never off the field)
        while True:
            for offset, mask in under:
                if masks[y + offset] & mask:
                    return y
            y += 1

    def _touch(self, t: int, moved: bool) -> None:
        """Update the lock clock after the piece moved (``moved``) or the field changed.

        From the piece's first touch-down on its lowest row, every successful move or
        rotation counts, on the ground or off it: the first 15 restart the lock delay
        (one that lifts the piece restarts it when it lands again), later ones do not,
        and a piece that lands again after more than 15 locks at once. Without counting
        the moves off the ground, stepping off a ledge and back would hold a piece up
        for ever. A new lowest row starts the count again (``_lower``)."""
        if moved and self.touched:
            self.resets += 1
        masks, y = self.field.masks, self.y
        under = UNDER[self.kind][self.rotation][self.x + X_OFFSET]
        assert under is not None  # (for mypyc: the piece is where it fits, never off the field)
        for offset, mask in under:  # ``resting``
            if masks[y + offset] & mask:
                break
        else:  # it fits one row lower: in the air
            self.lock_at = INF
            return
        if self.lock_at == INF:
            self.lock_at = t if self.resets > MAX_LOCK_RESETS else t + LOCK_DELAY
            self.touched = True
        elif moved and self.resets <= MAX_LOCK_RESETS:
            self.lock_at = t + LOCK_DELAY

    def _lower(self) -> None:
        """The piece is on a row lower than any it reached: 15 fresh resets (RULES.md)."""
        if self.y > self.lowest:
            self.lowest = self.y
            self.resets = 0
            self.touched = False

    def step(self, t: int, events: list) -> list[str]:
        """Run the clock that is due at ``t``; returns bombs to drop automatically.
        Clocks due at the same time run in this order: lack of control, lock, repeat,
        gravity."""
        if self.control_until == t:
            self.control_until = INF
            events.append(ControlChanged(self.seat, False, None))
            self.rearm(t)  # ← and → mean their own again: a blocked repeat may go now
        elif self.lock_at == t:
            if not self.resting():
                self.lock_at = INF
            else:
                return self.lock(t, events)
        elif self.repeat_at == t:
            self.repeat(t, events)
        else:
            self.fall(t, events)
        return []

    def fall(self, t: int, events: list) -> None:
        if not self.resting():
            self.y += 1
            self._lower()
            events.append(self.piece_event)
            self.rearm(t)
        self._touch(t, moved=False)
        self.last_fall = t
        self.fall_at = t + self.interval()

    # --- intents -----------------------------------------------------------------------
    def shift(self, dx: int, t: int, events: list) -> bool:
        """One step sideways (← and → exchanged during lack of control); whether it moved."""
        if self.control_until != INF:
            dx = -dx
        x = self.x + dx
        index = x + X_OFFSET
        if 0 <= index < SHAPE_COUNT:
            shape = SHAPES[self.kind][self.rotation][index]
            if fits(self.field.masks, shape, self.y):
                self.x = x
                self.shape = shape  # type: ignore[assignment]
                self._touch(t, moved=True)
                events.append(self.piece_event)
                return True
        return False

    def step_key(self, dx: int, t: int, events: list) -> None:
        """A single ← or → (the ``left`` / ``right`` intents): one step."""
        if self.shift(dx, t, events) and self.charged and self.repeat_at == INF and self.held:
            self.repeat_at = t  # ``rearm``, written out

    # One method per intent, as the engine calls them (``engine.MOVES``): ``(t, events)``.
    def key_left(self, t: int, events: list) -> None:
        if self.shift(-1, t, events) and self.charged and self.repeat_at == INF and self.held:
            self.repeat_at = t  # ``rearm``, written out

    def key_right(self, t: int, events: list) -> None:
        if self.shift(1, t, events) and self.charged and self.repeat_at == INF and self.held:
            self.repeat_at = t  # ``rearm``, written out

    def hold_left(self, t: int, events: list) -> None:
        self.hold(-1, t, events)

    def hold_right(self, t: int, events: list) -> None:
        self.hold(1, t, events)

    def release_left(self, t: int, events: list) -> None:
        self.release(-1, t)

    def release_right(self, t: int, events: list) -> None:
        self.release(1, t)

    def soft_drop_on(self, t: int, events: list) -> None:
        self.set_soft_drop(True, t)

    def soft_drop_off(self, t: int, events: list) -> None:
        self.set_soft_drop(False, t)

    def slide(self, dx: int, t: int, events: list) -> bool:
        """As far as the piece goes sideways (ARR 0), as one move for the lock delay."""
        if self.control_until != INF:
            dx = -dx
        shapes = SHAPES[self.kind][self.rotation]
        x = self.x
        masks, y = self.field.masks, self.y
        while 0 <= x + dx + X_OFFSET < SHAPE_COUNT and fits(masks, shapes[x + dx + X_OFFSET], y):
            x += dx
        if x == self.x:
            return False
        self.x = x
        self.shape = shapes[x + X_OFFSET]  # type: ignore[assignment]
        self._touch(t, moved=True)
        events.append(self.piece_event)
        return True

    def hold(self, dx: int, t: int, events: list) -> None:
        """← (−1) or → (+1) goes down: one step at once, repeats after DAS. A key that
        is already down (the keyboard's own repeat) changes nothing."""
        if dx in self.held:
            return
        self.held.append(dx)
        self.charged = False
        self.shift(dx, t, events)
        self.repeat_at = t + self.das

    def release(self, dx: int, t: int) -> None:
        """← or → comes up; if it was the active one, the other (if held) takes over
        after its own DAS."""
        if dx not in self.held:
            return
        active = self.held[-1] == dx
        self.held.remove(dx)
        if active:
            self.charged = False
            self.repeat_at = t + self.das if self.held else INF

    def repeat(self, t: int, events: list) -> None:
        """The repeat clock: one step (every ARR), or to the wall (ARR 0). Blocked, the
        clock stops until ``rearm``."""
        self.charged = True
        if self.arr == 0:
            self.slide(self.held[-1], t, events)
            self.repeat_at = INF  # at the wall: again when the way opens (rearm)
        elif self.shift(self.held[-1], t, events):
            self.repeat_at = t + self.arr
        else:
            self.repeat_at = INF

    def rearm(self, t: int) -> None:
        """The piece or the field changed: a charged repeat that was blocked tries at once."""
        if self.charged and self.repeat_at == INF and self.held:
            self.repeat_at = t

    def release_all(self) -> None:
        self.held.clear()
        self.repeat_at = INF
        self.charged = False
        self.soft = False

    def rotate(self, t: int, events: list) -> None:
        """Turn clockwise with the SRS kick tests; if all five fail, nothing happens."""
        masks, y = self.field.masks, self.y
        for shape, rows, cols in TURNS[self.kind][self.rotation][self.x + X_OFFSET]:
            top = y + rows
            if top + shape[0][0] < 0:
                continue
            for offset, mask in shape:
                if masks[top + offset] & mask:
                    break
            else:
                self.rotation = (self.rotation + 1) % 4
                self.x += cols
                self.y = top
                self.shape = shape
                if top > self.lowest:  # a kick may take it down: fresh resets, as a fall would
                    self.lowest = top
                    self.resets = 0
                    self.touched = False
                self._touch(t, moved=True)
                events.append(self.piece_event)
                if self.charged and self.repeat_at == INF and self.held:
                    self.repeat_at = t  # ``rearm``, written out
                return

    def set_soft_drop(self, on: bool, t: int) -> None:
        # The next row falls one (new) interval after the last one, never in the past,
        # so toggling soft drop cannot hold a piece up.
        self.soft = on
        fall_at = self.last_fall + (self.soft_drop[self.level] if on else GRAVITY[self.level])
        self.fall_at = fall_at if fall_at > t else t

    def hard_drop(self, t: int, events: list) -> list[str]:
        self.y = self.ghost_y()
        return self.lock(t, events)

    # --- locking, clearing, spawning ----------------------------------------------------
    def lock(self, t: int, events: list) -> list[str]:
        """Lock the piece; score, clear, level up, make bombs, spawn the next piece.

        Returns the bombs caught, when they are to be dropped at once (automatic mode)."""
        field, y = self.field, self.y
        if y + self.shape[-1][0] < HIDDEN:  # wholly above the visible field: lock out
            self.eliminate(t, events)
            self.spawn(t, events)
            return []
        masks, text = field.masks, field.text
        rows = []  # the visible rows changed
        full = []
        # each row of a tetromino is one run of cells: its text is spliced in at once
        runs = RUNS[self.kind][self.rotation][self.x + X_OFFSET]
        assert runs is not None  # (for mypyc: the piece is where it fits, never off the field)
        for offset, mask, start, stop, cells in runs:
            row = y + offset
            line = text[row]
            text[row] = line[:start] + cells + line[stop:]
            mask |= masks[row]
            masks[row] = mask
            if mask == FULL_ROW:
                full.append(row)
            if row >= HIDDEN:
                rows.append(row - HIDDEN)
        level = self.level
        self.score += C.PIECE_POINTS * level
        self.scored(t)
        caught: list[str] = []
        if full:
            caught = [C.BOMB_OF_CHAR[ch] for row in full for ch in text[row] if ch in C.BOMB_OF_CHAR]
            field.remove_rows(full)
            self.score += C.LINE_POINTS[len(full)] * level
            self.lines += len(full)
            self.level_lines += len(full)
            while self.level_lines >= self.lines_per_level and self.level < C.MAX_LEVEL:
                self.level_lines -= self.lines_per_level
                self.level += 1
            touched = list(range(full[-1] + 1))  # everything above the lowest cleared row moved
            if self.bombs_on:
                touched.extend(self.make_bombs(len(full)))
            rows = [row - HIDDEN for row in sorted(set(touched)) if row >= HIDDEN]
        if rows:
            events.append(FieldChanged(self.seat, tuple(rows)))
        events.append(ScoreChanged(self.seat, self.score, self.level, self.lines, self.eliminations))
        if caught and not self.automatic:
            room = C.STORE_SIZE - len(self.store)
            if room > 0:  # RULES.md: at most 12, bombs caught beyond are lost
                self.store.extend(caught[:room])
                events.append(StoreChanged(self.seat, tuple(self.store)))
            caught = []
        self.spawn(t, events)
        return caught

    def scored(self, t: int) -> None:
        """Keep the score's history (pruned to what a drop can still ask: the scores
        from a little over BOMB_DELAY_MS + MAX_LAG_MS behind this board's time)."""
        scores = self.scores
        if scores[-1][0] == t:
            scores[-1] = (t, self.score)
        else:
            scores.append((t, self.score))
        horizon = t - 2 * (C.BOMB_DELAY_MS + C.MAX_LAG_MS)
        while len(scores) > 2 and scores[1][0] <= horizon:
            del scores[0]

    def score_at(self, t: int) -> int:
        """The score as it stood at ``t`` (after every step at ``t`` or before)."""
        for at, score in reversed(self.scores):
            if at <= t:
                return score
        return self.scores[0][1]

    def make_bombs(self, count: int) -> list[int]:
        """Turn up to ``count`` random plain blocks into bombs; returns their rows."""
        blocks = self.field.blocks(C.BLOCK_CHARS)
        if not blocks:
            return []  # RULES.md: no bomb where the field is empty
        rows = []
        for row, col in self.chance.sample(blocks, min(count, len(blocks))):
            bomb = weighted_bomb(self.chance)
            self.field.set_cell(row, col, C.BOMB_CHARS[bomb])
            rows.append(row)
        return rows

    def spawn(self, t: int, events: list) -> None:
        """The next piece enters; first every bomb due by now lands, in order (RULES.md)."""
        while self.incoming and self.incoming[0].due <= t:
            landing = self.incoming.pop(0)
            self.land(landing.bomb, landing.from_seat, t, events, landing.seed)
        kind = self.bag.take()
        self.place_new(kind, t, events)
        events.append(NextChanged(self.seat, self.bag.peek(C.PREVIEW)))

    def place_new(self, kind: str, t: int, events: list) -> None:
        shape = SHAPES[kind][0][C.SPAWN_COLUMN + X_OFFSET]
        y = C.SPAWN_ROW
        if not fits(self.field.masks, shape, y):  # block out: the piece cannot spawn
            self.eliminate(t, events)  # the field is emptied; the same piece then spawns
        if C.SPAWN_DROPS_ONE_ROW and fits(self.field.masks, shape, y + 1):
            y += 1
        self.kind, self.rotation, self.x, self.y, self.shape = kind, 0, C.SPAWN_COLUMN, y, shape  # type: ignore[assignment]
        self.lowest = y
        self.resets = 0
        self.touched = False
        self.lock_at = INF
        self._touch(t, moved=False)
        self.last_fall = t
        self.fall_at = t + self.interval()
        events.append(self.piece_event)
        self.rearm(t)  # a charged key moves the new piece at once

    def eliminate(self, t: int, events: list) -> None:
        """Top out: empty field, start level, level counter restarts; score kept, stored
        bombs lost (RULES.md). Total lines, the feed and a running lack of control carry
        on (our choice)."""
        self.field.clear()
        self.level = self.start_level
        self.level_lines = 0
        self.eliminations += 1
        events.append(Eliminated(self.seat, self.eliminations))
        events.append(FieldChanged(self.seat, tuple(range(C.VISIBLE_ROWS))))
        events.append(ScoreChanged(self.seat, self.score, self.level, self.lines, self.eliminations))
        if self.store:
            self.store.clear()
            events.append(StoreChanged(self.seat, ()))

    # --- receiving bombs -----------------------------------------------------------------
    def announce(
        self, bomb: str, from_seat: int, t: int, number: int, events: list, seed: int | None = None
    ) -> None:
        """A bomb dropped on this board at ``t``: in the feed at once, landing at the next
        piece at or after ``t + BOMB_DELAY_MS``. Kept in (time, sender, number) order,
        whichever board's clocks ran first. ``seed``: its dice (rules version 4), drawn
        at the drop; None: its effect draws from this board's chance as it lands (3)."""
        sender = self.numbers[from_seat]
        key = (t, from_seat, number)
        i = bisect.bisect(self.feed_keys, key)
        self.feed_keys.insert(i, key)
        self.feed.insert(i, FeedEntry(sender, bomb, from_seat))
        del self.feed[: -C.FEED_SIZE], self.feed_keys[: -C.FEED_SIZE]
        bisect.insort(self.incoming, Incoming(t + C.BOMB_DELAY_MS, from_seat, number, bomb, seed))
        events.append(BombReceived(self.seat, sender, bomb, from_seat))

    def land(self, bomb: str, from_seat: int, t: int, events: list, seed: int | None = None) -> None:
        """A bomb's effect, when it lands (before the next piece is placed): its random
        choices from its own dice (``seed``), or from this board's chance (rules version
        3, ``seed`` None)."""
        events.append(BombLanded(self.seat, bomb, from_seat))
        if bomb == C.LACK_OF_CONTROL:  # a second one while active restarts the 5 s
            self.control_until = t + C.LACK_OF_CONTROL_MS
            events.append(ControlChanged(self.seat, True, self.control_until))
            return
        field = self.field
        before = list(field.text)
        dice = None if seed is None else Dice(seed)
        if bomb == C.ADD_LINE:
            hole = self.chance.randrange(C.WIDTH) if dice is None else dice.below(C.WIDTH)
            if not field.add_garbage(hole):
                self.eliminate(t, events)  # pushed out of the top: topped out
                return
        elif bomb == C.EARTHQUAKE:
            for row in range(C.HEIGHT):
                if dice is None:
                    shift = self.chance.randint(-C.EARTHQUAKE_SHIFT, C.EARTHQUAKE_SHIFT)
                else:
                    shift = dice.below(2 * C.EARTHQUAKE_SHIFT + 1) - C.EARTHQUAKE_SHIFT
                field.shift_row(row, shift)
        elif bomb == C.REMOVE_BOMBS:
            field.defuse_bombs()
            if self.store:
                self.store.clear()
                events.append(StoreChanged(self.seat, ()))
        elif bomb == C.DRILL:
            field.drill(self.chance.sample if dice is None else dice.sample, C.DRILL_BLOCKS)
        elif bomb == C.GRAVITY_BOMB:
            field.collapse()
        elif bomb == C.REMOVE_LINE:
            field.remove_bottom(1)
        elif bomb == C.DEMOLITION:
            field.remove_bottom(C.DEMOLITION_ROWS)
        else:  # pragma: no cover - bomb types come from constants
            raise ValueError(f"unknown bomb {bomb!r}")
        full = field.full_rows()
        if full:  # lines an effect completes go at once, without credit (TetriNET)
            field.remove_rows(full)
        rows = tuple(row - HIDDEN for row in range(HIDDEN, C.HEIGHT) if field.text[row] != before[row])
        if rows:
            events.append(FieldChanged(self.seat, rows))

    # --- views -----------------------------------------------------------------------------
    def piece_cells(self, y: int | None = None) -> tuple[tuple[int, int], ...]:
        top = (self.y if y is None else y) - HIDDEN
        return tuple((top + r, self.x + c) for r, c in CELLS[self.kind][self.rotation])

    def view(self) -> PlayerView:
        piece = None
        ghost: tuple[tuple[int, int], ...] = ()
        if self.kind and not self.left and not self.over:
            piece = PieceView(self.kind, self.rotation, self.x, self.y - HIDDEN, self.piece_cells())
            ghost = self.piece_cells(self.ghost_y())
        return PlayerView(
            seat=self.seat,
            score=self.score,
            level=self.level,
            lines=self.lines,
            eliminations=self.eliminations,
            store=tuple(self.store),
            feed=tuple(self.feed),
            next=self.bag.peek(C.PREVIEW),
            reversed_until=self.reversed_until,
            piece=piece,
            ghost=ghost,
            field=self.field.visible(),
            left=self.left,
            over=self.over,
        )

    def to_text(self) -> str:
        """The whole state as text (for tests, replays and debugging)."""

        def clock(value: int | float) -> str:
            return "-" if value == INF else repr(value)

        # handling and held keys only when there are any, so a game without them reads
        # as it always did (the recorded games' texts)
        handling = "" if self.handling == DEFAULT_HANDLING else " " + self.handling.text
        keys = ""
        if self.held or self.repeat_at != INF or self.charged:
            held = "".join("L" if dx < 0 else "R" for dx in self.held) or "-"
            keys = f" held {held} repeat {clock(self.repeat_at)} charged {int(self.charged)}"
        lines = [
            f"seat {self.seat} score {self.score} level {self.level} lines {self.lines} "
            f"level_lines {self.level_lines} eliminations {self.eliminations}"
            + (f" left {self.left_at!r}" if self.left else "")
            + handling,
            f"piece {self.kind} r{self.rotation} x{self.x} y{self.y - HIDDEN} "
            f"resets {self.resets} touched {int(self.touched)} lowest {self.lowest - HIDDEN} soft {int(self.soft)}" + keys,
            f"clocks now {self.now} fall {clock(self.fall_at)} lock {clock(self.lock_at)} "
            f"reversed {clock(self.control_until)} last_fall {self.last_fall!r}",
            f"next {' '.join(self.bag.peek(C.PREVIEW))} dealt {self.bag.dealt}",
            f"store {' '.join(self.store) or '-'}",
            f"feed {' '.join(f'{e.sender}:{e.bomb}' for e in self.feed) or '-'}",
            f"incoming {' '.join(f'{i.due}:{i.from_seat}:{i.bomb}' for i in self.incoming) or '-'}",
            *self.field.text[:HIDDEN],
            "-" * C.WIDTH,
            *self.field.text[HIDDEN:],
        ]
        return "\n".join(lines)


    # --- one board, as both engines write it (plan31: canon, hash, state) ------------------
    def canon(self) -> str:
        """The board's canonical text: the Python and JavaScript engines write it byte
        for byte alike, so equal texts (and hashes) mean equal boards."""

        def clock(value: int | float) -> str:
            return "-" if value == INF else str(value)

        if self.kind:
            piece = f"{self.kind} {self.rotation} {self.x} {self.y}"
        else:
            piece = "- 0 0 0"
        held = "".join("L" if dx < 0 else "R" for dx in self.held) or "-"
        store = "".join(C.BOMB_CHARS[bomb] for bomb in self.store) or "-"
        return "\n".join(
            [
                f"t {self.now} piece {piece} lowest {self.lowest} resets {self.resets} "
                f"touched {int(self.touched)} soft {int(self.soft)}",
                f"clocks {clock(self.fall_at)} {clock(self.lock_at)} {clock(self.repeat_at)} "
                f"{clock(self.control_until)} {self.last_fall}",
                f"keys {held} charged {int(self.charged)}",
                f"score {self.score} {self.level} {self.lines} {self.level_lines} {self.eliminations} "
                f"dealt {self.bag.dealt} out {int(self.out)}",
                f"store {store}",
                *self.field.text,
            ]
        )

    def board_hash(self) -> int:
        """CRC-32 (zlib's, IEEE 802.3) of ``canon()``'s UTF-8 bytes: computed in C here,
        from a 256-entry table in the page (static/js/tetriwar_engine.js)."""
        return zlib.crc32(self.canon().encode())

    @property
    def out(self) -> bool:
        """The board has stopped: its player left, or the game ended."""
        return self.left or self.over

    def state(self) -> dict:
        """The board as JSON for its own page, enough to go on predicting it (plan31)."""

        def clock(value: int | float) -> int | None:
            return None if value == INF else value  # type: ignore[return-value]

        handling = self.handling
        return {
            "t": self.now,
            "field": list(self.field.text),
            "piece": [self.kind, self.rotation, self.x, self.y] if self.kind else None,
            "lowest": self.lowest,
            "resets": self.resets,
            "touched": self.touched,
            "soft": self.soft,
            "fall_at": clock(self.fall_at),
            "lock_at": clock(self.lock_at),
            "repeat_at": clock(self.repeat_at),
            "control_until": clock(self.control_until),
            "last_fall": self.last_fall,
            "held": list(self.held),
            "charged": self.charged,
            "score": self.score,
            "level": self.level,
            "lines": self.lines,
            "level_lines": self.level_lines,
            "eliminations": self.eliminations,
            "start_level": self.start_level,
            "lines_per_level": self.lines_per_level,
            "bombs": self.bombs,
            "handling": {"das": handling.das, "arr": handling.arr, "soft_drop": handling.soft_drop},
            "dealt": self.bag.dealt,
            "next": list(self.bag.peek(C.PREVIEW)),
            "store": list(self.store),
            "out": self.out,
            # [due, bomb, sender seat] and, from rules version 4, the dice's seed
            "incoming": [
                [i.due, i.bomb, i.from_seat] + ([] if i.seed is None else [i.seed]) for i in self.incoming
            ],
        }


def weighted_bomb(rng: random.Random) -> str:
    """A bomb type drawn with the weights of ``constants.BOMB_WEIGHTS``."""
    return weighted_choice(rng, _BOMB_TYPES, _BOMB_WEIGHTS)


_BOMB_TYPES = tuple(C.BOMB_WEIGHTS)
_BOMB_WEIGHTS = tuple(C.BOMB_WEIGHTS.values())
