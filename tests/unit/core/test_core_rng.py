from __future__ import annotations

import pytest

from games.core.rng import derive_seed, stream, weighted_choice


def test_a_stream_depends_only_on_the_seed_and_its_labels():
    assert [stream(42, "bag", 1).random() for _ in range(2)] == [stream(42, "bag", 1).random()] * 2
    assert stream(42, "bag", 1).random() != stream(42, "bag", 2).random()
    assert stream(42, "bag", 1).random() != stream(43, "bag", 1).random()


def test_derived_seeds_are_fixed_numbers():
    # SHA-256 based, so the same on every machine and Python version (no hash())
    assert derive_seed(1, "a") == derive_seed("1", "a")
    assert 0 <= derive_seed(1, "a") < 2**64


def test_weighted_choice_follows_integer_weights():
    rng = stream(1, "test")
    counts = {"a": 0, "b": 0, "c": 0}
    for _ in range(6000):
        counts[weighted_choice(rng, "abc", [3, 1, 0])] += 1
    assert counts["c"] == 0
    assert 0.70 < counts["a"] / 6000 < 0.80


def test_weighted_choice_refuses_zero_total():
    with pytest.raises(ValueError):
        weighted_choice(stream(1), "ab", [0, 0])
