"""TetriWar: real-time falling blocks for 1–4 players, with bombs (RULES.md §1).

``engine`` is pure Python (standard library only); Django code lives elsewhere.

Its hot modules (``COMPILED``) may also be built with mypyc (``make engine``,
tools/mypyc_engine.py) into C extensions beside their .py files, which Python then
imports instead: the same source, about 1.5 times as fast. The .py files stay the rules
and the fallback. The build is used whole or not at all: if any of its extensions is
missing or older than its source (edited since the build), or ``TETRIWAR_PURE_ENGINE=1``
is set, every one of those modules is imported from its .py (``COMPILED_BUILD`` is then
False), so a stale build never plays old rules.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import logging
import os
import sys

COMPILED = ("pieces", "field", "player", "engine")  # tools/mypyc_engine.py's MODULES
_HERE = os.path.dirname(os.path.abspath(__file__))


def _extension(module: str) -> str | None:
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = os.path.join(_HERE, module + suffix)
        if os.path.exists(path):
            return path
    return None


class _PureEngine:
    """Imports the compiled modules from their .py files (a meta path finder ahead of
    the one that would find the extensions)."""

    names = {f"{__name__}.{module}": os.path.join(_HERE, module + ".py") for module in COMPILED}

    def find_spec(self, fullname: str, path=None, target=None):
        source = self.names.get(fullname)
        return None if source is None else importlib.util.spec_from_file_location(fullname, source)


def _compiled_build() -> bool:
    extensions = {module: _extension(module) for module in COMPILED}
    if not any(extensions.values()):
        return False  # not built: the .py files, as Python finds them
    why = None
    if os.environ.get("TETRIWAR_PURE_ENGINE") == "1":
        why = ""
    elif not all(extensions.values()):
        why = "part of it is missing"
    else:
        for module, extension in extensions.items():
            if os.path.getmtime(os.path.join(_HERE, module + ".py")) > os.path.getmtime(extension):
                why = f"{module}.py changed since it was built"
                break
    if why is None:
        return True
    if why:
        logging.getLogger(__name__).warning(
            "the compiled TetriWar engine is not used (%s): the pure engine runs; `make engine` builds it again", why
        )
    sys.meta_path.insert(0, _PureEngine())
    return False


COMPILED_BUILD = _compiled_build()
