"""The browser's rule tables are generated from the Python source, never copied by hand."""

from __future__ import annotations

from pathlib import Path

from games.tetriwar import constants as C
from games.tetriwar.js_rules import OUTPUT, render, tables

ROOT = Path(__file__).resolve().parents[3]


def test_the_committed_rules_file_is_what_the_generator_writes():
    committed = (ROOT / OUTPUT).read_text(encoding="utf-8")
    assert committed == render(), (
        f"{OUTPUT} is stale: run `make rules` (python -m games.tetriwar.js_rules) and commit it"
    )


def test_the_tables_carry_integer_milliseconds():
    exported = tables()
    assert exported["GRAVITY_MS"][1:] == [1000, 793, 618, 473, 355, 262, 190, 135, 94, 64]
    assert all(type(ms) is int for row in exported["SOFT_DROP_MS"].values() for ms in row)
    assert exported["SOFT_DROP_MS"][C.SOFT_DROP_SPEED_DEFAULT][1] == 50
    assert (exported["LOCK_DELAY_MS"], exported["MAX_LOCK_RESETS"]) == (500, 15)


def test_every_export_is_frozen_in_the_module():
    for line in render().splitlines():
        if line.startswith("export const") and ("{" in line or "[" in line):
            assert "= deepFreeze(" in line, line
