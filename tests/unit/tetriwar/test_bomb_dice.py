"""A bomb's dice (RULES.md §1, rules version 4): its random choices are drawn when it is
dropped, as a seed of its own from the dropper's seeded chance, sent with its
announcement, and applied to the field as it stands when it lands. Version 3's games
still replay with their dice drawn at the landing (``engine.GameV3``)."""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tetriwar_helpers import field, land

from games.tetriwar import constants as C
from games.tetriwar import rulebook
from games.tetriwar.bot import Bot
from games.tetriwar.dice import Dice
from games.tetriwar.engine import Game, GameV3, Intent, Options

# Mulberry32's first numbers for a few seeds (tests/js/tetriwar_dice.test.js pins the same).
FIRST = {
    0: [1144304738, 1416247, 958946056, 627933444],
    1: [2693262067, 11749833, 2265367787, 4213581821],
    42: [2581720956, 1925393290, 3661312704, 2876485805],
    4294967295: [3850105811, 813802916, 3073704848, 4054706436],
}


def test_the_dice_are_mulberry32_as_the_page_draws_them():
    for seed, numbers in FIRST.items():
        dice = Dice(seed)
        assert [dice.next() for _ in numbers] == numbers
    assert Dice(0).below(10) == 8
    assert Dice(1).sample(list(range(20)), 5) == [7, 6, 19, 1, 15]


@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.integers(0, 50))
def test_below_stays_in_range_and_sample_draws_distinct_items(seed, n, k):
    dice = Dice(seed)
    assert 0 <= dice.below(n) < n
    picked = dice.sample(list(range(n)), k)
    assert len(picked) == min(k, n) and len(set(picked)) == len(picked)


def test_below_refuses_an_empty_range():
    with pytest.raises(ValueError):
        Dice(1).below(0)


def bombed(bomb: str, engine=Game):
    """Seat 1 holds ``bomb`` and seat 2 a field with blocks in its bottom rows."""
    game = engine(Options(bombs="manual"), 7, [1, 2], 0)
    game.setup(1, store=[bomb])
    game.setup(2, field=field("XXXXX.....", "X.X.X.X.X.", "XXXXXXXXX."))
    return game


def seed_of(game: Game, seat: int = 2) -> int:
    (entry,) = game.players[seat].incoming
    return entry.seed


def test_the_seed_is_drawn_from_the_droppers_chance_at_the_drop():
    game = bombed(C.ADD_LINE)
    expected = copy.deepcopy(game.players[1].chance).getrandbits(32)
    target_chance = game.players[2].chance.getstate()
    game.apply(1, Intent("bomb", 2), 1000)
    assert seed_of(game) == expected
    assert game.state(2)["incoming"] == [[1500, C.ADD_LINE, 1, expected]]  # sent with the announcement
    land(game, 2, 1500)
    assert game.players[2].chance.getstate() == target_chance  # the landing draws nothing of its own


@pytest.mark.parametrize("bomb", [C.ADD_LINE, C.EARTHQUAKE, C.DRILL])
def test_the_effect_applies_its_dice_to_the_field_as_it_stands_when_it_lands(bomb):
    """Two games with the same drop, the target's field changed between the drop and
    the landing in one of them: the same seed, each effect applied to its own field by
    that seed's draws."""
    results = []
    for later in (None, field("XXXXXXXX..", "XX........")):
        game = bombed(bomb)
        game.apply(1, Intent("bomb", 2), 1000)
        seed = seed_of(game)
        if later is not None:
            game.setup(2, field=later)
        before = game.players[2].field.copy()
        land(game, 2, 1500)
        results.append((seed, before, game.players[2].field))
    (seed_a, _, _), (seed_b, _, _) = results
    assert seed_a == seed_b
    for seed, before, after in results:
        assert after.text == expected_after(bomb, seed, before).text


def expected_after(bomb, seed, before):
    """The effect by RULES.md §1 with the dice of ``seed``, written out here."""
    dice, f = Dice(seed), before.copy()
    if bomb == C.ADD_LINE:
        f.add_garbage(dice.below(C.WIDTH))
    elif bomb == C.EARTHQUAKE:
        for row in range(C.HEIGHT):
            f.shift_row(row, dice.below(5) - 2)
    else:
        for row, col in dice.sample(f.blocks(), 10):
            f.set_cell(row, col, C.EMPTY)
    full = f.full_rows()
    if full:
        f.remove_rows(full)
    return f


def test_a_replay_draws_the_same_dice():
    game = Game(Options(bombs="automatic", lines_per_level=4), 21, [1, 2], 0)
    bot, rng, t = Bot(random.Random(2), careful=True, bomb_rate=0.5), random.Random(3), 0
    seeds = []
    for _ in range(2500):
        t += rng.randrange(60)
        seat = rng.choice([1, 2])
        game.apply(seat, bot.choose(game, seat), t)
        seeds += [i.seed for p in game.players.values() for i in p.incoming if i.seed not in seeds]
    assert seeds, "the bots dropped bombs"
    copy_ = Game.replay(game.options, game.seed, [1, 2], game.start, game.log, game.now)
    game.advance(game.now)
    assert copy_.to_text() == game.to_text()


def test_rules_version_3_still_draws_at_the_landing():
    assert rulebook.game_class(3) is GameV3 and rulebook.game_class(4) is Game
    assert rulebook.RULES_VERSION == C.RULES_VERSION == 4
    game = bombed(C.ADD_LINE, engine=GameV3)
    game.apply(1, Intent("bomb", 2), 1000)
    assert seed_of(game) is None and game.state(2)["incoming"] == [[1500, C.ADD_LINE, 1]]
    chance = copy.deepcopy(game.players[2].chance)
    land(game, 2, 1500)
    assert game.view(2).field[-1].index(".") == chance.randrange(C.WIDTH)  # the target's chance, then
