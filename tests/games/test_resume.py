"""A restart loses no game (issue 50): a running game's inputs are written in batches as
they come (games/journal.py), and a game rebuilt from them (games/resume.py) is the game
as it stood at the last write; played on with the same inputs, it is the game that was
played, to the same end. For every kind of game."""

from __future__ import annotations

import asyncio
import random

import pytest

from games.core.log import InputLog
from games.journal import Journal, stored
from games.live import live_game_class, live_game_for
from games.registry import GAMES
from games.replays import engine_entries, play_entry
from games.resume import CannotResume, rebuild
from tests.contract.test_game_contract import bots_game, play_bots_game
from tests.contract.test_game_contract import setup_for as contract_setup

KINDS = sorted(GAMES)


@pytest.fixture(params=KINDS)
def kind(request):
    return request.param


def played(kind: str, seed: int = 21):
    live = bots_game(GAMES[kind], seed=seed, seats=3 if kind in ("blockkiller", "thirdoption") else 2)
    rules = type(live).rules(type(live).RULES_VERSION)
    return live, rules


def cuts(live, rules, rng: random.Random) -> list[tuple[int, float]]:
    """Places to cut the game's log, with the engine's clock at the cut: just after an
    entry, or a while after it (but never past the next entry: a write takes the log and
    the clock together)."""
    times = [t for t, _, _ in engine_entries(rules, live.game.log)]
    n = len(times)
    picked = sorted({0, 1, n // 3, n // 2, n - 1, n, *rng.sample(range(n + 1), min(5, n + 1))})
    found = []
    for k in picked:
        done = max(times[:k], default=live.game.start)
        rest = min(times[k:], default=live.game.now)
        if done > rest:
            continue  # TetriWar: a lagging board's input logged after a later one
        found.append((k, done))
        found.append((k, done + (rest - done) / 2 if rules.per_second == 1 else (done + rest) // 2))
    return found


def test_a_game_rebuilt_from_part_of_its_log_is_that_game_then_and_plays_on_to_the_same_end(kind):
    live, rules = played(kind)
    log = live.game.log
    for k, clock in cuts(live, rules, random.Random(kind)):
        part = InputLog(log[:k])
        again, resume_at = rebuild(live.setup, rules.version, part, clock, start_at=live.start)
        expected = rules.game.replay(live.options, live.seed, live.seats, live.game.start, engine_entries(rules, part), clock)
        assert again.game.to_text() == expected.to_text(), f"{kind}: cut after {k} entries at {clock}"
        assert again.host_time(again.game.now) == resume_at
        assert again.game.log == part
        # The rest of the game, as its players played it: the same game, to the same end.
        turn_based = not hasattr(again.game, "earliest_due")
        for t, seat, text in engine_entries(rules, InputLog(log[k:])):
            play_entry(again, t, seat, text, turn_based=turn_based)
        again.advance(again.host_time(live.game.now))
        assert again.game.log == log, f"{kind}: cut after {k}"
        assert again.finished and again.game.outcome() == live.game.outcome()
        assert again.game.to_text() == live.game.to_text()


def test_a_log_that_does_not_replay_is_not_resumed(kind):
    live, rules = played(kind)
    entries = list(live.game.log)
    t, seat, _ = entries[len(entries) // 2]
    forged = InputLog([*entries[: len(entries) // 2], (t, seat, "no such move")])
    with pytest.raises(CannotResume, match="does not replay"):
        rebuild(live.setup, rules.version, forged, None, start_at=live.start)


def test_rules_this_server_does_not_play_live_are_not_resumed():
    live, rules = played("viertris")
    with pytest.raises(CannotResume, match="rules version 99"):
        rebuild(live.setup, 99, InputLog(), None, start_at=live.start)
    tetriwar = live_game_class("tetriwar")
    if tetriwar.RULES_VERSION > 3:  # version 3's engine still replays old games, but pages play today's
        setup = played("tetriwar")[0].setup
        with pytest.raises(CannotResume, match="rules version 3"):
            rebuild(setup, 3, InputLog(), None, start_at=0.0)


def test_the_journal_writes_each_games_new_inputs_in_batches_that_give_back_its_log(kind):
    """Batches written as the game goes, one per game with new inputs, none without: read
    back in order, they are the game's log, and the last one's clock is the game's."""
    live, rules = played(kind)
    log = live.game.log
    written: list[tuple[int, int, bytes]] = []

    async def write(*, batches):
        written.extend(batches)

    async def go():
        fresh = live_game_for(live.setup)
        fresh.begin(live.start)
        journal = Journal(write=write)
        journal.track(7, fresh)
        turn_based = not hasattr(fresh.game, "earliest_due")
        entries = list(engine_entries(rules, log))
        for part in (entries[: len(entries) // 3], entries[len(entries) // 3 : len(entries) // 2], entries[len(entries) // 2 :]):
            for t, seat, text in part:
                play_entry(fresh, t, seat, text, turn_based=turn_based)
            await journal.flush()
            assert await journal.flush() == 0  # nothing new: nothing written
        await journal.forget(7)
        return fresh

    fresh = asyncio.run(go())
    assert [(game_id, seq) for game_id, seq, _ in written] == [(7, 0), (7, 1), (7, 2)]
    back, clock = stored([data for _, _, data in written])
    assert back == log
    assert rules.clock(clock) == fresh.game.now


def test_a_failed_write_loses_nothing_the_next_one_writes_it(kind):
    live, rules = played(kind)
    written: list[tuple[int, int, bytes]] = []
    fail = [True]

    async def write(*, batches):
        if fail[0]:
            fail[0] = False
            raise OSError("the database is away")
        written.extend(batches)

    async def go():
        journal = Journal(write=write)
        journal.track(3, live)
        with pytest.raises(OSError):
            await journal.flush()
        assert await journal.flush() == 1
        await journal.forget(3)

    asyncio.run(go())
    assert [(game_id, seq) for game_id, seq, _ in written] == [(3, 0)]
    assert stored([written[0][2]])[0] == live.game.log


def test_a_tetriwar_game_rebuilt_with_bombs_in_flight_lands_them_as_the_game_did():
    """Bombs dropped before the last write and landing after it (RULES.md §1: drawn at the
    drop, applied at the landing): the rebuilt game has them on their way, with their
    dice, and lands them as the game that was played did."""
    spec = GAMES["tetriwar"]
    setup = contract_setup(spec, 2, 2)
    setup["options"].update(minutes=2, bombs="automatic")
    live = play_bots_game(spec, 2, 2, setup)
    rules = type(live).rules(type(live).RULES_VERSION)
    log = live.game.log
    engine = rules.game.replay(live.options, live.seed, live.seats, live.game.start, ())
    in_flight = []
    for i, (t, seat, text) in enumerate(engine_entries(rules, log)):
        engine.replay_entry(t, seat, text)
        if any(p.incoming for p in engine.players.values()):
            in_flight.append(i + 1)
    assert in_flight, "no bomb was ever on its way: the game does not test what it should"
    times = [t for t, _, _ in engine_entries(rules, log)]
    checked = 0
    for k in in_flight[:: max(1, len(in_flight) // 4)]:
        if max(times[:k]) > min(times[k:], default=live.game.now):
            continue
        checked += 1
        part = InputLog(log[:k])
        again, _ = rebuild(live.setup, rules.version, part, max(times[:k]), start_at=live.start)
        assert any(p.incoming for p in again.game.players.values())
        for t, seat, text in engine_entries(rules, InputLog(log[k:])):
            play_entry(again, t, seat, text, turn_based=False)
        again.advance(again.host_time(live.game.now))
        assert again.game.to_text() == live.game.to_text(), f"cut after {k} entries"
    assert checked >= 2
