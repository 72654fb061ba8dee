"""The embedded channel layer: Channels' ``InMemoryChannelLayer``, with its sweep paced.

Channels' in-memory layer looks through every waiting queue and every group membership
of the process for expired entries on each ``receive`` and each ``group_send``. Every
socket's consumer waits in ``receive`` (so it has a queue) and belongs to a group or
two, so each message delivered costs time in proportion to every socket the process
serves, and a message to each of N sockets costs N²: the seats, chat and lobby news of
a busy process, and the start of every game, pay for all the other sockets.
``bench/layer.py`` (2026-11-27): 0.23 ms of the event loop per message delivered with
250 sockets waiting, 0.86 ms with 1,000; paced, 0.03 ms at either.

``PacedInMemoryChannelLayer`` runs that same sweep at most once every
``SWEEP_SECONDS``. Nothing else changes: the same queues, groups, capacities and
``ChannelFull``. The layer's expiries (a message nobody read for ``expiry`` seconds, 60
by default; a membership older than ``group_expiry``, a day) may be overrun by up to
``SWEEP_SECONDS``: a message sent 60.5 s ago to a consumer that stopped reading may
still be delivered.

``_clean_expired`` is private to Channels: ``check()`` fails at import if ``receive``
or ``group_send`` stop sweeping through it (then this layer would pace nothing, or
something else), and tests/config/test_layers.py fails with it.
"""

from __future__ import annotations

import inspect
import time

from channels.layers import InMemoryChannelLayer

SWEEP_SECONDS = 1.0
clock = time.monotonic  # the pace's time source (tests put a fake clock here)
SWEPT_BY = ("receive", "group_send")  # Channels' methods that sweep before they act


class PacedInMemoryChannelLayer(InMemoryChannelLayer):
    """``InMemoryChannelLayer`` whose sweep of expired entries runs at most once a
    ``SWEEP_SECONDS``, not on every receive and group send."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.next_sweep = 0.0

    def _clean_expired(self) -> None:
        now = clock()
        if now < self.next_sweep:
            return
        self.next_sweep = now + SWEEP_SECONDS
        super()._clean_expired()


def check() -> None:
    """Fail loudly if Channels' in-memory layer no longer sweeps through
    ``_clean_expired`` in the methods whose sweep this module paces."""
    sweep = getattr(InMemoryChannelLayer, "_clean_expired", None)
    unswept = [
        name for name in SWEPT_BY if "self._clean_expired()" not in inspect.getsource(getattr(InMemoryChannelLayer, name))
    ]
    if not callable(sweep) or unswept:
        raise RuntimeError(
            "Channels' InMemoryChannelLayer no longer sweeps expired entries through _clean_expired "
            f"({', '.join(unswept) or '_clean_expired'}): review config/layers.py"
        )


check()
