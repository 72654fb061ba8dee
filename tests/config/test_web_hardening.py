"""Web hardening: DEBUG is off unless asked for, and every page carries a strict
Content-Security-Policy that the templates keep to (tests/browser checks it in Chromium)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from django.urls import reverse

from games.tetriwar.render import pieces_css
from tests.fresh_settings import settings_in_a_fresh_process

ROOT = Path(__file__).resolve().parent.parent.parent


def _settings_in_a_fresh_process(**env: str) -> subprocess.CompletedProcess:
    return settings_in_a_fresh_process("'DEBUG', settings.DEBUG", without=("DEBUG", "SECRET_KEY"), **env)


def test_start_up_without_a_secret_key_fails_and_says_how_to_run_locally():
    done = _settings_in_a_fresh_process()
    assert done.returncode != 0
    assert "SECRET_KEY is not set" in done.stderr
    assert "make run" in done.stderr and "DEBUG=true" in done.stderr


def test_debug_is_off_unless_asked_for():
    assert _settings_in_a_fresh_process(SECRET_KEY="x" * 50).stdout.strip() == "DEBUG False"
    assert _settings_in_a_fresh_process(DEBUG="true").stdout.strip() == "DEBUG True"


def test_a_page_carries_the_strict_policy_and_its_own_websocket_origin(client, db):
    policy = client.get(reverse("lobby:index"))["Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["default-src"] == "'self'"
    assert directives["script-src"] == "'self'"
    assert directives["style-src"] == "'self'"
    assert directives["style-src-attr"] == "'unsafe-inline'"  # attributes only
    assert directives["connect-src"] == "'self' ws://testserver"
    assert directives["object-src"] == "'none'"
    assert directives["frame-ancestors"] == "'none'"
    assert directives["base-uri"] == directives["form-action"] == "'self'"


def test_over_https_only_the_secure_websocket_origin_is_allowed(client, db):
    policy = client.get(reverse("home"), secure=True)["Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))  # in no set order
    assert directives["connect-src"] == "'self' wss://testserver"


def test_tetriwar_pieces_stylesheet_is_the_engines_shape_table(client, db):
    response = client.get(reverse("games:tetriwar_pieces_css"))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/css")
    assert response.content.decode() == pieces_css()
    assert "immutable" in response["Cache-Control"]


TEMPLATES = sorted((ROOT / "templates").rglob("*.html"))
INLINE = {
    "inline <script>": re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.I),
    "<style> element": re.compile(r"<style\b", re.I),
    "on*= handler": re.compile(r"\son[a-z]+\s*=", re.I),
    "hx-on (needs eval)": re.compile(r"\bhx-on", re.I),
    "js: in hx-vals (needs eval)": re.compile(r"""hx-vals\s*=\s*['"]\s*js:""", re.I),
    "javascript: URL": re.compile(r"javascript:", re.I),
}


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda p: str(p.relative_to(ROOT / "templates")))
def test_templates_keep_scripts_and_styles_in_static_files(template):
    text = template.read_text()
    found = [name for name, pattern in INLINE.items() if pattern.search(text)]
    assert not found, f"{template.name}: {found} (the Content-Security-Policy refuses them)"
