"""Every Third Option number, in one place (RULES.md §3).

Each constant names its source: RULES.md (binding), the seed (``seeds/third-option.txt``),
or "our choice" where every text is silent. Shapes are pictures, rows separated by
``/``, ``#`` a cell (``games.core.geometry.parse_shape``).
"""

from __future__ import annotations

# --- The grid --------------------------------------------------------------------------
SIZE = 9  # RULES.md, seed: "a 9x9 grid"
CELLS = SIZE * SIZE  # 81
DOT = (4, 4)  # RULES.md: the dot in the centre cell (row 4, column 4)

# --- Players ---------------------------------------------------------------------------
MIN_PLAYERS = 1  # RULES.md, seed: "1 - 12 players"
MAX_PLAYERS = 12

# --- Starting shapes -------------------------------------------------------------------
# RULES.md (reconstruction): twelve distinct 8-cell shapes, one per seat (seat 1 first).
START_SHAPES: tuple[str, ...] = (
    "####/##../##..",
    "####/.#../###.",
    "##../####/...#/...#",
    ".#./###/.#./###",
    "#..#/####/#..#",
    "#..../#####/....#/....#",
    "##../.##./..##/..##",
    "###/#.#/###",  # seat 8 (RULES.md's latest change): a ring of 8 round an empty middle
    "######/#....#",
    ".##./####/.##.",
    "#.../##../.##./..##/...#",
    ".###/.#../##../#.../#...",
)
START_SHAPE_CELLS = 8  # RULES.md: every starting shape has 8 cells
# Our choice (RULES.md: "placed so that it covers the dot"): the shape as drawn (not
# turned), its box centred on the grid (top = (9 − height) // 2, left = (9 − width) // 2);
# if no cell of it then lies on the dot, the nearest shift that puts one there: the
# smallest (rows² + columns²), then the smaller row shift, then the smaller column shift.

# --- Cards -----------------------------------------------------------------------------
# Every shape a card may show, by name: the name says the family and the cell count.
SHAPES: dict[str, str] = {
    # RULES.md: monomino, domino, the two trominoes
    "1": "#",
    "2": "##",
    "I3": "###",
    "L3": "##/#.",
    # the five free tetrominoes (J and Z are L and S mirrored)
    "I4": "####",
    "O4": "##/##",
    "T4": "###/.#.",
    "L4": "###/#..",
    "S4": ".##/##.",
    # the 12 pentominoes, with their usual letters
    "F5": ".##/##./.#.",
    "I5": "#####",
    "L5": "####/#...",
    "N5": "##../.###",
    "P5": "##/##/#.",
    "T5": "###/.#./.#.",
    "U5": "#.#/###",
    "V5": "#../#../###",
    "W5": "#../##./.##",
    "X5": ".#./###/.#.",
    "Y5": "####/.#..",
    "Z5": "##./.#./.##",
    # RULES.md: the 5 hexominoes of the deck
    "I6": "######",
    "O6": "###/###",
    "L6": "#####/#....",
    "T6": "#####/..#..",
    "X6": ".#../####/.#..",
    # RULES.md: the 4 heptominoes of the deck
    "I7": "#######",
    "L7": "######/#.....",
    "H7": "#.#/###/#.#",
    "U7": "#...#/#####",
}

# RULES.md (reconstruction): the deck of 40 cards, shuffled from the game's seed.
DECK_COUNTS: dict[str, int] = {
    "1": 2, "2": 3, "I3": 2, "L3": 2,
    "I4": 2, "O4": 2, "T4": 2, "L4": 2, "S4": 2,
    "F5": 1, "I5": 1, "L5": 1, "N5": 1, "P5": 1, "T5": 1,
    "U5": 1, "V5": 1, "W5": 1, "X5": 1, "Y5": 1, "Z5": 1,
    "I6": 1, "O6": 1, "L6": 1, "T6": 1, "X6": 1,
    "I7": 1, "L7": 1, "H7": 1, "U7": 1,
}  # fmt: skip
DECK_SIZE = 40
# RULES.md: option "tetrominoes only": 35 cards, the five free tetrominoes × 7.
TETROMINO_DECK_COUNTS: dict[str, int] = {"I4": 7, "O4": 7, "T4": 7, "L4": 7, "S4": 7}
TETROMINO_DECK_SIZE = 35

FREE_SQUARE = "1"  # RULES.md, seed: the first eliminated "receive a free 1 × 1 square"

# --- Rounds ----------------------------------------------------------------------------
CARDS_PER_ROUND = 2  # RULES.md, seed: "Each round two cards are revealed"
# Our choice: the deck has run out when it cannot reveal the next round's two cards;
# the game then ends. A player who needs a third option when the deck is empty gets
# none, and is out.
ROUND_SECONDS_DEFAULT = 90  # RULES.md: "a round clock, option, default 90 s"
ROUND_SECONDS_RANGE = (15, 600)  # our choice: a quick round to a slow, thoughtful one
# RULES.md: on timeout the engine places "the first legal placement of the first card
# that fits". Our order: the cards as offered (the two revealed, left first; or the
# player's own card), then the card's orientations in the order ``orientations`` gives
# (as drawn, its three clockwise turns, then mirrored and its turns, repeats skipped),
# then the top-left cell of the placed shape's box, row by row from the top.

# --- The bot ---------------------------------------------------------------------------
BOT_THINK_SECONDS = (1.0, 2.5)  # our choice: a person-like pause before each placement
BOT_IDLE_SECONDS = 0.5  # our choice: how often a waiting bot looks again
