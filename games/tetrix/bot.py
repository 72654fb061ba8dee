"""A greedy Te-Trix bot: the write that scores most now, with an eye on areas to come.

    bot = TetrixBot(random.Random(seed))
    delay, intent = bot.next_action(game, seat, now)  # act with ``intent`` (if any) now,
                                                      # ask again ``delay`` seconds later
    intent = bot.choose(game, seat)                   # or: the move at once

As a writer it weighs every legal spot of the arranged shape by the sheet it leaves:
the score (exact, RULES.md §5) plus a little for each area still short of five cells
that can still grow (the bigger, the more), and on a solo sheet each box of the bar
still open (a point at the end, and room to hang over later). As the roller it looks
at every tetromino and every distinct order of the dice on every spot of its own sheet,
first by a quick count (each symbol beside the same symbol), then weighs the best few
exactly, and arranges the best. Alone (solo), it stops when every arrangement it can
see would lose points.

The bot only reads the game, never changes it; one object may play several seats.
Equal choices go to the first in the engine's order. Standard library only.
"""

from __future__ import annotations

import random
from functools import cache
from itertools import permutations

from games.core.pause import Pause
from games.tetrix import constants as C
from games.tetrix.engine import Game, Intent
from games.tetrix.sheet import FULL, STRIDE, SYMBOL_INDEX, Sheet, Spot, areas_of, shape_cells, spots

# our choice: what an area short of five cells is worth while it can still grow, by size
PROGRESS = (0.0, 0.5, 1.5, 3.0, 4.0)
BOX_WEIGHT = 1.5  # our choice: an open box of the solo bar, beyond its point at the end
SHORTLIST = 10  # our choice: arrangements the roller weighs exactly, of the quick count's best


def sheet_value(masks: list[int], crossed: int, solo: bool) -> float:
    """How much the bot likes a sheet: its score, areas that may still reach five cells,
    and (solo) the bar's open boxes."""
    free = FULL & ~(masks[0] | masks[1] | masks[2])
    value = 0.0
    for mask in masks:
        count = cells = 0
        for area in areas_of(mask):
            size = area.bit_count()
            if size >= C.AREA_MIN:
                count += 1
                cells += size
            elif (area << 1 | area >> 1 | area << STRIDE | area >> STRIDE) & free:
                value += PROGRESS[size]
        value += count * cells
    if solo:
        value += (C.BOX_POINTS + BOX_WEIGHT) * (C.BAR_BOXES - crossed)
    return value


def after(sheet: Sheet, where: Spot, symbols: str) -> list[int]:
    """The sheet's masks once ``symbols`` are written at ``where``."""
    masks = list(sheet.masks)
    for b, symbol in zip(where.bits, symbols, strict=True):
        if b:
            masks[SYMBOL_INDEX[symbol]] |= b
    return masks


def best_write(sheet: Sheet, shape: str, symbols: str) -> tuple[float, Spot] | None:
    """The best legal spot for the arranged shape, and its value; None if none."""
    best = None
    for where in sheet.legal_spots(shape):
        value = sheet_value(after(sheet, where, symbols), sheet.crossed + where.hanging, sheet.solo)
        if best is None or value > best[0]:
            best = (value, where)
    return best


@cache
def orders(dice: str) -> tuple[str, ...]:
    """Every distinct order of the dice."""
    return tuple(sorted({"".join(p) for p in permutations(dice)}))


@cache
def _touching(shape: str) -> tuple[tuple[int, int], ...]:
    """The pairs of the shape's cells (by their index as arranged) that are neighbours."""
    cells = shape_cells(shape)
    return tuple(
        (i, j)
        for i in range(len(cells))
        for j in range(i + 1, len(cells))
        if abs(cells[i][0] - cells[j][0]) + abs(cells[i][1] - cells[j][1]) == 1
    )


@cache
def _distinct_spots(shape: str) -> tuple[Spot, ...]:
    """One spot for each set of cells on the sheet: another spot on the same cells (an
    O turned, an I, S or Z turned by half a turn, a shape hanging over in another way)
    writes the same cells with the symbols in another order, which the orders of the
    dice already try."""
    seen: dict[int, Spot] = {}
    for where in spots(shape):
        seen.setdefault(where.mask, where)
    return tuple(seen.values())


def quick(sheet: Sheet, dice: str) -> list[tuple[int, str, str, Spot]]:
    """For every shape, order of the dice and legal spot: each symbol beside the same
    symbol already written, and beside the same symbol within the shape, counted."""
    beside = []
    for mask in sheet.masks:
        ring = {}
        for index in range(C.SIZE * STRIDE):
            b = 1 << index
            if b & FULL:
                n = ((b << 1 | b >> 1 | b << STRIDE | b >> STRIDE) & mask).bit_count()
                if n:
                    ring[b] = n
        beside.append(ring)
    filled, may_hang = sheet.filled, sheet.may_hang
    found = []
    for shape in C.TETROMINOES:
        touching = _touching(shape)
        legal = [s for s in _distinct_spots(shape) if not s.mask & filled and s.hanging <= may_hang]
        if not legal:
            continue
        for order in orders(dice):
            index = [SYMBOL_INDEX[symbol] for symbol in order]
            inside = [(i, j) for i, j in touching if order[i] == order[j]]
            for where in legal:
                bits = where.bits
                count = -where.hanging if sheet.solo else 0
                for k in range(C.DICE):
                    if bits[k]:
                        count += beside[index[k]].get(bits[k], 0)
                for i, j in inside:
                    if bits[i] and bits[j]:
                        count += 1
                found.append((count, shape, order, where))
    return found


class TetrixBot:
    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng if rng is not None else random.Random()
        self.pause = Pause(self.rng, C.BOT_THINK_SECONDS, C.BOT_IDLE_SECONDS)

    def choose(self, game: Game, seat: int) -> Intent | None:
        """What ``seat`` does now: arrange (as the roller), write, or (solo) stop; None
        if the game does not wait for it."""
        if seat not in game.waiting_for():
            return None
        sheet = game.players[seat].sheet
        if game.phase == "arrange":
            return self.arrangement(game, seat)
        found = best_write(sheet, game.shape, game.symbols)
        if found is None:  # pragma: no cover - the engine does not wait for those who cannot
            return None
        where = found[1]
        return Intent.write(where.turns, where.row, where.column)

    def arrangement(self, game: Game, seat: int) -> Intent:
        """The roller's arrangement: the quick count's best few, weighed exactly."""
        sheet = game.players[seat].sheet
        candidates = quick(sheet, game.dice)
        candidates.sort(key=lambda c: -c[0])  # stable: equal counts keep the engine's order
        best = None  # (value, shape, order)
        for _, shape, order, where in candidates[:SHORTLIST]:
            crossed = sheet.crossed + (where.hanging if sheet.solo else 0)
            value = sheet_value(after(sheet, where, order), crossed, sheet.solo)
            if best is None or value > best[0]:
                best = (value, shape, order)
        if best is None:  # it can write nothing: any arrangement will do (the last round)
            return Intent.arrange(C.AUTO_ARRANGE_ORDER[0], game.dice)
        if game.options.solo and self._should_stop(sheet, candidates[:SHORTLIST]):
            return Intent.stop()
        return Intent.arrange(best[1], best[2])

    @staticmethod
    def _should_stop(sheet: Sheet, shortlist) -> bool:
        """Solo: stop when every arrangement weighed would lower the score."""
        now = sheet.total
        for _, _, order, where in shortlist:
            if Sheet(after(sheet, where, order), True, sheet.crossed + where.hanging).total >= now:
                return False
        return True

    def next_action(self, game: Game, seat: int, now: float) -> tuple[float, Intent | None]:
        """What to do at ``now`` (None: nothing yet) and the seconds until the next call.

        Call it with the game advanced to ``now``. With something to do, the bot first
        thinks for 1–2.5 s (never past the clock), then acts."""
        if game.finished or seat not in game.waiting_for():
            self.pause.done(seat)
            return C.BOT_IDLE_SECONDS, None
        left = self.pause.left(seat, (game.round, game.phase), now, game.next_deadline())
        if left > 0:
            return left, None
        self.pause.done(seat)
        return C.BOT_IDLE_SECONDS, self.choose(game, seat)
