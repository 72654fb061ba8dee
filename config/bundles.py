"""A page's ES module and every module it imports, built into one file.

A module's imports are only found once it has arrived and been parsed, then theirs once
they have: a round trip per level of imports (TetriWar's page: tetriwar_play →
tetriwar_predict → tetriwar_engine → tetriwar_rules, stacker, tetriwar_dice), and a
request each, six at a time on HTTP/1.1 beside the page's other files. One file per
entry module costs one request, found in the page's HTML (issue 52). Classic scripts
that a page loads side by side are joined the same way (``scripts``).

static/js stays the one text: small modules, each tested alone (tests/js), read from
the static files as they stand. The bundle is the entry module with each module it
needs before it, in the order a browser would run them (a module's own imports first),
each in a function of its own that returns what the module exports; an ``import``
becomes a ``const`` of those names. The forms static/js uses are the only ones read:

- ``import { a, b as c } from "./x.js";`` and ``import * as X from "./x.js";``
- ``export function``, ``export async function``, ``export class``, ``export const``
  (one name each; ``let`` and ``var`` too).

Anything else (a default export, ``export { … }``, a re-export, a dynamic import, an
import of a name its module does not export) is refused with ``BundleError`` rather than
built wrong: tests/config/test_bundles.py builds every module of static/js.
"""

from __future__ import annotations

import hashlib
import posixpath
import re

from django.contrib.staticfiles import finders

IMPORT = re.compile(
    r"""^[ \t]*import\s+(?P<clause>[^;'"]*?)\s*\bfrom\s*["'](?P<url>\.{1,2}/[^"']+)["']\s*;[ \t]*$""", re.M
)
EXPORT = re.compile(r"^export\s+(?:async\s+function\*?|function\*?|class|const|let|var)\s+([A-Za-z_$][\w$]*)", re.M)
ANY_IMPORT = re.compile(r"""^[ \t]*import\b|\bimport\s*\(""", re.M)
ANY_EXPORT = re.compile(r"^[ \t]*export\b", re.M)
NAME = re.compile(r"^[A-Za-z_$][\w$]*$")


class BundleError(ValueError):
    """A module uses a form of import or export the bundler does not read."""


def source(path: str) -> str:
    """The text of a static file (``js/chat.js``)."""
    found = finders.find(path)
    if found is None:
        raise BundleError(f"no static file {path!r}")
    with open(found, encoding="utf-8") as file:
        return file.read()


def _target(path: str, url: str) -> str:
    return posixpath.normpath(posixpath.join(posixpath.dirname(path), url))


def imports(path: str) -> list[str]:
    """The modules ``path`` imports directly, in its order."""
    return [_target(path, match["url"]) for match in IMPORT.finditer(source(path))]


def needed(path: str) -> list[str]:
    """Every module ``path`` imports, directly or not, each once, its own imports first
    (the order a browser runs them)."""
    order: list[str] = []
    seen = {path}

    def visit(module: str) -> None:
        for name in imports(module):
            if name not in seen:
                seen.add(name)
                visit(name)
                order.append(name)

    visit(path)
    return order


def _variable(path: str) -> str:
    return "__module_" + re.sub(r"\W", "_", path)


def _bindings(clause: str, exports: list[str], path: str, url: str) -> str:
    """``const …`` for one import clause."""
    clause = clause.strip()
    namespace = re.fullmatch(r"\*\s*as\s+([A-Za-z_$][\w$]*)", clause)
    if namespace:
        return f"{namespace[1]} = {_variable(url)}"
    if not (clause.startswith("{") and clause.endswith("}")):
        raise BundleError(f"{path}: import {clause!r} from {url!r}: only {{ names }} and * as X are read")
    parts = []
    for item in filter(None, (part.strip() for part in clause[1:-1].split(","))):
        name, _, alias = (word.strip() for word in item.partition(" as "))
        if not NAME.match(name) or (alias and not NAME.match(alias)):
            raise BundleError(f"{path}: cannot read the import {item!r}")
        if name not in exports:
            raise BundleError(f"{path} imports {name!r}, which {url} does not export")
        parts.append(f"{name}: {alias}" if alias else name)
    return "{ " + ", ".join(parts) + " } = " + _variable(url)


def _body(path: str, text: str, exported: dict[str, list[str]]) -> str:
    """``text`` with each import a ``const`` of the module it names."""

    def binding(match: re.Match) -> str:
        url = _target(path, match["url"])
        return f"const {_bindings(match['clause'], exported[url], path, url)};"

    body = IMPORT.sub(binding, text)
    if ANY_IMPORT.search(body):
        raise BundleError(f"{path}: an import the bundler does not read")
    return body


def bundle(path: str) -> str:
    """``path`` (an entry module) and every module it needs, as one module."""
    return _built(path, needed(path))


def entry(path: str) -> str | None:
    """The bundle of ``path``, or None for a module that imports nothing (a page loads
    its static file): its imports read once for both."""
    order = needed(path)
    return _built(path, order) if order else None


def _built(path: str, order: list[str]) -> str:
    exported: dict[str, list[str]] = {}
    parts = [f"// {path} and the modules it imports, built by config/bundles.py from static/js\n"]
    for module in order:
        text = source(module)
        names = EXPORT.findall(text)
        stripped = EXPORT.sub(lambda match: match[0].removeprefix("export").lstrip(), text)
        if ANY_EXPORT.search(stripped):
            raise BundleError(f"{module}: an export the bundler does not read")
        exported[module] = names
        body = _body(module, stripped, exported)
        parts.append(
            f"// --- {module}\nconst {_variable(module)} = (() => {{\n{body}\n"
            f"return {{ {', '.join(names)} }};\n}})();\n"
        )
    parts.append(f"// --- {path}\n{_body(path, source(path), exported)}")
    return "".join(parts)


def scripts(paths: list[str]) -> str:
    """Classic scripts (deferred, each a function run at once: static/js's are) in one
    file, in their order: run one after the other as the separate files would be, but
    fetched in one request. A module among them is refused."""
    parts = [f"// {', '.join(paths)}, built by config/bundles.py from static/js\n"]
    for path in paths:
        text = source(path)
        if ANY_IMPORT.search(text) or ANY_EXPORT.search(text):
            raise BundleError(f"{path} is a module, not a classic script")
        parts.append(f"// --- {path}\n{text}\n;\n")
    return "".join(parts)


def version(text: str) -> str:
    """The bundle's address carries this: a changed bundle is a new address."""
    return hashlib.sha256(text.encode()).hexdigest()[:12]
