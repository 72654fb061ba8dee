"""Names that look like other names: Unicode lookalikes (issue 17).

"аdmin" with a Cyrillic "а" is a different string from "admin" and looks the same.
Two names are lookalikes when their *skeletons* are equal: each character replaced
by the prototype of its class in Unicode's confusables table (UTS #39, as shipped by
confusable_homoglyphs), then case folded, until nothing changes. The skeleton of a
user's name is stored, indexed (``User.username_skeleton``), so a new name is
checked against every account with one indexed lookup.

A name that mixes scripts, and in which a letter of one script could pass for a
letter of another (Latin "p" with a Cyrillic "а"), is refused outright: it exists
only to deceive, whoever it imitates today or later.
"""

from __future__ import annotations

import unicodedata
from functools import cache

from confusable_homoglyphs import categories, confusables

# Names nobody may take, as an account or a guest: they would speak for the site.
# Our choice; compared by skeleton, so "Adm1n" is refused too.
RESERVED_NAMES = ("admin", "administrator", "moderator", "staff", "support", "system", "tetriwar")

# Scripts that one writing system mixes as a matter of course (UTS #39's "Jpan",
# "Kore" and "Hanb"): a Japanese name in kanji and kana is not mixed-script.
_WRITING_SYSTEMS = ({"HAN", "HIRAGANA", "KATAKANA"}, {"HAN", "HANGUL"}, {"HAN", "BOPOMOFO"})

_LRM = "\u200e"  # the package wraps right-to-left glyphs in these marks


@cache
def _prototypes() -> dict[str, str]:
    """Each lookalike character mapped to its class's prototype.

    The package holds UTS #39's table as a graph in both directions: a prototype
    lists all its lookalikes, a lookalike lists only its prototype. A character
    with several neighbours is therefore a prototype and stays as it is; where
    two characters only know each other, either could be the prototype, and the
    smaller one stands for both (a sequence, such as "rn" for "m", always wins).
    """
    graph = {
        key.replace(_LRM, ""): {entry["c"].replace(_LRM, "") for entry in entries}
        for key, entries in confusables.confusables_data.items()
    }
    table: dict[str, str] = {}
    for char, neighbours in graph.items():
        if len(char) != 1 or len(neighbours) != 1:
            continue
        (other,) = neighbours
        if len(other) > 1 or len(graph.get(other, ())) > 1:
            table[char] = other
        else:
            table[char] = min(char, other)
    # Case aside, capital I is i, and it looks like l (its prototype): so i, I and l
    # are one letter here. Our choice: the few honest names that differ only there
    # are refused, rather than "Ivan" passing beside "lvan".
    table["i"] = "l"
    return table


def username_skeleton(name: str) -> str:
    """What ``name`` looks like, case aside: equal skeletons, lookalike names."""
    table = _prototypes()
    # Folded first, so names that differ only in case always share a skeleton (NFKC
    # as Django's usernames: fullwidth "ｈ" is "h"). A prototype may be a capital
    # ("0" → "O"), so fold again and repeat until nothing changes.
    text = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", name).casefold())
    for _ in range(4):
        mapped = "".join(table.get(char, char) for char in text)
        folded = unicodedata.normalize("NFD", unicodedata.normalize("NFD", mapped).casefold())
        if folded == text:
            break
        text = folded
    return text


def is_deceptive_mix(name: str) -> bool:
    """True when ``name`` mixes scripts and a letter of one passes for a letter of another."""
    scripts = categories.unique_aliases(name) - {"COMMON"}
    if len(scripts) < 2 or any(scripts <= system for system in _WRITING_SYSTEMS):
        return False
    return any(confusables.is_confusable(name, preferred_aliases=[script, "COMMON"]) for script in scripts)


def is_reserved(name: str) -> bool:
    return username_skeleton(name) in _reserved_skeletons()


@cache
def _reserved_skeletons() -> frozenset[str]:
    return frozenset(username_skeleton(name) for name in RESERVED_NAMES)
