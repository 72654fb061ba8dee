"""Third Option played live: the engine, wrapped for the table host (games/host.py).

Every seat's section holds its status, its own card (a third option or the free square)
and its 9 × 9 grid; the page shows the viewer's own grid big and the others small
(static/css/thirdoption.css, keyed on the page's ``data-me``). Each grid carries its
cells as text (``data-grid``), from which the page's script shows, under the pointer,
where the chosen card may go. A placement is one frame; the round clock counts down in
the browser from the server's remaining time.

A third option is its player's alone: the table sees that one was dealt, and only its
player's sockets get the card itself (``private_fragments``, and ``render_private``
after a resync, which the host sends to that seat's sockets alone).
"""

from __future__ import annotations

import random
from typing import Annotated, Any

import msgspec
from django.utils.translation import gettext_lazy, ngettext_lazy

from games import wire
from games.live import LiveGameBase
from games.thirdoption import constants as C
from games.thirdoption.board import Grid, picture, shape
from games.thirdoption.bot import ThirdOptionBot
from games.thirdoption.engine import FREE, LEFT, OUT, THIRD, Game, Intent, Options
from games.thirdoption.intents import MAX_ROUND, OWN_CARD
from games.words import Sentence

TEMPLATE = "games/thirdoption/partials.html"
DOT_INDEX = C.DOT[0] * C.SIZE + C.DOT[1]

class Place(wire.Frame, tag="place"):
    """``{"intent": "place", "round": 3, "card": 1, "turns": 2, "mirrored": true,
    "row": 4, "column": 0}``: place a card (0, 1: revealed; 2: one's own), mirrored
    left to right if asked, then turned clockwise, its box's top-left cell at (row, column)."""

    round: Annotated[int, msgspec.Meta(ge=1, le=MAX_ROUND)]
    card: Annotated[int, msgspec.Meta(ge=0, le=OWN_CARD)]
    row: Annotated[int, msgspec.Meta(ge=0, le=C.SIZE - 1)]
    column: Annotated[int, msgspec.Meta(ge=0, le=C.SIZE - 1)]
    turns: Annotated[int, msgspec.Meta(ge=0, le=3)] = 0
    mirrored: bool = False

    def intent_text(self) -> str:
        return Intent(self.round, self.card, self.turns, self.mirrored, self.row, self.column).text


def card_context(name: str, card: int) -> dict[str, Any]:
    """A card as the partials draw it: its picture's cells, row by row."""
    rows = picture(name).split("/")
    return {
        "card": card,
        "name": name,
        "size": shape(name).size,
        "picture": "/".join(rows),
        "width": len(rows[0]),
        "height": len(rows),
        "cells": [char == "#" for row in rows for char in row],
    }


def board_cells(grid: Grid, fresh: bool) -> str:
    """The 81 cells: each piece's cells classed by its size (``c5``; the starting shape
    ``st``), the newest piece ``new`` while its round lasts, the centre cell ``dot``."""
    owners = grid.owners()
    classes = []
    for name, _ in grid.pieces:
        classes.append("st" if name.startswith("S") else f"c{shape(name).size}" if name in C.SHAPES else "c0")
    last = len(grid.pieces) - 1
    out = []
    for index, owner in enumerate(owners):
        cls = "tc" if owner < 0 else f"tc {classes[owner]}"
        if fresh and owner == last:
            cls += " new"
        if index == DOT_INDEX:
            cls += " dot"
        out.append(f'<i class="{cls}"></i>')
    return "".join(out)


class ThirdOptionLive(LiveGameBase):
    Game, Options, Intent = Game, Options, Intent
    TEMPLATE = TEMPLATE
    FRAMES = (Place,)
    RESULT_COLUMNS = ((gettext_lazy("Empty squares"), "score"),)

    def make_bot(self, level: str, rng: random.Random) -> ThirdOptionBot:
        return ThirdOptionBot(rng)

    def begin(self, now: float) -> None:
        super().begin(now)
        self.log_lines.extend(self._log_entries(self.game.opening))

    def has_left(self, seat: int) -> bool:
        return self.game is not None and self.game.players[seat].state == LEFT

    def player_stats(self, seat: int) -> dict[str, int]:
        player = self.game.players[seat]
        return {"score": player.grid.empty, "lines": 0, "eliminations": int(player.out_round is not None)}

    # --- contexts ------------------------------------------------------------------------
    def _state(self, seat: int) -> str:
        game = self.game
        if game is None:
            return "waiting"
        player = game.players[seat]
        if player.state == LEFT:
            return "left"
        if game.finished:
            return "over"
        if player.state == OUT:
            return "free" if player.must_place else "out"
        if player.placed:
            return "placed"
        return "third" if player.own_kind == THIRD else "place"

    def _grid(self, seat: int) -> Grid:
        return self.game.players[seat].grid if self.game else Grid.for_seat(seat)

    def _status(self, seat: int) -> dict[str, Any]:
        grid = self._grid(seat)
        return {
            "seat": seat,
            "name": self.name(seat),
            "state": self._state(seat),
            "empty": grid.empty,
            "out": bool(self.game and self.game.players[seat].out_round is not None),
        }

    def _board(self, seat: int) -> dict[str, Any]:
        game, grid = self.game, self._grid(seat)
        player = game.players[seat] if game else None
        fresh = bool(
            player and not game.finished and player.placed and player.state != LEFT and len(grid.pieces) > 1
        )
        return {
            "seat": seat,
            "name": self.name(seat),
            "grid": "".join(grid.rows()),
            "cells": board_cells(grid, fresh),
            "empty": grid.empty,
        }

    def _mine(self, seat: int, private: bool = False) -> dict[str, Any]:
        """The seat's own card. ``private``: as its player alone may see it."""
        player = self.game.players[seat] if self.game else None
        context: dict[str, Any] = {"seat": seat, "kind": None, "card": None}
        if player is None or self.game.finished or not player.must_place or player.own is None:
            return context
        context["kind"] = player.own_kind
        if player.own_kind == FREE or private:
            context["card"] = card_context(player.own, OWN_CARD)
        return context

    def _round(self) -> dict[str, Any]:
        game = self.game
        running = game is not None and not game.finished
        return {
            "round": game.round if running else 0,
            "cards": [card_context(name, i) for i, name in enumerate(game.cards)] if running else [],
            "deck": len(game.deck) if game else 0,
        }

    def _clock_context(self, oob: bool, now: float | None = None) -> dict[str, Any]:
        game = self.game
        remaining = None
        if game is not None and not game.finished and game.deadline is not None:
            remaining = int(max(0.0, game.deadline - (now if now is not None else game.now)) * 1000)
        return {
            "remaining_ms": remaining,
            "round": game.round if game and not game.finished else 0,
            "oob": oob,
        }

    # --- rendering -------------------------------------------------------------------------
    def _log_entries(self, events: list[Any]) -> list[Sentence]:
        entries = []
        for event in events:
            who = self.who(event.seat) if event.seat else ""
            if event.kind == "round":
                cards = event.cards[0] if len(event.cards) == 1 else Sentence(
                    gettext_lazy("%(first)s and %(last)s"), first=", ".join(event.cards[:-1]), last=event.cards[-1]
                )
                entries.append(Sentence(
                    ngettext_lazy(
                        "Round %(round)s: %(cards)s (%(count)s card left)",
                        "Round %(round)s: %(cards)s (%(count)s cards left)",
                        "count",
                    ),
                    round=event.round, cards=cards, count=event.deck,
                ))
            elif event.kind == "third":
                if event.fits:
                    entries.append(Sentence(gettext_lazy("%(who)s gets a third option"), who=who))
                else:
                    entries.append(Sentence(gettext_lazy("%(who)s gets a third option, which does not fit"), who=who))
            elif event.kind == "out":
                if event.deck_empty:  # no third option was dealt: say why they are out
                    entries.append(Sentence(gettext_lazy("%(who)s gets no third option: the deck is empty"), who=who))
                if event.free_square:
                    entries.append(Sentence(gettext_lazy("%(who)s is out: a free square to place"), who=who))
                else:
                    entries.append(Sentence(gettext_lazy("%(who)s is out"), who=who))
            elif event.kind == "placed" and event.timeout:
                entries.append(Sentence(gettext_lazy("%(who)s: the clock placed %(card)s"), who=who, card=event.card))
            elif event.kind == "placed" and self.game and self.game.players[event.seat].grid.is_full():
                entries.append(Sentence(gettext_lazy("%(who)s filled the grid!"), who=who))
            elif event.kind == "left":
                entries.append(Sentence(gettext_lazy("%(who)s left the game"), who=who))
        return entries

    def render_events(self, events: list[Any]) -> str:
        if not events or self.game is None:
            return ""
        self.keep_events(events)
        return self.rerender_events(events)

    def keep_events(self, events: list[Any]) -> None:
        if events and self.game is not None:
            self._keep_log(self._log_entries(events))

    def rerender_events(self, events: list[Any]) -> str:
        if not events or self.game is None:
            return ""
        kinds = {e.kind for e in events}
        everyone = bool(kinds & {"round", "finished"})
        seats = self.seats if everyone else sorted({e.seat for e in events if e.seat})
        boards = sorted(
            {e.seat for e in events if e.kind in ("placed", "round", "left", "finished") and e.seat}
        )
        if everyone:
            boards = self.seats  # a new round takes every grid's newest piece off its mark
        parts = []
        if "round" in kinds or "finished" in kinds:
            parts.append(self._region("round", self._round()))
            parts.append(self._partial("clock", self._clock_context(oob=True)))
        for seat in seats:
            parts.append(self._region("status", self._status(seat)))
            parts.append(self._region("mine", self._mine(seat)))
        for seat in boards:
            parts.append(self._region("board", self._board(seat)))
        parts.append(self._log_fragment("to-log"))
        return "".join(parts)

    def move_words(self, seat: int, intent: str, events: list[Any], logged: list[Sentence]) -> list[Sentence]:
        """A placement, which the log leaves to the boards: the card, and where the top
        left of its box went (rows and columns counted from 1, as people count); then what
        the log says of it (a new round, third options, players out)."""
        words = []
        for event in events:
            if event.kind == "placed" and event.seat == seat and not event.timeout:  # the clock's are logged
                words.append(Sentence(
                    gettext_lazy("%(who)s places %(card)s at row %(row)s, column %(column)s"),
                    who=self.who(seat), card=event.card,
                    row=min(r for r, _ in event.cells) + 1, column=min(c for _, c in event.cells) + 1,
                ))
        return [*words, *logged]

    def private_fragments(self, events: list[Any]) -> dict[int, str]:
        """What only one seat may see, by seat: the card of each third option dealt."""
        if self.game is None:
            return {}
        return {e.seat: self.render_private(e.seat) for e in events if e.kind == "third" and e.fits}

    def render_private(self, seat: int) -> str:
        """The seat's own card as its player alone sees it (a resync of their page)."""
        return self._region("mine", self._mine(seat, private=True))

    def render_full(self, now: float, start_at: float) -> str:
        context = {
            "seats": [
                {"status": self._status(seat), "mine": self._mine(seat), "board": self._board(seat)}
                for seat in self.seats
            ],
            "players": len(self.seats),
            "round": self._round(),
            "clock": self._clock_context(oob=False, now=now),
            "log": self.log_lines,
            "countdown_ms": int(max(0.0, start_at - now) * 1000) if now < start_at else None,
        }
        return self._partial("game", context)
