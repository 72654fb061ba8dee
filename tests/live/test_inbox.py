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


async def test_a_wait_for_the_deadline_already_waited_for_keeps_its_timer():
    """The actor waits for the same deadline again after a step that did not move it:
    one timer serves both waits, and it still ends the second one on time."""
    inbox = Inbox()
    loop = asyncio.get_running_loop()
    first = asyncio.ensure_future(inbox.take_all(0.2, due=7.0))
    await asyncio.sleep(0)
    timer = inbox.timer
    assert timer is not None and inbox.timer_due == 7.0
    inbox.put({"n": 1})  # a key: the step it makes leaves the deadline where it was
    assert [m["n"] for m in await first] == [1]
    started = loop.time()
    second = asyncio.ensure_future(inbox.take_all(0.2, due=7.0))
    await asyncio.sleep(0)
    assert inbox.timer is timer  # kept, not made again
    assert await asyncio.wait_for(second, 1) == []  # the kept timer ends the wait
    assert loop.time() - started < 0.2 + 0.05
    assert inbox.timer is None and inbox.waiter is None


async def test_a_wait_for_another_deadline_or_none_replaces_the_timer():
    inbox = Inbox()
    first = asyncio.ensure_future(inbox.take_all(5.0, due=7.0))
    await asyncio.sleep(0)
    old = inbox.timer
    inbox.put({"n": 1})
    await first
    sooner = asyncio.ensure_future(inbox.take_all(0.01, due=6.0))  # the key brought it forward
    await asyncio.sleep(0)
    assert old.cancelled() and inbox.timer is not old and inbox.timer_due == 6.0
    assert await asyncio.wait_for(sooner, 1) == []
    forever = asyncio.ensure_future(inbox.take_all(None))
    await asyncio.sleep(0)
    assert inbox.timer is None  # nothing due: no timer
    inbox.put({"n": 2})
    assert [m["n"] for m in await forever] == [2]


async def test_a_timer_that_fires_while_the_actor_is_busy_wakes_nobody_and_is_not_kept():
    inbox = Inbox()
    first = asyncio.ensure_future(inbox.take_all(0.01, due=1.0))
    await asyncio.sleep(0)
    inbox.put({"n": 1})
    await first
    await asyncio.sleep(0.03)  # the actor is stepping: its timer goes off meanwhile
    assert inbox.timer is None
    inbox.put({"n": 2})
    assert [m["n"] for m in await inbox.take_all(5.0, due=1.0)] == [2]  # nothing lost
