"""The games the site offers. The lobby, tables and help pages know games only
through this registry: adding a game means adding one entry here."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from importlib import import_module
from typing import Any


@dataclass(frozen=True)
class GameSpec:
    slug: str
    name: str
    tagline: str
    min_seats: int
    max_seats: int
    options_form_path: str  # "module:Class", a Django form of the game's options
    how_to_template: str
    # The table page's game-specific parts: a script for keys and clocks, and a
    # template of extra <head> content (styles built from the engine's tables).
    script: str = ""
    head_template: str = ""
    bot_levels: tuple[str, ...] = ()  # computer players a host may seat, weakest first

    @cached_property
    def options_form(self) -> type[Any]:
        module, _, cls = self.options_form_path.partition(":")
        return getattr(import_module(module), cls)

    def describe_options(self, options: dict[str, Any]) -> str:
        """A short human summary of a table's options, for the lobby."""
        return self.options_form.describe(options)


GAMES: dict[str, GameSpec] = {
    spec.slug: spec
    for spec in [
        GameSpec(
            slug="tetriwar",
            name="TetriWar",
            tagline="Real-time falling blocks for 1–4 players or 2 vs 2, with bombs.",
            min_seats=1,
            max_seats=4,
            options_form_path="games.tetriwar.forms:TetriWarOptionsForm",
            how_to_template="games/tetriwar/how_to_play.html",
            script="js/tetriwar.js",
            head_template="games/tetriwar/head.html",
            bot_levels=("easy", "medium", "hard"),
        ),
        GameSpec(
            slug="viertris",
            name="Viertris",
            tagline="Connect four meets Tetris: drop pieces, make runs of four, chain cascades.",
            min_seats=2,
            max_seats=4,
            options_form_path="games.viertris.forms:ViertrisOptionsForm",
            how_to_template="games/viertris/how_to_play.html",
            script="js/viertris.js",
            head_template="games/viertris/head.html",
            bot_levels=("greedy",),
        ),
    ]
}


def get_game(slug: str) -> GameSpec | None:
    return GAMES.get(slug)
