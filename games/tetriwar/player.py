"""One player's board: the field, the falling piece, its clocks, score and bombs.

Times are seconds on the caller's clock. ``INF`` means "not scheduled". Each method
that changes something appends events to the list it is given. Field rows are counted
from the top hidden row (see ``field``); views convert to visible rows.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from games.core.rng import weighted_choice
from games.tetriwar import constants as C
from games.tetriwar.events import (
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
from games.tetriwar.pieces import CELLS, KICKS, ROW_COLUMNS, SHAPES, X_OFFSET, Bag

INF = math.inf
GRAVITY = C.GRAVITY
SOFT_DROP = C.SOFT_DROP
LOCK_DELAY = C.LOCK_DELAY
MAX_LOCK_RESETS = C.MAX_LOCK_RESETS
HIDDEN = C.HIDDEN_ROWS
FULL_ROW = C.FULL_ROW
SHAPE_COUNT = C.WIDTH + X_OFFSET


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
    reversed_until: float | None
    piece: PieceView | None
    ghost: tuple[tuple[int, int], ...]
    field: tuple[str, ...]
    left: bool


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
    ) -> None:
        self.seat = seat
        self.start_level = start_level
        self.lines_per_level = lines_per_level
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
        self.resets = 0
        self.soft = False
        self.last_fall = 0.0
        self.fall_at = INF
        self.lock_at = INF
        self.control_until = INF  # lack of control ends then (INF: keys are not swapped)
        self.left = False
        self.left_at = INF
        self.piece_event = PieceChanged(seat)

    @property
    def reversed_until(self) -> float | None:
        """When lack of control ends, or None when ← and → are not swapped."""
        return None if self.control_until == INF else self.control_until

    # --- clocks ------------------------------------------------------------------------
    def due(self) -> float:
        if self.left:
            return INF
        due = self.fall_at
        if self.lock_at < due:
            due = self.lock_at
        if self.control_until < due:
            due = self.control_until
        return due

    def interval(self) -> float:
        return SOFT_DROP[self.level] if self.soft else GRAVITY[self.level]

    def fits(self, shape, y: int) -> bool:
        return fits(self.field.masks, shape, y)

    def ghost_y(self) -> int:
        shape, y = self.shape, self.y
        masks = self.field.masks
        while True:
            for offset, mask in shape:
                if masks[y + 1 + offset] & mask:
                    return y
            y += 1

    def _touch(self, t: float, moved: bool) -> None:
        """Update the lock clock after the piece moved (``moved``) or the field changed."""
        if self.fits(self.shape, self.y + 1):
            self.lock_at = INF
        elif self.lock_at == INF:
            self.lock_at = t + LOCK_DELAY
        elif moved and self.resets < MAX_LOCK_RESETS:
            self.resets += 1
            self.lock_at = t + LOCK_DELAY

    def step(self, t: float, events: list) -> list[str]:
        """Run the clock that is due at ``t``; returns bombs to drop automatically."""
        if self.control_until == t:
            self.control_until = INF
            events.append(ControlChanged(self.seat, False, None))
        elif self.lock_at == t:
            if self.fits(self.shape, self.y + 1):
                self.lock_at = INF
            else:
                return self.lock(t, events)
        else:
            self.fall(t, events)
        return []

    def fall(self, t: float, events: list) -> None:
        y = self.y + 1
        if self.fits(self.shape, y):
            self.y = y
            if y > self.lowest:
                self.lowest = y
                self.resets = 0  # Guideline: a new lowest row gives 15 fresh resets
            events.append(self.piece_event)
        self._touch(t, moved=False)
        self.last_fall = t
        self.fall_at = t + self.interval()

    # --- intents -----------------------------------------------------------------------
    def shift(self, dx: int, t: float, events: list) -> None:
        if self.control_until != INF:
            dx = -dx
        x = self.x + dx
        index = x + X_OFFSET
        if 0 <= index < SHAPE_COUNT:
            shape = SHAPES[self.kind][self.rotation][index]
            if self.fits(shape, self.y):
                self.x = x
                self.shape = shape
                self._touch(t, moved=True)
                events.append(self.piece_event)

    def rotate(self, t: float, events: list) -> None:
        """Turn clockwise with the SRS kick tests; if all five fail, nothing happens."""
        rotation = (self.rotation + 1) % 4
        shapes = SHAPES[self.kind][rotation]
        for rows, cols in KICKS[self.kind][self.rotation]:
            index = self.x + cols + X_OFFSET
            if 0 <= index < SHAPE_COUNT and self.fits(shapes[index], self.y + rows):
                self.rotation = rotation
                self.x += cols
                self.y += rows
                self.shape = shapes[index]
                self._touch(t, moved=True)
                events.append(self.piece_event)
                return

    def set_soft_drop(self, on: bool, t: float) -> None:
        # The next row falls one (new) interval after the last one, never in the past,
        # so toggling soft drop cannot hold a piece up.
        self.soft = on
        self.fall_at = max(t, self.last_fall + self.interval())

    def hard_drop(self, t: float, events: list) -> list[str]:
        self.y = self.ghost_y()
        return self.lock(t, events)

    # --- locking, clearing, spawning ----------------------------------------------------
    def lock(self, t: float, events: list) -> list[str]:
        """Lock the piece; score, clear, level up, make bombs, spawn the next piece.

        Returns the bombs caught, when they are to be dropped at once (automatic mode)."""
        field, y = self.field, self.y
        if y + self.shape[-1][0] < HIDDEN:  # wholly above the visible field: lock out
            self.eliminate(t, events)
            self.spawn(t, events)
            return []
        masks, text = field.masks, field.text
        kind, x = self.kind, self.x
        touched = []
        for offset, columns in ROW_COLUMNS[kind][self.rotation]:
            row = y + offset
            line = list(text[row])
            for column in columns:
                line[x + column] = kind
            text[row] = "".join(line)
            touched.append(row)
        full = []
        for offset, mask in self.shape:
            masks[y + offset] |= mask
            if masks[y + offset] == FULL_ROW:
                full.append(y + offset)
        level = self.level
        self.score += C.PIECE_POINTS * level
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
            touched = sorted(set(touched))
        rows = tuple(row - HIDDEN for row in touched if row >= HIDDEN)
        if rows:
            events.append(FieldChanged(self.seat, rows))
        events.append(ScoreChanged(self.seat, self.score, self.level, self.lines, self.eliminations))
        if caught and not self.automatic:
            room = C.STORE_SIZE - len(self.store)
            if room > 0:  # RULES.md: at most 12, bombs caught beyond are lost
                self.store.extend(caught[:room])
                events.append(StoreChanged(self.seat, tuple(self.store)))
            caught = []
        self.spawn(t, events)
        return caught

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

    def spawn(self, t: float, events: list) -> None:
        kind = self.bag.take()
        self.place_new(kind, t, events)
        events.append(NextChanged(self.seat, self.bag.peek(C.PREVIEW)))

    def place_new(self, kind: str, t: float, events: list) -> None:
        shape = SHAPES[kind][0][C.SPAWN_COLUMN + X_OFFSET]
        y = C.SPAWN_ROW
        if not self.fits(shape, y):  # block out: the piece cannot spawn
            self.eliminate(t, events)  # the field is emptied; the same piece then spawns
        if C.SPAWN_DROPS_ONE_ROW and self.fits(shape, y + 1):
            y += 1
        self.kind, self.rotation, self.x, self.y, self.shape = kind, 0, C.SPAWN_COLUMN, y, shape
        self.lowest = y
        self.resets = 0
        self.lock_at = INF
        self._touch(t, moved=False)
        self.last_fall = t
        self.fall_at = t + self.interval()
        events.append(self.piece_event)

    def eliminate(self, t: float, events: list) -> None:
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
    def receive(self, bomb: str, from_seat: int, t: float, events: list) -> None:
        sender = self.numbers[from_seat]
        self.feed.append(FeedEntry(sender, bomb, from_seat))
        del self.feed[: -C.FEED_SIZE]
        events.append(BombReceived(self.seat, sender, bomb, from_seat))
        if bomb == C.LACK_OF_CONTROL:  # a second one while active restarts the 5 s
            self.control_until = t + C.LACK_OF_CONTROL_SECONDS
            events.append(ControlChanged(self.seat, True, self.control_until))
            return
        field = self.field
        before = list(field.text)
        if bomb == C.ADD_LINE:
            if not field.add_garbage(self.chance.randrange(C.WIDTH)):
                self.topple(t, events)
                return
        elif bomb == C.EARTHQUAKE:
            for row in range(C.HEIGHT):
                field.shift_row(row, self.chance.randint(-C.EARTHQUAKE_SHIFT, C.EARTHQUAKE_SHIFT))
        elif bomb == C.REMOVE_BOMBS:
            field.defuse_bombs()
            if self.store:
                self.store.clear()
                events.append(StoreChanged(self.seat, ()))
        elif bomb == C.DRILL:
            field.drill(self.chance, C.DRILL_BLOCKS)
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
        self.settle(t, events)
        rows = tuple(row - HIDDEN for row in range(HIDDEN, C.HEIGHT) if field.text[row] != before[row])
        if rows:
            events.append(FieldChanged(self.seat, rows))

    def settle(self, t: float, events: list) -> None:
        """After the field changed under the piece: push it up out of any blocks (our
        choice), topping out if it cannot fit, and restart or stop the lock clock."""
        if self.left:
            return
        y = self.y
        while not self.fits(self.shape, y):
            y -= 1
            if y + self.shape[0][0] < 0:
                self.topple(t, events)
                return
        self.y = y
        self._touch(t, moved=False)
        events.append(self.piece_event)

    def topple(self, t: float, events: list) -> None:
        """Topped out by a bomb: eliminated; the falling piece is discarded."""
        self.eliminate(t, events)
        self.spawn(t, events)

    # --- views -----------------------------------------------------------------------------
    def piece_cells(self, y: int | None = None) -> tuple[tuple[int, int], ...]:
        top = (self.y if y is None else y) - HIDDEN
        return tuple((top + r, self.x + c) for r, c in CELLS[self.kind][self.rotation])

    def view(self) -> PlayerView:
        piece = None
        ghost: tuple[tuple[int, int], ...] = ()
        if self.kind and not self.left:
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
        )

    def to_text(self) -> str:
        """The whole state as text (for tests, replays and debugging)."""

        def clock(value: float) -> str:
            return "-" if value == INF else repr(value)

        lines = [
            f"seat {self.seat} score {self.score} level {self.level} lines {self.lines} "
            f"level_lines {self.level_lines} eliminations {self.eliminations}"
            + (f" left {self.left_at!r}" if self.left else ""),
            f"piece {self.kind} r{self.rotation} x{self.x} y{self.y - HIDDEN} "
            f"resets {self.resets} lowest {self.lowest - HIDDEN} soft {int(self.soft)}",
            f"clocks fall {clock(self.fall_at)} lock {clock(self.lock_at)} "
            f"reversed {clock(self.control_until)} last_fall {self.last_fall!r}",
            f"next {' '.join(self.bag.peek(C.PREVIEW))} dealt {self.bag.dealt}",
            f"store {' '.join(self.store) or '-'}",
            f"feed {' '.join(f'{e.sender}:{e.bomb}' for e in self.feed) or '-'}",
            *self.field.text[:HIDDEN],
            "-" * C.WIDTH,
            *self.field.text[HIDDEN:],
        ]
        return "\n".join(lines)


def weighted_bomb(rng: random.Random) -> str:
    """A bomb type drawn with the weights of ``constants.BOMB_WEIGHTS``."""
    return weighted_choice(rng, _BOMB_TYPES, _BOMB_WEIGHTS)


_BOMB_TYPES = tuple(C.BOMB_WEIGHTS)
_BOMB_WEIGHTS = tuple(C.BOMB_WEIGHTS.values())
