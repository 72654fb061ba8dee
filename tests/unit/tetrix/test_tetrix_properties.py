"""Properties that hold whatever the sheet and whatever the players do (hypothesis)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.tetrix import constants as C
from games.tetrix.engine import Game, IllegalIntent, Intent, Options
from games.tetrix.sheet import FULL, Sheet, score, shape_cells, spot, symbol_areas, turned

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# sheets from nearly empty to nearly full: every cell written with a probability of its
# own, with a symbol drawn for it
sheets = st.tuples(st.integers(0, 100), st.randoms(use_true_random=False)).map(
    lambda args: Sheet.from_rows(
        [
            "".join(
                args[1].choice(C.SYMBOLS) if args[1].randrange(100) < args[0] else "." for _ in range(C.SIZE)
            )
            for _ in range(C.SIZE)
        ]
    )
)


def naive_score(sheet: Sheet) -> int:
    """By hand: a flood fill from every cell over a grid of characters."""
    rows = sheet.rows()
    seen: set[tuple[int, int]] = set()
    total = 0
    for symbol in C.SYMBOLS:
        count = cells = 0
        for r in range(C.SIZE):
            for c in range(C.SIZE):
                if rows[r][c] != symbol or (r, c) in seen:
                    continue
                stack, size = [(r, c)], 0
                seen.add((r, c))
                while stack:
                    y, x = stack.pop()
                    size += 1
                    for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                        if (
                            0 <= ny < C.SIZE
                            and 0 <= nx < C.SIZE
                            and rows[ny][nx] == symbol
                            and (ny, nx) not in seen
                        ):
                            seen.add((ny, nx))
                            stack.append((ny, nx))
                if size >= C.AREA_MIN:
                    count += 1
                    cells += size
        total += count * cells
    return total


@SETTINGS
@given(sheets)
def test_the_bitmask_score_equals_a_flood_fill_by_hand(sheet):
    assert score(sheet) == naive_score(sheet)
    for mask in sheet.masks:
        found = symbol_areas(mask)
        assert sum(found) == mask and all(not a & b for i, a in enumerate(found) for b in found[i + 1 :])


@SETTINGS
@given(sheets, st.sampled_from(sorted(C.TETROMINOES)), st.integers(0, C.BAR_BOXES))
def test_a_spot_is_legal_exactly_when_the_rules_say_so(sheet, name, crossed):
    solo = Sheet(sheet.masks, True, crossed)
    rows = sheet.rows()
    low, high = C.POSITION_RANGE
    for turns in range(C.TURNS):
        cells = turned(shape_cells(name), turns)
        for row in range(low, high + 1):
            for column in range(low, high + 1):
                placed = [(row + r, column + c) for r, c in cells]
                on = [(r, c) for r, c in placed if 0 <= r < C.SIZE and 0 <= c < C.SIZE]
                where = spot(name, turns, row, column)
                assert (where is None) == (not on)
                if where is None:
                    continue
                free = all(rows[r][c] == "." for r, c in on)
                assert sheet.allows(where) == free
                assert solo.allows(where) == (free and 4 - len(on) <= C.BAR_BOXES - crossed)
    assert sheet.fits(name) == any(sheet.allows(s) for s in sheet.legal_spots(name))
    first = sheet.first_spot(name)
    assert (first is None) == (not sheet.fits(name))


specs = st.fixed_dictionaries({
    "seats": st.sampled_from([[1], [1, 2], [2, 3, 4], [1, 2, 3, 4]]),
    "seed": st.integers(0, 2**32),
    "solo": st.booleans(),
    "arrange_seconds": st.sampled_from([10, 30]),
    "write_seconds": st.sampled_from([15, 60]),
})  # fmt: skip
ACTIONS = ["arrange"] * 3 + ["write"] * 10 + ["stop", "forfeit", "wait", "garbage"]
steps = st.lists(
    st.tuples(
        st.floats(0, 25, allow_nan=False),
        st.sampled_from(ACTIONS),
        st.integers(0, 3),  # who
        st.sampled_from(sorted(C.TETROMINOES)),
        st.permutations(range(C.DICE)),
        st.tuples(st.integers(0, 3), st.integers(-3, 6), st.integers(-3, 6)),
        st.text(alphabet="oxsq", min_size=4, max_size=4),
    ),
    max_size=120,
)


def make(spec) -> Game:
    options = Options(spec["arrange_seconds"], spec["write_seconds"], spec["solo"])
    return Game(options, spec["seed"], spec["seats"][:1] if spec["solo"] else spec["seats"], 0.0)


def play(game: Game, moves, check) -> float:
    """Play ``moves``; every refusal is checked to change nothing."""
    t = 0.0
    for gap, action, who, shape, order, (turns, row, column), symbols in moves:
        t += gap
        seat = game.seats[who % len(game.seats)]
        game.advance(t)
        before = game.to_text()
        try:
            if action == "arrange":
                game.apply(seat, Intent.arrange(shape, "".join(game.dice[i] for i in order)), t)
            elif action == "garbage":
                game.apply(seat, Intent.parse(f"arrange:{shape}:{symbols}"), t)
            elif action == "write":
                game.apply(seat, Intent.write(turns, row, column), t)
            elif action == "stop":
                game.apply(seat, Intent.stop(), t)
            elif action == "forfeit":
                game.forfeit(seat, t)
        except IllegalIntent as error:
            assert error.code and error.message
            assert game.to_text() == before, f"{action} was refused ({error.code}) but changed the game"
        check(game)
    game.advance(t)
    check(game)
    return t


def check_sheets(game: Game) -> None:
    for player in game.players.values():
        o, s, x = player.sheet.masks
        assert not (o | s | x) & ~FULL  # no cell outside the sheet
        assert not o & s and not o & x and not s & x  # one symbol a cell
        assert 0 <= player.sheet.crossed <= (C.BAR_BOXES if game.options.solo else 0)
    if not game.finished:
        assert game.phase in ("arrange", "write") and len(game.dice) == C.DICE
        assert game.waiting_for()
        for seat in game.waiting_for():  # whoever is waited for can act
            if game.phase == "write":
                assert game.fits(seat)


@SETTINGS
@given(specs, steps)
def test_no_cell_is_ever_written_outside_the_sheet_or_twice(spec, moves):
    written = []
    game = make(spec)

    def check(g: Game) -> None:
        check_sheets(g)
        written.append(sum(p.sheet.written for p in g.players.values()))

    play(game, moves, check)
    assert written == sorted(written)  # nothing written is ever taken back


@SETTINGS
@given(specs, steps)
def test_a_replay_of_the_input_log_equals_the_original(spec, moves):
    game = make(spec)
    end = play(game, moves, lambda g: None)
    copy = Game.replay(game.options, game.seed, game.seats, game.start, game.log, end)
    assert copy.to_text() == game.to_text()
    assert copy.results() == game.results() and copy.outcome() == game.outcome()


@settings(max_examples=40, deadline=None)
@given(specs)
def test_the_clocks_alone_play_every_game_to_an_end(spec):
    game = make(spec)
    t = 0.0
    while not game.finished:
        t += 10.0
        game.advance(t)
        check_sheets(game)
        assert game.round <= C.CELLS
    assert game.termination.value == "full_board"


@SETTINGS
@given(sheets)
def test_the_text_of_a_sheet_reads_each_cell_and_reads_back_as_the_sheet(sheet):
    rows = sheet.rows()
    assert len(rows) == C.SIZE and all(len(row) == C.SIZE for row in rows)
    for r in range(C.SIZE):
        for c in range(C.SIZE):
            assert rows[r][c] == (sheet.symbol_at(r, c) or C.EMPTY)
    assert Sheet.from_rows(rows) == sheet
