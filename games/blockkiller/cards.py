"""The 201 cards (RULES.md §4) and the attack a clear is worth.

A card is an id: block cards 0–89 (``BLOCK_KIND[id]`` is ``Z S J L T O I`` or ``M``,
the monomino), garbage cards 90–200 (``GARBAGE_KIND[id]`` names its holes, see
``constants.GARBAGE_KINDS``). A garbage card is one 10-wide row, as a bitmask with bit
``c`` set where column ``c`` is filled.
"""

from __future__ import annotations

from games.blockkiller import constants as C

BLOCK_KIND: dict[int, str] = {}
GARBAGE_KIND: dict[int, str] = {}
HOLES: dict[str, tuple[int, ...]] = {name: holes for name, holes, _ in C.GARBAGE_KINDS}


def _catalogue() -> None:
    card = 0
    for kind, count in C.BLOCK_COUNTS.items():
        for _ in range(count):
            BLOCK_KIND[card] = kind
            card += 1
    for name, _, count in C.GARBAGE_KINDS:
        for _ in range(count):
            GARBAGE_KIND[card] = name
            card += 1


_catalogue()
BLOCKS: tuple[int, ...] = tuple(BLOCK_KIND)
GARBAGE: tuple[int, ...] = tuple(GARBAGE_KIND)


def is_block(card: object) -> bool:
    return type(card) is int and card in BLOCK_KIND


def is_garbage(card: object) -> bool:
    return type(card) is int and card in GARBAGE_KIND


def garbage_row(card: int, flipped: bool = False) -> int:
    """The row a garbage card makes, mirrored left to right when ``flipped``."""
    holes = HOLES[GARBAGE_KIND[card]]
    if flipped:
        holes = tuple(C.WIDTH - 1 - c for c in holes)
    row = C.FULL_ROW
    for c in holes:
        row &= ~(1 << c)
    return row


def row_text(row: int, filled: str = "X") -> str:
    return "".join(filled if row >> c & 1 else "." for c in range(C.WIDTH))


def card_text(card: int) -> str:
    """A card as people read it: ``T`` for a block, the row (``X.XXXXXXXX``) for garbage."""
    return BLOCK_KIND[card] if card in BLOCK_KIND else row_text(garbage_row(card))


def combo_bonus(combo: int, no_mercy: bool = False) -> int:
    """RULES.md §4: the attack added by the ``combo``-th consecutive clearing piece."""
    table = C.NO_MERCY_COMBO_BONUS if no_mercy else C.COMBO_BONUS
    return table[min(combo, len(table) - 1)]


def clear_value(lines: int, spin: bool, no_mercy: bool = False) -> tuple[int, int]:
    """``(attack, offset)`` of one clear of ``lines`` lines, before combo and back-to-back.

    Normal rules: lines beyond 4 (non-spin) or 3 (spin) give no attack but as many offset
    points. No Mercy: no offset; lines beyond 5 add one attack each (our choice)."""
    if lines <= 0:
        return 0, 0
    if no_mercy:
        table = C.NO_MERCY_SPIN_ATTACK if spin else C.NO_MERCY_ATTACK
        top = max(table)
        return table[min(lines, top)] + max(0, lines - top), 0
    table = C.SPIN_ATTACK if spin else C.ATTACK
    top = max(table)
    return table[min(lines, top)], max(0, lines - top)


def is_special(lines: int, spin: bool) -> bool:
    """RULES.md §4: four or more lines, or a spin."""
    return lines > 0 and (spin or lines >= C.SPECIAL_LINES)


def clear_attack(lines: int, spin: bool, combo: int, back_to_back: bool, no_mercy: bool = False) -> tuple[int, int]:
    """``(attack, offset)`` of a clear with everything: table, combo bonus, back-to-back."""
    attack, offset = clear_value(lines, spin, no_mercy)
    if lines <= 0:
        return 0, 0
    attack += combo_bonus(combo, no_mercy)
    if back_to_back:
        attack += C.BACK_TO_BACK
    return attack, offset
