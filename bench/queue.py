"""Quick play's matcher under load (issue 32): ``python bench/queue.py --players 1000``.

The bench itself is bench/matching.py; this file keeps the name the issue gives it, which
is also the standard library's ``queue``. A bench script run as ``python bench/X.py`` has
this folder first on its import path, so whatever imports ``queue`` there (asyncio,
concurrent.futures, logging) finds this file: imported under that name, it hands over
the standard library's own module, and nothing of the bench runs.
"""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))

if __name__ == "queue":
    import importlib.machinery
    import importlib.util

    _spec = importlib.machinery.PathFinder.find_spec(
        "queue", [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
    )
    _stdlib = importlib.util.module_from_spec(_spec)
    sys.modules["queue"] = _stdlib  # what ``import queue`` returns, once this file has run
    _spec.loader.exec_module(_stdlib)
elif __name__ == "__main__":
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
    sys.path.insert(0, os.path.dirname(_HERE))
    from bench.matching import main

    main()
