"""Block-Killer played live: the engine, wrapped for the table host (games/host.py).

The page shows every player's status (cards in hand, garbage count, what they are
doing), the *arena*, and the log of exchanges. The arena holds the two plays of an
exchange side by side: the attacker's field and the defender's, each live while it is
played (every key is one frame: the server moves the piece and sends the field back)
and kept on show, finished, until the next attack begins. Everyone at the table sees
the same arena.

A hand is its player's alone: the table sees how many cards of each sort a player
holds, and only that player's sockets get the cards themselves (``private_fragments``,
and ``render_private`` after a resync).

Cells are coloured by what filled them: ``g`` garbage, a piece's letter for the block
cards placed (rebuilt from the play's stack and placed pieces, ``paint``), the falling
piece and its landing shadow on top.
"""

from __future__ import annotations

import random
from typing import Annotated, Any

import msgspec
from django.utils.html import escape
from django.utils.translation import gettext, gettext_lazy, gettext_noop, ngettext_lazy

from games import wire
from games.blockkiller import constants as C
from games.blockkiller.bot import BlockKillerBot
from games.blockkiller.cards import BLOCK_KIND, GARBAGE_KIND, HOLES, garbage_row
from games.blockkiller.engine import ATTACK, DEFEND, DRAW, PLAY, Draft, Game, Intent, Options
from games.blockkiller.field import CELLS, TOP_VISIBLE
from games.blockkiller.intents import SIMPLE, Row
from games.live import LiveGameBase
from games.words import Sentence

TEMPLATE = "games/blockkiller/partials.html"
W, H = C.WIDTH, C.HEIGHT
Card = Annotated[int, msgspec.Meta(ge=0, lt=C.ALL_CARDS)]
STACK_TEXT_MAX = C.VISIBLE_ROWS * 10  # a stack as text: at most 20 rows of two cards ("193+194f,")
KIND_NAMES = {"Z": "Z", "S": "S", "J": "J", "L": "L", "T": "T", "O": "O", "I": "I", "M": gettext_noop("monomino")}
# A falling piece's moves in words, for a replay's captions (``move_words``).
MOVE_WORDS = {
    "left": gettext_lazy("%(who)s moves the piece left"),
    "right": gettext_lazy("%(who)s moves the piece right"),
    "down": gettext_lazy("%(who)s moves the piece down"),
    "rotate": gettext_lazy("%(who)s turns the piece clockwise"),
    "rotate_ccw": gettext_lazy("%(who)s turns the piece counter-clockwise"),
    "drop": gettext_lazy("%(who)s drops the piece"),
}
LINES = {1: gettext_noop("single"), 2: gettext_noop("double"), 3: gettext_noop("triple"), 4: gettext_noop("tetris")}


# --- frames: what a browser may send ---------------------------------------------------------
class Draw(wire.Frame, tag="draw"):
    """``{"intent": "draw"}``: 1 block and 1 garbage card; ``"blocks": true``: 2 block cards
    (with 10 garbage cards or more in hand)."""

    blocks: bool = False

    def intent_text(self) -> str:
        return Intent("draw", blocks=self.blocks).text


class Attack(wire.Frame, tag="attack"):
    """``{"intent": "attack", "target": 3}``: start an attack on seat 3."""

    target: Annotated[int, msgspec.Meta(ge=1, le=C.MAX_PLAYERS)]

    def intent_text(self) -> str:
        return Intent("attack", target=self.target).text


class Stack(wire.Frame, tag="stack"):
    """``{"intent": "stack", "rows": "95f,193+194f"}``: the garbage rows from the bottom
    up, as the engine writes them: card ids, ``f`` flipped, two checkerboard cards joined
    by ``+`` merge into one row (frames are flat: a text, not a nested list)."""

    rows: Annotated[str, msgspec.Meta(max_length=STACK_TEXT_MAX, pattern=r"^[0-9f+,]*$")]

    def intent_text(self) -> str:
        return "stack:" + self.rows


class PieceFrame(wire.Frame, tag="piece"):
    """``{"intent": "piece", "card": 12}``: block card 12 enters the field."""

    card: Card

    def intent_text(self) -> str:
        return Intent("piece", card=self.card).text


FRAMES = (Draw, Attack, Stack, PieceFrame, *(wire.plain_frame(name) for name in SIMPLE))


# --- the pictures ----------------------------------------------------------------------------
def paint(draft: Draft) -> list[list[str]]:
    """The play's field, cell by cell (``.``, ``g``, or the letter of the piece that filled
    it), from its stack and the pieces placed in order: the engine's rows, coloured."""
    rows = [["."] * W for _ in range(H)]
    for i, row in enumerate(draft.stack):
        bits = 0
        for card, flipped in row:
            bits |= garbage_row(card, flipped)
        rows[H - 1 - i] = ["g" if bits >> c & 1 else "." for c in range(W)]
    for kind, cells in draft.placed:
        for r, c in cells:
            rows[r][c] = kind
        kept = [row for row in rows if "." in row]
        rows = [["."] * W for _ in range(H - len(kept))] + kept
    return rows


def field_cells(draft: Draft | None, live: bool) -> str:
    """The 200 visible cells of a play, with the falling piece and its shadow if ``live``."""
    return _cells(_field_rows(draft, live), TOP_VISIBLE, H)


def spawn_cells(draft: Draft | None, live: bool) -> str:
    """The rows above the field where a piece enters, shown as guideline stackers show
    them, so a piece is on screen the moment it is picked: only a falling piece (or its
    shadow) is ever there, since nothing locks above the field."""
    return _cells(_field_rows(draft, live), 0, TOP_VISIBLE)


def _field_rows(draft: Draft | None, live: bool) -> list[list[str]]:
    rows = paint(draft) if draft is not None else [["."] * W for _ in range(H)]
    if draft is not None and live:
        engine_rows = draft.field.rows
        if any((sum(1 << c for c in range(W) if rows[r][c] != ".")) != engine_rows[r] for r in range(H)):
            # never expected: the engine is the authority on what is filled
            rows = [["g" if engine_rows[r] >> c & 1 else "." for c in range(W)] for r in range(H)]
        piece = draft.piece
        if piece is not None:
            ghost = draft.field.drop(piece)
            for r, c in ghost.cells():
                if rows[r][c] == ".":
                    rows[r][c] = "h" + piece.kind
            for r, c in piece.cells():
                rows[r][c] = "p" + piece.kind
    return rows


def _cells(rows: list[list[str]], start: int, end: int) -> str:
    out = []
    for r in range(start, end):
        for value in rows[r]:
            if value == ".":
                out.append("<i></i>")
            elif value == "g":
                out.append('<i class="g"></i>')
            elif value[0] == "h":
                out.append(f'<i class="gh {value[1]}"></i>')
            elif value[0] == "p":
                out.append(f'<i class="pc {value[1]}"></i>')
            else:
                out.append(f'<i class="{value}"></i>')
    return "".join(out)


def block_shape(kind: str) -> dict[str, Any]:
    """A block card's picture: its piece as it enters, in its own box."""
    cells = CELLS[kind][0]
    top, left = min(r for r, _ in cells), min(c for _, c in cells)
    height = max(r for r, _ in cells) - top + 1
    width = max(c for _, c in cells) - left + 1
    on = {(r - top, c - left) for r, c in cells}
    return {"w": width, "h": height, "cells": [(r, c) in on for r in range(height) for c in range(width)]}


SHAPES = {kind: block_shape(kind) for kind in KIND_NAMES}


def garbage_card(card: int) -> dict[str, Any]:
    holes = HOLES[GARBAGE_KIND[card]]
    checker = GARBAGE_KIND[card] == C.CHECKERBOARD
    if checker:
        label = gettext("checkerboard")
    elif len(holes) == 1:
        label = gettext("hole at %(column)s") % {"column": holes[0] + 1}
    else:
        label = gettext("holes %(first)s–%(last)s") % {"first": holes[0] + 1, "last": holes[-1] + 1}
    return {"card": card, "checker": checker, "cells": [c not in holes for c in range(W)], "label": label}


def stack_text(stack: tuple[Row, ...]) -> str:
    return ",".join("+".join(f"{card}{'f' if flipped else ''}" for card, flipped in row) for row in stack)


class ClearWords:
    """What a clear was worth, in the language it is shown in (``str``): kept to show
    again, as the log's lines are."""

    __slots__ = ("event",)

    def __init__(self, event: Any) -> None:
        self.event = event

    def __str__(self) -> str:
        event = self.event
        lines = gettext(LINES[event.lines]) if event.lines in LINES else gettext("%(count)s lines") % {
            "count": event.lines
        }
        name = gettext("T-spin %(lines)s") % {"lines": lines} if event.spin else lines
        extras = []
        if event.combo > 1:
            extras.append(gettext("combo %(count)s") % {"count": event.combo})
        if event.b2b:
            extras.append(gettext("back-to-back"))
        if event.offset:
            value = gettext("+%(attack)s, offset +%(offset)s") % {"attack": event.attack, "offset": event.offset}
        else:
            value = f"+{event.attack}"
        return f"{name}{' (' + ', '.join(extras) + ')' if extras else ''}: {value}"


def clear_words(event: Any) -> ClearWords:
    return ClearWords(event)


class BlockKillerLive(LiveGameBase):
    Game, Options, Intent = Game, Options, Intent
    TEMPLATE = TEMPLATE
    FRAMES = FRAMES
    RESULT_COLUMNS = ((gettext_lazy("Garbage sent"), "score"), (gettext_lazy("Lines"), "lines"))

    def __init__(self, setup: dict[str, Any]) -> None:
        super().__init__(setup)
        # The plays of the exchange on show: the attack and the defence (Draft objects of
        # the engine, kept after they end, read only).
        self.attack_play: Draft | None = None
        self.defence_play: Draft | None = None
        self.last_clear: dict[int, ClearWords] = {}  # by seat: the words of its play's last clear
        self.hands_sent: dict[int, tuple] = {}

    def make_bot(self, level: str, rng: random.Random) -> BlockKillerBot:
        return BlockKillerBot(rng)

    def has_left(self, seat: int) -> bool:
        return self.game is not None and self.game.players[seat].left_at is not None

    def player_stats(self, seat: int) -> dict[str, int]:
        player = self.game.players[seat]
        return {"score": player.sent, "lines": player.lines, "eliminations": 0}

    # --- following the plays -----------------------------------------------------------------
    def _follow(self) -> None:
        """Keep the plays on show: a new attack replaces the exchange on show."""
        draft = self.game.draft if self.game is not None else None
        if draft is None:
            return
        if draft.target is not None:
            if self.attack_play is not draft:
                self.attack_play, self.defence_play = draft, None
                self.last_clear.clear()
        else:
            self.defence_play = draft

    def begin(self, now: float) -> None:
        super().begin(now)
        self.log_lines.append(Sentence(gettext_lazy("%(who)s begins"), who=self.who(self.game.turn)))
        self._follow()

    def apply(self, seat: int, intent: str, now: float, at: int | None = None) -> list[Any]:
        self._follow()
        events = super().apply(seat, intent, now)
        self._follow()
        return events

    def advance(self, now: float) -> list[Any]:
        self._follow()
        events = super().advance(now)
        self._follow()
        return events

    def forfeit(self, seat: int, now: float) -> list[Any]:
        self._follow()
        events = super().forfeit(seat, now)
        self._follow()
        return events

    def bot_act(self, seat: int, now: float) -> tuple[list[Any], float]:
        self._follow()
        events, delay = super().bot_act(seat, now)
        self._follow()
        return events, delay

    # --- contexts ------------------------------------------------------------------------------
    def _state(self, seat: int) -> str:
        game = self.game
        if game is None:
            return "waiting"
        player = game.players[seat]
        if player.left_at is not None:
            return "left"
        if player.out is not None:
            return "out"
        if game.finished:
            return "won"
        if game.acting == seat:
            return {DRAW: "draw", PLAY: "turn", ATTACK: "attack", DEFEND: "defend"}[game.phase]
        return "wait"

    def _status(self, seat: int) -> dict[str, Any]:
        game = self.game
        player = game.players[seat] if game else None
        garbage = len(player.garbage) if player else 0
        return {
            "seat": seat,
            "name": self.name(seat),
            "state": self._state(seat),
            "blocks": len(player.blocks) if player else 0,
            "garbage": garbage,
            "danger": garbage >= C.CHOICE_GARBAGE,
            "limit": C.OUT_ABOVE_GARBAGE,
            "sent": player.sent if player else 0,
            "target": game.draft.target if game and game.draft and game.draft.seat == seat else None,
            "target_name": self.name(game.draft.target) if game and game.draft and game.draft.seat == seat
            and game.draft.target else "",
        }

    def _turn(self) -> dict[str, Any]:
        game = self.game
        if game is None or game.finished:
            return {"acting": 0, "phase": "over" if game else "waiting", "targets": [], "words": ""}
        acting = game.acting
        phase = game.phase
        name = escape(self.name(acting))
        if phase == DRAW:
            words = gettext("%(who)s draws: 1 block and 1 garbage card, or 2 block cards.") % {"who": name}
            mine = gettext("Your turn: draw 1 block and 1 garbage card, or 2 block cards.")
        elif phase == PLAY and game.obliged(acting):
            words = gettext("%(who)s attacks someone or passes (must attack: 6 block cards).") % {"who": name}
            mine = gettext("Your turn: attack someone (you hold %(count)s block cards: you must play).") % {
                "count": C.MUST_PLAY_BLOCKS
            }
        elif phase == PLAY:
            words = gettext("%(who)s attacks someone or passes.") % {"who": name}
            mine = gettext("Your turn: attack someone or pass.")
        elif phase == ATTACK:
            target = escape(self.name(game.draft.target))
            words = gettext("%(who)s attacks %(target)s.") % {"who": name, "target": target}
            mine = gettext("Your turn: attack %(target)s. Stack garbage, place block cards, then Done.") % {
                "target": target
            }
        else:
            attacker, attack = game.attack
            words = gettext("%(who)s defends against %(attacker)s's attack of %(attack)s.") % {
                "who": name, "attacker": escape(self.name(attacker)), "attack": attack,
            }
            mine = gettext("Your turn: defend against %(attacker)s's attack of %(attack)s.") % {
                "attacker": escape(self.name(attacker)), "attack": attack,
            }
        return {
            "acting": acting,
            "phase": phase,
            "words": words,
            "mine": mine,
            "obliged": game.obliged(acting),
            "choice": game.can_choose_draw(acting),
            "targets": [
                {"seat": s, "name": self.name(s), "garbage": len(game.players[s].garbage)}
                for s in game.active_seats() if s != acting
            ] if phase == PLAY else [],
        }

    def _play(self, role: str) -> dict[str, Any]:
        game = self.game
        draft = self.attack_play if role == "attack" else self.defence_play
        if draft is not None and role == "attack" and draft is not (game and game.draft) and not draft.locked:
            draft = None  # an attack called off
        live = draft is not None and game is not None and draft is game.draft
        context: dict[str, Any] = {
            "role": role, "seat": 0, "live": live, "cells": field_cells(draft, live),
            "spawn": spawn_cells(draft, live), "incoming": None,
        }
        if draft is None:
            return context
        context.update({
            "seat": draft.seat,
            "name": self.name(draft.seat),
            "stack": stack_text(draft.stack),
            "top_checker": bool(draft.stack) and len(draft.stack[-1]) == 1
            and GARBAGE_KIND[draft.stack[-1][0][0]] == C.CHECKERBOARD,
            "rows": len(draft.stack),
            "locked": draft.locked,
            "attack": draft.attack,
            "offset": draft.offset,
            "combo": draft.combo,
            "last": self.last_clear.get(draft.seat, ""),
            "piece": draft.piece.kind if live and draft.piece else "",
            "other": self.name(draft.target) if draft.target else "",
        })
        if role == "defence" and self.attack_play is not None:
            context["incoming"] = self.attack_play.attack
            if not live and game.exchanges and game.exchanges[-1].defender == draft.seat:
                ex = game.exchanges[-1]
                context["exchange"] = {"to_defender": ex.to_defender, "to_attacker": ex.to_attacker}
        return context

    def _hand(self, seat: int) -> dict[str, Any]:
        player = self.game.players[seat] if self.game else None
        if player is None:
            return {"seat": seat, "blocks": [], "garbage": []}
        return {
            "seat": seat,
            "blocks": [{"card": c, "kind": BLOCK_KIND[c], "name": gettext(KIND_NAMES[BLOCK_KIND[c]]),
                        "shape": SHAPES[BLOCK_KIND[c]]} for c in player.blocks],
            "garbage": [garbage_card(c) for c in player.garbage],
            "limit": C.OUT_ABOVE_GARBAGE,
        }

    def _clock_context(self, oob: bool, now: float | None = None) -> dict[str, Any]:
        game = self.game
        remaining = None
        if game is not None and not game.finished and game.deadline is not None:
            remaining = int(max(0.0, game.deadline - (now if now is not None else game.now)) * 1000)
        acting = game.acting if game is not None else None
        return {"remaining_ms": remaining, "who": self.name(acting) if acting else "", "oob": oob}

    # --- rendering -----------------------------------------------------------------------------
    def _log_entries(self, events: list[Any]) -> list[Sentence]:
        entries = []
        settling = False  # after an exchange, until the next turn: its line says who draws what
        for event in events:
            who = self.who(event.seat) if event.seat else ""
            kind = event.kind
            if kind in ("exchange", "turn"):
                settling = kind == "exchange"
            if kind == "drew" and settling:
                pass
            elif kind == "drew" and event.blocks == C.CHOICE_BLOCKS and not event.garbage:
                entries.append(Sentence(gettext_lazy("%(who)s draws 2 block cards"), who=who))
            elif kind == "drew" and not event.blocks:
                entries.append(Sentence(
                    ngettext_lazy(
                        "%(who)s draws %(count)s garbage card", "%(who)s draws %(count)s garbage cards", "count"
                    ),
                    who=who, count=event.garbage,
                ))
            elif kind == "passed" and event.timeout:
                entries.append(Sentence(gettext_lazy("%(who)s passes (time)"), who=who))
            elif kind == "passed":
                entries.append(Sentence(gettext_lazy("%(who)s passes"), who=who))
            elif kind == "attacked":
                entries.append(Sentence(
                    gettext_lazy("%(who)s attacks %(target)s with %(attack)s"),
                    who=who, target=self.who(event.target), attack=event.attack,
                ))
            elif kind == "cleared":
                words = clear_words(event)
                self.last_clear[event.seat] = words
                entries.append(Sentence(gettext_lazy("%(who)s: %(clear)s"), who=who, clear=words))
            elif kind == "exchange":
                numbers = {
                    "defender": self.who(event.defender), "attacker": who, "defence": event.defence,
                    "offset": event.offset, "attack": event.attack, "to_defender": event.to_defender,
                    "to_attacker": event.to_attacker,
                }
                if event.offset:
                    text = gettext_lazy(
                        "<b>Exchange</b>: %(defender)s defends with %(defence)s and offset %(offset)s against "
                        "%(attack)s: %(defender)s draws %(to_defender)s, %(attacker)s draws %(to_attacker)s"
                    )
                else:
                    text = gettext_lazy(
                        "<b>Exchange</b>: %(defender)s defends with %(defence)s against %(attack)s: "
                        "%(defender)s draws %(to_defender)s, %(attacker)s draws %(to_attacker)s"
                    )
                entries.append(Sentence(text, **numbers))
            elif kind == "out":
                entries.append(Sentence(
                    gettext_lazy("%(who)s holds more than %(limit)s garbage cards and is out"),
                    who=who, limit=C.OUT_ABOVE_GARBAGE,
                ))
            elif kind == "left":
                entries.append(Sentence(gettext_lazy("%(who)s left the game"), who=who))
        return entries

    def render_events(self, events: list[Any]) -> str:
        if not events or self.game is None:
            return ""
        self.keep_events(events)
        return self.rerender_events(events)

    def keep_events(self, events: list[Any]) -> None:
        if events and self.game is not None:
            self._keep_log(self._log_entries(events))  # and the plays' last clears

    def rerender_events(self, events: list[Any]) -> str:
        if not events or self.game is None:
            return ""
        kinds = {e.kind for e in events}
        parts = []
        # a key press changes one play and at most its player's hand
        moves_only = kinds <= {"field", "cleared"}
        if not moves_only:
            parts.append(self._region("turn", self._turn()))
            parts.append(self._partial("clock", self._clock_context(oob=True)))
        seats = sorted({e.seat for e in events if e.seat}) if moves_only else self.seats
        for seat in seats:
            parts.append(self._region("status", self._status(seat)))
        if moves_only:
            roles = {"attack" if self.game.draft is not None and self.game.draft.target is not None else "defence"}
        else:
            roles = {"attack", "defence"}
        for role in sorted(roles):
            parts.append(self._region("play", self._play(role)))
        parts.append(self._log_fragment("bk-log"))
        return "".join(parts)

    def _hand_key(self, seat: int) -> tuple:
        player = self.game.players[seat]
        return tuple(player.blocks), tuple(player.garbage)

    def private_fragments(self, events: list[Any]) -> dict[int, str]:
        """Each hand that changed, for its player alone."""
        if self.game is None:
            return {}
        out = {}
        for seat in self.seats:
            if seat in self.bots:
                continue
            key = self._hand_key(seat)
            if self.hands_sent.get(seat) != key:
                self.hands_sent[seat] = key
                out[seat] = self.render_private(seat)
        return out

    def render_private(self, seat: int) -> str:
        """The seat's hand as its player alone sees it."""
        return self._region("hand", self._hand(seat))

    def render_full(self, now: float, start_at: float) -> str:
        context = {
            "statuses": [self._status(seat) for seat in self.seats],
            "players": len(self.seats),
            "turn": self._turn(),
            "attack": self._play("attack"),
            "defence": self._play("defence"),
            "clock": self._clock_context(oob=False, now=now),
            "log": self.log_lines,
            "countdown_ms": int(max(0.0, start_at - now) * 1000) if now < start_at else None,
            "limit": C.OUT_ABOVE_GARBAGE,
        }
        return self._partial("game", context)

    # --- a finished game's moves, for its replay ---------------------------------------------
    def move_words(self, seat: int, intent: str, events: list[Any], logged: list[Sentence]) -> list[Sentence]:
        """Each step of a play in words, as a replay steps through them one by one (the log
        says only what a play came to: the clears, the attack, the exchange), with the
        draws the log leaves out: the player's own before, the next player's after."""
        drawn = [event for event in events if event.kind == "drew" and not self._draw_logged(event)]
        return [
            *(words for event in drawn if event.seat == seat for words in self._draw_words(event)),
            *self._step_words(seat, self.Intent.parse(intent), events),
            *logged,
            *(words for event in drawn if event.seat != seat for words in self._draw_words(event)),
        ]

    def _step_words(self, seat: int, move: Any, events: list[Any]) -> list[Sentence]:
        who = self.who(seat)
        name = move.name
        if name == "attack":
            return [Sentence(gettext_lazy("%(who)s sets out to attack %(target)s"), who=who, target=self.who(move.target))]
        if name == "stack":
            return [Sentence(
                ngettext_lazy("%(who)s stacks %(count)s garbage row", "%(who)s stacks %(count)s garbage rows", "count"),
                who=who, count=len(move.stack),
            )]
        if name == "piece":
            shape = gettext_lazy(KIND_NAMES[BLOCK_KIND[move.card]])
            return [Sentence(gettext_lazy("%(who)s brings in the %(shape)s piece"), who=who, shape=shape)]
        if name == "place":
            shape = gettext_lazy(KIND_NAMES[BLOCK_KIND[move.card]])
            return [Sentence(gettext_lazy("%(who)s places the %(shape)s piece"), who=who, shape=shape)]
        if name in MOVE_WORDS:
            return [Sentence(MOVE_WORDS[name], who=who)]
        if name == "cancel":
            if any(event.kind == "turn" for event in events):
                return [Sentence(gettext_lazy("%(who)s calls the attack off"), who=who)]
            return [Sentence(gettext_lazy("%(who)s takes the piece back"), who=who)]
        return []  # draw, pass and done: the log and the draws say what they came to

    @staticmethod
    def _draw_logged(event: Any) -> bool:
        """Whether ``_log_entries`` says the draw: a choice of two block cards, and garbage alone."""
        return (event.blocks == C.CHOICE_BLOCKS and not event.garbage) or not event.blocks

    def _draw_words(self, event: Any) -> list[Sentence]:
        """A draw the log leaves out: its block cards, then its garbage."""
        who = self.who(event.seat)
        words = [Sentence(
            ngettext_lazy("%(who)s draws %(count)s block card", "%(who)s draws %(count)s block cards", "count"),
            who=who, count=event.blocks,
        )]
        if event.garbage:
            words.append(Sentence(
                ngettext_lazy("%(who)s draws %(count)s garbage card", "%(who)s draws %(count)s garbage cards", "count"),
                who=who, count=event.garbage,
            ))
        return words
