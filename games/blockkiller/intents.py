"""What a Block-Killer player can ask for: small values with a text form.

    draw            draw 1 block card and 1 garbage card (with ≥ 10 garbage cards in hand)
    draw:blocks     draw 2 block cards instead (with ≥ 10 garbage cards in hand)
    pass            end the turn without playing
    attack:3        start an attack on seat 3
    stack:95f+96,120   the garbage rows, lowest first: card ids, ``f`` flipped, two
                    checkerboard cards joined by ``+`` merge into one row (``stack:``: none)
    piece:12        block card 12 enters the field
    left right down rotate rotate_ccw   move the falling piece (SRS kicks; rotate turns clockwise)
    drop            down until it stops, and lock it there
    place:12:LLUD   card 12 enters, these keys (each must succeed), then drop and lock
    back            one step back: the falling piece to hand; with none, before any piece
                    is placed, the top garbage row to hand; with no garbage either, the
                    attack is withdrawn (back to choosing a target or passing)
    calloff         the whole attack called off (before any piece is placed): every card back
    cancel          as logged before ``back``: the falling piece back to hand; with none,
                    the attack is called off
    done            the play is finished: the attack (or the defence) is sent
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from games.blockkiller import constants as C
from games.core.protocol import IllegalIntent, require_known, split_intent

Row = tuple[tuple[int, bool], ...]  # one garbage row: one card, or two merged
SIMPLE = ("pass", "left", "right", "down", "rotate", "rotate_ccw", "drop", "cancel", "back", "calloff", "done")


def _bad(code: str, message: str) -> IllegalIntent:
    return IllegalIntent(code, message)


def _card(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or len(text) > 3 or not 0 <= int(text) < C.ALL_CARDS:
        raise _bad("BAD_CARD", f"A card is a number from 0 to {C.ALL_CARDS - 1}, not {text!r}.")
    return int(text)


def _stack(text: str) -> tuple[Row, ...]:
    if text == "":
        return ()
    rows = []
    for token in text.split(","):
        parts = token.split("+")
        if len(parts) > 2:
            raise _bad("BAD_STACK", f"A row merges at most two cards, not {token!r}.")
        row = []
        for part in parts:
            flipped = part.endswith("f")
            row.append((_card(part[:-1] if flipped else part), flipped))
        rows.append(tuple(row))
    return tuple(rows)


def _row_text(row: Row) -> str:
    return "+".join(f"{card}{'f' if flipped else ''}" for card, flipped in row)


@dataclass(frozen=True, slots=True)
class Intent:
    """``name`` and its argument: ``target`` (attack), ``stack`` (stack), ``card`` (piece,
    place), ``keys`` (place), ``blocks`` (draw)."""

    name: str
    target: int | None = None
    stack: tuple[Row, ...] = ()
    card: int | None = None
    keys: str = ""
    blocks: bool = False
    NAMES: ClassVar[tuple[str, ...]] = ("draw", "attack", "stack", "piece", "place", *SIMPLE)

    def __post_init__(self) -> None:
        require_known(self.name, self.NAMES)
        if self.name == "attack" and (type(self.target) is not int or not 1 <= self.target <= C.MAX_PLAYERS):
            raise _bad("BAD_TARGET", f"A target is a seat from 1 to {C.MAX_PLAYERS}, not {self.target!r}.")
        if self.name in ("piece", "place") and (type(self.card) is not int or not 0 <= self.card < C.ALL_CARDS):
            raise _bad("BAD_CARD", f"A card is a number from 0 to {C.ALL_CARDS - 1}, not {self.card!r}.")
        if self.name == "place" and (not isinstance(self.keys, str) or set(self.keys) - set("LRDUC")
                                      or len(self.keys) > 200):
            raise _bad("BAD_KEYS", f"Keys are letters L, R, D, U and C, not {self.keys!r}.")

    @property
    def text(self) -> str:
        if self.name == "draw":
            return "draw:blocks" if self.blocks else "draw"
        if self.name == "attack":
            return f"attack:{self.target}"
        if self.name == "stack":
            return "stack:" + ",".join(_row_text(row) for row in self.stack)
        if self.name == "piece":
            return f"piece:{self.card}"
        if self.name == "place":
            return f"place:{self.card}:{self.keys}"
        return self.name

    def __str__(self) -> str:
        return self.text

    @classmethod
    def parse(cls, text: str) -> Intent:
        """The inverse of ``str()``."""
        name, argument = split_intent(text)
        require_known(name, cls.NAMES)
        if name in SIMPLE:
            if argument is not None:
                raise _bad("BAD_ARGUMENT", f"{name} takes no argument.")
            return cls(name)
        if argument is None:
            if name == "draw":
                return cls(name)
            raise _bad("BAD_ARGUMENT", f"{name} needs an argument.")
        if name == "draw":
            if argument != "blocks":
                raise _bad("BAD_ARGUMENT", f"draw or draw:blocks, not draw:{argument}.")
            return cls(name, blocks=True)
        if name == "attack":
            if not (argument.isascii() and argument.isdigit()) or len(argument) > 2:
                raise _bad("BAD_TARGET", f"A target is a seat number, not {argument!r}.")
            return cls(name, target=int(argument))
        if name == "stack":
            return cls(name, stack=_stack(argument))
        if name == "piece":
            return cls(name, card=_card(argument))
        card, colon, keys = argument.partition(":")
        if not colon:
            raise _bad("BAD_ARGUMENT", "place:<card>:<keys>.")
        return cls(name, card=_card(card), keys=keys)
