"""A Block-Killer bot for practice tables: greedy, one piece at a time.

    bot = BlockKillerBot(random.Random(seed))
    delay, intent = bot.next_action(game, seat, now)   # act (if any) now, ask again later
    intent = bot.choose(game, seat)                    # or: the next intent at once

Its play: a garbage stack chosen among a few candidates (merged checkerboard pairs
lowest, then the cards of one kind, as they are or flipped, so their holes line up into
a well; or none; or all of them), each tried with a greedy plan: piece after piece, the
placement of any block card in hand worth most (attack first, then lines, then a low
and hole-free stack), stopping when no piece clears a line. The stack whose plan is
worth most wins: its attack (with its offset, in defence) and the garbage it clears out
of the hand. It attacks when obliged, or when its plan makes an attack of 2 or more,
the opponent with most garbage first; it defends the same way. Standard library only;
it reads the game, never changes it.
"""

from __future__ import annotations

import random

from games.blockkiller import constants as C
from games.blockkiller.cards import BLOCK_KIND, GARBAGE_KIND, HOLES, clear_attack, is_special
from games.blockkiller.engine import ATTACK, DEFEND, DRAW, PLAY, Game, Intent
from games.blockkiller.field import GEOMETRY, Field, Piece
from games.blockkiller.search import Placement, placements
from games.core.pause import Pause

ATTACK_AT = 2  # our choice: the planned attack worth a turn when not obliged
TWO_BLOCKS_CHANCE = 0.75  # our choice: how often the bot takes 2 block cards when it may


def garbage_stack(garbage: list[int]) -> tuple:
    """The bot's stack: merged checkerboard pairs lowest, then the rest by hole."""
    checker = [c for c in garbage if GARBAGE_KIND[c] == C.CHECKERBOARD]
    rest = sorted((c for c in garbage if GARBAGE_KIND[c] != C.CHECKERBOARD),
                  key=lambda c: (HOLES[GARBAGE_KIND[c]], c))
    rows = [((a, False), (b, True)) for a, b in zip(checker[::2], checker[1::2], strict=False)]
    if len(checker) % 2:
        rest.append(checker[-1])
    rows.extend(((c, False),) for c in rest)
    return tuple(rows[: C.VISIBLE_ROWS - 6])


def _shape_penalty(rows: list[int]) -> int:
    """Holes (empty cells below a filled one in their column) × 4, plus the stack's height."""
    holes, top, cover = 0, len(rows), 0  # cover: the columns filled in some row above
    for r, row in enumerate(rows):
        row &= C.FULL_ROW
        if cover:
            holes += (cover & ~row).bit_count()
        elif row:
            top = r
        cover |= row
    return holes * 4 + (len(rows) - top)


def _locked(rows: list[int], piece: Piece, full: int) -> tuple[int, list[int]]:
    """``(lines, rows)`` after ``Field.lock(piece)`` on rows holding ``full`` full rows,
    without copying the field."""
    masks = GEOMETRY[piece.kind][piece.rotation][0]
    rows = rows.copy()
    lines, col = full, piece.col
    for dr, mask in masks:
        row = rows[piece.row + dr] = rows[piece.row + dr] | (mask << col if col >= 0 else mask >> -col)
        lines += row == C.FULL_ROW
    if lines:
        rows = [0] * lines + [row for row in rows if row != C.FULL_ROW]
    return lines, rows


def best_move(field: Field, cards: list[int], combo: int, last_special: bool, game: Game
              ) -> tuple[int, int, Placement] | None:
    """``(value, card, placement)`` of the best piece to place now, or None."""
    best = None
    seen: set[str] = set()
    full = field.rows.count(C.FULL_ROW)
    for card in cards:
        kind = BLOCK_KIND[card]
        if kind in seen:
            continue
        seen.add(kind)
        for p in placements(field, kind, game.options.mini):
            lines, rows = _locked(field.rows, p.piece, full)
            spin = p.spin and lines > 0
            attack, offset = clear_attack(lines, spin, combo + 1 if lines else 0,
                                          lines > 0 and last_special and is_special(lines, spin),
                                          game.options.no_mercy)
            value = (attack + offset) * 1000 + lines * 100 - _shape_penalty(rows) * 3
            if best is None or value > best[0]:
                best = (value, card, p, lines)
    return None if best is None else best[:3] + (best[3],)  # type: ignore[return-value]


def plan(game: Game, stack: tuple, blocks: list[int]) -> tuple[int, int, int]:
    """``(attack, offset, garbage cleared)`` of the bot's greedy play on ``stack``."""
    field = Field.stacked(stack)
    cards = list(blocks)
    combo, special, attack, offset, cleared = 0, False, 0, 0, 0
    while cards:
        move = best_move(field, cards, combo, special, game)
        if move is None:
            break
        _, card, p, lines = move  # type: ignore[misc]
        if not lines:
            break
        spin = p.spin
        combo += 1
        b2b = special and is_special(lines, spin)
        special = is_special(lines, spin)
        gained = clear_attack(lines, spin, combo, b2b, game.options.no_mercy)
        attack += gained[0]
        offset += gained[1]
        cleared += len(field.lock(p.piece)[1])
        cards.remove(card)
    return attack, offset, cleared


def candidate_stacks(garbage: list[int]) -> list[tuple]:
    """The stacks the bot weighs: none (or the merged checkerboard pairs alone), the cards
    of one kind held twice or more on those, as they are or flipped, and everything
    (``garbage_stack``)."""
    checker = [c for c in garbage if GARBAGE_KIND[c] == C.CHECKERBOARD]
    base = tuple(((a, False), (b, True)) for a, b in zip(checker[::2], checker[1::2], strict=False))
    kinds: dict[str, list[int]] = {}
    for card in garbage:
        if GARBAGE_KIND[card] != C.CHECKERBOARD:
            kinds.setdefault(GARBAGE_KIND[card], []).append(card)
    room = C.VISIBLE_ROWS - 6 - len(base)
    stacks = [base]
    for cards in kinds.values():
        if len(cards) < 2:  # one row of a kind is no well: the full stack covers it
            continue
        for flipped in (False, True):
            stacks.append(base + tuple(((c, flipped),) for c in cards[:room]))
    stacks.append(garbage_stack(garbage))
    return list(dict.fromkeys(stacks))


def best_stack(game: Game, seat: int, defending: bool) -> tuple[tuple, int]:
    """``(stack, attack)``: the candidate stack whose plan is worth most, and its attack."""
    player = game.players[seat]
    best: tuple[tuple[int, int, int], tuple, int] | None = None
    for stack in candidate_stacks(player.garbage):
        attack, offset, cleared = plan(game, stack, player.blocks)
        made = attack + offset if defending else attack
        key = (made * 2 + cleared, made, -len(stack))
        if best is None or key > best[0]:
            best = (key, stack, attack)
    assert best is not None
    return best[1], best[2]


def plan_attack(game: Game, seat: int) -> int:
    """The attack the bot's best stack and greedy play would make from its hand now."""
    return best_stack(game, seat, defending=False)[1]


class BlockKillerBot:
    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng if rng is not None else random.Random()
        self.pause = Pause(self.rng, C.BOT_THINK_SECONDS, C.BOT_IDLE_SECONDS)
        self._plan: tuple[tuple, tuple[tuple, int]] | None = None  # the last best_stack, by hand

    def _best_stack(self, game: Game, seat: int, defending: bool) -> tuple[tuple, int]:
        """``best_stack``, worked out once for a hand (the turn's choice, then its stack)."""
        player = game.players[seat]
        key = (id(game), seat, defending, tuple(player.blocks), tuple(player.garbage))
        if self._plan is None or self._plan[0] != key:
            self._plan = (key, best_stack(game, seat, defending))
        return self._plan[1]

    def choose(self, game: Game, seat: int) -> Intent | None:
        """The next intent for ``seat`` (None when it is not its move)."""
        if game.finished or game.acting != seat:
            return None
        player = game.players[seat]
        if game.phase == DRAW:
            # Mostly the two block cards (more to clear garbage with); now and then the
            # garbage card, so two bots that can clear nothing do not trade empty attacks
            # for ever.
            return Intent("draw", blocks=self.rng.random() < TWO_BLOCKS_CHANCE)
        if game.phase == PLAY:
            if game.obliged(seat) or self._best_stack(game, seat, defending=False)[1] >= ATTACK_AT:
                others = [s for s in game.active_seats() if s != seat]
                target = max(others, key=lambda s: (len(game.players[s].garbage), self.rng.random()))
                return Intent("attack", target=target)
            return Intent("pass")
        draft = game.draft
        assert draft is not None and game.phase in (ATTACK, DEFEND)
        if draft.piece is not None:
            return Intent("drop")
        if not draft.locked and not draft.stack and draft.piece is None and player.garbage:
            stack = self._best_stack(game, seat, defending=game.phase == DEFEND)[0]
            if stack:
                return Intent("stack", stack=stack)
        move = best_move(draft.field, player.blocks, draft.combo, draft.last_special, game)
        must = game.phase == ATTACK and (game.obliged(seat) or not draft.locked)
        if move is not None:
            _, card, p, lines = move  # type: ignore[misc]
            if lines or must:
                return Intent("place", card=card, keys=p.keys)
        if game.phase == ATTACK and not draft.locked:
            return Intent("cancel")
        return Intent("done")

    def next_action(self, game: Game, seat: int, now: float) -> tuple[float, Intent | None]:
        if game.finished or game.acting != seat:
            self.pause.done(seat)
            return C.BOT_IDLE_SECONDS, None
        left = self.pause.left(seat, len(game.log), now, game.next_deadline())
        if left > 0:
            return left, None
        self.pause.done(seat)
        return C.BOT_IDLE_SECONDS, self.choose(game, seat)
