// How soon a page's socket tries again after it lost the server (a restart, a crash, the
// network). htmx's WebSocket extension waits, before the n-th retry in a row, a delay
// drawn from 0 to 2^n s ("full jitter", up to 64 s). A game rebuilt after a restart
// waits for its players' pages before its countdown (games/host.py), so every page's
// delay is everyone's: here it is drawn from 0 to BASE_MS·2^n, up to BASE_MS·2^MAX_DOUBLINGS
// (16 s). Still drawn at random, so that the pages of a restarted server come back spread
// out, and still doubling, so that a server that stays away is asked less and less often.
// bench/restart.py's pages wait the same (tests/bench/test_restart_pages.py).
export const BASE_MS = 250;
export const MAX_DOUBLINGS = 6;

export function retryDelay(retries, random = Math.random) {
  return BASE_MS * 2 ** Math.min(retries, MAX_DOUBLINGS) * random();
}

if (globalThis.htmx) globalThis.htmx.config.wsReconnectDelay = retryDelay;
