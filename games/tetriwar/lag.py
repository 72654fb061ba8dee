"""When a player's timed key is applied: the lag allowance, a quota refilled per piece.

A page plays its own board ahead of the server (static/js/tetriwar_predict.js) and
stamps every key with the game's clock as it saw it (``t``, integer ms). The key
reaches the server a one-way trip later; applied at the server's time instead, a tap
held for 60 ms could become a repeat and a rotation could meet a piece that gravity
moved meanwhile. So the host applies a key at its stamp, within limits:

- never before the seat's board time (a seat's keys never go back in time);
- never ahead of the server's clock by more than ``LEAD_MS`` (a page's clock that
  runs fast gains nothing);
- at most the seat's *allowance* behind the server's clock: ``MAX_LAG_MS`` at most
  (below the bombs' 500 ms delay, which keeps the boards consistent: engine.py), and
  no more than the quota holds.

The quota works as lichess's lag compensation does: compensation is spent and earned
back. Each piece a player places adds ``GAIN_MS`` (up to ``QUOTA_MS``); during one
piece, the largest compensation given to its keys is what that piece costs (the keys
of one piece share one delay of the network, so a burst of taps costs no more than
one). An honest connection, even with a lot of jitter, spends less than it earns;
a page that claims the full allowance on every piece runs its quota down, and its
keys are then clamped nearer the server's time (and the page corrected).

The seat's board is held back by the allowance it is using (``behind``) while it waits
for keys: a key stamped a little in the past must find its board not yet past that time.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from games.tetriwar.constants import MAX_LAG_MS

LEAD_MS = 5  # a stamp may be this far ahead of the server's clock (rounding, clock drift)
GAIN_MS = 300  # the quota earned back by each piece placed
QUOTA_MS = 3000  # the most quota a seat can save up
RECENT = 32  # the hold-back follows the largest lag of this many recent keys
MARGIN_MS = 100  # ... plus this, for the jitter still to come


@dataclass
class LagQuota:
    """One seat's lag compensation (integer milliseconds on the game's clock)."""

    quota: int = QUOTA_MS
    piece_cost: int = 0  # the largest compensation given during the current piece
    recent: list[int] = field(default_factory=list)  # the lag of the latest keys
    clamped: int = 0  # keys applied later than their stamp (beyond the allowance)
    stamps: bool | None = None  # whether the seat's page stamps its keys (None: no key yet)

    @property
    def allowance(self) -> int:
        return max(0, min(MAX_LAG_MS, self.quota))

    def behind(self) -> int:
        """How far the seat's board waits behind the server's clock for late keys:
        the lag its keys have shown lately, with a margin, within the allowance; the
        whole allowance until its page has stamped a key (a page that plays ahead stamps
        its first key a round trip late: its clock is the countdown's). A page that sends
        its keys unstamped acts on arrival: its board does not wait."""
        if self.stamps is False:
            return 0
        if not self.recent:
            return self.allowance
        return min(self.allowance, max(self.recent) + MARGIN_MS)

    def when(self, stamp: int | None, server: int, board: int) -> int:
        """The time to apply a key stamped ``stamp`` (None: unstamped, the server's
        time) at server time ``server`` on a board at time ``board``."""
        if stamp is None:
            if self.stamps is None:
                self.stamps = False
            return max(server, board)
        self.stamps = True
        t = min(stamp, server + LEAD_MS)
        lag = server - t
        if lag > self.allowance:
            t = server - self.allowance
            self.clamped += 1
        t = max(t, board)
        used = max(0, server - t)
        self.recent.append(max(0, server - stamp))
        del self.recent[:-RECENT]
        if used > self.piece_cost:
            self.quota -= used - self.piece_cost
            self.piece_cost = used
        return t

    def piece_placed(self) -> None:
        self.quota = min(QUOTA_MS, self.quota + GAIN_MS)
        self.piece_cost = 0
