"""Every TetriWar balance number, in one place (RULES.md §1).

Each constant names its source: RULES.md (binding), the seed (``seeds/tetriwar.txt``),
the Tetris Guideline, TetriNET, or "our choice" where every text is silent.
"""

from __future__ import annotations

# The rules version the engine plays (stored with every recorded game). 3: integer
# milliseconds, each board on its own clock, bombs landing at the target's next piece
# at or after BOMB_DELAY_MS from the drop (issue #31). 1 and 2 played in float seconds.
# 4: a bomb's random choices come from a seed of its own, drawn from the dropper's chance
# at the drop and sent with its announcement (games/tetriwar/dice.py; issue 49).
RULES_VERSION = 4

# --- Field -----------------------------------------------------------------------------
WIDTH = 10  # RULES.md
VISIBLE_ROWS = 20  # RULES.md
HIDDEN_ROWS = 2  # RULES.md: "plus 2 hidden rows above for spawning"
HEIGHT = VISIBLE_ROWS + HIDDEN_ROWS
FULL_ROW = (1 << WIDTH) - 1

# --- Pieces ----------------------------------------------------------------------------
KINDS = "IOJLSZT"  # RULES.md: the 7 tetrominoes (shapes and kicks: games/core/srs.py)
PREVIEW = 3  # RULES.md: a 3-piece preview
# Spawn: the piece's box at the top of the hidden rows, JLSTZ in columns 3–5, I in 3–6,
# O in 4–5; then it drops one row at once if nothing is in the way (Guideline).
SPAWN_COLUMN = 3  # Guideline
SPAWN_ROW = 0  # Guideline: JLSTZO in the two hidden rows, I in the lower one
SPAWN_DROPS_ONE_ROW = True  # Guideline
# Blocks never exist above the hidden rows: a cell above row 0 counts as blocked
# (our choice: the Guideline's 20-row buffer zone is cut to the 2 rows RULES.md gives).

# --- Timing (seconds: rules versions 1 and 2) --------------------------------------------------------------------
MAX_LEVEL = 10  # RULES.md, seed
SOFT_DROP_FACTOR = 20  # RULES.md: soft drop is 20× gravity ...
SOFT_DROP_MAX_INTERVAL = 0.050  # RULES.md: ... and at least one row per 50 ms
LOCK_DELAY = 0.5  # RULES.md
MAX_LOCK_RESETS = 15  # RULES.md. A piece reaching a new lowest row (by a fall or a
# kick) starts counting again (Guideline). Every move or rotation after the first
# touch-down counts, off the ground too; after the 15th a move no longer restarts the
# timer, which keeps running, and a piece that lands again after the 15th locks at once.
SPAWN_DELAY = 0.0  # our choice (TetriNET, modern Guideline): the next piece comes at once
DAS = 0.170  # RULES.md: auto-repeat of ← → starts after 170 ms (the default handling)
ARR = 0.050  # RULES.md: then one step every 50 ms (the default handling)

# --- Handling: each player's own auto-repeat and soft drop (games/tetriwar/handling.py) -
# The engine repeats held keys itself (Player.hold): one step at once, the next after DAS,
# then one every ARR (ARR 0: straight to the wall). Whole milliseconds, so the numbers
# are exact in JSON and in the input log.
DAS_MS_DEFAULT = 170  # RULES.md
DAS_MS_RANGE = (50, 300)  # our choice (issue #19)
ARR_MS_DEFAULT = 50  # RULES.md
ARR_MS_RANGE = (0, 100)  # our choice (issue #19); 0 = at once to the wall
# Soft drop, rows per second: a floor on RULES.md's 20× gravity. The default, 20 rows/s,
# is RULES.md's "at least one row per 50 ms" exactly; a player may choose faster, never
# slower than that (our choice: slower would break the rule's floor).
SOFT_DROP_SPEED_DEFAULT = 20
SOFT_DROP_SPEED_RANGE = (20, 60)


def gravity_seconds(level: int) -> float:
    """Seconds per row at ``level``: (0.8 − (level − 1) × 0.007)^(level − 1) (RULES.md)."""
    return (0.8 - (level - 1) * 0.007) ** (level - 1)


def soft_drop_seconds(level: int, speed: int = SOFT_DROP_SPEED_DEFAULT) -> float:
    """Seconds per row while ↓ is held (RULES.md: 20× gravity, at most 50 ms a row;
    a player's ``speed`` in rows per second may make the floor faster)."""
    return min(gravity_seconds(level) / SOFT_DROP_FACTOR, 1 / speed)


# The float-second tables of rules versions 1 and 2 (a frozen engine replays old games).
GRAVITY = {level: gravity_seconds(level) for level in range(1, MAX_LEVEL + 1)}
SOFT_DROP = {level: soft_drop_seconds(level) for level in range(1, MAX_LEVEL + 1)}

# --- Timing (integer milliseconds: the clocks of rules version 3) -----------------------
# Every clock is an int on the game's clock (0 = the start), so the Python engine and the
# page's JavaScript one (which reads these tables, generated) compute the same times.
GRAVITY_MS = {level: round(1000 * gravity_seconds(level)) for level in range(1, MAX_LEVEL + 1)}
# SOFT_DROP_MS[speed][level]: ms per row while ↓ is held, for a soft drop of ``speed``
# rows per second (the account's handling): 20× gravity, at most 1000 / speed.
SOFT_DROP_MS = {
    speed: {level: min(round(GRAVITY_MS[level] / SOFT_DROP_FACTOR), round(1000 / speed)) for level in GRAVITY_MS}
    for speed in range(SOFT_DROP_SPEED_RANGE[0], SOFT_DROP_SPEED_RANGE[1] + 1)
}
LOCK_DELAY_MS = 500  # RULES.md: 0.5 s
LACK_OF_CONTROL_MS = 5000  # seed, RULES.md: 5 s
BOMB_DELAY_MS = 500  # RULES.md: a bomb lands at the target's next piece at or after 0.5 s
# Inputs are applied at most this far behind the game's time (lag compensation). Less
# than BOMB_DELAY_MS, so no board can be made to act before a bomb that reached it.
MAX_LAG_MS = 400  # our choice (issue #31)

# --- Score -------------------------------------------------------------------------------
LINE_POINTS = {1: 10, 2: 25, 3: 40, 4: 60}  # RULES.md, seed: × level at the clear
PIECE_POINTS = 1  # RULES.md, seed: × level, for every piece placed
# A piece that locks wholly above the visible field tops the player out and scores
# nothing (our choice: it never landed in the field).

# --- Options (RULES.md) ------------------------------------------------------------------
MINUTES_RANGE = (1, 15)
MINUTES_DEFAULT = 3  # RULES.md
START_LEVEL_RANGE = (1, 9)
START_LEVEL_DEFAULT = 1  # our choice (the seed's "level 1 (or the original level)")
LINES_PER_LEVEL_RANGE = (4, 10)
LINES_PER_LEVEL_DEFAULT = 10  # Guideline (fixed goal of 10 lines)
BOMB_MODES = ("off", "manual", "automatic")  # RULES.md
BOMBS_DEFAULT = "manual"  # our choice
MAX_PLAYERS = 4  # RULES.md
PAIRS = ((1, 2), (3, 4))  # RULES.md: seats 1 + 2 against seats 3 + 4

# --- Bombs -------------------------------------------------------------------------------
ADD_LINE = "add_line"
EARTHQUAKE = "earthquake"
REMOVE_BOMBS = "remove_bombs"
DRILL = "drill"
LACK_OF_CONTROL = "lack_of_control"
GRAVITY_BOMB = "gravity"
REMOVE_LINE = "remove_line"
DEMOLITION = "demolition"

# The one table of bomb type weights (RULES.md; they add up to 100).
BOMB_WEIGHTS = {
    ADD_LINE: 25,
    EARTHQUAKE: 12,
    REMOVE_BOMBS: 12,
    DRILL: 15,
    LACK_OF_CONTROL: 8,
    GRAVITY_BOMB: 6,
    REMOVE_LINE: 15,
    DEMOLITION: 7,
}
RED_BOMBS = frozenset({ADD_LINE, EARTHQUAKE, REMOVE_BOMBS, DRILL, LACK_OF_CONTROL})  # seed
GREEN_BOMBS = frozenset({GRAVITY_BOMB, REMOVE_LINE, DEMOLITION})  # seed
STORE_SIZE = 12  # RULES.md: oldest first; bombs caught with a full store are lost
FEED_SIZE = 12  # our choice: the received-bomb feed shows the latest 12
ENTER_WEIGHT_LEADER = 3  # RULES.md: the highest-scoring opponent (each, if tied: our choice)
ENTER_WEIGHT_OTHER = 1  # RULES.md
EARTHQUAKE_SHIFT = 2  # RULES.md: each row shifts by a random −2…+2 columns, wrapping
DRILL_BLOCKS = 10  # RULES.md
LACK_OF_CONTROL_SECONDS = 5.0  # seed, RULES.md (rules versions 1 and 2; 3: LACK_OF_CONTROL_MS)
DEMOLITION_ROWS = 4  # RULES.md
# Bomb effects act on all 22 rows, hidden ones included (our choice). A piece that a bomb
# leaves overlapping blocks is pushed up until it fits; if it cannot, the player tops out
# (our choice). Blocks pushed out of the top of the hidden rows top the player out
# (Guideline: "pushed above the buffer zone").

# --- Field text --------------------------------------------------------------------------
EMPTY = "."
GARBAGE = "G"  # rows added by the add line bomb
PLAIN = "X"  # a plain block: a defused bomb (remove bombs), or a block drawn in a test
# One character per bomb type, TetriNET's letters where TetriNET has the special
# (a = add line, q = quake, b = clear specials, r = random clear, g = gravity,
# c = clear line, n = nuke); k (keys) for lack of control, which TetriNET lacks.
BOMB_CHARS = {
    ADD_LINE: "a",
    EARTHQUAKE: "q",
    REMOVE_BOMBS: "b",
    DRILL: "r",
    LACK_OF_CONTROL: "k",
    GRAVITY_BOMB: "g",
    REMOVE_LINE: "c",
    DEMOLITION: "n",
}
BOMB_OF_CHAR = {char: bomb for bomb, char in BOMB_CHARS.items()}
BLOCK_CHARS = frozenset(KINDS + GARBAGE + PLAIN)  # blocks that are not bombs
