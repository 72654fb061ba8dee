"""Viertris played live: the engine, wrapped for the table host (games/host.py).

A move is shown as a short film: the piece dropping, then every cascade step with
its runs marked and the pieces above settling, so players can follow why points
came. The frames travel in one fragment; the page plays them (or shows the last one
at once where motion is reduced or scripts are off).
"""

from __future__ import annotations

import random
from typing import Annotated, Any

import msgspec
from django.template.loader import render_to_string
from django.utils.translation import gettext_lazy

from games import wire
from games.core.errors import IllegalIntent
from games.live import LiveGameBase
from games.viertris import constants as C
from games.viertris.bot import ViertrisBot
from games.viertris.engine import Game, Intent, Options
from games.words import GUEST_NAME, Sentence

TEMPLATE = "games/viertris/partials.html"
# The engine knows seats by number; a player out of turn reads who is to move by name.
NOT_YOUR_TURN = gettext_lazy("It is not your turn: %(name)s is to move.")


def board_html(rows: list[str], *, marked: set = frozenset(), dropped=None) -> str:
    """The 8 × 6 board as cells; ``marked`` cells are in a scoring run."""
    out = []
    for r, row in enumerate(rows):
        for c, char in enumerate(row):
            cls = "vc" if char == "." else f"vc p{char}"
            if (r, c) in marked:
                cls += " run"
            if dropped == (r, c):
                cls += " drop"
            out.append(f'<i class="{cls}"></i>')
    return "".join(out)


class Drop(wire.Frame, tag="drop"):
    """``{"intent": "drop", "column": 3}``: drop the next piece into a column."""

    column: Annotated[int, msgspec.Meta(ge=0, le=C.COLUMNS - 1)]

    def intent_text(self) -> str:
        return f"drop:{self.column}"


class ViertrisLive(LiveGameBase):
    Game, Options, Intent = Game, Options, Intent
    TEMPLATE = TEMPLATE
    FRAMES = (Drop,)
    RESULT_COLUMNS = ((gettext_lazy("Score"), "score"),)

    def __init__(self, setup: dict[str, Any]) -> None:
        super().__init__(setup)
        self._before: list[str] | None = None  # the board before the move being shown

    def make_bot(self, level: str, rng: random.Random) -> ViertrisBot:
        return ViertrisBot(rng)

    def _remember(self) -> None:
        self._before = list(self.game.board()) if self.game else None

    def apply(self, seat: int, intent: str, now: float, at: int | None = None) -> list[Any]:
        self._remember()
        events = self.game.advance(now)
        try:
            return events + super().apply(seat, intent, now)
        except IllegalIntent as err:
            turn = self.game.turn
            if err.code != "NOT_YOUR_TURN" or turn not in self.players:
                raise
            raise IllegalIntent(err.code, Sentence(NOT_YOUR_TURN, name=self._named(turn))) from None

    def _named(self, seat: int) -> Any:
        """A seat's name as words to put in a refusal (escaped where it is shown, with
        the refusal): a guest's "(guest)" in the language it is shown in."""
        info = self.players[seat]
        if info.get("is_guest") and not info.get("bot"):
            return Sentence(GUEST_NAME, name=info["name"])
        return info["name"]

    def advance(self, now: float) -> list[Any]:
        self._remember()
        return super().advance(now)

    def has_left(self, seat: int) -> bool:
        return self.game is not None and seat in self.game.left

    def player_stats(self, seat: int) -> dict[str, int]:
        return {"score": self.game.scores[seat], "lines": 0, "eliminations": 0}

    # --- rendering ------------------------------------------------------------------
    def _frames(self, events: list[Any]) -> list[str]:
        """The board before, during and after a move's cascade, one frame a step."""
        board = [list(row) for row in (self._before or self.game.board())]
        frames = []
        for event in events:
            kind = event.kind
            if kind == "dropped":
                board[event.row][event.column] = str(event.seat)
                frames.append(board_html(["".join(r) for r in board], dropped=(event.row, event.column)))
            elif kind == "cascade":
                marked = {tuple(cell) for run in event.runs for cell in run[3]}
                frames.append(board_html(["".join(r) for r in board], marked=marked))
                for r, c in event.removed:
                    board[r][c] = "."
            elif kind == "settled":
                snapshot = [row[:] for row in board]
                for (r0, c0), _ in event.moves:
                    board[r0][c0] = "."
                for (r0, c0), (r1, c1) in event.moves:
                    board[r1][c1] = snapshot[r0][c0]
        return frames

    def _log_entries(self, events: list[Any]) -> list[Sentence]:
        entries = []
        for event in events:
            if event.kind == "dropped":
                entries.append(Sentence(
                    gettext_lazy("%(who)s: column %(column)s"), who=self.who(event.seat), column=event.column + 1
                ))
            elif event.kind == "cascade":
                for owner, base, points, cells in event.runs:
                    entries.append(Sentence(
                        gettext_lazy("run of %(length)s: %(base)s × %(step)s = +%(points)s for %(who)s"),
                        prefix="&nbsp;&nbsp;",
                        length=len(cells), base=base, step=event.step, points=points, who=self.who(owner),
                    ))
        return entries

    def render_events(self, events: list[Any]) -> str:
        if not events or self.game is None:
            return ""
        self.keep_events(events)
        return self.rerender_events(events)

    def keep_events(self, events: list[Any]) -> None:
        if events and self.game is not None:
            self._keep_log(self._log_entries(events) if any(e.kind == "dropped" for e in events) else [])

    def rerender_events(self, events: list[Any]) -> str:
        if not events or self.game is None:
            return ""
        kinds = {e.kind for e in events}
        parts = []
        if "dropped" in kinds:
            frames = self._frames(events)
            parts.append(render_to_string(TEMPLATE + "#board", {
                "frames": frames, "final": board_html(self.game.board()), "oob": True,
            }))
            parts.append(self._log_fragment("vt-log"))
        if kinds & {"score", "turn", "dropped", "left"}:
            parts.append(render_to_string(TEMPLATE + "#scores", self._scores_context(oob=True)))
        if "turn" in kinds or "dropped" in kinds:
            parts.append(render_to_string(TEMPLATE + "#clock", self._clock_context(oob=True)))
        return "".join(parts)

    def _scores_context(self, oob: bool) -> dict[str, Any]:
        game = self.game
        rows = []
        for seat in self.seats:
            rows.append({
                "seat": seat,
                "name": self.name(seat),
                "score": game.scores[seat] if game else 0,
                "turn": bool(game and not game.finished and game.turn == seat),
                "left": bool(game and seat in game.left),
            })
        return {"rows": rows, "oob": oob}

    def _clock_context(self, oob: bool, now: float | None = None) -> dict[str, Any]:
        game = self.game
        remaining = None
        if game is not None and not game.finished and game.deadline is not None:
            remaining = int(max(0.0, game.deadline - (now if now is not None else game.now)) * 1000)
        return {"remaining_ms": remaining, "turn_name": self.name(game.turn) if game and not game.finished else "",
                "oob": oob}

    def render_full(self, now: float, start_at: float) -> str:
        rows = self.game.board() if self.game else ["." * C.COLUMNS] * C.ROWS
        context = {
            "final": board_html(rows),
            "frames": [],
            "columns": range(C.COLUMNS),
            "log": self.log_lines,
            "countdown_ms": int(max(0.0, start_at - now) * 1000) if now < start_at else None,
            "scores_rows": self._scores_context(oob=False)["rows"],
        }
        context["clock"] = self._clock_context(oob=False, now=now)
        return render_to_string(TEMPLATE + "#game", context)
