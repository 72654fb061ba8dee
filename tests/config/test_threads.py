"""config/threads.py: the threads beside the event loop yield to it."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from config.handlers import PooledThreadASGIHandler
from config.threads import below_the_loop, shorten_the_switch_interval
from tests.fresh_settings import settings_in_a_fresh_process

linux_only = pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="the idle scheduling class is Linux's")


def policy_after(target) -> int:
    """The scheduling policy of a new thread after it ran ``target``."""
    found = []

    def run():
        target()
        found.append(os.sched_getscheduler(0))

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return found[0]


@linux_only
def test_below_the_loop_moves_its_own_thread_alone_to_the_idle_class(settings):
    settings.BACKGROUND_THREADS_IDLE = True
    assert policy_after(below_the_loop) == os.SCHED_IDLE
    assert os.sched_getscheduler(0) == os.SCHED_OTHER  # the calling thread's neighbours are untouched


@linux_only
def test_with_the_setting_off_a_thread_stays_as_it_was(settings):
    settings.BACKGROUND_THREADS_IDLE = False
    assert policy_after(below_the_loop) == os.SCHED_OTHER


@linux_only
async def test_a_request_thread_runs_in_the_idle_class(settings):
    settings.BACKGROUND_THREADS_IDLE = True
    handler = PooledThreadASGIHandler()
    executor = await handler.borrow()
    try:
        assert executor.submit(os.sched_getscheduler, 0).result() == os.SCHED_IDLE
    finally:
        handler.give_back(executor)
        executor.shutdown()


def test_the_switch_interval_is_the_settings(settings):
    before = sys.getswitchinterval()
    settings.GIL_SWITCH_INTERVAL_US = 500
    try:
        shorten_the_switch_interval()
        assert sys.getswitchinterval() == pytest.approx(0.0005)
    finally:
        sys.setswitchinterval(before)


def defaults(**env: str) -> str:
    """The two settings as a fresh process reads them from ``env`` (and nothing else of ours)."""
    done = settings_in_a_fresh_process(
        "settings.BACKGROUND_THREADS_IDLE, settings.GIL_SWITCH_INTERVAL_US",
        without=("REDIS_URL", "BACKGROUND_THREADS_IDLE", "GIL_SWITCH_INTERVAL_US"), DEBUG="true", **env,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_embedded_yields_to_the_loop_and_scale_out_keeps_pythons_defaults():
    assert defaults() == "True 500"  # one process, alone with its tables
    # several busy processes share the CPUs: an idle-class thread holding the GIL would
    # stall its loop behind the others
    assert defaults(REDIS_URL="redis://127.0.0.1:6379/0") == "False 5000"
    assert defaults(REDIS_URL="redis://127.0.0.1:6379/0", BACKGROUND_THREADS_IDLE="true") == "True 5000"
