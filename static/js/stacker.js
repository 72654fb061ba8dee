// A falling-block field in the browser: rows as bit masks for collision and as text for
// drawing, the overlap test, SRS turns with kicks, and line clears. Nothing here knows a
// game's numbers: the piece tables (shapes per rotation and box column, kicks, cells per
// row) come from the caller, as static/js/tetriwar_rules.js generates them from
// games/tetriwar/pieces.py and games/core/srs.py, so Block-Killer's stacking can use it
// with its own tables. Rows count from the top (row 0 the top hidden row); a row's bit c
// is set when column c holds a block; four full rows lie below the floor, so a piece test
// never needs a floor check (as games/tetriwar/field.py).

export const FLOOR_ROWS = 4;
export const EMPTY = ".";

export function rowMask(text) {
  let mask = 0;
  for (let col = 0; col < text.length; col++) if (text[col] !== EMPTY) mask |= 1 << col;
  return mask;
}

// Whether a piece of `shape` ([[row offset, row mask], ...], null off the field) sits at
// row `y` on `masks` without touching a block; nothing lies above row 0.
export function fits(masks, shape, y) {
  if (shape === null || shape === undefined || y + shape[0][0] < 0) return false;
  for (const [offset, mask] of shape) if (masks[y + offset] & mask) return false;
  return true;
}

export class Field {
  // `rows`: the text of every row, top first (default: all empty).
  constructor(width, height, rows = null) {
    this.width = width;
    this.height = height;
    this.full = (1 << width) - 1;
    this.emptyRow = EMPTY.repeat(width);
    this.text = rows ? [...rows] : Array(height).fill(this.emptyRow);
    if (this.text.length !== height || this.text.some((row) => row.length !== width)) {
      throw new Error(`a field has ${height} rows of ${width} characters`);
    }
    this.masks = this.text.map(rowMask).concat(Array(FLOOR_ROWS).fill(this.full));
  }

  copy() {
    return new Field(this.width, this.height, this.text);
  }

  fits(shape, y) {
    return fits(this.masks, shape, y);
  }

  // The lowest row a piece of `shape` at row `y` falls to.
  dropRow(shape, y) {
    while (fits(this.masks, shape, y + 1)) y++;
    return y;
  }

  setCell(row, col, char) {
    const line = this.text[row];
    this.text[row] = line.slice(0, col) + char + line.slice(col + 1);
    if (char === EMPTY) this.masks[row] &= ~(1 << col);
    else this.masks[row] |= 1 << col;
  }

  setRow(row, text) {
    this.text[row] = text;
    this.masks[row] = rowMask(text);
  }

  // Writes `char` into each cell of `rowColumns` ([[row in the box, [cols]], ...]) for a
  // box at (x, y); returns the rows that became full, top first.
  place(rowColumns, x, y, char) {
    const full = [];
    for (const [offset, columns] of rowColumns) {
      const row = y + offset;
      const line = this.text[row].split("");
      for (const col of columns) line[x + col] = char;
      this.setRow(row, line.join(""));
      if (this.masks[row] === this.full) full.push(row);
    }
    return full;
  }

  fullRows() {
    const full = [];
    for (let row = 0; row < this.height; row++) if (this.masks[row] === this.full) full.push(row);
    return full;
  }

  // Removes rows; everything above moves down. Returns the removed rows' text.
  removeRows(rows) {
    const removed = [];
    for (const row of [...new Set(rows)].sort((a, b) => a - b)) {
      removed.push(this.text.splice(row, 1)[0]);
      this.text.unshift(this.emptyRow);
      this.masks.splice(row, 1);
      this.masks.unshift(0);
    }
    return removed;
  }

  removeBottom(count) {
    const rows = [];
    for (let row = this.height - count; row < this.height; row++) rows.push(row);
    this.removeRows(rows);
  }

  clear() {
    for (let row = 0; row < this.height; row++) this.setRow(row, this.emptyRow);
  }

  // Every block falls straight down in its column.
  collapse() {
    const columns = [];
    for (let col = 0; col < this.width; col++) {
      const stack = this.text.map((line) => line[col]).filter((char) => char !== EMPTY);
      columns.push(Array(this.height - stack.length).fill(EMPTY).concat(stack));
    }
    for (let row = 0; row < this.height; row++) this.setRow(row, columns.map((column) => column[row]).join(""));
  }

  // Every cell whose character is in `chars` becomes `into`.
  replaceChars(chars, into) {
    for (let row = 0; row < this.height; row++) {
      const line = this.text[row];
      const next = [...line].map((char) => (chars.includes(char) ? into : char)).join("");
      if (next !== line) this.setRow(row, next);
    }
  }
}

// A clockwise SRS turn: `shapes[rotation][x + xOffset]` is the piece at box column x
// (null where a wall is in the way), `kicks[rotation]` the [rows, cols] offsets to try
// from `rotation`. Returns the first placement that fits, {rotation, x, y, shape}, or
// null when all tests fail (nothing happens).
export function turn(masks, shapes, kicks, xOffset, { rotation, x, y }) {
  const next = (rotation + 1) % 4;
  const row = shapes[next];
  for (const [rows, cols] of kicks[rotation]) {
    const index = x + cols + xOffset;
    if (index >= 0 && index < row.length && fits(masks, row[index], y + rows)) {
      return { rotation: next, x: x + cols, y: y + rows, shape: row[index] };
    }
  }
  return null;
}
