// The shared field: masks and text in step, the overlap test, clears, SRS turns.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Field, fits, turn } from "../../static/js/stacker.js";
import * as R from "../../static/js/tetriwar_rules.js";

test("a field keeps its text and its bit masks in step, with full rows under the floor", () => {
  const f = new Field(10, 4);
  f.setCell(3, 0, "X");
  f.setCell(3, 9, "a");
  assert.equal(f.text[3], "X........a");
  assert.equal(f.masks[3], 1 | (1 << 9));
  assert.deepEqual(f.masks.slice(4), [1023, 1023, 1023, 1023]);
});

test("fits: a block, the floor and the top stop a piece", () => {
  const f = new Field(10, 4, ["..........", "..........", "..........", "X........."]);
  const o = R.SHAPES.O[0][0 + R.X_OFFSET]; // columns 1-2 of its box: columns 1-2
  assert.equal(fits(f.masks, o, 2), true);
  assert.equal(fits(f.masks, o, 3), false); // the floor
  assert.equal(fits(f.masks, null, 0), false); // off the field
  assert.equal(fits(f.masks, R.SHAPES.O[0][-1 + R.X_OFFSET], 2), false); // column 0 holds X at row 3
});

test("full rows are removed and everything above moves down", () => {
  const f = new Field(4, 3, ["X...", "XXXX", ".XX."]);
  assert.deepEqual(f.fullRows(), [1]);
  assert.deepEqual(f.removeRows([1]), ["XXXX"]);
  assert.deepEqual(f.text, ["....", "X...", ".XX."]);
  assert.deepEqual(f.masks.slice(0, 3), [0, 1, 6]);
});

test("place writes a piece and reports the rows it filled", () => {
  const f = new Field(4, 2, ["....", "X..."]);
  assert.deepEqual(f.place([[0, [1, 2]], [1, [1, 2, 3]]], 0, 0, "T"), [1]);
  assert.deepEqual(f.text, [".TT.", "XTTT"]);
});

test("turn tries the kicks in order and returns the first that fits", () => {
  const f = new Field(R.WIDTH, R.HEIGHT);
  // a T pointing right (state R) against the left wall: turning to 2 needs column -1,
  // so the second test (one column right) wins
  const placed = turn(f.masks, R.SHAPES.T, R.KICKS.T, R.X_OFFSET, { rotation: 1, x: -1, y: 10 });
  assert.deepEqual({ ...placed, shape: undefined }, { rotation: 2, x: 0, y: 10, shape: undefined });
});
