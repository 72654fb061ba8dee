"""Every Te-Trix number, in one place (RULES.md §5).

Each constant names its source: RULES.md (binding), the seed (``seeds/te-trix.txt``),
or "our choice" where every text is silent. Symbols are written as letters: ``o``
circle (○), ``s`` square (□), ``x`` cross (✕).
"""

from __future__ import annotations

# --- The sheet -------------------------------------------------------------------------
SIZE = 7  # RULES.md: "a 7 × 7 sheet"
CELLS = SIZE * SIZE  # 49
CENTRE = (3, 3)  # RULES.md: "one preprinted symbol in the centre cell"
EMPTY = "."  # a drawn sheet's empty cell

# --- Symbols and seats -----------------------------------------------------------------
CIRCLE, SQUARE, CROSS = "o", "s", "x"
SYMBOLS = (CIRCLE, SQUARE, CROSS)  # RULES.md: "circle, square and cross (○ □ ✕)"
SYMBOL_SIGNS = {CIRCLE: "○", SQUARE: "□", CROSS: "✕"}
SYMBOL_NAMES = {CIRCLE: "circle", SQUARE: "square", CROSS: "cross"}
# RULES.md: each seat's sheet has its own colour and preprinted symbol:
# yellow ○, blue □, white ✕, red ○ (seats 1–4).
SEAT_SYMBOLS = {1: CIRCLE, 2: SQUARE, 3: CROSS, 4: CIRCLE}
SEAT_COLOURS = {1: "yellow", 2: "blue", 3: "white", 4: "red"}
# Our choice: the solo sheet (the seed's black-and-white back side, not pictured) has
# the preprinted symbol of the seat it is played at.

# --- Players ---------------------------------------------------------------------------
MIN_PLAYERS = 1  # RULES.md: "1–4 players, and solo"
MAX_PLAYERS = 4
SOLO_PLAYERS = 1  # the solo variant is one player's game

# --- Dice ------------------------------------------------------------------------------
DICE = 4  # RULES.md: "four dice"
# RULES.md: "each showing every symbol twice": six faces.
DIE_FACES = (CIRCLE, CIRCLE, SQUARE, SQUARE, CROSS, CROSS)
# Our choice: the engine rolls the four dice for the roller at the start of each round
# (from the game's seed: stream "tetrix"/"roll"/<round>), with no intent needed.

# --- Tetrominoes -----------------------------------------------------------------------
# RULES.md: the seven tetrominoes. Each is arranged as drawn here (rows separated by
# ``/``); an arrangement names its four symbols in the order of these cells, row by row
# from the top, left to right (``arrange:T:oxso`` puts o on the T's nose). Pictures:
# the Guideline's spawn states (games.core.srs), so J and L, S and Z are as players know
# them; mirroring is never allowed, so J and L (and S and Z) are different shapes.
TETROMINOES: dict[str, str] = {
    "I": "####",
    "O": "##/##",
    "T": ".#./###",
    "S": ".##/##.",
    "Z": "##./.##",
    "J": "#../###",
    "L": "..#/###",
}
TURNS = 4  # RULES.md: turned by 0°, 90°, 180° or 270° (clockwise quarter turns 0–3)
# Our choice (for the text form of a write): the position of the turned shape's box,
# its top-left cell, from −3 (three cells above or left of the sheet) to 6.
POSITION_RANGE = (-3, SIZE - 1)

# --- Scoring ---------------------------------------------------------------------------
AREA_MIN = 5  # RULES.md: areas "with at least 5 cells" score; 4 or fewer do not
# RULES.md: for each symbol, (number of such areas) × (cells in them); the sum over
# the three symbols. The seed's worked example: 2 × 11 + 1 × 17 + 2 × 13 = 65.
EXAMPLE_SCORE = 65

# --- Solo ------------------------------------------------------------------------------
BAR_BOXES = 8  # RULES.md: "a sheet with an 8-box bar"
# RULES.md reading (the seed: "only eight symbols may hang over the edge"): a write may
# leave at most as many symbols hanging over as boxes are left; each crosses one.
BOX_POINTS = 1  # RULES.md: "+ 1 per uncrossed box"
# RULES.md: the verdict by the final score, best band first (the lowest score of each).
VERDICTS: tuple[tuple[int, str], ...] = (
    (130, "Chapeau!"),
    (120, "well played"),
    (0, "keep practising"),
)
# RULES.md reading: "the game ends when no shape can be written": after the roll, when
# none of the seven tetrominoes fits anywhere (the bar counted). Our choice: the solo
# player may not arrange a shape that fits nowhere (they choose it; refused NO_ROOM).
# Our choice: the solo player may stop at any moment of their game (while arranging or
# before writing the arranged shape); core has no "stopped" termination, so a stop ends
# the game as Termination.MOVE_LIMIT ("The last move was played.").

# --- Rounds and the end ----------------------------------------------------------------
# RULES.md: "The next player (seat order) rolls next." Our choice (the seed: "the
# oldest player begins"): the first roller is drawn from the game's seed.
# RULES.md: the game ends after a round in which some player cannot write the shape
# (the others still write it), or a sheet is full. Our choice: the engine knows when a
# player cannot write (at the start of the writing, before anyone writes) and does not
# wait for them; a full sheet ends the game after its round too. Both end as
# Termination.FULL_BOARD ("no place is left to play").
# Our choice: the roller may arrange a shape they cannot write themselves (in any game
# but solo, where such a shape is refused: NO_ROOM; the round is then the last).

# --- Clocks ----------------------------------------------------------------------------
ARRANGE_SECONDS_DEFAULT = 30  # our choice: the roller's clock to arrange the dice
ARRANGE_SECONDS_RANGE = (10, 300)  # our choice
WRITE_SECONDS_DEFAULT = 60  # our choice: every player's clock to write the shape
WRITE_SECONDS_RANGE = (15, 600)  # our choice
# Our choice, on the roller's timeout: the dice in the order rolled, arranged into the
# first of these shapes that the roller can write (the first of them if none fits).
AUTO_ARRANGE_ORDER = "OTLJSZI"
# Our choice, on a writer's timeout: the legal placement with the fewest symbols
# hanging over the edge, then the fewest quarter turns, then the top-left cell of the
# box row by row from the top, column by column from the left.

# --- Leaving ---------------------------------------------------------------------------
# Our choice, as the other games: a player who leaves is ranked last (the earliest to
# leave the very last); the game ends when one player is left at a table of two or
# more, or when the solo player leaves. A roller who leaves before arranging passes the
# dice, as rolled, to the next player in seat order, with a new arranging clock. A
# leaver's sheet no longer counts: a round in which only a player who has since left
# could not write the shape (or filled their sheet) does not end the game.

# --- The bot ---------------------------------------------------------------------------
BOT_THINK_SECONDS = (1.0, 2.5)  # our choice: a person-like pause before each action
BOT_IDLE_SECONDS = 0.5  # our choice: how often a waiting bot looks again
