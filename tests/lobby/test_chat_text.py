"""What a chat message may hold (lobby/chat.py ``clean_text``) and how fast it may come
(lobby/edge.py ``Edge.chat``)."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lobby import edge as edge_module
from lobby.chat import author_tag, clean_text
from lobby.edge import Edge


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("  gg  wp  ", "gg wp"),
        ("line one\nline two\r\n\tthree", "line one line two three"),
        ("file\u202egnp.exe", "filegnp.exe"),  # right-to-left override: would show "exe.png"
        ("\u2066isolated\u2069 \u200bzero\ufeffwidth\u2060", "isolated zerowidth"),
        ("nul\x00 bell\x07 esc\x1b[31m", "nul bell esc[31m"),
        # A pile of accents: two kept beyond the letter NFC composes (Ź).
        ("Z\u0301\u0302\u0303\u0304\u0305a\u0306", "\u0179\u0302\u0303\u0103"),
        ("Vi\u1ec7t", "Vi\u1ec7t"),  # NFC: one letter with its two marks
        ("e\u0301", "\u00e9"),  # composed
        ("👩\u200d💻 ok", "👩\u200d💻 ok"),  # the joiner of an emoji sequence is kept
        ("\ue000private", "private"),
        ("<b>&amp;</b>", "<b>&amp;</b>"),  # markup is text: escaped where shown, not here
    ],
)
def test_clean_text(raw, shown):
    assert clean_text(raw) == shown


@given(st.text())
def test_clean_text_leaves_nothing_invisible_and_is_stable(raw):
    text = clean_text(raw)
    assert clean_text(text) == text
    assert text == text.strip() and "  " not in text
    marks = 0
    for char in text:
        category = unicodedata.category(char)
        assert category not in {"Cc", "Co", "Cn", "Cs"}
        assert category != "Cf" or char == "\u200d"
        marks = marks + 1 if category in ("Mn", "Me") else 0
        assert marks <= 2


def test_a_writers_tag_tells_writers_apart_without_saying_who():
    assert author_tag("gsecret-guest-token") != author_tag("gother-token")
    assert "secret" not in author_tag("gsecret-guest-token")
    assert author_tag("u1") == author_tag("u1")


class Clock:
    t = 1000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def clock(monkeypatch):
    now = Clock()
    monkeypatch.setattr(edge_module.time, "monotonic", now)
    return now


def test_a_writers_budget_then_strikes_then_a_timed_mute(settings, clock):
    settings.CHAT_BURST, settings.CHAT_PER_MINUTE = 5, 20  # 5 at once, then one per 3 s
    settings.CHAT_STRIKES, settings.CHAT_STRIKE_SECONDS, settings.CHAT_FLOOD_MUTE_SECONDS = 3, 60, 300
    books = Edge()
    assert [books.chat("u1", "a").code for _ in range(5)] == [None] * 5
    assert books.chat("u1", "a").code == "CHAT_FLOOD"
    clock.t += 3.0  # one token back
    assert books.chat("u1", "a").code is None
    assert books.chat("u1", "a") == ("CHAT_FLOOD", pytest.approx(3.0), False)
    verdict = books.chat("u1", "a")  # the third refusal within the minute
    assert verdict.code == "MUTED" and verdict.muted_now and verdict.wait == 300
    clock.t += 299.0
    assert books.chat("u1", "a").code == "MUTED"
    assert books.chat("u2", "b").code is None  # another writer elsewhere is not concerned
    clock.t += 1.0
    assert books.chat("u1", "a").code is None  # the mute is over, the bucket full again


def test_refusals_spread_over_more_than_the_window_do_not_mute(settings, clock):
    settings.CHAT_BURST, settings.CHAT_PER_MINUTE = 1, 1
    settings.CHAT_STRIKES, settings.CHAT_STRIKE_SECONDS = 3, 60
    books = Edge()
    assert books.chat("u1", "a").code is None
    steps = [(0, "CHAT_FLOOD"), (31, "CHAT_FLOOD"), (31, None), (0, "CHAT_FLOOD"), (31, "CHAT_FLOOD"), (30, None)]
    for wait, code in steps:  # never three refusals within a minute
        clock.t += wait
        assert books.chat("u1", "a").code == code


def test_an_address_budget_is_shared_by_its_writers_and_mutes_the_address(settings, clock):
    settings.CHAT_BURST, settings.CHAT_ADDRESS_BURST, settings.CHAT_ADDRESS_PER_MINUTE = 2, 3, 1
    settings.CHAT_STRIKES = 3
    books = Edge()
    assert [books.chat(f"u{n}", "shared").code for n in range(3)] == [None] * 3
    assert [books.chat(f"u{n}", "shared").code for n in range(3, 5)] == ["CHAT_FLOOD"] * 2
    verdict = books.chat("u9", "shared")
    assert verdict.code == "MUTED" and not verdict.muted_now  # the address is muted, not an account
    assert books.chat("u10", "shared").code == "MUTED"
    assert books.chat("u10", "elsewhere").code is None
    # A refused writer's own token was given back: it may write from elsewhere at once.
    assert [books.chat("u3", "elsewhere").code for _ in range(3)] == [None, None, "CHAT_FLOOD"]
