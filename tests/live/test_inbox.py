"""A table's inbox (games/host.py): what the table's actor takes at each step."""

from __future__ import annotations

import asyncio

import pytest

from games.host import Inbox


async def test_everything_waiting_is_taken_at_once_in_order():
    inbox = Inbox()
    for n in range(3):
        inbox.put({"n": n})
    assert len(inbox) == 3
    assert [m["n"] for m in await inbox.take_all(None)] == [0, 1, 2]
    assert len(inbox) == 0


async def test_a_wait_ends_with_the_first_message_and_takes_what_came_with_it():
    inbox = Inbox()
    waiting = asyncio.ensure_future(inbox.take_all(5.0))
    await asyncio.sleep(0)
    assert not waiting.done()
    inbox.put({"n": 1})
    inbox.put({"n": 2})  # before the actor runs again: the same step
    assert [m["n"] for m in await asyncio.wait_for(waiting, 1)] == [1, 2]


async def test_a_wait_with_a_deadline_ends_empty_when_nothing_comes():
    inbox = Inbox()
    loop = asyncio.get_running_loop()
    started = loop.time()
    assert await inbox.take_all(0.05) == []
    assert loop.time() - started >= 0.04
    assert inbox.waiter is None


async def test_a_cancelled_wait_leaves_no_waiter_and_loses_nothing():
    inbox = Inbox()
    waiting = asyncio.ensure_future(inbox.take_all(None))
    await asyncio.sleep(0)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert inbox.waiter is None
    inbox.put({"n": 1})  # no waiter to wake: kept for the next step
    assert [m["n"] for m in await inbox.take_all(0)] == [1]
