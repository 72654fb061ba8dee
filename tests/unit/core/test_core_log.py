import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.core.log import InputLog

entries = st.lists(
    st.tuples(
        st.floats(allow_nan=False, allow_infinity=False),
        st.integers(min_value=1, max_value=12),
        st.sampled_from(["left", "right", "rotate", "hard_drop", "bomb:2", "drop:7", "forfeit"]),
    ),
    max_size=60,
)


@given(entries)
def test_it_gives_back_exactly_what_was_appended(items):
    log = InputLog()
    for entry in items:
        log.append(entry)
    assert list(log) == items and len(log) == len(items)
    assert log == items and log == InputLog(items)
    assert [log[i] for i in range(len(items))] == items
    assert log[1:4] == items[1:4] and log[::-1] == items[::-1]
    if items:
        assert log[-1] == items[-1]
        assert all(type(t) is float and type(s) is int and type(x) is str for t, s, x in log)


@given(entries, st.integers(0, 60), st.integers(0, 60))
def test_a_part_packed_reads_back_as_that_part_of_the_log(items, a, b):
    """``pack_part`` (a running game's journal batch) is the part's own ``pack``, read."""
    log = InputLog(items)
    first, last = sorted((min(a, len(items)), min(b, len(items))))
    part, start, end = InputLog.unpack(log.pack_part(first, last, 1.5, 9.25))
    assert part == items[first:last] and (start, end) == (1.5, 9.25)
    assert part == InputLog.unpack(InputLog(items[first:last]).pack(1.5, 9.25))[0]


def test_times_are_the_same_doubles_not_rounded():
    t = 0.1 + 0.2  # 0.30000000000000004
    log = InputLog([(t, 1, "left")])
    assert log[0][0] == t


def test_a_different_log_is_not_equal():
    log = InputLog([(1.0, 1, "left")])
    assert log != [(1.0, 1, "right")]
    assert log != [(1.0, 2, "left")]
    assert log != [(1.0, 1, "left"), (2.0, 1, "left")]
    assert log != []


def test_a_seat_outside_a_byte_is_refused_and_nothing_is_written():
    log = InputLog()
    with pytest.raises(ValueError):
        log.append((1.0, 256, "left"))
    log.append((2.0, 3, "left"))
    assert log == [(2.0, 3, "left")]


def test_an_entry_costs_a_dozen_bytes_not_a_hundred():
    log, plain = InputLog(), []
    for i in range(10_000):
        entry = (i * 0.123, 1 + i % 4, ("left", "right", "rotate", "hard_drop")[i % 4])
        log.append(entry)
        plain.append(entry)
    compact = sum(sys.getsizeof(part) for part in (log._times, log._seats, log._codes))
    as_tuples = sys.getsizeof(plain) + sum(sys.getsizeof(e) + sys.getsizeof(e[0]) for e in plain)
    assert compact < 12 * 10_000 * 1.2  # arrays over-allocate a little
    assert as_tuples > 8 * compact


def test_rows_are_seconds_since_the_start_to_a_tenth_of_a_millisecond():
    from games.core.log import Rows

    log = InputLog([(100.123456, 2, "left"), (101.5, 1, "forfeit")])
    rows = Rows(log, 100.0)
    assert len(rows) == 2
    assert list(rows) == [[0.1235, 2, "left"], [1.5, 1, "forfeit"]]
    log.append((102.0, 3, "rotate"))  # read when read, not when made
    assert list(rows)[-1] == [2.0, 3, "rotate"]
