// A socket's delays before trying again (static/js/socket_retry.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { retryDelay, FLAT_MS, FLAT_RETRIES, MAX_DOUBLINGS } from "../../static/js/socket_retry.js";

test("through a restart's seconds every retry comes within half a second", () => {
  assert.equal(FLAT_MS, 500);
  for (let n = 0; n < FLAT_RETRIES; n += 1) {
    assert.equal(retryDelay(n, () => 1), 500);
    assert.equal(retryDelay(n, () => 0), 0);
  }
  // The flat retries last about five seconds on average (each half of FLAT_MS).
  assert.ok(FLAT_RETRIES * FLAT_MS / 2 >= 5000);
});

test("after them each next comes within twice as long, up to 16 s", () => {
  assert.equal(retryDelay(FLAT_RETRIES, () => 1), 500);
  assert.equal(retryDelay(FLAT_RETRIES + 1, () => 1), 1000);
  assert.equal(retryDelay(FLAT_RETRIES + 3, () => 1), 4000);
  assert.equal(retryDelay(FLAT_RETRIES + MAX_DOUBLINGS, () => 1), 16000);
  assert.equal(retryDelay(FLAT_RETRIES + 40, () => 1), 16000);
  assert.equal(retryDelay(FLAT_RETRIES + 40, () => 0.5), 8000);
});

test("the delay is drawn at random below its bound", () => {
  const seen = new Set();
  for (let n = 0; n < 400; n += 1) {
    const retries = n % 30;
    const delay = retryDelay(retries);
    const bound = FLAT_MS * 2 ** Math.min(Math.max(retries - FLAT_RETRIES, 0), MAX_DOUBLINGS);
    assert.ok(delay >= 0 && delay <= bound);
    seen.add(Math.floor(delay / 50));
  }
  assert.ok(seen.size > 5);
});

test("the page's htmx takes it", async () => {
  globalThis.htmx = { config: {} };
  const module = await import("../../static/js/socket_retry.js?with-htmx");
  assert.equal(globalThis.htmx.config.wsReconnectDelay, module.retryDelay);
  delete globalThis.htmx;
});
