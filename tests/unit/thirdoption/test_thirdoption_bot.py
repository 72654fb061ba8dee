"""The bot: greedy, fewest isolated empty cells; never an illegal placement."""

from __future__ import annotations

import random

from games.thirdoption.board import FULL, grid, shape
from games.thirdoption.bot import ThirdOptionBot, isolated, outline
from games.thirdoption.engine import Game, Options

from .thirdoption_helpers import FULL_ROW, full_but, game_for


def test_isolated_cells_are_the_empty_cells_with_no_empty_neighbour():
    g = grid(".#.######", "#########", "##..#####", *[FULL_ROW] * 5, "########.")
    free = ~g.filled & FULL
    assert isolated(free) == 3  # (0, 0), (0, 2) and (8, 8); the pair in row 2 are neighbours
    # wrapping from one row's end to the next row's start is no neighbour
    assert isolated(~grid("########.", ".########", *[FULL_ROW] * 7).filled & FULL) == 2
    assert outline(~grid("##..#####", *[FULL_ROW] * 8).filled & FULL) == 6


def test_it_leaves_no_isolated_cell_where_it_can():
    # four empty cells in a row (and a far empty row): the I3 there would leave one
    # isolated cell, the domino leaves a pair; the I3 in the bottom row leaves none
    game = game_for(
        seats=(1,), grids={1: full_but("#####....", *[FULL_ROW] * 7, ".........")}, deck=["I3", "2", "1", "1"]
    )
    intent = ThirdOptionBot(random.Random(1)).choose(game, 1)
    placed = (
        shape(game.cards[intent.card])
        .orientation(intent.turns, intent.mirrored)
        .at(intent.row, intent.column)
    )
    after = ~(game.players[1].grid.filled | placed) & FULL
    assert isolated(after) == 0


def test_on_equal_isolated_cells_it_places_the_bigger_card():
    game = game_for(seats=(1,), deck=["2", "P5", "1", "1"])
    intent = ThirdOptionBot(random.Random(1)).choose(game, 1)
    assert game.cards[intent.card] == "P5"


def test_it_places_its_own_card_when_it_has_one():
    slot = [*full_but("#.#######", "#.#######", "#.#######")[:8], "########."]
    game = game_for(grids={1: slot}, deck=["O4", "T4", "I3", "2", "1"])
    intent = ThirdOptionBot(random.Random(1)).choose(game, 1)
    assert intent.card == 2 and game.apply(1, intent, 0.0)


def test_it_has_nothing_to_do_once_placed_or_out():
    game = game_for(seats=(1, 2, 3), deck=["O4", "T4", "I3", "2", "1"], out=[3])
    bot = ThirdOptionBot(random.Random(1))
    assert bot.choose(game, 3) is None
    game.apply(1, bot.choose(game, 1), 0.0)
    assert bot.next_action(game, 1, 0.0) == (0.5, None)


def test_it_thinks_before_it_places_and_never_after_the_round_clock():
    game = Game(Options(round_seconds=15), 3, [1, 2], 0.0)
    bot = ThirdOptionBot(random.Random(2))
    delay, intent = bot.next_action(game, 1, 0.0)
    assert intent is None and 1.0 <= delay <= 2.5
    delay, intent = bot.next_action(game, 1, delay)
    assert intent is not None and intent.round == game.round


def test_twelve_bots_play_a_whole_game_and_every_placement_is_legal():
    for seed in range(4):
        game = Game(Options(), seed, list(range(1, 13)), 0.0)
        bots = {seat: ThirdOptionBot(random.Random(seat)) for seat in game.seats}
        now = 0.0
        while not game.finished:
            now += 0.5
            game.advance(now)
            for seat, bot in bots.items():
                if game.finished:
                    break
                _, intent = bot.next_action(game, seat, now)
                if intent is not None:
                    events = game.apply(seat, intent, now)  # never refused
                    assert not any(e.kind == "placed" and e.timeout for e in events)
        assert game.outcome().standings[0].place == 1
        assert all(standing.score < 40 for standing in game.outcome().standings)  # it fills most of a grid
