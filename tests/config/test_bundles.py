"""A page's ES module and the modules it imports, in one file (config/bundles.py,
games/templatetags/modules.py, config.urls ``module_bundle``): issue 52."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.template import Context, Template
from django.test import override_settings

from config import bundles
from tests.needs import need_node

JS = Path(settings.BASE_DIR) / "static" / "js"
MODULES = sorted(p.name for p in JS.glob("*.js"))
RELATIVE = re.compile(r"""["']\./([\w.-]+\.js)["']""")  # any "./x.js" a module names


def named_by(module: str) -> set[str]:
    """Every file under static/js that ``module`` names, directly or not (read more
    loosely than the bundler reads imports: any quoted "./x.js")."""
    found, todo = set(), [module]
    while todo:
        for name in RELATIVE.findall((JS / todo.pop()).read_text(encoding="utf-8")):
            if name not in found:
                found.add(name)
                todo.append(name)
    return found


def sections(text: str) -> list[str]:
    return re.findall(r"^// --- js/([\w.-]+)$", text, re.M)


@pytest.mark.parametrize("module", MODULES)
def test_a_bundle_holds_every_module_its_entry_needs_once_each_after_its_own_imports(module):
    text = bundles.bundle(f"js/{module}")
    order = sections(text)
    assert order[-1] == module and len(order) == len(set(order))
    assert set(order[:-1]) == named_by(module)
    for i, name in enumerate(order):
        assert named_by(name) <= set(order[:i]), f"{name} comes before a module it imports"
    assert not re.search(r"^\s*import\b", text, re.M)  # nothing left for the browser to fetch


def test_every_bundle_parses_and_an_entry_exports_what_its_module_exports(tmp_path):
    node = need_node()
    for module in MODULES:
        bundle = tmp_path / f"{module}.bundle.mjs"
        bundle.write_text(bundles.bundle(f"js/{module}"), encoding="utf-8")
        subprocess.run([node, "--check", str(bundle)], check=True, capture_output=True, timeout=60)
    # tetriwar_predict needs no page: run its bundle and the modules themselves, alike
    bundle = tmp_path / "tetriwar_predict.js.bundle.mjs"
    script = (
        f"const a = await import({json.dumps(bundle.as_uri())});"
        f"const b = await import({json.dumps((JS / 'tetriwar_predict.js').as_uri())});"
        "console.log(JSON.stringify([Object.keys(a).sort(), Object.keys(b).sort(),"
        " a.Prediction.toString() === b.Prediction.toString()]));"
    )
    run = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    bundled, plain, same = json.loads(run.stdout)
    assert bundled == plain == ["Prediction"] and same


def test_the_page_asks_for_a_bundle_for_a_module_that_imports_and_the_static_file_for_one_that_does_not():
    def tag(path: str) -> str:
        return Template("{% load modules %}{% module_script path %}").render(Context({"path": path}))

    version = bundles.version(bundles.bundle("js/tetriwar_play.js"))
    assert tag("js/tetriwar_play.js") == f'<script type="module" src="/bundles/tetriwar_play.js?v={version}"></script>'
    assert tag("js/socket_retry.js") == '<script type="module" src="/static/js/socket_retry.js"></script>'


def test_a_bundle_is_served_kept_for_a_year_and_nothing_else_is(client):
    response = client.get("/bundles/tetriwar_play.js")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/javascript; charset=utf-8"
    assert "max-age=31536000" in response["Cache-Control"] and "immutable" in response["Cache-Control"]
    assert response.content.decode() == bundles.bundle("js/tetriwar_play.js")
    for name in ("socket_retry", "nowhere", "..%2Fsettings", "a" * 65, "TETRIWAR_PLAY"):
        assert client.get(f"/bundles/{name}.js").status_code == 404, name
    assert client.post("/bundles/tetriwar_play.js").status_code in (403, 405)


def test_a_bundle_goes_gzipped_to_a_browser_that_takes_it(client):
    text = bundles.bundle("js/tetriwar_play.js")
    response = client.get("/bundles/tetriwar_play.js", headers={"Accept-Encoding": "gzip, br"})
    assert response["Content-Encoding"] == "gzip" and "Accept-Encoding" in response["Vary"]
    assert gzip.decompress(response.content).decode() == text
    assert len(response.content) < len(text.encode()) / 3
    assert "max-age=31536000" in response["Cache-Control"]


@pytest.mark.parametrize(
    ("where", "source", "why"),
    [
        ("dep.js", "export default function f() {}\n", "an export the bundler does not read"),
        ("dep.js", "const b = 1;\nexport { b };\n", "an export the bundler does not read"),
        ("dep.js", 'export * from "./other.js";\n', "an export the bundler does not read"),
        ("entry.js", 'import x from "./dep.js";\n', "only { names } and * as X are read"),
        ("entry.js", 'import { nope } from "./dep.js";\n', "does not export"),
        ("entry.js", 'const m = import("./dep.js");\n', "an import the bundler does not read"),
    ],
)
def test_a_form_the_bundler_does_not_read_is_refused_not_built_wrong(tmp_path, where, source, why):
    (tmp_path / "js").mkdir()
    files = {"dep.js": "export const a = 1;\n", "entry.js": 'import { a } from "./dep.js";\n', "other.js": ""}
    files[where] += source
    for name, text in files.items():
        (tmp_path / "js" / name).write_text(text, encoding="utf-8")
    with override_settings(STATICFILES_DIRS=[str(tmp_path)]):
        with pytest.raises(bundles.BundleError, match=re.escape(why)):
            bundles.bundle("js/entry.js")


def test_classic_scripts_are_joined_in_their_order_and_a_module_among_them_is_refused(client, tmp_path):
    paths = ["js/live.js", "js/reconnect.js", "js/invite.js"]
    text = bundles.scripts(paths)
    assert sections(text) == ["live.js", "reconnect.js", "invite.js"]
    for path in paths:
        assert (JS / path.removeprefix("js/")).read_text(encoding="utf-8") in text
    html = Template("{% load modules %}{% deferred_scripts 'js/live.js' 'js/reconnect.js' 'js/invite.js' %}").render(
        Context()
    )
    assert html == f'<script src="/bundles/live+reconnect+invite.js?v={bundles.version(text)}" defer></script>'
    response = client.get("/bundles/live+reconnect+invite.js")
    assert response.status_code == 200 and response.content.decode() == text
    assert "immutable" in response["Cache-Control"]
    with pytest.raises(bundles.BundleError, match="is a module"):
        bundles.scripts(["js/live.js", "js/chat.js"])
    assert client.get("/bundles/live+chat.js").status_code == 404
    assert client.get("/bundles/" + "+".join(["live"] * 9) + ".js").status_code == 404
    node = need_node()
    joined = tmp_path / "joined.js"
    joined.write_text(text, encoding="utf-8")
    subprocess.run([node, "--check", str(joined)], check=True, capture_output=True, timeout=60)
