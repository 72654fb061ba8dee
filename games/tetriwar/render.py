"""Engine state -> HTML fragments for TetriWar's live boards.

Each fragment is an element with a stable id that htmx swaps out of band
(``board-2-row-17``, ``piece-2``, ``score-2`` …). The small hot fragments — a field
row, the falling piece, the ghost, a score line — are built here as strings, once
per change, because they are sent many times a second; the page layout around them
is in ``templates/games/tetriwar/``, which calls these same functions, so the page
and the pushes share one source of markup.

The falling piece travels as its kind, rotation and box position only
(``<div id="piece-2" class="pc T r1" style="--x:3;--y:17">``); CSS built from the
engine's own shape table (``pieces_css``) places its four cells.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache
from html import escape

from games.core.srs import STATES
from games.tetriwar import constants as C


def gettext_noop(text: str) -> str:
    """Marks English words for translation (``makemessages`` reads this name)."""
    return text


# The words people read, in the active language: the site installs Django's gettext
# (games/tetriwar/live.py, ``use_translator``), as this module imports nothing of
# Django. Until then, and in engine tests, English.
gettext: Callable[[str], str] = gettext_noop


def no_language() -> None:
    """The active language's code before a translator is installed: none, English."""
    return None


# The active language's code, installed with the translator.
language: Callable[[], str | None] = no_language


# The words of the score box, marked for makemessages, which does not read the
# f-strings that use them.
STAT_WORDS = (gettext_noop("Score"), gettext_noop("Level"), gettext_noop("Lines"), gettext_noop("Out"))
# The score box's four words by language: a score changes with every piece that
# locks, and each of Django's gettext calls looks the language up again.
_stat_words: dict[str | None, tuple[str, ...]] = {}


def use_translator(translate: Callable[[str], str], active_language: Callable[[], str | None] = no_language) -> None:
    """Speak through ``translate`` in the language ``active_language`` names."""
    global gettext, language
    gettext, language = translate, active_language
    _stat_words.clear()


def stat_words() -> tuple[str, ...]:
    """The score box's words in the active language."""
    code = language()
    words = _stat_words.get(code)
    if words is None:
        if len(_stat_words) >= 64:  # the site has a handful of languages; never a heap of them
            _stat_words.clear()
        words = _stat_words[code] = tuple(gettext(word) for word in STAT_WORDS)
    return words


BOMB_LABELS = {
    C.ADD_LINE: gettext_noop("Add line"),
    C.EARTHQUAKE: gettext_noop("Earthquake"),
    C.REMOVE_BOMBS: gettext_noop("Remove bombs"),
    C.DRILL: gettext_noop("Drill"),
    C.LACK_OF_CONTROL: gettext_noop("Lack of control"),
    C.GRAVITY_BOMB: gettext_noop("Gravity"),
    C.REMOVE_LINE: gettext_noop("Remove line"),
    C.DEMOLITION: gettext_noop("Demolition"),
}
# What each bomb does (RULES.md §1), in a bomb's tooltip; the help panel's legend
# (templates/games/tetriwar/partials.html, bomb_legend) says the same.
BOMB_HELP = {
    C.ADD_LINE: gettext_noop("A garbage row with one hole enters at the bottom; everything moves up one."),
    C.EARTHQUAKE: gettext_noop("Every row slides sideways by −2 to +2 columns, wrapping around."),
    C.REMOVE_BOMBS: gettext_noop("Every bomb in the field becomes a plain block, and the store is emptied."),
    C.DRILL: gettext_noop("10 random blocks of the field disappear."),
    C.LACK_OF_CONTROL: gettext_noop("For 5 seconds left and right are swapped."),
    C.GRAVITY_BOMB: gettext_noop("Every block falls straight down its column."),
    C.REMOVE_LINE: gettext_noop("The bottom row is removed; everything moves down one."),
    C.DEMOLITION: gettext_noop("The bottom four rows are removed; everything moves down four."),
}
# What a bomb cell shows: a letter, so bombs differ by more than colour.
BOMB_GLYPHS = {
    C.ADD_LINE: "A",
    C.EARTHQUAKE: "Q",
    C.REMOVE_BOMBS: "B",
    C.DRILL: "D",
    C.LACK_OF_CONTROL: "K",
    C.GRAVITY_BOMB: "G",
    C.REMOVE_LINE: "R",
    C.DEMOLITION: "N",
}


def bomb_colour(bomb: str) -> str:
    return "red" if bomb in C.RED_BOMBS else "green"


@lru_cache(maxsize=4096)
def row_cells(row: str) -> str:
    """The ten cells of a field row. Cached: most rows repeat (empty, garbage …)."""
    out = []
    for char in row:
        if char == C.EMPTY:
            out.append("<i></i>")
        elif char in C.BOMB_OF_CHAR:
            bomb = C.BOMB_OF_CHAR[char]
            out.append(f'<i class="bm {bomb_colour(bomb)}" data-g="{BOMB_GLYPHS[bomb]}"></i>')
        else:
            out.append(f"<i class={char}></i>")
    return "".join(out)


def row(seat: int, index: int, cells: str, oob: bool = True) -> str:
    swap = ' hx-swap-oob="true"' if oob else ""
    return f'<div id="board-{seat}-row-{index}" class="fr"{swap}>{row_cells(cells)}</div>'


def piece(
    seat: int, kind: str | None, rotation: int, x: int, y: int, ghost: bool = False, oob: bool = True
) -> str:
    """The falling piece (or its ghost): y is the visible row of its box's top."""
    name = "ghost" if ghost else "piece"
    swap = ' hx-swap-oob="true"' if oob else ""
    if kind is None:
        return f'<div id="{name}-{seat}" class="pc none"{swap}></div>'
    extra = " gh" if ghost else ""
    return (
        f'<div id="{name}-{seat}" class="pc{extra} {kind} r{rotation}" style="--x:{x};--y:{y}"{swap}>'
        "<i></i><i></i><i></i><i></i></div>"
    )


def score(seat: int, score: int, level: int, lines: int, eliminations: int, oob: bool = True) -> str:
    swap = ' hx-swap-oob="true"' if oob else ""
    words = stat_words()
    return (
        f'<dl id="score-{seat}" class="stats"{swap}>'
        f"<div><dt>{words[0]}</dt><dd>{score}</dd></div><div><dt>{words[1]}</dt><dd>{level}</dd></div>"
        f"<div><dt>{words[2]}</dt><dd>{lines}</dd></div>"
        f"<div><dt>{words[3]}</dt><dd>{eliminations}</dd></div></dl>"
    )


def next_pieces(seat: int, kinds: tuple[str, ...], oob: bool = True) -> str:
    swap = ' hx-swap-oob="true"' if oob else ""
    items = "".join(f'<div class="pc nx {k} r0"><i></i><i></i><i></i><i></i></div>' for k in kinds)
    label = escape(gettext("Next: %(pieces)s") % {"pieces": " ".join(kinds)})
    return f'<div id="next-{seat}" class="next" aria-label="{label}"{swap}>{items}</div>'


# A bomb's colour and side, in its tooltip.
BOMB_SIDES = {"red": gettext_noop("red, attack"), "green": gettext_noop("green, defence")}


def bomb_chip(bomb: str) -> str:
    """A bomb in a store; its tooltip says what it does."""
    words = {
        "bomb": gettext(BOMB_LABELS[bomb]),
        "side": gettext(BOMB_SIDES[bomb_colour(bomb)]),
        "effect": gettext(BOMB_HELP[bomb]),
    }
    return _chip(bomb, gettext("%(bomb)s (%(side)s): %(effect)s") % words, "")


def received_chip(bomb: str, from_seat: int, key: int, sender: str) -> str:
    """A received bomb, marked with who dropped it (RULES.md §1): the sender's board
    label (their seat, as every board is labelled) for whoever watches the board, and
    on the receiver's own board the key that receiver presses for the sender, which
    counts from the receiver's seat (static/css/tetriwar.css shows one of the two);
    the tooltip names the sender and says both."""
    words = {
        "bomb": gettext(BOMB_LABELS[bomb]),
        "side": gettext(BOMB_SIDES[bomb_colour(bomb)]),
        "effect": gettext(BOMB_HELP[bomb]),
        "name": sender,
        "seat": from_seat,
        "key": key,
    }
    title = gettext("%(bomb)s (%(side)s) from %(name)s, player %(seat)s (key %(key)s on this board): %(effect)s") % words
    # the marks are drawn, and read out by the label (a screen reader may skip a title)
    marks = f'<b class="from" aria-hidden="true">{from_seat}</b><b class="key" aria-hidden="true">{key}</b>'
    return _chip(bomb, title, marks, labelled=True)


@lru_cache(maxsize=512)
def _chip(bomb: str, title: str, marks: str, labelled: bool = False) -> str:
    label = escape(title)
    role = f' role="img" aria-label="{label}"' if labelled else ""
    return (
        f'<span class="bomb {bomb_colour(bomb)}" title="{label}"{role} data-g="{BOMB_GLYPHS[bomb]}">{marks}</span>'
    )


def store(seat: int, bombs: tuple[str, ...], oob: bool = True) -> str:
    swap = ' hx-swap-oob="true"' if oob else ""
    items = "".join(bomb_chip(b) for b in bombs)
    contents = ", ".join(gettext(BOMB_LABELS[b]) for b in bombs) or gettext("empty")
    label = escape(gettext("Bomb store: %(bombs)s") % {"bombs": contents})
    return f'<div id="bombs-{seat}" class="store" aria-label="{label}"{swap}>{items}</div>'


def feed(seat: int, entries, names: Mapping[int, str], oob: bool = True) -> str:
    """Received bombs along the top of the board, each marked with its sender
    (``names``: each seat's name as the table shows it)."""
    swap = ' hx-swap-oob="true"' if oob else ""
    items = "".join(received_chip(e.bomb, e.from_seat, e.sender, names.get(e.from_seat, "")) for e in entries)
    label = escape(gettext("Bombs received"))
    return f'<div id="feed-{seat}" class="feed" aria-label="{label}"{swap}>{items}</div>'


def control(seat: int, reversed_: bool, oob: bool = True) -> str:
    swap = ' hx-swap-oob="true"' if oob else ""
    cls = "flag on" if reversed_ else "flag"
    text = "⇄ " + escape(gettext("Controls reversed!")) if reversed_ else ""
    return f'<div id="control-{seat}" class="{cls}" role="status"{swap}>{text}</div>'


def status(seat: int, text: str, cls: str = "", oob: bool = True) -> str:
    swap = ' hx-swap-oob="true"' if oob else ""
    return f'<div id="status-{seat}" class="pstatus {cls}" role="status"{swap}>{escape(text)}</div>'


@lru_cache(maxsize=1)
def pieces_css() -> str:
    """CSS that places the four cells of every piece kind in every rotation."""
    rules = []
    for kind, states in STATES.items():
        for rotation, cells in enumerate(states):
            for n, (r, c) in enumerate(sorted(cells), start=1):
                rules.append(f".pc.{kind}.r{rotation} i:nth-child({n}){{--r:{r};--c:{c}}}")
    return "\n".join(rules)
