"""The lobby, tables and the table host know games only through the registry:
adding Viertris needed its engine, its live wrapper, its options form, its
templates and one registry entry in games/registry.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from games.registry import GAMES

ROOT = Path(__file__).resolve().parents[2]
GENERIC = [
    *sorted((ROOT / "lobby").rglob("*.py")),
    *sorted((ROOT / "templates" / "lobby").rglob("*.html")),
    ROOT / "games" / "host.py",
    ROOT / "games" / "services.py",
    ROOT / "games" / "models.py",
    ROOT / "static" / "js" / "live.js",
]


@pytest.mark.parametrize("path", GENERIC, ids=lambda p: str(p.relative_to(ROOT)))
def test_generic_code_names_no_game(path):
    text = path.read_text()
    for slug in GAMES:
        assert not re.search(slug, text, re.IGNORECASE), f"{path.name} mentions {slug}"


def test_every_game_is_registered_for_the_lobby_and_the_host():
    assert set(GAMES) == {"tetriwar", "viertris", "thirdoption", "blockkiller", "tetrix"}
    for spec in GAMES.values():
        assert spec.options_form.defaults()  # a practice or default table can be made
        spec.options_form.validate(spec.options_form.defaults())
