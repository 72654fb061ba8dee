"""TetriWar played live: the engine, wrapped for the table host (games/host.py)."""

from __future__ import annotations

import random
from typing import Any

from django.template.loader import render_to_string

from games.core.protocol import IllegalIntent
from games.tetriwar import render
from games.tetriwar.ai import TetriWarAI
from games.tetriwar.constants import HIDDEN_ROWS, PAIRS
from games.tetriwar.engine import Game, Intent, Options


class TetriWarLive:
    def __init__(self, setup: dict[str, Any]) -> None:
        self.setup = setup
        self.options = Options.from_dict(setup["options"])
        self.seed = setup["seed"]
        self.players = {p["seat"]: p for p in setup["players"]}
        self.seats = sorted(self.players)
        self.game: Game | None = None
        self.start = 0.0
        # Computer players: each with its own random stream from the game's seed,
        # so a game with bots is as reproducible as one without.
        self.bots = {
            p["seat"]: TetriWarAI(p["bot"], random.Random(f"{self.seed}:bot:{p['seat']}"))
            for p in setup["players"]
            if p.get("bot")
        }
        self.bot_seats = sorted(self.bots)

    # --- the engine -----------------------------------------------------------------
    @property
    def finished(self) -> bool:
        return self.game is not None and self.game.finished

    def begin(self, now: float) -> None:
        self.start = now
        self.game = Game(self.options, self.seed, self.seats, now)

    def apply(self, seat: int, frame: dict[str, Any], now: float) -> list[Any]:
        assert self.game is not None
        intent = Intent.from_wire(frame)
        return self.game.apply(seat, intent, now)

    def advance(self, now: float) -> list[Any]:
        return self.game.advance(now) if self.game else []

    def forfeit(self, seat: int, now: float) -> list[Any]:
        if self.game is None:
            raise IllegalIntent("NOT_STARTED", "The game has not started yet.")
        return self.game.forfeit(seat, now)

    def bot_act(self, seat: int, now: float) -> tuple[list[Any], float]:
        """Let a bot press its next key, through the same engine call as a person's."""
        game = self.game
        if game is None or game.finished or game.players[seat].left:
            return [], 1.0
        events = game.advance(now)  # the bot looks at the board as it is now
        delay, intent = self.bots[seat].next_action(game, seat, now)
        if intent is not None:
            try:
                events.extend(game.apply(seat, intent, now))
            except IllegalIntent:
                pass  # a bot's mistake is never a player's problem
        return events, delay

    def has_left(self, seat: int) -> bool:
        return self.game is not None and self.game.players[seat].left

    def next_deadline(self) -> float | None:
        return self.game.next_deadline() if self.game else None

    def outcome(self) -> dict[str, Any]:
        game = self.game
        assert game is not None
        return {
            "standings": [
                {
                    "place": s.place, "seats": list(s.seats), "score": s.score, "lines": s.lines,
                    "eliminations": s.eliminations, "shared": s.shared, "forfeited": s.forfeited,
                }
                for s in game.results()
            ],
            "players": {
                str(seat): {"score": p.score, "lines": p.lines, "eliminations": p.eliminations}
                for seat, p in game.players.items()
            },
            "log": [[round(t - self.start, 4), seat, text] for t, seat, text in game.log],
            "end": round(game.now - self.start, 4),
        }

    # --- rendering ------------------------------------------------------------------
    def _piece_fragments(self, seat: int) -> str:
        p = self.game.players[seat]
        if not p.kind or p.left:
            return render.piece(seat, None, 0, 0, 0, ghost=True) + render.piece(seat, None, 0, 0, 0)
        # The ghost first, so the piece is drawn over it where they overlap.
        return render.piece(seat, p.kind, p.rotation, p.x, p.ghost_y() - HIDDEN_ROWS, ghost=True) + render.piece(
            seat, p.kind, p.rotation, p.x, p.y - HIDDEN_ROWS
        )

    def render_events(self, events: list[Any]) -> str:
        """One fragment per changed region, each rendered once."""
        if not events or self.game is None:
            return ""
        game = self.game
        parts: list[str] = []
        done: set[tuple[int, str]] = set()
        rows: dict[int, set[int]] = {}
        for event in events:
            kind, seat = event.kind, event.seat
            if kind == "field":
                rows.setdefault(seat, set()).update(event.rows)
                continue
            if (seat, kind) in done:
                continue
            done.add((seat, kind))
            if kind == "finished":
                continue
            p = game.players[seat]
            if kind == "piece":
                parts.append(self._piece_fragments(seat))
            elif kind == "score":
                parts.append(render.score(seat, p.score, p.level, p.lines, p.eliminations))
            elif kind == "next":
                parts.append(render.next_pieces(seat, p.bag.peek(3)))
            elif kind == "store":
                parts.append(render.store(seat, tuple(p.store)))
            elif kind == "feed":
                parts.append(render.feed(seat, tuple(p.feed)))
            elif kind == "control":
                parts.append(render.control(seat, event.reversed))
            elif kind == "eliminated":
                parts.append(render.status(seat, f"Topped out! ({p.eliminations})", "flash"))
            elif kind == "left":
                parts.append(render.status(seat, "Left the game", "gone"))
                parts.append(self._piece_fragments(seat))
        for seat, changed in rows.items():
            visible = game.players[seat].field.visible()
            parts.extend(render.row(seat, r, visible[r]) for r in sorted(changed))
            if (seat, "piece") not in done:
                parts.append(self._piece_fragments(seat))
        return "".join(parts)

    def _board_context(self, seat: int) -> dict[str, Any]:
        info = self.players[seat]
        name = info["name"] + (" (guest)" if info.get("is_guest") else "")
        context: dict[str, Any] = {"seat": seat, "name": name}
        if self.game is None:
            context.update(
                rows="".join(render.row(seat, r, "." * 10, oob=False) for r in range(20)),
                piece=render.piece(seat, None, 0, 0, 0, ghost=True, oob=False)
                + render.piece(seat, None, 0, 0, 0, oob=False),
                score=render.score(seat, 0, self.options.start_level, 0, 0, oob=False),
                next=render.next_pieces(seat, (), oob=False),
                store=render.store(seat, (), oob=False),
                feed=render.feed(seat, (), oob=False),
                control=render.control(seat, False, oob=False),
                status=render.status(seat, "", oob=False),
            )
            return context
        p = self.game.players[seat]
        visible = p.field.visible()
        pieces = self._piece_fragments(seat).replace(' hx-swap-oob="true"', "")
        context.update(
            rows="".join(render.row(seat, r, visible[r], oob=False) for r in range(20)),
            piece=pieces,
            score=render.score(seat, p.score, p.level, p.lines, p.eliminations, oob=False),
            next=render.next_pieces(seat, p.bag.peek(3), oob=False),
            store=render.store(seat, tuple(p.store), oob=False),
            feed=render.feed(seat, tuple(p.feed), oob=False),
            control=render.control(seat, p.reversed_until is not None and p.reversed_until > self.game.now, oob=False),
            status=render.status(seat, "Left the game" if p.left else "", "gone" if p.left else "", oob=False),
        )
        return context

    def _groups(self) -> list[dict[str, Any]]:
        boards = {seat: self._board_context(seat) for seat in self.seats}
        if self.options.pairs:
            return [
                {"label": f"Pair {'AB'[i]} · seats {a} + {b}", "boards": [boards[a], boards[b]]}
                for i, (a, b) in enumerate(PAIRS)
            ]
        return [{"label": "", "boards": [boards[s] for s in self.seats]}]

    def render_full(self, now: float, start_at: float) -> str:
        """The whole game area: before ``start_at`` a countdown, then the clock."""
        countdown_ms = remaining_ms = None
        if now < start_at or self.game is None:
            countdown_ms = int(max(0.0, start_at - now) * 1000)
        else:
            remaining_ms = int(max(0.0, self.game.end - now) * 1000)
        return render_to_string(
            "games/tetriwar/partials.html#game",
            {
                "groups": self._groups(),
                "remaining_ms": remaining_ms,
                "countdown_ms": countdown_ms,
                "finished": self.finished,
                "bombs": self.options.bombs,
            },
        )

    def render_results(self, game_row: Any) -> str:
        standings = self.outcome()["standings"]
        by_seat = {}
        if game_row is not None:
            by_seat = {p.seat: p for p in game_row.participations.all()}
        rows = []
        for s in standings:
            names = [
                self.players[seat]["name"] + (" (guest)" if self.players[seat].get("is_guest") else "")
                for seat in s["seats"]
            ]
            parts = [by_seat[seat] for seat in s["seats"] if seat in by_seat]
            rows.append(
                {
                    **s,
                    "names": " + ".join(names),
                    "points": sum(p.points for p in parts),
                    "chips": sum(p.chips_delta for p in parts),
                }
            )
        return render_to_string(
            "games/tetriwar/partials.html#results",
            {"rows": rows, "game": game_row, "pairs": self.options.pairs, "oob": True},
        ) + render_to_string("games/tetriwar/partials.html#clock", {"over": True, "oob": True})

    @classmethod
    def render_aborted(cls, reason: str) -> str:
        return render_to_string(
            "games/tetriwar/partials.html#results", {"aborted": reason, "oob": True}
        ) + render_to_string("games/tetriwar/partials.html#clock", {"over": True, "oob": True})
