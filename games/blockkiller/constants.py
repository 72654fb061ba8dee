"""Every Block-Killer number, in one place (RULES.md §4).

Each constant names its source: RULES.md (binding), the seed (``seeds/block-killer.txt``),
or "our choice" where every text is silent.
"""

from __future__ import annotations

# --- Field -----------------------------------------------------------------------------
WIDTH = 10  # RULES.md: a 10-wide field, columns 0–9
VISIBLE_ROWS = 20  # RULES.md: "an empty 10 × 20 field"
HIDDEN_ROWS = 2  # our choice, as TetriWar: two rows above the field where pieces enter
HEIGHT = VISIBLE_ROWS + HIDDEN_ROWS  # row 0 is the top hidden row; row HEIGHT − 1 the floor
FULL_ROW = (1 << WIDTH) - 1

# --- Cards -----------------------------------------------------------------------------
# RULES.md: 90 block cards, Z S J L T O I × 12 and the monomino ("M") × 6.
BLOCK_COUNTS = {"Z": 12, "S": 12, "J": 12, "L": 12, "T": 12, "O": 12, "I": 12, "M": 6}
# RULES.md: 111 garbage cards, each one 10-wide row; the holes (empty columns) of each
# kind and how many cards of it. Names: h = one hole, w = two wide, t = three wide,
# q = four wide, ck = checkerboard (filled at 0, 2, 4, 6, 8).
GARBAGE_KINDS: tuple[tuple[str, tuple[int, ...], int], ...] = (
    ("h0", (0,), 10), ("h1", (1,), 10), ("h2", (2,), 10), ("h3", (3,), 10), ("h4", (4,), 10),
    ("w01", (0, 1), 6), ("w12", (1, 2), 6), ("w23", (2, 3), 6), ("w34", (3, 4), 6), ("w45", (4, 5), 3),
    ("t02", (0, 1, 2), 4), ("t13", (1, 2, 3), 4), ("t24", (2, 3, 4), 4), ("t35", (3, 4, 5), 4),
    ("q36", (3, 4, 5, 6), 10),
    ("ck", (1, 3, 5, 7, 9), 8),
)
CHECKERBOARD = "ck"
BLOCK_CARDS = sum(BLOCK_COUNTS.values())  # 90
GARBAGE_CARDS = sum(count for _, _, count in GARBAGE_KINDS)  # 111
ALL_CARDS = BLOCK_CARDS + GARBAGE_CARDS  # 201
# Card ids (our choice): block cards 0–89, garbage cards 90–200, in the order above.

# --- Dealing and turns -----------------------------------------------------------------
START_BLOCKS = 4  # RULES.md: each player gets 4 block cards
START_GARBAGE = 4  # RULES.md: and 4 garbage cards
DRAW_BLOCKS = 1  # RULES.md: a turn draws 1 block card
DRAW_GARBAGE = 1  # RULES.md: and 1 garbage card
CHOICE_GARBAGE = 10  # RULES.md: with ≥ 10 garbage cards in hand the player may instead
CHOICE_BLOCKS = 2  # draw 2 block cards
MUST_PLAY_BLOCKS = 6  # RULES.md: holding 6 block cards after the draw, the player must play
# (the seed: "the number of block cards in hand must be < 6 after the turn", so a play
# that leaves 6 or more is refused).
OUT_ABOVE_GARBAGE = 12  # RULES.md: anyone holding more than 12 garbage cards is out
TIMEOUT_GARBAGE = 1  # RULES.md (reconstruction): obliged to play, a timeout draws 1 garbage

# --- Attack ----------------------------------------------------------------------------
# RULES.md: attack per clear by lines, non-spin and spin; lines beyond the table's last
# row give no attack but the same number of offset points (defence only).
ATTACK = {1: 0, 2: 1, 3: 2, 4: 4}
SPIN_ATTACK = {1: 2, 2: 4, 3: 6}
# RULES.md: combo bonus by combo count: 1: +0, 2–4: +1, 5 and beyond: +2.
COMBO_BONUS = (0, 0, 1, 1, 1, 2)  # index = combo count, the last entry for all beyond
BACK_TO_BACK = 1  # RULES.md: a special clear right after a special clear adds +1
SPECIAL_LINES = 4  # RULES.md: four or more lines (or a spin) make a clear special
# RULES.md, option No Mercy: attack for 1–5 lines; extra lines attack directly, each
# one more than the 5-line value (our choice: the seed's table stops at 5).
NO_MERCY_ATTACK = {1: 1, 2: 2, 3: 4, 4: 6, 5: 9}
NO_MERCY_SPIN_ATTACK = {1: 2, 2: 5, 3: 8, 4: 12, 5: 16}
NO_MERCY_COMBO_BONUS = (0, 0, 1, 2, 2, 3, 3, 4)  # 1: +0, 2: +1, 3–4: +2, 5–6: +3, 7+: +4
COUNTER_DIVISOR = 2  # RULES.md: defence left over is halved, rounded up, and sent back

# --- Options ---------------------------------------------------------------------------
MIN_PLAYERS = 3  # RULES.md: 3–6 players (tables)
MAX_PLAYERS = 6
ENGINE_MIN_PLAYERS = 2  # our choice: the engine plays two as well (tests, the game contract)
TURN_SECONDS_DEFAULT = 120  # RULES.md: a turn clock, default 120 s
TURN_SECONDS_RANGE = (20, 600)  # our choice
# The turn clock (our choice) covers the draw, the play and the attack; the defender has
# a clock of the same length from the moment the attack arrives. On timeout (RULES.md,
# reconstruction) the player plays nothing: a play under way is called off, its pieces
# and garbage back in hand; the attacker passes, or, obliged to play, draws 1 garbage
# card; the defender defends with nothing.

# --- The bot ---------------------------------------------------------------------------
BOT_THINK_SECONDS = (0.3, 0.7)  # our choice: a person-like pause between actions
BOT_IDLE_SECONDS = 0.25  # our choice: how often a waiting bot looks again
