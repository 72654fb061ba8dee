"""The games the site offers. The lobby, tables, help pages and the table host know
games only through this registry: adding a game means adding its package under
``games/<game>/`` and one entry here. What a game's package must provide, and the
checks every registered game passes, are in tests/contract/test_game_contract.py."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from importlib import import_module
from typing import Any

from django.utils.translation import gettext_lazy


@dataclass(frozen=True)
class GameSpec:
    slug: str
    name: str
    tagline: Any  # words for people (lazily translated)
    min_seats: int
    max_seats: int
    options_form_path: str  # "module:Class", a Django form of the game's options
    live_path: str  # "module:Class", the game's LiveGame: what the table host runs (games/live.py)
    how_to_template: str
    # The table page's game-specific parts: a script for keys and clocks, and a
    # template of extra <head> content (styles built from the engine's tables).
    script: str = ""
    head_template: str = ""
    bot_levels: tuple[str, ...] = ()  # computer players a host may seat, weakest first

    @cached_property
    def options_form(self) -> type[Any]:
        return _load(self.options_form_path)

    @cached_property
    def live(self) -> type[Any]:
        return _load(self.live_path)

    def describe_options(self, options: dict[str, Any]) -> str:
        """A short human summary of a table's options, for the lobby."""
        return self.options_form.describe(options)


GAMES: dict[str, GameSpec] = {
    spec.slug: spec
    for spec in [
        GameSpec(
            slug="tetriwar",
            name="TetriWar",
            tagline=gettext_lazy(
                "Real-time falling blocks for 1–4 players or 2 vs 2, with bombs."
            ),
            min_seats=1,
            max_seats=4,
            options_form_path="games.tetriwar.forms:TetriWarOptionsForm",
            live_path="games.tetriwar.live:TetriWarLive",
            how_to_template="games/tetriwar/how_to_play.html",
            script="js/tetriwar.js",
            head_template="games/tetriwar/head.html",
            bot_levels=("easy", "medium", "hard"),
        ),
        GameSpec(
            slug="viertris",
            name="Viertris",
            tagline=gettext_lazy(
                "Connect four meets Tetris: drop pieces, make runs of four, chain cascades."
            ),
            min_seats=2,
            max_seats=4,
            options_form_path="games.viertris.forms:ViertrisOptionsForm",
            live_path="games.viertris.live:ViertrisLive",
            how_to_template="games/viertris/how_to_play.html",
            script="js/viertris.js",
            head_template="games/viertris/head.html",
            bot_levels=("greedy",),
        ),
        GameSpec(
            slug="thirdoption",
            name="Third Option",
            tagline=gettext_lazy(
                "Tetris on paper for 1–12: fill your 9 × 9 grid from the cards everyone shares."
            ),
            min_seats=1,
            max_seats=12,
            options_form_path="games.thirdoption.forms:ThirdOptionOptionsForm",
            live_path="games.thirdoption.live:ThirdOptionLive",
            how_to_template="games/thirdoption/how_to_play.html",
            script="js/thirdoption.js",
            head_template="games/thirdoption/head.html",
            bot_levels=("greedy",),
        ),
        GameSpec(
            slug="blockkiller",
            name="Block-Killer",
            tagline=gettext_lazy(
                "A card battle for 3–6: build attacks from block cards on a 10-wide field, "
                "defend, counter, and bury the others in garbage."
            ),
            min_seats=3,
            max_seats=6,
            options_form_path="games.blockkiller.forms:BlockKillerOptionsForm",
            live_path="games.blockkiller.live:BlockKillerLive",
            how_to_template="games/blockkiller/how_to_play.html",
            script="js/blockkiller.js",
            head_template="games/blockkiller/head.html",
            bot_levels=("greedy",),
        ),
        GameSpec(
            slug="tetrix",
            name="Te-Trix",
            tagline=gettext_lazy(
                "Dice and paper for 1–4, or solo: arrange four dice into a tetromino, and everyone "
                "writes it on a 7 × 7 sheet to grow areas of circles, squares and crosses."
            ),
            min_seats=1,
            max_seats=4,
            options_form_path="games.tetrix.forms:TetrixOptionsForm",
            live_path="games.tetrix.live:TetrixLive",
            how_to_template="games/tetrix/how_to_play.html",
            script="js/tetrix.js",
            head_template="games/tetrix/head.html",
            bot_levels=("greedy",),
        ),
    ]
}


def _load(path: str) -> type[Any]:
    module, _, name = path.partition(":")
    return getattr(import_module(module), name)


def get_game(slug: str) -> GameSpec | None:
    return GAMES.get(slug)
