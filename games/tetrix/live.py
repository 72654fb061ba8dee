"""Te-Trix played live: the engine, wrapped for the table host (games/host.py).

The page shows the round (the roller's four dice, and the shape once arranged), the
roller's tools to arrange them (a tetromino, and its four symbols swapped from cell to
cell), everyone's tools to write the shape (turn it, point at the sheet, place it), and
every seat's sheet: the viewer's own big, the others small (static/css/tetrix.css,
keyed on the page's ``data-me``); a spectator sees them all alike. Each sheet carries
its cells as text (``data-sheet``, 49 of ``o`` ``s`` ``x`` ``.``) and how many symbols
a write may leave hanging over (``data-may-hang``), from which the page's script shows,
under the pointer, where the shape would go, cells hanging over the edge included. The
server checks every write again.

Symbols are shapes, not only colours (○ □ ✕); the areas of five or more cells, the ones
that score, are outlined on the sheet as they form.
"""

from __future__ import annotations

import random
from typing import Annotated, Any

import msgspec
from django.utils.html import escape
from django.utils.translation import gettext, gettext_lazy, ngettext, ngettext_lazy

from games import wire
from games.core.outcome import Termination
from games.live import LiveGameBase
from games.tetrix import constants as C
from games.tetrix.bot import TetrixBot
from games.tetrix.engine import ARRANGING, LEFT, WRITING, Game, Intent, Options
from games.tetrix.sheet import Sheet, area_cells, score_table, shape_cells
from games.words import Sentence, termination

TEMPLATE = "games/tetrix/partials.html"
LOW, HIGH = C.POSITION_RANGE
SHAPE_LETTERS = "".join(C.TETROMINOES)


# --- frames: what a browser may send -----------------------------------------------------
class Arrange(wire.Frame, tag="arrange"):
    """``{"intent": "arrange", "shape": "T", "symbols": "oxso"}``: the roller arranges the
    dice into a tetromino, its symbols in the order of the shape's cells (row by row)."""

    shape: Annotated[str, msgspec.Meta(pattern=f"^[{SHAPE_LETTERS}]$")]
    symbols: Annotated[str, msgspec.Meta(pattern=f"^[{''.join(C.SYMBOLS)}]{{{C.DICE}}}$")]

    def intent_text(self) -> str:
        return Intent.arrange(self.shape, self.symbols).text


class Write(wire.Frame, tag="write"):
    """``{"intent": "write", "turns": 1, "row": -1, "column": 5}``: write the arranged shape
    turned clockwise ``turns`` quarter turns, the top-left cell of its box at (row, column),
    which may lie off the sheet (cells off it hang over and are not written)."""

    turns: Annotated[int, msgspec.Meta(ge=0, le=C.TURNS - 1)]
    row: Annotated[int, msgspec.Meta(ge=LOW, le=HIGH)]
    column: Annotated[int, msgspec.Meta(ge=LOW, le=HIGH)]

    def intent_text(self) -> str:
        return Intent.write(self.turns, self.row, self.column).text


FRAMES = (Arrange, Write, wire.plain_frame("stop"))


# --- the pictures ----------------------------------------------------------------------
def signs(symbols: str) -> str:
    return " ".join(C.SYMBOL_SIGNS[s] for s in symbols)


def picture(shape: str, symbols: str = "") -> dict[str, Any]:
    """A tetromino as the partials draw it: its box, each cell's symbol (or ``#`` for a
    cell of a shape without symbols, ``""`` for no cell), row by row."""
    cells = shape_cells(shape)
    height = max(r for r, _ in cells) + 1
    width = max(c for _, c in cells) + 1
    grid = [""] * (width * height)
    for i, (r, c) in enumerate(cells):
        grid[r * width + c] = symbols[i] if symbols else "#"
    return {
        "name": shape,
        "width": width,
        "height": height,
        "cells": [{"symbol": s, "sign": C.SYMBOL_SIGNS.get(s, "")} for s in grid],
        "picture": C.TETROMINOES[shape],
    }


SHAPES = [picture(name) for name in C.TETROMINOES]


def sheet_cells(sheet: Sheet, fresh: frozenset[tuple[int, int]]) -> str:
    """The 49 cells: each symbol's class and sign, the preprinted centre ``pre``, the
    newest shape written ``new``, and the edges of every area that scores (``a`` and
    ``et`` ``eb`` ``el`` ``er`` where the area ends)."""
    area_of: dict[tuple[int, int], int] = {}
    for found in area_cells(sheet).values():
        for cells in found:
            key = len(area_of) + 1
            for cell in cells:
                area_of[cell] = key
    out = []
    rows = sheet.rows()
    for r in range(C.SIZE):
        for c in range(C.SIZE):
            symbol = rows[r][c]
            classes = ["c", symbol if symbol != C.EMPTY else "e"]
            if (r, c) == C.CENTRE:
                classes.append("pre")
            if (r, c) in fresh:
                classes.append("new")
            area = area_of.get((r, c))
            if area:
                classes.append("a")
                for edge, (dr, dc) in (("et", (-1, 0)), ("eb", (1, 0)), ("el", (0, -1)), ("er", (0, 1))):
                    if area_of.get((r + dr, c + dc)) != area:
                        classes.append(edge)
            sign = C.SYMBOL_SIGNS.get(symbol, "")
            out.append(f'<i class="{" ".join(classes)}">{sign}</i>')
    return "".join(out)


class TetrixLive(LiveGameBase):
    Game, Options, Intent = Game, Options, Intent
    TEMPLATE = TEMPLATE
    FRAMES = FRAMES
    RESULT_COLUMNS = ((gettext_lazy("Score"), "score"),)

    def __init__(self, setup: dict[str, Any]) -> None:
        super().__init__(setup)
        self.fresh: dict[int, frozenset[tuple[int, int]]] = {}  # by seat: the newest shape written

    def make_bot(self, level: str, rng: random.Random) -> TetrixBot:
        return TetrixBot(rng)

    def begin(self, now: float) -> None:
        super().begin(now)
        self.log_lines.extend(self._log_entries(self.game.opening))

    def has_left(self, seat: int) -> bool:
        return self.game is not None and self.game.players[seat].state == LEFT

    def player_stats(self, seat: int) -> dict[str, int]:
        return {"score": self.game.score(seat), "lines": 0, "eliminations": 0}

    # --- contexts ------------------------------------------------------------------------
    def _sheet_of(self, seat: int) -> Sheet:
        return self.game.players[seat].sheet if self.game else Sheet.for_seat(seat, self.options.solo)

    def _state(self, seat: int) -> str:
        game = self.game
        if game is None:
            return "waiting"
        player = game.players[seat]
        if player.state == LEFT:
            return "left"
        if game.finished:
            return "over"
        if game.phase == ARRANGING:
            return "arrange" if game.roller == seat else "wait"
        if player.cannot:
            return "cannot"
        return "wrote" if player.wrote else "write"

    def _status(self, seat: int) -> dict[str, Any]:
        sheet = self._sheet_of(seat)
        table = score_table(sheet)
        bar = sheet.bar()
        game = self.game
        return {
            "seat": seat,
            "name": self.name(seat),
            "state": self._state(seat),
            "score": sheet.total,
            "table": [
                {"sign": C.SYMBOL_SIGNS[s], "symbol": s, "name": gettext(C.SYMBOL_NAMES[s]), "areas": n, "cells": cells}
                for s, (n, cells) in table.items()
            ],
            "bar": [box == "X" for box in bar] if bar else None,
            "boxes": sheet.boxes_left,
            "verdict": self._verdict() if game is not None and game.finished else None,
        }

    def _sheet(self, seat: int) -> dict[str, Any]:
        sheet = self._sheet_of(seat)
        return {
            "seat": seat,
            "name": self.name(seat),
            "text": "".join(sheet.rows()),
            "may_hang": sheet.may_hang,
            "cells": sheet_cells(sheet, self.fresh.get(seat, frozenset())),
            "score": sheet.total,
        }

    def _verdict(self) -> str | None:
        verdict = self.game.verdict()
        return gettext(verdict) if verdict else None  # words.VERDICTS

    def _turn(self) -> dict[str, Any]:
        game = self.game
        context: dict[str, Any] = {
            "round": 0, "phase": "waiting", "roller": 0, "dice": "", "dice_signs": [],
            "shape": "", "symbols": "", "picture": None, "words": gettext("The game is about to begin."),
        }
        if game is None:
            return context
        if game.finished:
            context.update(phase="over", round=game.round, words=gettext("The game is over."))
            return context
        roller = game.roller or 0
        name = escape(self.name(roller))
        context.update(
            round=game.round,
            phase=game.phase,
            roller=roller,
            dice=game.dice,
            dice_signs=[{"symbol": s, "sign": C.SYMBOL_SIGNS[s], "name": gettext(C.SYMBOL_NAMES[s])} for s in game.dice],
        )
        if game.phase == ARRANGING:
            context["words"] = (
                gettext("Arrange your dice into a shape.") if self.options.solo
                else gettext("%(who)s arranges the dice into a shape.") % {"who": name}
            )
        elif game.phase == WRITING and game.shape:
            context.update(shape=game.shape, symbols=game.symbols, picture=picture(game.shape, game.symbols))
            waiting = len(game.waiting_for())
            context["words"] = (
                gettext("Write the %(shape)s on your sheet.") % {"shape": game.shape}
                if self.options.solo
                else gettext("Everyone writes %(who)s's %(shape)s (%(waiting)s to go).")
                % {"who": name, "shape": game.shape, "waiting": waiting}
            )
        return context

    def _clock_context(self, oob: bool, now: float | None = None) -> dict[str, Any]:
        game = self.game
        remaining = None
        if game is not None and not game.finished and game.deadline is not None:
            remaining = int(max(0.0, game.deadline - (now if now is not None else game.now)) * 1000)
        running = game is not None and not game.finished
        return {
            "remaining_ms": remaining,
            "round": game.round if running else 0,
            "phase": ("arrange" if game.phase == ARRANGING else "write") if running else "",
            "oob": oob,
        }

    # --- rendering -------------------------------------------------------------------------
    def _log_entries(self, events: list[Any]) -> list[Sentence]:
        entries = []
        for event in events:
            who = self.who(event.seat) if event.seat else ""
            kind = event.kind
            if kind == "rolled":
                entries.append(Sentence(
                    gettext_lazy("<b>Round %(round)s</b>: %(who)s rolled %(dice)s"),
                    round=event.round, who=who, dice=signs(event.dice),
                ))
            elif kind == "arranged":
                # "shape O", not "a O": no article that hangs on the letter (issue 49)
                words = {"who": who, "shape": event.shape, "symbols": signs(event.symbols)}
                if event.timeout:
                    entries.append(Sentence(gettext_lazy("%(who)s arranged shape %(shape)s: %(symbols)s (time)"), **words))
                else:
                    entries.append(Sentence(gettext_lazy("%(who)s arranged shape %(shape)s: %(symbols)s"), **words))
            elif kind == "wrote":
                entries.append(self._wrote_words(who, event))
            elif kind == "cannot_write":
                entries.append(
                    Sentence(gettext_lazy("%(who)s cannot write the shape: this is the last round"), who=who)
                )
            elif kind == "stopped":
                entries.append(Sentence(gettext_lazy("%(who)s stopped the game"), who=who))
            elif kind == "left":
                entries.append(Sentence(gettext_lazy("%(who)s left the game"), who=who))
            elif kind == "finished" and (whose := self._whose_sheet(self.who)) is not None:
                entries.append(whose)
        return entries

    def _whose_sheet(self, name: Any) -> Sentence | None:
        """Whose sheet ended the game, when it ended as Termination.FULL_BOARD ("The
        board is full.", the same words for every game): those who had no room for the
        round's shape, or else those who filled their sheet; in solo, no shape fits any
        more. ``name`` names a seat."""
        game = self.game
        if game.termination is not Termination.FULL_BOARD:
            return None
        if self.options.solo:
            return Sentence(gettext_lazy("No shape fits on your sheet any more."))
        active = [game.players[seat] for seat in game.active_seats()]
        cannot = [p.seat for p in active if p.cannot]
        seats = cannot or [p.seat for p in active if p.sheet.is_full()]
        if not seats:
            return None
        names = Sentence(
            ", ".join(f"%(n{i})s" for i in range(len(seats))),
            **{f"n{i}": name(seat) for i, seat in enumerate(seats)},
        )
        if cannot:
            text = ngettext_lazy(
                "%(names)s had no room for the %(shape)s.",
                "%(names)s had no room for the %(shape)s.",
                "count",
            )
            return Sentence(text, names=names, shape=game.shape, count=len(seats))
        text = ngettext_lazy(
            "%(names)s filled the whole sheet.", "%(names)s filled their whole sheets.", "count"
        )
        return Sentence(text, names=names, count=len(seats))

    @staticmethod
    def _wrote_words(who: Any, event: Any) -> Sentence:
        words = {"who": who, "hanging": event.hanging, "points": event.score}
        if event.timeout and event.hanging:
            text = ngettext_lazy(
                "the clock wrote for %(who)s, %(hanging)s hanging over: %(points)s point",
                "the clock wrote for %(who)s, %(hanging)s hanging over: %(points)s points",
                "points",
            )
        elif event.timeout:
            text = ngettext_lazy(
                "the clock wrote for %(who)s: %(points)s point", "the clock wrote for %(who)s: %(points)s points",
                "points",
            )
        elif event.hanging:
            text = ngettext_lazy(
                "%(who)s wrote it, %(hanging)s hanging over: %(points)s point",
                "%(who)s wrote it, %(hanging)s hanging over: %(points)s points",
                "points",
            )
        else:
            text = ngettext_lazy("%(who)s wrote it: %(points)s point", "%(who)s wrote it: %(points)s points", "points")
        return Sentence(text, **words)

    def render_events(self, events: list[Any]) -> str:
        if not events or self.game is None:
            return ""
        self.keep_events(events)
        return self.rerender_events(events)

    def keep_events(self, events: list[Any]) -> None:
        if not events or self.game is None:
            return
        for event in events:
            if event.kind == "wrote":
                self.fresh[event.seat] = frozenset((r, c) for r, c, _ in event.cells)
        self._keep_log(self._log_entries(events))

    def rerender_events(self, events: list[Any]) -> str:
        if not events or self.game is None:
            return ""
        kinds = {e.kind for e in events}
        sheets = [event.seat for event in events if event.kind == "wrote"]
        if kinds & {"left", "finished"}:
            sheets = list(self.seats)  # a sheet is drawn as left, or as the game left it
        parts = [self._region("turn", self._turn()), self._partial("clock", self._clock_context(oob=True))]
        for seat in self.seats:
            parts.append(self._region("status", self._status(seat)))
        for seat in sorted(set(sheets)):
            parts.append(self._region("sheet", self._sheet(seat)))
        parts.append(self._log_fragment("tx-log"))
        return "".join(parts)

    def ending_words(self, outcome) -> str:
        # What happened, in place of "The board is full." (the same words for every game,
        # untrue of a sheet with empty cells left): whose sheet had no room, or was full.
        # (A panel from the record alone, with no game to ask, says the general words.)
        whose = self._whose_sheet(self.name) if self.game is not None else None
        return str(whose) if whose is not None else termination(outcome.termination)

    def results_context(self) -> dict[str, Any]:
        game = self.game
        context: dict[str, Any] = {}
        if game is None or not self.options.solo:
            return context
        words = self.ending_words(game.outcome())
        if game.stopped:
            words = gettext("You stopped the game.")
        points = game.score(self.seats[0])
        context["termination"] = ngettext(
            "%(why)s %(points)s point: %(verdict)s", "%(why)s %(points)s points: %(verdict)s", points
        ) % {"why": words, "points": points, "verdict": self._verdict()}
        return context

    def render_full(self, now: float, start_at: float) -> str:
        context = {
            "seats": [
                {"status": self._status(seat), "sheet": self._sheet(seat), "colour": C.SEAT_COLOURS[seat]}
                for seat in self.seats
            ],
            "players": len(self.seats),
            "solo": self.options.solo,
            "turn": self._turn(),
            "shapes": SHAPES,
            "clock": self._clock_context(oob=False, now=now),
            "log": self.log_lines,
            "countdown_ms": int(max(0.0, start_at - now) * 1000) if now < start_at else None,
        }
        return self._partial("game", context)
