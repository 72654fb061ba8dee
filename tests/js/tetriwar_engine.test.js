// The single-board rules of RULES.md §1 as the browser's engine plays them; the
// differential test (tests/unit/tetriwar/test_js_engine_agrees.py) proves it plays them
// as the server does, these say the rules themselves.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as R from "../../static/js/tetriwar_rules.js";
import { Board, crc32 } from "../../static/js/tetriwar_engine.js";
import { board, piece } from "./helpers.js";

test("an SRS kick: a T turning at the left wall moves one column right", () => {
  const b = board({ piece: ["T", 1, -1, 10] });
  b.apply("rotate", 0);
  assert.deepEqual(piece(b), ["T", 2, 0, 10]);
});

test("an I kick: a vertical I at the right wall turns and moves one column left", () => {
  const b = board({ piece: ["I", 1, 7, 10] });
  b.apply("rotate", 0);
  assert.deepEqual(piece(b), ["I", 2, 6, 10]);
});

test("a turn blocked in all five tests does nothing", () => {
  const walls = Array(6).fill("XX.XXXXXXX");
  const b = board({ rows: walls, piece: ["I", 1, 0, 14] }); // a vertical I in a 1-wide well
  b.apply("rotate", 0);
  assert.deepEqual(piece(b), ["I", 1, 0, 14]);
});

test("gravity: one row per GRAVITY_MS[level], from 1000 ms at level 1 to 64 ms at level 10", () => {
  assert.deepEqual(R.GRAVITY_MS.slice(1), [1000, 793, 618, 473, 355, 262, 190, 135, 94, 64]);
  for (let level = 1; level <= R.MAX_LEVEL; level++) {
    const b = board({ level, piece: ["T", 0, 3, 0] });
    const ms = R.GRAVITY_MS[level];
    b.advance(ms - 1);
    assert.equal(piece(b)[3], 0, `level ${level} before ${ms} ms`);
    b.advance(ms);
    assert.equal(piece(b)[3], 1, `level ${level} at ${ms} ms`);
    b.advance(2 * ms);
    assert.equal(piece(b)[3], 2, `level ${level} at ${2 * ms} ms`);
  }
});

test("soft drop: 20 times gravity, at least one row per 50 ms", () => {
  const b = board({ level: 1, piece: ["T", 0, 3, 0] });
  b.apply("hold_down", 0);
  b.advance(49);
  assert.equal(piece(b)[3], 0);
  b.advance(50);
  assert.equal(piece(b)[3], 1);
  assert.equal(R.SOFT_DROP_MS[20][10], 3); // level 10: 64 / 20
});

test("lock delay: 15 moves restart it, the 16th does not", () => {
  const b = board({ piece: ["O", 0, 3, 18] }); // on the floor: the lock runs from 0
  assert.equal(b.lockAt, R.LOCK_DELAY_MS);
  for (let move = 1; move <= 16; move++) b.apply(move % 2 ? "left" : "right", move * 100);
  assert.equal(b.resets, 16);
  assert.equal(b.lockAt, 1500 + R.LOCK_DELAY_MS); // restarted by the 15th (t 1500), not the 16th
  b.advance(1999);
  assert.equal(b.dealt, 1); // the O still lies there
  b.advance(2000);
  assert.equal(b.dealt, 2);
  assert.equal(b.field.text[R.HEIGHT - 1], "....OO....");
});

test("lock delay: a piece that reaches a lower row gets 15 fresh resets", () => {
  const b = board({ rows: ["XXXXX.....", "XXXXX....."], piece: ["O", 0, 3, 16] }); // on the ledge (columns 4-5)
  for (let move = 1; move <= 10; move++) b.apply(move % 2 ? "left" : "right", move * 10);
  assert.equal(b.resets, 10);
  b.apply("right", 200); // columns 5-6, off the ledge: it falls at the next gravity step
  b.advance(1000);
  assert.equal(piece(b)[3], 17);
  assert.equal(b.resets, 0);
});

test("a 4-line clear scores 60 × level, plus the piece", () => {
  const rows = Array(4).fill("XXXXXXXXX.");
  const b = board({ rows, level: 3, piece: ["I", 1, 7, 0] });
  b.apply("hard_drop", 0);
  assert.equal(b.lines, 4);
  assert.equal(b.score, 60 * 3 + 1 * 3);
  assert.ok(b.field.text.every((row) => row === ".........."));
});

test("levels: every lines_per_level lines go up one level, to 10 at most", () => {
  const b = board({ rows: Array(4).fill("XXXXXXXXX."), level: 9, linesPerLevel: 4, piece: ["I", 1, 7, 0] });
  b.apply("hard_drop", 0);
  assert.equal(b.level, 10);
  assert.equal(b.levelLines, 0);
});

test("DAS then ARR: one step at once, the next after 170 ms, then one every 50 ms to the wall", () => {
  const b = board({ piece: ["T", 0, 3, 0] });
  b.apply("hold_right", 0);
  assert.equal(b.x, 4);
  b.advance(169);
  assert.equal(b.x, 4);
  b.advance(170);
  assert.equal(b.x, 5);
  b.advance(219);
  assert.equal(b.x, 5);
  b.advance(220);
  assert.equal(b.x, 6);
  b.advance(270);
  assert.equal(b.x, 7); // the wall
  b.advance(320);
  assert.equal(b.x, 7);
  assert.equal(b.repeatAt, Infinity); // blocked: the repeat clock stops
});

test("a tap is one step: release before DAS stops the repeat", () => {
  const b = board({ piece: ["T", 0, 3, 0] });
  b.apply("hold_left", 0);
  b.apply("release_left", 60);
  b.advance(500);
  assert.equal(b.x, 2);
});

test("ARR 0 goes straight to the wall after DAS", () => {
  const b = board({ piece: ["T", 0, 3, 0], handling: { das: 100, arr: 0, soft_drop: 20 } });
  b.apply("hold_left", 0);
  b.advance(100);
  assert.equal(b.x, 0);
});

test("topping out eliminates: empty field, start level, store lost, score kept", () => {
  const rows = Array(20).fill("XXXX.XXXXX"); // the spawn place is blocked from the top
  const b = board({ rows: ["XXXX.XXXXX", ...rows.slice(1)], level: 2, piece: ["O", 0, 3, -2] });
  b.level = 5;
  b.store = ["gravity"];
  b.apply("hard_drop", 0); // locks wholly above the visible field
  assert.equal(b.eliminations, 1);
  assert.equal(b.level, 2);
  assert.deepEqual(b.store, []);
  assert.ok(b.field.text.every((row) => row === ".........."));
});

test("lack of control: ← and → exchanged for 5 s from the landing", () => {
  const b = board({ piece: ["T", 0, 3, 0], bombs: "manual" });
  b.announce("lack_of_control", 2, 0);
  b.apply("hard_drop", 600); // the next piece enters after the 500 ms: it lands
  assert.equal(b.controlUntil, 600 + R.LACK_OF_CONTROL_MS);
  b.apply("left", 700);
  assert.equal(b.x, 4);
  b.advance(5600);
  assert.equal(b.controlUntil, Infinity);
});

test("hash: CRC-32 of the canonical text's UTF-8 bytes", () => {
  assert.equal(crc32(""), 0);
  assert.equal(crc32("a"), 0xe8b7be43);
  assert.equal(crc32("123456789"), 0xcbf43926);
  assert.equal(crc32("été ☃"), 0xe750cb39);
  const b = board({ piece: ["T", 0, 3, 0] });
  assert.equal(b.hash(), crc32(b.canon()));
});

test("fromState(state()) is the same board", () => {
  const b = board({ piece: ["T", 0, 3, 0] });
  b.apply("hold_left", 30);
  b.advance(900);
  const copy = Board.fromState(JSON.parse(JSON.stringify(b.state())));
  assert.equal(copy.canon(), b.canon());
  copy.advance(5000);
  b.advance(5000);
  assert.equal(copy.canon(), b.canon());
});

test("the view: visible rows, the piece's cells and its ghost", () => {
  const v = board({ piece: ["O", 0, 3, 0] }).view();
  assert.equal(v.field.length, R.VISIBLE_ROWS);
  assert.deepEqual(v.piece.cells, [[0, 4], [0, 5], [1, 4], [1, 5]]);
  assert.deepEqual(v.ghost, [[18, 4], [18, 5], [19, 4], [19, 5]]);
});
