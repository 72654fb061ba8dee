// Boards drawn as the Python tests draw them (games/tetriwar/field.py's `field`): rows
// bottom-aligned, "X" a block, and a piece put where the test wants it.
import * as R from "../../static/js/tetriwar_rules.js";
import { Board } from "../../static/js/tetriwar_engine.js";
import { Field } from "../../static/js/stacker.js";

export function field(...rows) {
  const empty = ".".repeat(R.WIDTH);
  return new Field(R.WIDTH, R.HEIGHT, Array(R.HEIGHT - rows.length).fill(empty).concat(rows));
}

// A board at t = 0 with `rows` as its field and `piece` ([kind, rotation, x, visible y])
// placed there as Game.setup places one: fresh lock count, gravity from now.
export function board({ rows = [], piece = null, next = "IOJLSZT".repeat(3), level = 1, ...options } = {}) {
  const b = new Board({ next: [...next], startLevel: level, ...options });
  b.field = field(...rows);
  if (piece) {
    const [kind, rotation, x, y] = piece;
    Object.assign(b, { kind, rotation, x, y: y + R.HIDDEN_ROWS, lowest: y + R.HIDDEN_ROWS });
    b.shape = R.SHAPES[kind][rotation][x + R.X_OFFSET];
    if (!b.fits(b.shape, b.y)) throw new Error(`${piece} does not fit`);
    b.resets = 0;
    b.touched = false;
    b.lockAt = Infinity;
    b.touch(0, false);
    b.lastFall = 0;
    b.fallAt = b.interval();
  }
  return b;
}

export const piece = (b) => [b.kind, b.rotation, b.x, b.y - R.HIDDEN_ROWS];
