// How soon a page's socket tries again after it lost the server (a restart, a crash, the
// network). htmx's WebSocket extension waits, before the n-th retry in a row, a delay
// drawn from 0 to 2^n s ("full jitter", up to 64 s). A game rebuilt after a restart
// waits for its players' pages before its countdown (games/host.py), so every page's
// delay is everyone's, and a delay that has grown while the server was away (a restart
// takes 1.5–2 s here) is paid after it is back: a table of four pages waited for the
// slowest of four draws from up to 4 s. So the first FLAT_RETRIES retries (about five
// seconds of them) each come within FLAT_MS, and only then does the delay double, from
// FLAT_MS up to FLAT_MS·2^MAX_DOUBLINGS (16 s), so that a server that stays away is asked
// less and less often. Always drawn at random, so that the pages of a restarted server
// come back spread out. bench/restart.py's pages wait the same
// (tests/bench/test_restart_pages.py).
export const FLAT_MS = 500;
export const FLAT_RETRIES = 20;
export const MAX_DOUBLINGS = 5;

export function retryDelay(retries, random = Math.random) {
  const doublings = Math.min(Math.max(retries - FLAT_RETRIES, 0), MAX_DOUBLINGS);
  return FLAT_MS * 2 ** doublings * random();
}

if (globalThis.htmx) globalThis.htmx.config.wsReconnectDelay = retryDelay;
