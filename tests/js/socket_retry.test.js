// A socket's delays before trying again (static/js/socket_retry.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { retryDelay, BASE_MS, MAX_DOUBLINGS } from "../../static/js/socket_retry.js";

test("the first retry comes within a quarter of a second, each next within twice as long", () => {
  assert.equal(retryDelay(0, () => 1), 250);
  assert.equal(retryDelay(1, () => 1), 500);
  assert.equal(retryDelay(3, () => 1), 2000);
  assert.equal(retryDelay(2, () => 0), 0);
});

test("the delay stops growing at 16 s and is drawn at random below it", () => {
  assert.equal(retryDelay(MAX_DOUBLINGS, () => 1), 16000);
  assert.equal(retryDelay(40, () => 1), 16000);
  assert.equal(retryDelay(40, () => 0.5), 8000);
  for (let n = 0; n < 200; n += 1) {
    const delay = retryDelay(n % 10);
    assert.ok(delay >= 0 && delay <= BASE_MS * 2 ** Math.min(n % 10, MAX_DOUBLINGS));
  }
});

test("the page's htmx takes it", async () => {
  globalThis.htmx = { config: {} };
  const module = await import("../../static/js/socket_retry.js?with-htmx");
  assert.equal(globalThis.htmx.config.wsReconnectDelay, module.retryDelay);
  delete globalThis.htmx;
});
