"""Hot fragments: render functions or template partials? The measurement behind
TetriWar's choice (games/tetriwar/render.py; docs/architecture.md, "One source per region").

    python bench/render.py [--fragments N]

Renders the fragments a live table sends most (a field row, the falling piece and its
ghost, a score line) N times each, two ways that produce the same bytes: the render
functions the site uses, and Django template partials (django-template-partials, as
the page regions are) with the same markup. Checks the two agree byte for byte, then
prints the microseconds per fragment of each, and last ``template_over_function``:
how many times slower the template partial is (the headline).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.server import django_in_process  # noqa: E402

django_in_process()

from django.template import Context, Engine  # noqa: E402

from bench.report import figure  # noqa: E402
from games.tetriwar import render  # noqa: E402

ENGINE = Engine(libraries={"partials": "template_partials.templatetags.partials"}, builtins=[])
SOURCE = """{% load partials %}
{% partialdef row %}<div id="board-{{ seat }}-row-{{ index }}" class="fr" hx-swap-oob="true">{% for c in cells %}{% if c == "." %}<i></i>{% else %}<i class={{ c }}></i>{% endif %}{% endfor %}</div>{% endpartialdef %}
{% partialdef piece %}<div id="piece-{{ seat }}" class="pc {{ kind }} r{{ rotation }}" style="--x:{{ x }};--y:{{ y }}" hx-swap-oob="true"><i></i><i></i><i></i><i></i></div>{% endpartialdef %}
{% partialdef score %}<dl id="score-{{ seat }}" class="stats" hx-swap-oob="true"><div><dt>Score</dt><dd>{{ score }}</dd></div><div><dt>Level</dt><dd>{{ level }}</dd></div><div><dt>Lines</dt><dd>{{ lines }}</dd></div><div><dt>Out</dt><dd>{{ out }}</dd></div></dl>{% endpartialdef %}
"""
TEMPLATE = ENGINE.from_string(SOURCE)
PARTIALS = {name: TEMPLATE.extra_data["partials"][name] for name in ("row", "piece", "score")}

ROWS = ["..........", "IIII......", "..OO.TTT.Z", "JJJLLLSSZZ"[:9] + ".", "T.T.T.T.T."]
CASES = {
    "row": (
        [{"seat": 2, "index": i % 20, "cells": ROWS[i % len(ROWS)]} for i in range(len(ROWS) * 4)],
        lambda c: render.row(c["seat"], c["index"], c["cells"]),
    ),
    "piece": (
        [{"seat": 1 + i % 4, "kind": "IOTSZJL"[i % 7], "rotation": i % 4, "x": i % 8, "y": i % 18} for i in range(28)],
        lambda c: render.piece(c["seat"], c["kind"], c["rotation"], c["x"], c["y"]),
    ),
    "score": (
        [{"seat": 1 + i % 4, "score": 100 * i, "level": 1 + i % 10, "lines": i, "out": i % 3} for i in range(20)],
        lambda c: render.score(c["seat"], c["score"], c["level"], c["lines"], c["out"]),
    ),
}


def per_fragment_us(make, contexts, n: int) -> float:
    start = time.perf_counter()
    done = 0
    while done < n:
        for context in contexts:
            make(context)
        done += len(contexts)
    return (time.perf_counter() - start) / done * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fragments", type=int, default=20000, help="fragments of each kind, each way")
    args = parser.parse_args()
    function_total = template_total = 0.0
    for name, (contexts, function) in CASES.items():
        partial = PARTIALS[name]
        for context in contexts:  # the same bytes, or the comparison means nothing
            assert partial.render(Context(context)) == function(context), name
        render.row_cells.cache_clear()
        function_us = per_fragment_us(function, contexts, args.fragments)
        template_us = per_fragment_us(lambda c, p=partial: p.render(Context(c)), contexts, args.fragments)
        figure(f"{name}_function_us", function_us, ".2f")
        figure(f"{name}_template_us", template_us, ".2f")
        function_total += function_us
        template_total += template_us
    figure("fragments_each", args.fragments)
    figure("template_over_function", template_total / function_total, ".1f")


if __name__ == "__main__":
    main()
