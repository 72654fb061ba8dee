// The JavaScript side of the differential test (tests/unit/tetriwar/test_js_engine_agrees.py,
// harness in tests/unit/tetriwar/js_agree.py): reads every case as one JSON document on
// stdin, plays each through the page's engine and compares the board after every step
// with the Python engine's; writes one JSON document: how many cases and steps ran, and
// for each case that differed, its first differing step and the JavaScript board's
// canonical text there.
//
// A case: {id, state: Player.state() at the start, kinds: every kind dealt, from index 0,
//          steps: [["apply", name, t] | ["advance", t] | ["receive", bomb, t, seed, n]], digests: [the first 16 hex
//          digits of the SHA-1 of Python's canon() after each step], syncs: {step:
//          {state: the Player.state() the server sends after that step, blurred: the
//          digest of Python's canon() with the field's blocks all X, or null}},
//          board_hash: Python's board_hash() (CRC-32) after the last step}
//
// TETRIWAR_ENGINE=/path/to/tetriwar_engine.js plays another copy of the engine (the test
// that proves a wrong rule is caught loads a mutated one, and sets the document's
// firstFailure: it stops at the first case that differs, the one it needs).
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { pathToFileURL } from "node:url";

const path = process.env.TETRIWAR_ENGINE;
const { Board } = await import(path ? pathToFileURL(path).href : "../../static/js/tetriwar_engine.js");
// The field's blocks all written X: what the page predicts of a line clear with bombs on.
const blur = (canon) =>
  canon.split("\n").map((line, i) => (i < 5 ? line : line.replace(/[^.]/g, "X"))).join("\n");
const digest = (text) => createHash("sha1").update(text).digest("hex").slice(0, 16);

function resume(state, kinds) {
  const board = Board.fromState(state);
  board.learn(0, kinds);
  return board;
}

const input = JSON.parse(readFileSync(0, "utf8"));
const failures = [];
let steps = 0;
for (const c of input.cases) {
  if (input.firstFailure && failures.length) break;
  let board = resume(c.state, c.kinds);
  for (let i = 0; i < c.steps.length; i++) {
    const step = c.steps[i];
    if (step[0] === "apply") board.apply(step[1], step[2]);
    else if (step[0] === "advance") board.advance(step[1]);
    // "receive": a bomb dropped on the board by another; the page learns it from the
    // server's state (the sync that follows), its dice's seed with it
    const sync = c.syncs[i];
    steps++;
    if (sync && sync.blurred && digest(blur(board.canon())) !== sync.blurred) {
      failures.push({ id: c.id, step: i, canon: board.canon(), blurred: true });
      break;
    }
    if (sync) board = resume(sync.state, c.kinds);
    if (digest(board.canon()) !== c.digests[i]) {
      failures.push({ id: c.id, step: i, canon: board.canon() });
      break;
    }
    if (i === c.steps.length - 1 && board.hash() !== c.board_hash) {
      failures.push({ id: c.id, step: i, canon: `hash ${board.hash()}, not ${c.board_hash}\n${board.canon()}` });
    }
  }
}
process.stdout.write(JSON.stringify({ cases: input.cases.length, steps, failures }));
