"""Every Viertris number, in one place (RULES.md §2).

Each constant names its source: RULES.md (binding), the seed (``seeds/viertris.txt``),
or "our choice" where every text is silent.
"""

from __future__ import annotations

# --- Board -----------------------------------------------------------------------------
COLUMNS = 8  # RULES.md, seed: connect four's 7 columns plus one
ROWS = 6  # RULES.md, seed: connect four's 6 rows
WIDTH, HEIGHT = COLUMNS, ROWS  # the names TetriWar's code uses for the same sizes
EMPTY = "."  # our choice: the text form of an empty cell; a piece is its owner's seat digit

# --- Runs and points -------------------------------------------------------------------
MIN_RUN = 4  # RULES.md, seed: "minimum 4 of his pieces into a line"
# RULES.md, seed ("Calculation of points"): base points by run length, = length − 2.
# A run is at most 8 long (a whole row); vertical and diagonal runs at most 6.
BASE_POINTS = {4: 2, 5: 3, 6: 4, 7: 5, 8: 6}
# RULES.md, seed: step k of a cascade scores base × k ("count double", "triple", ...).

# --- Players ---------------------------------------------------------------------------
MIN_PLAYERS = 2  # RULES.md: the seed is for two
MAX_PLAYERS = 4  # RULES.md (reconstruction): up to four colours
# Turns go round in seat order, the lowest seat first (our choice: RULES.md says "in
# seat order" and no text says who starts).

# --- Options ---------------------------------------------------------------------------
MOVE_SECONDS_DEFAULT = 60  # RULES.md: "a move clock per turn (option, default 60 s)"
MOVE_SECONDS_RANGE = (10, 300)  # our choice: long enough to think, short enough to wait
TARGET_SCORE_RANGE = (10, 1000)  # our choice (RULES.md: an optional target score); None = off
MOVE_LIMIT_RANGE = (8, 500)  # our choice (RULES.md: an optional move limit); None = off
# 8 is one move per column, 500 about ten full boards.

# --- Clock -----------------------------------------------------------------------------
# RULES.md (reconstruction): on timeout the move is played in a random legal column. The
# column is drawn from a stream derived from the game seed and the move number (our
# choice), so it depends on nothing but the seed and the game so far.
# Each turn's clock starts when the previous move was played (or when the game began,
# or when the player before left), so a long silence plays one timeout per turn.

# --- The bot ---------------------------------------------------------------------------
BOT_THINK_SECONDS = (0.6, 1.2)  # our choice: a person-like pause before each drop
BOT_IDLE_SECONDS = 0.25  # our choice: how often a waiting bot looks again
