"""The code's structure holds (docs/architecture.md): besides import-linter's
contracts (pyproject.toml, run by `make test`), no module of ours imports another of
ours from inside a function, which is how a cycle hides."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OURS = ("accounts", "config", "games", "lobby")
MODULES = sorted(
    path for package in OURS for path in (ROOT / package).rglob("*.py") if "migrations" not in path.parts
)


def inner_imports_of_ours(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    top = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in top:
            names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            found += [f"line {node.lineno}: {name}" for name in names if name.split(".")[0] in OURS]
    return found


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_of_ours_is_imported_inside_a_function(path):
    if path.name == "apps.py":
        return  # AppConfig.ready() is where Django says start-up hooks are imported
    assert inner_imports_of_ours(path) == []


def test_the_check_sees_an_import_inside_a_function(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("import os\n\ndef f():\n    from games import services\n    return services\n")
    assert inner_imports_of_ours(probe) == ["line 4: games"]
