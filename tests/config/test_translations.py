"""The site speaks four languages (issue #24): every catalogue is complete, and no
template shows words that are not marked for translation.

- Each catalogue (locale/*/LC_MESSAGES/django.po and djangojs.po) has a translation for
  every entry: no empty ``msgstr`` (nor ``msgstr[n]``), none flagged fuzzy. After
  ``makemessages`` brings new strings, this fails until they are translated.
- Each catalogue holds every string the code marks: ``makemessages`` run on a copy of
  the tree finds no entry the committed catalogue lacks (needs gettext's xgettext).
- Each template (templates/**/*.html) keeps its words inside ``{% translate %}`` or
  ``{% blocktranslate %}``: with those, other template tags, comments, variables,
  scripts, styles and HTML tags taken out (keeping the attributes people read or hear:
  title, aria-label, placeholder, alt, data-confirm, a button's value), no run of
  letters may be left but the names below.

The .po files are read here (no polib): entries are blocks of ``#`` comments and
``msgctxt``/``msgid``/``msgid_plural``/``msgstr``/``msgstr[n]`` keywords, each followed
by one or more quoted strings; ``#~`` lines are obsolete entries, which msgfmt skips.
"""

from __future__ import annotations

import ast
import html
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.needs import need

ROOT = Path(__file__).resolve().parents[2]
CATALOGUES = sorted((ROOT / "locale").glob("*/LC_MESSAGES/*.po"))
TEMPLATES = sorted((ROOT / "templates").rglob("*.html"))


# --- the catalogues -------------------------------------------------------------------------
@dataclass
class Entry:
    line: int
    flags: set[str] = field(default_factory=set)
    fields: dict[str, str] = field(default_factory=dict)  # "msgid", "msgstr", "msgstr[0]", …

    @property
    def msgid(self) -> str:
        return self.fields.get("msgid", "")

    @property
    def translations(self) -> dict[str, str]:
        return {key: value for key, value in self.fields.items() if key.startswith("msgstr")}

    def name(self) -> str:
        context = self.fields.get("msgctxt")
        return f"line {self.line}: " + (f"[{context}] " if context is not None else "") + repr(self.msgid)


KEYWORD = re.compile(r"^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?)\s+(\".*\")\s*$")
CONTINUED = re.compile(r"^(\".*\")\s*$")


def _unquote(text: str) -> str:
    return ast.literal_eval(text)  # a PO string is a C string: "…" with \n, \", \\ escapes


def parse_po(text: str) -> list[Entry]:
    """The entries of a .po file, obsolete ones (``#~``) left out."""
    entries: list[Entry] = []
    entry: Entry | None = None
    key = None
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#~"):
            if not line and entry is not None and entry.fields:
                entries.append(entry)
                entry, key = None, None
            continue
        if entry is None:
            entry = Entry(line=number)
        if line.startswith("#"):
            if entry.fields:  # a comment opens the next entry (no blank line between)
                entries.append(entry)
                entry = Entry(line=number)
            if line.startswith("#,"):
                entry.flags |= {flag.strip() for flag in line[2:].split(",")}
            continue
        if match := KEYWORD.match(line):
            key = match[1]
            if key == "msgctxt" and "msgid" in entry.fields:
                entries.append(entry)
                entry = Entry(line=number)
            entry.fields[key] = _unquote(match[2])
        elif (match := CONTINUED.match(line)) and key is not None:
            entry.fields[key] += _unquote(match[1])
        else:
            raise ValueError(f"line {number}: cannot read {raw!r}")
    if entry is not None and entry.fields:
        entries.append(entry)
    return entries


def incomplete(entries: list[Entry]) -> list[str]:
    """What is not translated yet: empty translations, and fuzzy entries (the header's too)."""
    found = []
    for entry in entries:
        if "fuzzy" in entry.flags:
            found.append(f"{entry.name()} is fuzzy")
        if not entry.msgid:
            continue  # the header
        empty = [key for key, value in entry.translations.items() if not value]
        if not entry.translations or empty:
            found.append(f"{entry.name()} has no translation" + (f" ({', '.join(empty)})" if empty else ""))
    return found


def test_there_are_catalogues_for_every_language_but_english():
    names = {path.relative_to(ROOT / "locale").as_posix() for path in CATALOGUES}
    for lang in ("de", "es", "zh_Hans"):
        assert {f"{lang}/LC_MESSAGES/django.po", f"{lang}/LC_MESSAGES/djangojs.po"} <= names


@pytest.mark.parametrize("path", CATALOGUES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_catalogue_is_complete(path):
    entries = parse_po(path.read_text(encoding="utf-8"))
    assert entries and not entries[0].msgid, "a catalogue opens with its header"
    assert incomplete(entries) == []


def test_the_catalogue_check_sees_what_is_missing():
    po = (
        '#, fuzzy\nmsgid ""\nmsgstr ""\n"Language: de\\n"\n\n'
        '#: a.py:1\nmsgid "Done"\nmsgstr "Fertig"\n\n'
        '#: a.py:2\nmsgctxt "button"\nmsgid "Place"\nmsgstr ""\n\n'
        '#: a.py:3\n#, fuzzy, python-format\nmsgid "%(n)s line"\nmsgid_plural "%(n)s lines"\n'
        'msgstr[0] "%(n)s Zeile"\nmsgstr[1] ""\n\n'
        '#: a.py:4\nmsgid ""\n"Two "\n"lines"\nmsgstr ""\n"Zwei "\n"Zeilen"\n\n'
        '#~ msgid "Gone"\n#~ msgstr ""\n'
    )
    entries = parse_po(po)
    assert [entry.msgid for entry in entries] == ["", "Done", "Place", "%(n)s line", "Two lines"]
    assert entries[4].fields["msgstr"] == "Zwei Zeilen"
    assert incomplete(entries) == [
        "line 1: '' is fuzzy",
        "line 10: [button] 'Place' has no translation (msgstr)",
        "line 15: '%(n)s line' is fuzzy",
        "line 15: '%(n)s line' has no translation (msgstr[1])",
    ]


# --- the templates --------------------------------------------------------------------------
# Names that are the same in every language: the site's and the games' (RULES.md).
NAMES = ("TetriWar", "Viertris", "Third Option", "Block-Killer", "Te-Trix")

# Keys named as their caps print them, inside <kbd> only (a key's name that people say,
# "Space", is translated: {% translate "Space" context "key" %}).
KEY_CAPS: dict[str, str] = {
    "Esc": "printed so on the key of keyboards for every language of the site",
    "Tab": "printed so on the key (or as ⇥) of keyboards for every language of the site",
}
KEY_CAP = re.compile(r"<kbd>\s*(" + "|".join(map(re.escape, KEY_CAPS)) + r")\s*</kbd>")
# A block that fills an attribute (``{% block main_class %}wide{% endblock %}``): a class.
ATTRIBUTE_BLOCK = re.compile(r"{%\s*block\s+\w+_class\s*%}.*?{%\s*endblock\b.*?%}", re.S)

COMMENT_BLOCK = re.compile(r"{%\s*comment\b.*?%}.*?{%\s*endcomment\s*%}", re.S)
COMMENT = re.compile(r"{#.*?#}", re.S)
BLOCKTRANSLATE = re.compile(
    r"{%\s*blocktrans(?:late)?\b.*?%}.*?{%\s*endblocktrans(?:late)?\s*%}", re.S
)
TAG = re.compile(r"{%.*?%}", re.S)  # translate, and every other tag
VARIABLE = re.compile(r"{{.*?}}", re.S)
SCRIPT_OR_STYLE = re.compile(r"<(script|style)\b[^>]*>.*?</\1\s*>", re.S | re.I)
HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
HTML_TAG = re.compile(r"<(/?)([A-Za-z][\w-]*|!doctype)([^>]*)>", re.S | re.I)
ATTRIBUTE = re.compile(r"""([\w:-]+)\s*=\s*("[^"]*"|'[^']*'|[^\s"'>]+)""")
READ_ATTRIBUTES = {"title", "aria-label", "placeholder", "alt", "data-confirm"}
LETTERS = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")


def _read_attributes(name: str, attributes: str) -> list[str]:
    """The values of a tag's attributes that people read or hear."""
    found = dict((key.lower(), value.strip("\"'")) for key, value in ATTRIBUTE.findall(attributes))
    read = [value for key, value in found.items() if key in READ_ATTRIBUTES]
    kind = found.get("type", "").lower()
    if "value" in found and (name.lower() == "button" or (name.lower() == "input" and kind in {"submit", "button", "reset"})):
        read.append(found["value"])
    return read


def unmarked_words(source: str) -> list[str]:
    """The runs of letters a template shows or says outside a translation tag."""
    text = COMMENT_BLOCK.sub(" ", source)
    text = COMMENT.sub(" ", text)
    text = BLOCKTRANSLATE.sub(" ", text)
    text = ATTRIBUTE_BLOCK.sub(" ", text)
    text = KEY_CAP.sub(" ", text)
    text = TAG.sub(" ", text)
    text = VARIABLE.sub(" ", text)
    text = SCRIPT_OR_STYLE.sub(" ", text)
    text = HTML_COMMENT.sub(" ", text)
    text = HTML_TAG.sub(lambda m: " " + " ".join(_read_attributes(m[2], m[3])) + " ", text)
    text = html.unescape(text)
    for name in NAMES:
        text = text.replace(name, " ")
    return LETTERS.findall(text)


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_template_shows_unmarked_words(path):
    assert unmarked_words(path.read_text(encoding="utf-8")) == []


def test_the_template_check_sees_unmarked_words():
    template = (
        '{% load i18n %}{# A note #}{% comment %}More notes{% endcomment %}'
        '<h1 class="title">{% translate "Results" %} · {{ game.name }}</h1>'
        '<p>{% blocktranslate %}Pot: {{ pot }} chips{% endblocktranslate %} TetriWar 3–4</p>'
        '<button type="button" data-x="left" title="Turn it" aria-label="{% translate "Turn" %}">Turn</button>'
        '<input type="submit" value="Send"><input type="hidden" value="sent">'
        '<script src="a.js">const words = "Hidden";</script><img src="x.png" alt="">'
        '{% block main_class %}wide{% endblock %}<kbd>Esc</kbd> <kbd>Space</kbd> <a href="#">Replay</a> Esc'
    )
    assert unmarked_words(template) == ["Turn", "it", "Turn", "Send", "Space", "Replay", "Esc"]


# --- the catalogues hold every marked string -------------------------------------------------
SOURCES = ("accounts", "config", "games", "lobby", "templates", "static", "locale", "manage.py")


def msgids(path: Path) -> set[tuple[str | None, str]]:
    return {(entry.fields.get("msgctxt"), entry.msgid) for entry in parse_po(path.read_text(encoding="utf-8"))}


@pytest.mark.parametrize("domain", ["django", "djangojs"])
def test_every_marked_string_is_in_the_catalogues(tmp_path, domain):
    """What ``makemessages`` (as the README runs it) would add to the German catalogue
    now; the other languages' are checked against it above (complete) and below (the
    same entries)."""
    need(shutil.which("xgettext") is not None, "gettext is not installed (apt-get install -y gettext)")
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__", "*.mo"))
        else:
            shutil.copy2(source, tmp_path / name)
    subprocess.run(
        [sys.executable, "manage.py", "makemessages", "-d", domain, "-l", "de", "--no-obsolete", "--no-location"],
        cwd=tmp_path, env={**os.environ, "DEBUG": "true"}, check=True, capture_output=True,
    )
    committed = msgids(ROOT / f"locale/de/LC_MESSAGES/{domain}.po")
    marked = msgids(tmp_path / f"locale/de/LC_MESSAGES/{domain}.po")
    assert sorted(marked - committed, key=str) == [], f"run makemessages ({domain}) and translate the new strings"


@pytest.mark.parametrize("domain", ["django", "djangojs"])
def test_every_language_has_the_same_entries(domain):
    entries = {lang: msgids(ROOT / f"locale/{lang}/LC_MESSAGES/{domain}.po") for lang in ("de", "es", "zh_Hans")}
    assert entries["es"] == entries["de"] and entries["zh_Hans"] == entries["de"]
