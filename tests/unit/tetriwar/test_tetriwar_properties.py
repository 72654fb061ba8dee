"""Properties that hold for every game, whatever the players do (hypothesis)."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.core.protocol import IllegalIntent
from games.core.rng import stream
from games.tetriwar import constants as C
from games.tetriwar.bot import Bot
from games.tetriwar.engine import Game, Intent, Options
from games.tetriwar.field import field, row_mask
from games.tetriwar.intents import NAMES
from games.tetriwar.pieces import SHAPES, X_OFFSET, Bag

TEXTS = [*NAMES, "bomb:1", "bomb:2", "bomb:3", "bomb:4", "forfeit"]
# "bot": a careful bot chooses the intent, so that lines clear and bombs appear (random
# intents alone almost never complete a line); the rest are any intent at all
WEIGHTED = ["bot"] * 60 + TEXTS

games = st.fixed_dictionaries(
    {
        "seats": st.sampled_from([[1], [1, 2], [2, 3, 4], [1, 2, 3, 4]]),
        "bombs": st.sampled_from(C.BOMB_MODES),
        "pairs": st.booleans(),
        "start_level": st.integers(1, 9),
        "lines_per_level": st.integers(4, 10),
        "seed": st.integers(0, 2**32),
    }
)
steps = st.lists(
    st.tuples(st.integers(0, 300), st.integers(0, 3), st.sampled_from(WEIGHTED)),
    min_size=1,
    max_size=400,
)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def make(spec) -> Game:
    options = Options(
        minutes=1,
        start_level=spec["start_level"],
        lines_per_level=spec["lines_per_level"],
        bombs=spec["bombs"],
        pairs=spec["pairs"] and len(spec["seats"]) == 4,
    )
    return Game(options, spec["seed"], spec["seats"], 0)


def play(game: Game, moves, check=None) -> None:
    bot = Bot(random.Random(str(game.seed)), randomness=0.0, bomb_rate=0.3, careful=True)
    t = 0
    for gap, index, text in moves:
        t += gap
        seat = game.seats[index % len(game.seats)]
        try:
            if text == "bot":
                if not game.players[seat].left and not game.finished:
                    game.apply(seat, bot.choose(game, seat), t)
            elif text == "forfeit":
                if index == 3:  # now and then
                    game.forfeit(seat, t)
            else:
                game.apply(seat, Intent.parse(text), t)
        except IllegalIntent:
            pass
        if check:
            check(game)
    game.advance(t)


def check_board(game: Game) -> None:
    for player in game.players.values():
        masks, text = player.field.masks, player.field.text
        assert len(text) == C.HEIGHT and masks[C.HEIGHT :] == [C.FULL_ROW] * 4
        for row in range(C.HEIGHT):
            assert 0 <= masks[row] <= C.FULL_ROW  # nothing outside the 10 columns
            assert masks[row] != C.FULL_ROW  # full rows never stay
            assert row_mask(text[row]) == masks[row]
        if not player.left:
            # the falling piece lies inside the field and overlaps no block
            assert player.shape == SHAPES[player.kind][player.rotation][player.x + X_OFFSET]
            assert player.fits(player.shape, player.y)
            view = game.view(player.seat)
            # the piece's cells as the view shows them (until the game is over: then
            # the board shows none, and the engine's piece must still lie right)
            cells = player.piece_cells()
            if player.over:
                assert game.finished and view.over and view.piece is None and view.ghost == ()
            else:
                assert not view.over and view.piece.cells == cells
            assert all(-C.HIDDEN_ROWS <= r < C.VISIBLE_ROWS and 0 <= c < C.WIDTH for r, c in cells)
            assert all(view.field[r][c] == "." for r, c in cells if r >= 0)
        assert len(player.store) <= C.STORE_SIZE
        if game.options.bombs != "manual":
            assert player.store == []
        assert 1 <= player.level <= C.MAX_LEVEL


@SETTINGS
@given(games, steps)
def test_no_block_outside_the_field_or_overlapping_another(spec, moves):
    play(make(spec), moves, check_board)


@SETTINGS
@given(games, steps)
def test_scores_never_decrease(spec, moves):
    best: dict[int, int] = {}

    def check(game):
        for seat, player in game.players.items():
            assert player.score >= best.get(seat, 0)
            best[seat] = player.score

    play(make(spec), moves, check)


@SETTINGS
@given(games, steps)
def test_a_replay_equals_the_original(spec, moves):
    game = make(spec)
    play(game, moves)
    copy = Game.replay(game.options, game.seed, game.seats, game.start, game.log, game.now)
    assert copy.to_text() == game.to_text()


@SETTINGS
@given(games, steps)
def test_advancing_in_small_or_large_steps_gives_the_same_game(spec, moves):
    game = make(spec)
    play(game, moves)
    # replaying the log alone (no advance between intents) reaches the same state
    copy = Game(game.options, game.seed, game.seats, game.start)
    for logged, seat, text in game.log:
        t = int(logged)  # the log keeps doubles (whole ms)
        copy.advance(t - 1)
        if text == "forfeit":
            copy.forfeit(seat, t)
        else:
            copy.apply(seat, Intent.parse(text), t)
    copy.advance(game.now)
    assert copy.to_text() == game.to_text()


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**64), st.integers(1, 4))
def test_the_seven_bag_deals_each_piece_once_per_seven(seed, seat):
    bag = Bag(stream(seed, "tetriwar", "bag", seat))
    dealt = [bag.take() for _ in range(49)]
    for start in range(0, 49, 7):
        assert sorted(dealt[start : start + 7]) == sorted(C.KINDS)


class RecordingBag(Bag):
    """A bag that remembers what it dealt (to watch a whole game's pieces)."""

    def __init__(self, bag: Bag) -> None:
        super().__init__(bag.rng)
        self.queue = bag.queue
        self.dealt = bag.dealt
        self.seen: list[str] = []

    def take(self) -> str:
        kind = super().take()
        self.seen.append(kind)
        return kind


@SETTINGS
@given(games, steps)
def test_every_player_is_dealt_whole_bags(spec, moves):
    game = make(spec)
    bags = {}
    for seat, player in game.players.items():
        first = player.kind  # already dealt at the start
        player.bag = bags[seat] = RecordingBag(player.bag)
        bags[seat].seen.append(first)
    play(game, moves)
    for bag in bags.values():
        whole = len(bag.seen) - len(bag.seen) % 7
        for start in range(0, whole, 7):
            assert sorted(bag.seen[start : start + 7]) == sorted(C.KINDS)
        assert len(set(bag.seen[whole:])) == len(bag.seen[whole:])


JIGGLES = ["left", "right", "rotate", "left right", "right left", "right right left left", "left left left left", "right right right right"]


@SETTINGS
@given(
    seed=st.integers(0, 2**32),
    start_level=st.integers(1, 9),
    ledges=st.lists(st.sampled_from(["X.........", "XX........", ".........X", "XXX...XXXX", "X...XXXXXX"]), max_size=6),
    moves=st.lists(st.tuples(st.integers(1, 120), st.sampled_from(JIGGLES)), max_size=500),
)
def test_no_piece_stays_on_one_row_for_ever(seed, start_level, ledges, moves):
    """RULES.md: at most 15 lock resets, restored only on a lower row; so however it is
    moved and turned (jiggled at a ledge, off it and back), a piece stays on its lowest
    row at most 16 lock delays and the gravity between them."""
    game = Game(Options(bombs="off", start_level=start_level), seed, [1], 0)
    if ledges:
        game.setup(1, field=field(*ledges))
    player = game.players[1]
    t = 0
    since, row = 0, (player.bag.dealt, player.lowest)
    for gap, names in moves:
        t += gap
        for name in names.split():
            game.apply(1, Intent(name), t)
        if (player.bag.dealt, player.lowest) != row:
            since, row = t, (player.bag.dealt, player.lowest)
        bound = (C.MAX_LOCK_RESETS + 1) * (C.LOCK_DELAY_MS + C.GRAVITY_MS[player.level]) + 200
        assert t - since <= bound, f"piece {player.bag.dealt} on row {player.lowest} for {t - since:.2f} s"
