"""Whatever a hostile page sends a table, every game answers with a refusal or a move,
and a refusal changes nothing (the game contract, for the edge's part of it).

For each registered game: a game of bots, and between their moves frames a page could
send, drawn at random (any declared intent, its fields of any JSON type, numbers near
and far from their ranges, texts from the characters the frames use, fields missing and
fields nobody declared), in any seat, at any time. Each frame goes the way the socket's
frames go: decoded and typed by games/wire.py (refused there with a ``FrameError``), then
applied by the live adapter in the engine's text form. The adapter may refuse it
(``IllegalIntent``, with its code); then the game's text is what it was. It may never
raise anything else, and what it accepts renders (the table's fragments, the private
ones, the whole table).
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Annotated

import msgspec
import msgspec.inspect
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.core.errors import CODE, IllegalIntent
from games.registry import GAMES
from games.wire import TABLE_FRAMES, FrameError, decode
from tests.contract.test_game_contract import SPECS, setup_for

ALPHABET = "0123456789f+,:-.#/ oxsOITLSZJXMabc"
VALUES = st.one_of(
    st.integers(-3, 210),
    st.integers(-(2**70), 2**70),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.text(alphabet=ALPHABET, max_size=24),
    st.text(alphabet=ALPHABET, min_size=190, max_size=260),
)


def bounds(kind, span: int) -> tuple[int, int]:
    """An int field's least and greatest allowed values (``span`` past the least where it
    has no greatest; −5 for the least where it has none)."""
    low = kind.ge if kind.ge is not None else (kind.gt + 1 if kind.gt is not None else -5)
    high = kind.le if kind.le is not None else (kind.lt - 1 if kind.lt is not None else low + span)
    return low, high


def near(kind) -> st.SearchStrategy:
    """Values a page could plausibly send for a field of this declared type: in and
    just outside its range (an int's bounds, a text's pattern), or null."""
    if isinstance(kind, msgspec.inspect.UnionType):
        return st.one_of(*(near(member) for member in kind.types))
    if isinstance(kind, msgspec.inspect.IntType):
        low, high = bounds(kind, 40)
        return st.integers(low - 1, min(high, low + 40) + 1) | st.integers(max(low, high - 5), high + 1)
    if isinstance(kind, msgspec.inspect.StrType) and kind.pattern:
        return st.from_regex(kind.pattern, fullmatch=True).filter(
            lambda text: kind.max_length is None or len(text) <= kind.max_length
        )
    if isinstance(kind, msgspec.inspect.BoolType):
        return st.booleans()
    return st.none()


@st.composite
def raw_frame(draw, frames) -> str:
    frame = draw(st.sampled_from(frames))
    fields = [f for f in msgspec.inspect.type_info(frame).fields if f.name not in ("seq", "table")]
    data = {"intent": frame.__struct_config__.tag}
    for field in fields:
        if draw(st.integers(0, 9)):  # now and then a field is missing
            data[field.name] = draw(near(field.type) if draw(st.integers(0, 3)) else VALUES)
    if not draw(st.integers(0, 14)):
        data[draw(st.sampled_from(["x", "seat", "cards", "intent2"]))] = draw(VALUES)
    if draw(st.booleans()):
        data["seq"] = draw(st.integers(-1, 2**31))
    return json.dumps(data)


@st.composite
def hostile_plays(draw, spec):
    """Steps of a game: ("bot", seat) or ("frame", seat, text), each after a pause."""
    seats = draw(st.integers(max(spec.min_seats, 2) if spec.max_seats > 1 else 1, min(spec.max_seats, 4)))
    frames = (*TABLE_FRAMES, *spec.live.FRAMES)
    step = st.one_of(
        st.tuples(st.just("bot"), st.integers(1, seats)),
        st.tuples(st.just("frame"), st.integers(1, seats), raw_frame(frames)),
    )
    pauses = st.sampled_from([0.0, 0.001, 0.05, 0.4, 3.0])
    return seats, draw(st.lists(st.tuples(step, pauses), min_size=10, max_size=80))


def played(live, seat: int, text: str, frame, now: float) -> bool:
    """The frame applied as the host applies it: played and rendered (True), or refused
    with a code and a sentence, the game as it was (False)."""
    before = live.game.to_text()
    try:
        events = live.apply(seat, frame.intent_text(), now)
    except IllegalIntent as refused:
        assert CODE.match(refused.code) and refused.message
        assert live.game.to_text() == before, f"{text} from seat {seat} was refused ({refused.code}) but changed the game"
        return False
    live.render_events(events)
    for private_seat in live.private_fragments(events):
        live.render_private(private_seat)
    return True


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.slug)
def test_hostile_frames_are_refused_or_played_and_a_refusal_changes_nothing(spec):
    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(plays=hostile_plays(spec), seed=st.integers(1, 2**31))
    def check(plays, seed):
        seats, steps = plays
        setup = setup_for(spec, seed, seats, bot=spec.bot_levels[0])
        live = spec.live(setup)
        now = 0.0
        live.begin(now)
        live.render_full(now, now)
        frames = (*TABLE_FRAMES, *spec.live.FRAMES)
        for (kind, seat, *raw), pause in steps:
            now += pause
            if live.finished:
                break
            live.render_events(live.advance(now))
            if kind == "bot":
                if seat in live.bot_seats:
                    events, _ = live.bot_act(seat, now)
                    live.render_events(events)
                continue
            try:
                frame = decode(raw[0], frames)
            except FrameError as refused:
                assert CODE.match(refused.code)
                continue
            if frame.intent_text() in ("resync", "forfeit"):
                continue  # the table's own frames: the host answers them, not the game
            played(live, seat, raw[0], frame, now)
        live.render_full(now, 0.0)

    check()


def edges(kind) -> list:
    """A field's values at and just past its declared edges, and of other JSON types."""
    if isinstance(kind, msgspec.inspect.UnionType):
        return [value for member in kind.types for value in edges(member)]
    if isinstance(kind, msgspec.inspect.IntType):
        low, high = bounds(kind, 10)
        return sorted({*range(low - 1, min(high, low + 12) + 1), (low + high) // 2, high - 1, high, high + 1}) + [2**63]
    if isinstance(kind, msgspec.inspect.StrType):
        words = ["", "0", "0f", "1+2", "90,91", "90f,91+92f", "193+194f", ",", "+", "f", "9" * 30, "T", "oxso", "Q"]
        # a pattern of one character class, as [IOTSZJL] or [osx]{4}: every text it allows
        if kind.pattern and (spelled := re.fullmatch(r"\^\[(\w+)\](?:\{(\d)\})?\$", kind.pattern)):
            letters, length = spelled[1], int(spelled[2] or 1)
            if len(letters) ** length <= 100:
                words += ["".join(chars) for chars in itertools.product(letters, repeat=length)]
        return words
    if isinstance(kind, msgspec.inspect.BoolType):
        return [True, False, 1]
    return [None]


def lowest(kind) -> object:
    """A field's least value that its type accepts (the first cell, the first card)."""
    if isinstance(kind, msgspec.inspect.UnionType):
        return lowest(kind.types[0])
    for value in edges(kind):
        try:
            msgspec.convert(value, _python_type(kind))
        except (msgspec.ValidationError, TypeError):
            continue
        return value
    return None


def _python_type(kind) -> object:
    if isinstance(kind, msgspec.inspect.IntType):
        return Annotated[int, msgspec.Meta(ge=kind.ge, le=kind.le, lt=kind.lt, gt=kind.gt)]
    if isinstance(kind, msgspec.inspect.StrType):
        return Annotated[str, msgspec.Meta(pattern=kind.pattern, max_length=kind.max_length)]
    if isinstance(kind, msgspec.inspect.BoolType):
        return bool
    return type(None)


def edge_frames(frames) -> list[str]:
    """Every frame with one field at an edge and the others at their least values."""
    out = []
    for frame in frames:
        fields = [f for f in msgspec.inspect.type_info(frame).fields if f.name not in ("seq", "table")]
        base = {f.name: lowest(f.type) for f in fields}
        out.append(json.dumps({"intent": frame.__struct_config__.tag, **base}))
        for field in fields:
            for value in edges(field.type):
                out.append(json.dumps({"intent": frame.__struct_config__.tag, **base, field.name: value}))
    return out


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: spec.slug)
def test_frames_at_their_edges_from_every_seat_through_a_whole_game(spec):
    """The same promise, swept rather than drawn: after each of a bots' game's first
    moves, every frame with a field at an edge, from every seat."""
    seats = max(spec.min_seats, 2) if spec.max_seats > 1 else 1
    live = spec.live(setup_for(spec, 11, min(spec.max_seats, seats + 1), bot=spec.bot_levels[0]))
    frames = spec.live.FRAMES
    texts = edge_frames(frames)
    now = 0.0
    live.begin(now)
    due = {seat: now for seat in live.bot_seats}
    applied = refused = 0
    for _ in range(40):
        if live.finished:
            break
        seat = min(due, key=due.get)
        now = max(now, due[seat])
        live.render_events(live.advance(now))
        events, delay = live.bot_act(seat, now)
        live.render_events(events)
        due[seat] = now + max(delay, 0.001)
        decoded = []
        for text in texts:
            try:
                decoded.append((text, decode(text, frames)))
            except FrameError:
                continue
        for player in live.seats:
            for text, frame in decoded:
                if live.finished:
                    break
                if played(live, player, text, frame, now):
                    applied += 1
                else:
                    refused += 1
    live.render_full(now, 0.0)
    assert refused and applied  # both ways were taken


def test_every_game_is_fuzzed():
    assert {spec.slug for spec in SPECS} == set(GAMES)
