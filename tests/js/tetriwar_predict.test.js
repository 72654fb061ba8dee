// The page's copy of its own board, reconciled with the server's news
// (static/js/tetriwar_predict.js): keys played at once and stamped, answers that agree
// change nothing, a board that differs is replaced and the unanswered keys played again,
// the clock set from the server's word and the quickest round trip.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Board } from "../../static/js/tetriwar_engine.js";
import { Prediction } from "../../static/js/tetriwar_predict.js";

// A prediction on a fake clock (performance.now()), and a server that plays the same
// board as the page would: the server's news is made from its own Board.
function setUp() {
  const perf = { now: 1000 };
  const p = new Prediction({ seat: 1, now: () => perf.now });
  const server = new Board({ next: ["T", "I", "O", "L", "J"], t: 0 });
  server.dealt = 1;
  const news = (fields) => `<!--tw${JSON.stringify({ now: server.now, dealt: server.dealt, next: server.next.slice(0, 3), h: server.hash(), t: server.now, ...fields })}-->`;
  return { perf, p, server, news };
}

test("not the page's news: left to htmx", () => {
  const { p } = setUp();
  assert.equal(p.message('<!--v3--><div id="x"></div>'), false);
});

test("before the game's clock starts, a key is not played", () => {
  const { p } = setUp();
  assert.equal(p.key("left", 1), null);
});

test("a key before the server's first word of the board is stamped, without a hash", () => {
  const { p, perf } = setUp();
  p.startsIn(0);
  perf.now += 100;
  assert.deepEqual(p.key("left", 1), { t: 100 });
  assert.equal(p.pending.length, 1);
});

test("the first board from the server: the keys not yet answered are played on it", () => {
  const { p, perf, server, news } = setUp();
  p.startsIn(0);
  perf.now += 100;
  p.key("left", 1);
  assert.equal(p.message(news({ seq: null, state: server.state() })), true);
  assert.equal(p.board.x, server.x - 1);
  assert.equal(p.corrections, 0);
});

test("a key is played at once, and an answer that agrees changes nothing", () => {
  const { p, perf, server, news } = setUp();
  p.startsIn(0);
  p.message(news({ seq: null, state: server.state() }));
  perf.now += 200;
  const sent = p.key("rotate", 1);
  assert.equal(sent.t, 200);
  assert.equal(p.board.rotation, 1); // on the page's board before any answer
  server.apply("rotate", 200);
  assert.equal(sent.h, server.hash()); // the same rules: the same board
  perf.now += 300;
  p.message(news({ seq: 1 }));
  assert.equal(p.pending.length, 0);
  assert.equal(p.board.rotation, 1);
  assert.equal(p.corrections, 0);
});

test("the server's board differs: the page takes it and plays its unanswered keys again", () => {
  const { p, perf, server, news } = setUp();
  p.startsIn(0);
  p.message(news({ seq: null, state: server.state() }));
  perf.now += 100;
  p.key("left", 1); // the server refuses this one (say)
  perf.now += 50;
  p.key("rotate", 2); // still on its way when the answer to 1 comes
  server.advance(100);
  perf.now += 200;
  p.message(news({ seq: 1, fix: true, state: server.state() }));
  assert.equal(p.board.x, server.x); // snapped back
  assert.equal(p.board.rotation, 1); // key 2 played again on the server's board
  assert.equal(p.corrections, 1);
  assert.deepEqual(p.pending.map((k) => k.seq), [2]);
  // The answer to key 2 differs too (it was played on the board found wrong): the same
  // correction, not another.
  server.apply("rotate", 150);
  p.message(news({ seq: 2, fix: true, state: server.state() }));
  assert.equal(p.corrections, 1);
});

test("news of a new piece: the board as the server has it, no correction when it agrees", () => {
  const { p, perf, server, news } = setUp();
  p.startsIn(0);
  p.message(news({ seq: null, state: server.state() }));
  perf.now += 100;
  p.key("hard_drop", 1);
  server.apply("hard_drop", 100);
  perf.now += 100;
  p.message(news({ seq: 1, state: server.state() }));
  assert.equal(p.board.kind, "I");
  assert.equal(p.corrections, 0);
  assert.equal(p.resets, 0);
});

test("the clock: never behind the server's last word, else the quickest round trip's", () => {
  const { p, perf, server, news } = setUp();
  p.startsIn(5000); // a countdown that said 5 s
  server.advance(2000); // ... but the server's clock reads 2 s already
  p.message(news({ seq: null, state: server.state() }));
  assert.ok(p.clock() >= 2000);
  perf.now += 10;
  p.key("left", 1);
  server.apply("left", p.pending[0].t);
  perf.now += 80; // answered 80 ms after it was sent
  p.message(news({ seq: 1, now: 2050 }));
  assert.ok(Math.abs(p.clock() - (2050 + 40)) <= 10, `clock ${p.clock()}`);
});

test("a board that is over plays nothing", () => {
  const { p, perf, server, news } = setUp();
  p.startsIn(0);
  const state = server.state();
  state.out = true;
  p.message(news({ seq: null, state }));
  perf.now += 100;
  assert.equal(p.key("left", 1), null);
  assert.equal(p.playing(), false);
});
