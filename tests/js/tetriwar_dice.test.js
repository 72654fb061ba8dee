// A bomb's dice in the page (static/js/tetriwar_dice.js) draw the numbers the server's
// draw (games/tetriwar/dice.py): tests/unit/tetriwar/test_bomb_dice.py pins the same.
// And the page lands add line, earthquake and drill by them, as the server does.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as R from "../../static/js/tetriwar_rules.js";
import { Dice } from "../../static/js/tetriwar_dice.js";
import { board } from "./helpers.js";

// Mulberry32's first numbers for a few seeds (the same table as the Python test's).
const FIRST = {
  0: [1144304738, 1416247, 958946056, 627933444],
  1: [2693262067, 11749833, 2265367787, 4213581821],
  42: [2581720956, 1925393290, 3661312704, 2876485805],
  4294967295: [3850105811, 813802916, 3073704848, 4054706436],
};

test("the dice's numbers are Mulberry32's, the server's", () => {
  for (const [seed, numbers] of Object.entries(FIRST)) {
    const dice = new Dice(Number(seed));
    assert.deepEqual(numbers.map(() => dice.next()), numbers);
  }
  assert.equal(new Dice(0).below(10), 8);
  assert.deepEqual(new Dice(1).sample([...Array(20).keys()], 5), [7, 6, 19, 1, 15]);
});

test("below(n) stays in 0..n-1 and reaches every value; sample draws without repeats", () => {
  const dice = new Dice(7);
  const seen = new Set();
  for (let i = 0; i < 500; i++) seen.add(dice.below(5));
  assert.deepEqual([...seen].sort(), [0, 1, 2, 3, 4]);
  const picked = dice.sample([...Array(30).keys()], 10);
  assert.equal(new Set(picked).size, 10);
  assert.deepEqual(dice.sample([1, 2, 3], 10).sort(), [1, 2, 3]);
  assert.throws(() => dice.below(0), RangeError);
});

function landed(bomb, seed, rows) {
  const b = board({ rows, piece: ["T", 0, 3, 0] });
  b.announce(bomb, 2, 0, seed);
  b.land(R.BOMB_DELAY_MS);
  return b;
}

test("add line with its seed: the hole is the dice's first draw below the width", () => {
  const b = landed("add_line", 42, ["XXXX.XXXXX"]);
  const bottom = b.field.text[R.HEIGHT - 1];
  assert.equal(bottom.indexOf(R.EMPTY), new Dice(42).below(R.WIDTH));
  assert.equal([...bottom].filter((c) => c === R.GARBAGE).length, R.WIDTH - 1);
  assert.equal(b.field.text[R.HEIGHT - 2], "XXXX.XXXXX");
  assert.equal(b.unsure, false);
});

test("drill with its seed removes the blocks the dice pick, in row-major order", () => {
  const rows = ["XXXXX.....", "X.X.X.X.X.", "XXXXXXXXX."];
  const b = landed("drill", 5, rows);
  const blocks = [];
  rows.forEach((line, r) => [...line].forEach((c, col) => { if (c !== ".") blocks.push([R.HEIGHT - 3 + r, col]); }));
  for (const [row, col] of new Dice(5).sample(blocks, R.DRILL_BLOCKS)) assert.equal(b.field.text[row][col], R.EMPTY);
  const left = b.field.text.join("").replace(/\./g, "").length;
  assert.equal(left, blocks.length - R.DRILL_BLOCKS);
});

test("earthquake with its seed shifts each row by the dice's −2…+2, wrapping", () => {
  const b = landed("earthquake", 9, ["XX........"]);
  const dice = new Dice(9);
  let shift = 0;
  for (let row = 0; row < R.HEIGHT; row++) {
    const s = dice.below(2 * R.EARTHQUAKE_SHIFT + 1) - R.EARTHQUAKE_SHIFT;
    if (row === R.HEIGHT - 1) shift = s;
  }
  const expected = [...".........."];
  for (const col of [0, 1]) expected[(col + shift + R.WIDTH) % R.WIDTH] = "X";
  assert.equal(b.field.text[R.HEIGHT - 1], expected.join(""));
});

test("a bomb whose dice the page has not heard of yet leaves the board unsure", () => {
  const b = landed("add_line", null, ["XXXX.XXXXX"]);
  assert.equal(b.unsure, true);
  assert.equal(b.field.text[R.HEIGHT - 1], "XXXX.XXXXX");
});
