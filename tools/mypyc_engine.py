"""The pure TetriWar engine compiled with mypyc: optional, the .py files stay the rules.

    .venv-mypyc/bin/python tools/mypyc_engine.py          # build (make engine)
    python tools/mypyc_engine.py --clean                  # remove (make engine-clean)

Builds ``MODULES`` into C extensions placed beside their sources
(``games/tetriwar/engine.cpython-311-….so``…), which Python imports instead of the .py,
and mypyc's shared runtime (``<hash>__mypyc.cpython-311-….so``) at the project's root.
Without them everything runs from the .py files, as before. The C sources and objects go
to ``build/mypyc``. Run it with a Python that has mypy installed (the Makefile's
``.venv-mypyc``, the same interpreter as ``.venv``): mypyc type-checks the modules first
and refuses to compile them on a type error. Rebuild after every change to the modules:
a stale .so is imported instead of the newer .py.
"""

from __future__ import annotations

import glob
import os
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULES = [
    "games/tetriwar/engine.py",
    "games/tetriwar/player.py",
    "games/tetriwar/field.py",
    "games/tetriwar/pieces.py",
]
BUILD = "build/mypyc"


def built() -> list[str]:
    """The extension files a build leaves in the tree."""
    found = glob.glob(os.path.join(ROOT, "*__mypyc.*.so"))
    for module in MODULES:
        found += glob.glob(os.path.join(ROOT, module[: -len(".py")] + ".*.so"))
    return sorted(found)


def clean() -> None:
    for path in built():
        os.remove(path)
        print(f"removed {os.path.relpath(path, ROOT)}")
    shutil.rmtree(os.path.join(ROOT, BUILD), ignore_errors=True)


def build() -> None:
    from mypyc.build import mypycify
    from setuptools import setup

    clean()
    os.chdir(ROOT)
    setup(
        name="tetriwar-engine-compiled",
        packages=[],
        py_modules=[],
        ext_modules=mypycify(["--follow-imports=silent", *MODULES], opt_level="3", target_dir=BUILD),
        script_args=["--quiet", "build_ext", "--inplace", "--build-temp", BUILD, "--build-lib", BUILD + "/lib"],
    )
    for path in built():
        print(f"built {os.path.relpath(path, ROOT)}")


if __name__ == "__main__":
    clean() if sys.argv[1:] == ["--clean"] else build()
