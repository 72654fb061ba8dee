"""A TetriWar computer player that plays like a strong person, at three strengths.

    ai = TetriWarAI("hard", random.Random(seed))
    delay, intent = ai.next_action(game, seat, now)   # press ``intent`` (if any) now
                                                      # (ms, the game's clock), ask again
                                                      # ``delay`` seconds later
    intents = ai.decide(game, seat, now)              # or: the whole plan, no pacing

For each new piece it evaluates every final position the piece can reach from where it
is (rotations and columns reachable with ←, →, ↑ and their wall kicks, then a hard drop)
with the feature-weighted score of Pierre Dellacherie and El-Tetris (landing height,
eroded piece cells, row and column transitions, holes, cumulative wells). The hard level
also places the preview piece on each of the best few results (two-piece look-ahead).
Then it presses keys through the engine like a person: one key at a time, so gravity,
lock delay and swapped controls (lack of control) act on it. Before every key it checks
that the piece can still reach the chosen place from where it really is; if not (gravity,
a kick or a bomb got in the way) it plans again.

Levels (``LEVELS``) differ in speed (easy 3, medium 6, hard 12 keys a second, plus a
reaction time to each new piece), in weights and look-ahead, and in mistakes (easy and
medium sometimes take one of their best few placements, easy now and then any). With
manual bombs, medium presses Enter now and then; hard aims: red bombs at the leader
(the highest-scoring opponent, by its key 2–4), add lines held until three can be fired
together at one target, green bombs on itself (key 1) when its stack is high.

The bot only reads the game, never changes it, and its randomness comes from its own
``random.Random``. Call it with the game advanced to ``now`` (the table host runs the
clocks up to ``next_deadline()`` anyway); then it never sends an illegal intent.
One object may play several seats: its planning state is kept per seat.
Standard library only.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass

from games.tetriwar import constants as C
from games.tetriwar.engine import Game, Intent
from games.tetriwar.field import fits
from games.tetriwar.pieces import BOTTOMS, CELLS, KICKS, SHAPES, X_OFFSET, column_tops
from games.tetriwar.player import Player

# --- Weights of the evaluation (one constants block) -------------------------------------
# (landing height, eroded piece cells, row transitions, column transitions, holes, wells)


@dataclass(frozen=True)
class Weights:
    landing_height: float
    eroded_cells: float
    row_transitions: float
    column_transitions: float
    holes: float
    wells: float


# El-Tetris (Islam El-Ashi, 2011), tuned by particle swarm on Dellacherie's features; its
# "rows eliminated" weight is used here for Dellacherie's eroded piece cells (our choice).
EL_TETRIS = Weights(
    landing_height=-4.500158825082766,
    eroded_cells=3.4181268101392694,
    row_transitions=-3.2178882868487753,
    column_transitions=-9.348695305445199,
    holes=-7.899265427351652,
    wells=-3.3855972247263626,
)
# Pierre Dellacherie's hand-set weights (one-piece bot, 2003): plainer, used by "easy".
DELLACHERIE = Weights(
    landing_height=-1.0,
    eroded_cells=1.0,
    row_transitions=-1.0,
    column_transitions=-1.0,
    holes=-4.0,
    wells=-1.0,
)
DEATH = -1e9  # a placement that tops the player out


@dataclass(frozen=True)
class Strength:
    """How one level plays (our choice)."""

    keys_per_second: float  # its speed: one key press every 1 / keys_per_second s
    reaction: float  # seconds between a new piece appearing and the first key
    jitter: float  # each wait varies at random by ± this share
    weights: Weights
    lookahead: int  # 0: the current piece only; > 0: also the preview piece, on that many
    # of the best first placements
    blunder: float  # chance to take any reachable placement at random
    sloppy: float  # chance to take one of the ``sloppy_of`` best instead of the best
    sloppy_of: int
    bombs: str  # "never"; "enter": Enter now and then; "smart": aimed, held, defensive


LEVELS: dict[str, Strength] = {
    "easy": Strength(
        keys_per_second=3.0,
        reaction=0.5,
        jitter=0.3,
        weights=DELLACHERIE,
        lookahead=0,
        blunder=0.04,
        sloppy=0.25,
        sloppy_of=4,
        bombs="never",
    ),
    "medium": Strength(
        keys_per_second=6.0,
        reaction=0.25,
        jitter=0.2,
        weights=EL_TETRIS,
        lookahead=0,
        blunder=0.0,
        sloppy=0.1,
        sloppy_of=3,
        bombs="enter",
    ),
    "hard": Strength(
        keys_per_second=12.0,
        reaction=0.05,
        jitter=0.0,
        weights=EL_TETRIS,
        lookahead=5,
        blunder=0.0,
        sloppy=0.0,
        sloppy_of=1,
        bombs="smart",
    ),
}
# Bomb sense of the "smart" (hard) level, our choice:
DEFEND_HEIGHT = 10  # a green bomb goes on oneself once the stack is this many rows high
SALVO = 3  # add line bombs are held until this many lie at the front of the store ...
SALVO_STORE = 9  # ... or the store holds this many bombs (it takes at most 12)
ENTER_CHANCE = 0.25  # "enter" level: chance, per key press, to drop the oldest bomb
IDLE = 0.25  # seconds to wait when there is nothing to press

# --- Board geometry --------------------------------------------------------------------
HEIGHT, WIDTH, FULL = C.HEIGHT, C.WIDTH, C.FULL_ROW
SHAPE_COUNT = WIDTH + X_OFFSET
WALLS = 1 | 1 << (WIDTH + 1)  # a row shifted one column right, between its two walls
TRANSITION_BITS = (1 << (WIDTH + 1)) - 1
LAST_COLUMN = 1 << (WIDTH - 1)
FLOOR = [FULL] * 4  # rows below the field, as in ``Field.masks``
OPEN_ROWS = 5  # a piece box (4 rows) moved down by a kick (up to 2) stays in its top 6 rows

LEFT, RIGHT, ROTATE, HARD_DROP = (Intent(name) for name in ("left", "right", "rotate", "hard_drop"))
ENTER = Intent("bomb")
KEYS = {number: Intent("bomb", number) for number in range(1, C.MAX_PLAYERS + 1)}
MOVES = ("rotate", "left", "right")  # tried in this order, so plans turn before they move


SPAWN_SHAPES = {kind: SHAPES[kind][0][C.SPAWN_COLUMN + X_OFFSET] for kind in CELLS}

State = tuple[int, int, int]  # rotation, box column, box row (field rows, 0 = top)
Landing = tuple[tuple[int, int], ...]  # the locked piece as ((field row, row mask), ...)


def spawn_state(masks: list[int], kind: str) -> State | None:
    """Where the engine spawns ``kind`` on this field (``Player.place_new``), or None if
    it cannot: block out."""
    shape = SPAWN_SHAPES[kind]
    y = C.SPAWN_ROW
    if not fits(masks, shape, y):
        return None
    if C.SPAWN_DROPS_ONE_ROW and fits(masks, shape, y + 1):
        y += 1
    return (0, C.SPAWN_COLUMN, y)


def step(masks: list[int], kind: str, state: State, move: str) -> State | None:
    """The state after one key press, as the engine moves the piece (None: no change)."""
    rotation, x, y = state
    if move == "rotate":
        turned = (rotation + 1) % 4
        shapes = SHAPES[kind][turned]
        for rows, cols in KICKS[kind][rotation]:
            index = x + cols + X_OFFSET
            if 0 <= index < SHAPE_COUNT and fits(masks, shapes[index], y + rows):
                return (turned, x + cols, y + rows)
        return None
    x += 1 if move == "right" else -1
    index = x + X_OFFSET
    if 0 <= index < SHAPE_COUNT and fits(masks, SHAPES[kind][rotation][index], y):
        return (rotation, x, y)
    return None


def drop_row(masks: list[int], tops: list[int], kind: str, state: State) -> int:
    """The box row where a hard drop from ``state`` locks the piece."""
    rotation, x, y = state
    landing = HEIGHT
    for column, bottom in BOTTOMS[kind][rotation]:
        top = tops[x + column]
        if y + bottom >= top:  # the piece is beside or under an overhang: fall row by row
            shape = SHAPES[kind][rotation][x + X_OFFSET]
            while fits(masks, shape, y + 1):
                y += 1
            return y
        if top - bottom - 1 < landing:
            landing = top - bottom - 1
    return landing


def landing_of(kind: str, rotation: int, x: int, y: int) -> Landing:
    return tuple((y + offset, mask) for offset, mask in SHAPES[kind][rotation][x + X_OFFSET])


def placements(masks: list[int], kind: str, start: State) -> dict[Landing, tuple[State, int]]:
    """Every final position reachable from ``start`` with ←, →, ↑, then a hard drop:
    landing -> (the state to drop from, key presses to get there), fewest presses first."""
    tops = column_tops(masks)
    found: dict[Landing, tuple[State, int]] = {}
    first, x0, y = start
    if min(tops) > y + OPEN_ROWS:  # nothing within reach of a kick: every place is reachable
        shapes = SHAPES[kind]
        states = [
            ((rotation, x, y), (rotation - first) % 4 + abs(x - x0))
            for rotation in range(4)
            for x in range(-X_OFFSET, WIDTH)
            if shapes[rotation][x + X_OFFSET] is not None
        ]
        states.sort(key=lambda item: item[1])
        for state, presses in states:
            landing = landing_of(kind, state[0], state[1], drop_row(masks, tops, kind, state))
            if landing not in found:
                found[landing] = (state, presses)
        return found
    seen = {start: 0}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        presses = seen[state]
        rotation, x, _ = state
        landing = landing_of(kind, rotation, x, drop_row(masks, tops, kind, state))
        if landing not in found:
            found[landing] = (state, presses)
        for move in MOVES:
            after = step(masks, kind, state, move)
            if after is not None and after not in seen:
                seen[after] = presses + 1
                queue.append(after)
    return found


def path_to(masks: list[int], kind: str, start: State, target: Landing) -> list[str] | None:
    """The fewest key presses (``MOVES`` names, then "hard_drop") that lock the piece at
    ``target``, or None when it cannot get there from ``start`` any more."""
    tops = column_tops(masks)
    parents: dict[State, tuple[State, str] | None] = {start: None}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        rotation, x, _ = state
        if landing_of(kind, rotation, x, drop_row(masks, tops, kind, state)) == target:
            path = ["hard_drop"]
            while parents[state] is not None:
                state, move = parents[state]  # type: ignore[misc]
                path.append(move)
            path.reverse()
            return path
        for move in MOVES:
            after = step(masks, kind, state, move)
            if after is not None and after not in parents:
                parents[after] = (state, move)
                queue.append(after)
    return None


# --- Evaluation ------------------------------------------------------------------------
def lock(masks: list[int], landing: Landing) -> tuple[list[int], int, int]:
    """The field rows (with floor) after locking ``landing`` and clearing full rows;
    also the lines cleared and the piece cells in them."""
    rows = masks[:HEIGHT]
    lines = cells = 0
    for row, mask in landing:
        merged = rows[row] | mask
        rows[row] = merged
        if merged == FULL:
            lines += 1
            cells += mask.bit_count()
    if lines:
        rows = [0] * lines + [row for row in rows if row != FULL]
    return rows + FLOOR, lines, cells


def board_score(rows: list[int], weights: Weights) -> float:
    """Row and column transitions, holes and cumulative wells of a field, weighted.

    Walls and floor count as blocks; a well cell is an empty cell open to the sky with
    blocks (or walls) left and right; a well ``d`` deep counts 1 + 2 + … + d."""
    top = 0
    while not rows[top]:  # the floor rows below stop it
        top += 1
    row_transitions = 2 * top  # an empty row: wall to empty, empty to wall
    column_transitions = holes = wells = 0
    above = cover = 0
    runs: list[int] = []  # runs[k]: columns whose open well is more than k cells deep
    for mask in rows[top:HEIGHT]:
        walled = (mask << 1) | WALLS
        row_transitions += ((walled ^ (walled >> 1)) & TRANSITION_BITS).bit_count()
        column_transitions += (mask ^ above).bit_count()
        covered = cover & ~mask
        if covered:
            holes += covered.bit_count()
        well = ~mask & ~cover & FULL & ((mask << 1) | 1) & ((mask >> 1) | LAST_COLUMN)
        if well or runs:
            deeper = [well] if well else []
            for run in runs:
                run &= well
                if not run:
                    break
                deeper.append(run)
            runs = deeper
            for run in runs:
                wells += run.bit_count()
        cover |= mask
        above = mask
    column_transitions += (above ^ FULL).bit_count()  # the floor
    return (
        weights.row_transitions * row_transitions
        + weights.column_transitions * column_transitions
        + weights.holes * holes
        + weights.wells * wells
    )


def piece_score(landing: Landing, lines: int, cells: int, weights: Weights) -> float:
    """Landing height (the piece's middle, rows above the floor) and eroded piece cells."""
    height = HEIGHT - 1 - (landing[0][0] + landing[-1][0]) / 2
    return weights.landing_height * height + weights.eroded_cells * lines * cells


def locks_out(landing: Landing) -> bool:
    """A piece locked wholly in the hidden rows tops the player out (``Player.lock``)."""
    return landing[-1][0] < C.HIDDEN_ROWS


@dataclass
class Choice:
    landing: Landing
    score: float


def rank(masks: list[int], kind: str, start: State, preview: str | None, strength: Strength) -> list[Choice]:
    """Every reachable placement of ``kind``, best first."""
    weights = strength.weights
    choices = []
    after: dict[Landing, tuple[list[int], float]] = {}  # the field and the piece's own terms
    for landing in placements(masks, kind, start):
        if locks_out(landing):
            choices.append(Choice(landing, DEATH))
            continue
        rows, lines, cells = lock(masks, landing)
        own = piece_score(landing, lines, cells, weights)
        score = own + board_score(rows, weights)
        if preview is not None and spawn_state(rows, preview) is None:
            score = DEATH
        after[landing] = rows, own
        choices.append(Choice(landing, score))
    choices.sort(key=lambda choice: -choice.score)  # stable: fewer presses first on ties
    best = choices[: strength.lookahead] if preview is not None else []
    if best:
        # the best few, scored again by the preview piece's best placement on their field
        for choice in best:
            if choice.score > DEATH:
                rows, own = after[choice.landing]
                choice.score = own + _best_next(rows, preview, weights)
        best.sort(key=lambda choice: -choice.score)
        choices[: len(best)] = best
    return choices


def _best_next(rows: list[int], kind: str, weights: Weights) -> float:
    """The best score of the next piece on ``rows`` (from where it spawns)."""
    start = spawn_state(rows, kind)
    if start is None:
        return DEATH
    best = DEATH
    for landing in placements(rows, kind, start):
        if locks_out(landing):
            continue
        after, lines, cells = lock(rows, landing)
        score = piece_score(landing, lines, cells, weights) + board_score(after, weights)
        if score > best:
            best = score
    return best


def stack_height(masks: list[int]) -> int:
    """Rows from the floor up to the highest block (hidden rows included)."""
    for row in range(HEIGHT):
        if masks[row]:
            return HEIGHT - row
    return 0


# --- The player ----------------------------------------------------------------------------
@dataclass
class _Plan:
    piece: tuple[int, str]  # (pieces dealt, kind): which piece the plan is for
    field: list[int]  # the field rows it was made on
    target: Landing
    ready_at: int  # no key for this piece before then (reaction time; ms, the game's clock)


class TetriWarAI:
    """A computer player. ``level`` is a key of ``LEVELS`` ("easy", "medium", "hard").

    The server asks ``next_action(game, seat, now)`` (``now``: ms on the game's clock)
    and gets ``(delay, intent)``: press
    ``intent`` now (through the same path as a person's key, e.g. ``game.apply``), unless
    it is None, then ask again ``delay`` seconds later. ``decide`` gives the whole plan for
    the current piece at once, without pacing or bombs (tests, benchmarks, hints)."""

    def __init__(self, level: str = "hard", rng: random.Random | None = None) -> None:
        if level not in LEVELS:
            raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
        self.level = level
        self.strength = LEVELS[level]
        self.rng = rng if rng is not None else random.Random()
        self._plans: dict[int, _Plan] = {}  # seat -> the plan for its falling piece
        self._salvo: dict[int, int] = {}  # seat -> target seat of the add lines being fired

    # --- the API ---------------------------------------------------------------------------
    def next_action(self, game: Game, seat: int, now: int) -> tuple[float, Intent | None]:
        """What to press at ``now`` (ms; None: nothing yet) and the seconds until the next call."""
        player = self._playing(game, seat, now)
        if player is None:
            return IDLE, None
        plan = self._plan(game, player, now)
        if now < plan.ready_at:
            return (plan.ready_at - now) / 1000, None
        bomb = self._bomb(game, player)
        if bomb is not None:
            return self._wait(), bomb
        return self._wait(), self._keys(game, player, plan, now)[0]

    def decide(self, game: Game, seat: int, now: int) -> list[Intent]:
        """Every key that places the current piece from where it is, ending with a hard
        drop (← and → already exchanged while controls are swapped); [] if not playing."""
        player = self._playing(game, seat, now)
        if player is None:
            return []
        return self._keys(game, player, self._plan(game, player, now), now)

    # --- planning --------------------------------------------------------------------------
    def _playing(self, game: Game, seat: int, now: int) -> Player | None:
        player = game.players.get(seat)
        if game.finished or now >= game.end or player is None or player.left:
            self._plans.pop(seat, None)
            return None
        return player

    def _plan(self, game: Game, player: Player, now: int) -> _Plan:
        """The plan for the falling piece: kept while the piece and field are unchanged."""
        piece = (player.bag.dealt, player.kind)
        masks = player.field.masks
        plan = self._plans.get(player.seat)
        if plan is not None and plan.piece == piece and plan.field == masks[:HEIGHT]:
            return plan
        if plan is None or plan.piece != piece:  # a new piece: take time to look at it
            ready_at = now + round(1000 * self.strength.reaction * self._jitter())
        else:
            ready_at = plan.ready_at
        plan = _Plan(piece, masks[:HEIGHT], self._choose(player), ready_at)
        self._plans[player.seat] = plan
        return plan

    def _choose(self, player: Player) -> Landing:
        masks = player.field.masks
        preview = player.bag.queue[0] if player.bag.queue else None
        start = (player.rotation, player.x, player.y)
        choices = rank(masks, player.kind, start, preview, self.strength)
        alive = [choice for choice in choices if choice.score > DEATH] or choices
        strength, roll = self.strength, 1.0
        if strength.blunder or strength.sloppy:
            roll = self.rng.random()
        if roll < strength.blunder:
            return self.rng.choice(alive).landing
        if roll < strength.blunder + strength.sloppy:
            return self.rng.choice(alive[: strength.sloppy_of]).landing
        return alive[0].landing

    def _keys(self, game: Game, player: Player, plan: _Plan, now: int) -> list[Intent]:
        masks = player.field.masks
        start = (player.rotation, player.x, player.y)
        path = path_to(masks, player.kind, start, plan.target)
        if path is None:  # gravity, a kick or a bomb moved the piece: choose again from here
            plan.target = self._choose(player)
            path = path_to(masks, player.kind, start, plan.target) or ["hard_drop"]
        swapped = player.reversed_until is not None and player.reversed_until > now
        keys = {"rotate": ROTATE, "hard_drop": HARD_DROP}
        keys["left"], keys["right"] = (RIGHT, LEFT) if swapped else (LEFT, RIGHT)
        return [keys[move] for move in path]

    def _jitter(self) -> float:
        jitter = self.strength.jitter
        return 1.0 + jitter * (2 * self.rng.random() - 1) if jitter else 1.0

    def _wait(self) -> float:
        return self._jitter() / self.strength.keys_per_second

    # --- bombs ----------------------------------------------------------------------------
    def _bomb(self, game: Game, player: Player) -> Intent | None:
        """The bomb key to press now, or None. Only the oldest stored bomb can be dropped."""
        if game.options.bombs != "manual" or not player.store:
            self._salvo.pop(player.seat, None)
            return None
        if self.strength.bombs == "enter":
            if self.rng.random() < ENTER_CHANCE and (
                player.store[0] in C.GREEN_BOMBS or game.opponents(player.seat)
            ):
                return ENTER
            return None
        if self.strength.bombs == "smart":
            return self._smart_bomb(game, player)
        return None

    def _smart_bomb(self, game: Game, player: Player) -> Intent | None:
        """Green bombs on oneself when the stack is high; red ones on the leader, add lines
        held and fired together."""
        store, seat = player.store, player.seat
        bomb = store[0]
        high = stack_height(player.field.masks) >= DEFEND_HEIGHT
        if bomb in C.GREEN_BOMBS:
            self._salvo.pop(seat, None)
            # also when it holds up a red bomb behind it
            if high or any(other in C.RED_BOMBS for other in store[1:]):
                return KEYS[1]
            return None
        opponents = game.opponents(seat)
        if not opponents:
            return None  # alone: a red bomb would only hurt oneself, so it waits
        leader = max(opponents, key=lambda other: (game.players[other].score, -player.numbers[other]))
        if bomb != C.ADD_LINE:
            self._salvo.pop(seat, None)
            return KEYS[player.numbers[leader]]
        salvo = self._salvo.get(seat)
        if salvo in opponents:
            return KEYS[player.numbers[salvo]]  # keep firing at the same target
        front = next((i for i, other in enumerate(store) if other != C.ADD_LINE), len(store))
        waiting_green = high and any(other in C.GREEN_BOMBS for other in store)
        if front >= SALVO or len(store) >= SALVO_STORE or waiting_green:
            self._salvo[seat] = leader
            return KEYS[player.numbers[leader]]
        return None
