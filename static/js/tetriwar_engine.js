// One TetriWar board in the browser: the single-board rules of games/tetriwar/player.py
// (RULES.md §1, rules version 4), move for move, so the page can show its own board at
// once and the server's answer only confirms it. Time is integer milliseconds on the
// game's clock; the tables come from tetriwar_rules.js, generated from the Python source.
//
//   const board = Board.fromState(state);          // the server's Player.state()
//   board.apply("hold_left", 1234);                 // clocks run to 1234, then the key
//   board.advance(1500);                            // gravity, lock delay, repeats ...
//   board.due();                                    // the next clock (Infinity: none)
//   board.hash() === serverHash;                    // CRC-32 of board.canon()
//   board.view();                                   // piece, ghost and field for drawing
//
// What needs the server's randomness is not guessed: new bombs after a line clear, and
// Enter's target. The board then marks itself `unsure` (the page waits for the server's
// state); the next kinds come from the server too (`next`, from index `dealt`): with
// none known, the board waits without a piece. A bomb dropped on the board comes with
// its own dice's seed (the server's announcement, at least BOMB_DELAY_MS before it
// lands), so add line, earthquake and drill land here as there; only one the page
// dropped on itself and has not yet heard of again lacks it, and waits for the server.

import * as R from "./tetriwar_rules.js";
import { Field, fits, turn } from "./stacker.js";
import { Dice } from "./tetriwar_dice.js";

const INF = Infinity;
const SHAPE_COUNT = R.WIDTH + R.X_OFFSET;
const HIDDEN = R.HIDDEN_ROWS;
const DICE_BOMBS = new Set(["add_line", "earthquake", "drill"]); // land by their dice
const DEFAULT_HANDLING = Object.freeze({
  das: R.DAS_MS_DEFAULT,
  arr: R.ARR_MS_DEFAULT,
  soft_drop: R.SOFT_DROP_SPEED_DEFAULT,
});

// CRC-32 (zlib's, IEEE 802.3) of a text's UTF-8 bytes: the board hash both engines
// compute (Python's zlib.crc32 runs in C, so the server's share costs next to nothing).
const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(text) {
  let crc = 0xffffffff;
  for (const byte of new TextEncoder().encode(text)) {
    crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  }
  return (crc ^ 0xffffffff) >>> 0;
}

const clock = (value) => (value === INF ? "-" : String(value));
const orInf = (value) => (value === null || value === undefined ? INF : value);
const orNull = (value) => (value === INF ? null : value);

export class Board {
  constructor({
    seat = 1,
    startLevel = 1,
    linesPerLevel = 10,
    bombs = "off",
    handling = DEFAULT_HANDLING,
    next = [],
    t = 0,
  } = {}) {
    this.seat = seat;
    this.startLevel = startLevel;
    this.linesPerLevel = linesPerLevel;
    this.bombs = bombs;
    this.field = new Field(R.WIDTH, R.HEIGHT);
    this.now = t;
    this.score = 0;
    this.level = startLevel;
    this.lines = 0;
    this.levelLines = 0;
    this.eliminations = 0;
    this.store = []; // bomb names, oldest first
    this.incoming = []; // [due, bomb, sender seat, seed (null: not known yet)], in drop order
    this.dealt = 0; // pieces taken from the bag so far
    this.next = [...next]; // the kinds from index `dealt` on, as far as the server told
    this.out = false; // left, or the game is over
    this.unsure = false; // something only the server can work out happened
    this.clearPiece();
    this.softFalling = false;
    this.lastFall = t;
    this.controlUntil = INF;
    this.held = []; // -1 ← and +1 →, the last pressed last
    this.repeatAt = INF;
    this.charged = false;
    this.setHandling(handling);
    if (this.next.length) this.spawn(t);
  }

  clearPiece() {
    this.kind = "";
    this.rotation = 0;
    this.x = 0;
    this.y = 0;
    this.shape = null;
    this.lowest = 0;
    this.resets = 0;
    this.touched = false;
    this.fallAt = INF;
    this.lockAt = INF;
  }

  setHandling(handling) {
    this.handling = { ...DEFAULT_HANDLING, ...handling };
    this.softDropMs = R.SOFT_DROP_MS[this.handling.soft_drop];
  }

  // --- clocks --------------------------------------------------------------------------
  due() {
    if (this.out) return INF;
    return Math.min(this.fallAt, this.lockAt, this.controlUntil, this.repeatAt);
  }

  interval() {
    return this.softFalling ? this.softDropMs[this.level] : R.GRAVITY_MS[this.level];
  }

  // Runs every clock due up to `t`, in time order; the board's time never goes back.
  advance(t) {
    for (let due = this.due(); due <= t; due = this.due()) this.step(due);
    if (t > this.now) this.now = t;
  }

  // An intent at `t` (never before the board's time): the clocks run to t first, and
  // those the intent made due at t run after it.
  apply(name, t) {
    t = Math.max(t, this.now);
    this.advance(t);
    if (!this.out) this.act(name, t);
    this.advance(t);
  }

  // Runs the clock due at `t`: lack of control, lock, repeat, gravity (in this order
  // when several are due at once).
  step(t) {
    if (this.controlUntil === t) {
      this.controlUntil = INF;
      this.rearm(t);
    } else if (this.lockAt === t) {
      if (this.fits(this.shape, this.y + 1)) this.lockAt = INF;
      else this.lock(t);
    } else if (this.repeatAt === t) {
      this.repeat(t);
    } else {
      this.fall(t);
    }
  }

  fits(shape, y) {
    return fits(this.field.masks, shape, y);
  }

  ghostY() {
    return this.field.dropRow(this.shape, this.y);
  }

  // The lock clock after the piece moved (`moved`) or the field changed: from the first
  // touch-down on its lowest row every move counts; the first 15 restart the delay.
  touch(t, moved) {
    if (moved && this.touched) this.resets += 1;
    if (this.fits(this.shape, this.y + 1)) {
      this.lockAt = INF;
    } else if (this.lockAt === INF) {
      this.lockAt = this.resets > R.MAX_LOCK_RESETS ? t : t + R.LOCK_DELAY_MS;
      this.touched = true;
    } else if (moved && this.resets <= R.MAX_LOCK_RESETS) {
      this.lockAt = t + R.LOCK_DELAY_MS;
    }
  }

  // A row lower than any the piece reached: 15 fresh resets.
  lower() {
    if (this.y > this.lowest) {
      this.lowest = this.y;
      this.resets = 0;
      this.touched = false;
    }
  }

  fall(t) {
    if (this.fits(this.shape, this.y + 1)) {
      this.y += 1;
      this.lower();
      this.rearm(t);
    }
    this.touch(t, false);
    this.lastFall = t;
    this.fallAt = t + this.interval();
  }

  // --- intents -------------------------------------------------------------------------
  act(name, t) {
    if (!this.kind) {
      this.unsure = true; // waiting for the server's next kinds: its state will say
      return;
    }
    switch (name) {
      case "left": return this.stepKey(-1, t);
      case "right": return this.stepKey(1, t);
      case "rotate": return this.rotate(t);
      case "hold_left": return this.hold(-1, t);
      case "hold_right": return this.hold(1, t);
      case "release_left": return this.release(-1, t);
      case "release_right": return this.release(1, t);
      case "soft_drop_on": case "hold_down": return this.setSoftDrop(true, t);
      case "soft_drop_off": case "release_down": return this.setSoftDrop(false, t);
      case "hard_drop": return this.hardDrop(t);
      default:
        if (name === "bomb" || name.startsWith("bomb:")) return this.dropBomb(name, t);
        throw new Error(`unknown intent ${name}`);
    }
  }

  // One step sideways (← and → exchanged during lack of control); whether it moved.
  shift(dx, t) {
    if (this.controlUntil !== INF) dx = -dx;
    const x = this.x + dx;
    const index = x + R.X_OFFSET;
    if (index >= 0 && index < SHAPE_COUNT) {
      const shape = R.SHAPES[this.kind][this.rotation][index];
      if (this.fits(shape, this.y)) {
        this.x = x;
        this.shape = shape;
        this.touch(t, true);
        return true;
      }
    }
    return false;
  }

  stepKey(dx, t) {
    if (this.shift(dx, t)) this.rearm(t);
  }

  // As far as the piece goes sideways (ARR 0), one move for the lock delay.
  slide(dx, t) {
    if (this.controlUntil !== INF) dx = -dx;
    const shapes = R.SHAPES[this.kind][this.rotation];
    let x = this.x;
    while (x + dx + R.X_OFFSET >= 0 && x + dx + R.X_OFFSET < SHAPE_COUNT && this.fits(shapes[x + dx + R.X_OFFSET], this.y)) {
      x += dx;
    }
    if (x === this.x) return false;
    this.x = x;
    this.shape = shapes[x + R.X_OFFSET];
    this.touch(t, true);
    return true;
  }

  hold(dx, t) {
    if (this.held.includes(dx)) return;
    this.held.push(dx);
    this.charged = false;
    this.shift(dx, t);
    this.repeatAt = t + this.handling.das;
  }

  release(dx, t) {
    const at = this.held.indexOf(dx);
    if (at < 0) return;
    const active = at === this.held.length - 1;
    this.held.splice(at, 1);
    if (active) {
      this.charged = false;
      this.repeatAt = this.held.length ? t + this.handling.das : INF;
    }
  }

  repeat(t) {
    this.charged = true;
    const dx = this.held[this.held.length - 1];
    if (this.handling.arr === 0) {
      this.slide(dx, t);
      this.repeatAt = INF;
    } else if (this.shift(dx, t)) {
      this.repeatAt = t + this.handling.arr;
    } else {
      this.repeatAt = INF;
    }
  }

  // The piece or the field changed: a charged repeat that was blocked tries at once.
  rearm(t) {
    if (this.charged && this.repeatAt === INF && this.held.length) this.repeatAt = t;
  }

  rotate(t) {
    const turned = turn(this.field.masks, R.SHAPES[this.kind], R.KICKS[this.kind], R.X_OFFSET, this);
    if (!turned) return;
    Object.assign(this, turned);
    this.lower(); // a kick may take it down: fresh resets, as a fall would
    this.touch(t, true);
    this.rearm(t);
  }

  setSoftDrop(on, t) {
    this.softFalling = on;
    this.fallAt = Math.max(t, this.lastFall + this.interval());
  }

  hardDrop(t) {
    this.y = this.ghostY();
    this.lock(t);
  }

  // Enter or keys 1–4 with a stored bomb. Only a bomb on oneself stays on this board
  // (key 1, or Enter with a green bomb); elsewhere it leaves the store, nothing more.
  dropBomb(name, t) {
    if (this.bombs !== "manual" || !this.store.length) return;
    const bomb = this.store.shift();
    const self = name === "bomb:1" || (name === "bomb" && R.GREEN_BOMBS.includes(bomb));
    if (self) this.announce(bomb, this.seat, t);
    else this.unsure = name === "bomb" || this.unsure; // Enter's red target is the server's draw
  }

  // --- locking, clearing, spawning -----------------------------------------------------
  lock(t) {
    const { field, y } = this;
    if (y + this.shape[this.shape.length - 1][0] < HIDDEN) {
      this.eliminate();
      this.spawn(t);
      return;
    }
    const full = field.place(R.ROW_COLUMNS[this.kind][this.rotation], this.x, y, this.kind);
    const level = this.level;
    this.score += R.PIECE_POINTS * level;
    let caught = [];
    if (full.length) {
      for (const row of full) {
        for (const char of field.text[row]) if (char in R.BOMB_OF_CHAR) caught.push(R.BOMB_OF_CHAR[char]);
      }
      field.removeRows(full);
      this.score += R.LINE_POINTS[full.length] * level;
      this.lines += full.length;
      this.levelLines += full.length;
      while (this.levelLines >= this.linesPerLevel && this.level < R.MAX_LEVEL) {
        this.levelLines -= this.linesPerLevel;
        this.level += 1;
      }
      if (this.bombs !== "off") this.unsure = true; // the new bombs are the server's draw
    }
    if (caught.length && this.bombs === "manual") {
      const room = R.STORE_SIZE - this.store.length;
      if (room > 0) this.store.push(...caught.slice(0, room));
      caught = [];
    }
    this.spawn(t);
    for (const bomb of caught) {
      // automatic: dropped at once; a green one on oneself, a red one at an opponent
      if (R.GREEN_BOMBS.includes(bomb)) this.announce(bomb, this.seat, t);
    }
  }

  spawn(t) {
    if (!this.next.length) {
      this.clearPiece(); // the server has not told the next kind yet
      this.unsure = true;
      return;
    }
    const kind = this.next.shift();
    this.dealt += 1;
    this.land(t);
    this.placeNew(kind, t);
  }

  placeNew(kind, t) {
    const shape = R.SHAPES[kind][0][R.SPAWN_COLUMN + R.X_OFFSET];
    let y = R.SPAWN_ROW;
    if (!this.fits(shape, y)) this.eliminate(); // block out: the same piece then spawns
    if (R.SPAWN_DROPS_ONE_ROW && this.fits(shape, y + 1)) y += 1;
    Object.assign(this, { kind, rotation: 0, x: R.SPAWN_COLUMN, y, shape });
    this.lowest = y;
    this.resets = 0;
    this.touched = false;
    this.lockAt = INF;
    this.touch(t, false);
    this.lastFall = t;
    this.fallAt = t + this.interval();
    this.rearm(t); // a charged key moves the new piece at once
  }

  // Top out: empty field, start level, level counter restarts; score kept, store lost.
  eliminate() {
    this.field.clear();
    this.level = this.startLevel;
    this.levelLines = 0;
    this.eliminations += 1;
    this.store = [];
  }

  // --- bombs -----------------------------------------------------------------------------
  // A bomb dropped on this board at `t` (announced at once, by the server or by oneself;
  // `seed`: its dice, null where the page dropped it itself and the server has not told
  // it yet). Kept in (due, sender) order, drops of one sender in their order, as the
  // server keeps them whichever board's clocks ran first.
  announce(bomb, sender, t, seed = null) {
    const due = t + R.BOMB_DELAY_MS;
    let at = this.incoming.length;
    while (at > 0 && (this.incoming[at - 1][0] > due || (this.incoming[at - 1][0] === due && this.incoming[at - 1][2] > sender))) at--;
    this.incoming.splice(at, 0, [due, bomb, sender, seed]);
  }

  // Every announced bomb due by `t` lands, in order, before the next piece enters.
  land(t) {
    while (this.incoming.length && this.incoming[0][0] <= t) {
      const [, bomb, , seed] = this.incoming.shift();
      this.effect(bomb, t, seed);
    }
  }

  effect(bomb, t, seed) {
    const field = this.field;
    if (bomb === "lack_of_control") {
      this.controlUntil = t + R.LACK_OF_CONTROL_MS; // a second one restarts the 5 s
      return;
    }
    if (DICE_BOMBS.has(bomb) && (seed === null || seed === undefined)) {
      this.unsure = true; // dropped here, its dice not heard of yet: the server's word
      return;
    }
    const dice = DICE_BOMBS.has(bomb) ? new Dice(seed) : null;
    if (bomb === "add_line") {
      // one garbage row with its hole comes in at the bottom; a block pushed out of the
      // top tops the player out (and nothing else happens)
      if (field.masks[0]) {
        this.eliminate();
        return;
      }
      const hole = dice.below(R.WIDTH);
      const row = Array.from({ length: R.WIDTH }, (_, col) => (col === hole ? R.EMPTY : R.GARBAGE)).join("");
      field.text.splice(0, 1);
      field.masks.splice(0, 1);
      field.text.splice(R.HEIGHT - 1, 0, row);
      field.masks.splice(R.HEIGHT - 1, 0, 0);
      field.setRow(R.HEIGHT - 1, row);
    } else if (bomb === "earthquake") {
      for (let row = 0; row < R.HEIGHT; row++) {
        const shift = (((dice.below(2 * R.EARTHQUAKE_SHIFT + 1) - R.EARTHQUAKE_SHIFT) % R.WIDTH) + R.WIDTH) % R.WIDTH;
        if (shift) {
          const line = field.text[row];
          field.setRow(row, line.slice(R.WIDTH - shift) + line.slice(0, R.WIDTH - shift));
        }
      }
    } else if (bomb === "drill") {
      const blocks = [];
      field.text.forEach((line, row) => {
        for (let col = 0; col < R.WIDTH; col++) if (line[col] !== R.EMPTY) blocks.push([row, col]);
      });
      for (const [row, col] of dice.sample(blocks, R.DRILL_BLOCKS)) field.setCell(row, col, R.EMPTY);
    } else if (bomb === "remove_bombs") {
      field.replaceChars(Object.keys(R.BOMB_OF_CHAR).join(""), R.PLAIN);
      this.store = [];
    } else if (bomb === "gravity") {
      field.collapse();
    } else if (bomb === "remove_line") {
      field.removeBottom(1);
    } else if (bomb === "demolition") {
      field.removeBottom(R.DEMOLITION_ROWS);
    }
    const full = field.fullRows();
    if (full.length) field.removeRows(full);
  }

  // --- the server's word -----------------------------------------------------------------
  // More kinds from the server: `next` holds the kinds from index `dealt` on.
  learn(dealt, next) {
    const known = next.slice(this.dealt - dealt);
    if (this.dealt >= dealt && known.length > this.next.length) this.next = known;
  }

  // The canonical text of the board: byte for byte Player.canon() of the server.
  canon() {
    const piece = this.kind
      ? `${this.kind} ${this.rotation} ${this.x} ${this.y}`
      : "- 0 0 0";
    const held = this.held.map((dx) => (dx < 0 ? "L" : "R")).join("") || "-";
    const store = this.store.map((bomb) => R.BOMB_CHARS[bomb]).join("") || "-";
    return [
      `t ${this.now} piece ${piece} lowest ${this.lowest} resets ${this.resets} ` +
        `touched ${+this.touched} soft ${+this.softFalling}`,
      `clocks ${clock(this.fallAt)} ${clock(this.lockAt)} ${clock(this.repeatAt)} ${clock(this.controlUntil)} ${this.lastFall}`,
      `keys ${held} charged ${+this.charged}`,
      `score ${this.score} ${this.level} ${this.lines} ${this.levelLines} ${this.eliminations} dealt ${this.dealt} out ${+this.out}`,
      `store ${store}`,
      ...this.field.text,
    ].join("\n");
  }

  hash() {
    return crc32(this.canon());
  }

  // The server's Player.state(): the board as JSON, enough to go on predicting.
  static fromState(state) {
    const board = new Board({
      seat: state.seat ?? 1,
      startLevel: state.start_level,
      linesPerLevel: state.lines_per_level,
      bombs: state.bombs,
      handling: state.handling,
      t: state.t,
    });
    board.field = new Field(R.WIDTH, R.HEIGHT, state.field);
    if (state.piece) {
      const [kind, rotation, x, y] = state.piece;
      Object.assign(board, { kind, rotation, x, y, shape: R.SHAPES[kind][rotation][x + R.X_OFFSET] });
    }
    board.lowest = state.lowest;
    board.resets = state.resets;
    board.touched = state.touched;
    board.softFalling = state.soft;
    board.fallAt = orInf(state.fall_at);
    board.lockAt = orInf(state.lock_at);
    board.repeatAt = orInf(state.repeat_at);
    board.controlUntil = orInf(state.control_until);
    board.lastFall = state.last_fall;
    board.held = [...state.held];
    board.charged = state.charged;
    board.score = state.score;
    board.level = state.level;
    board.lines = state.lines;
    board.levelLines = state.level_lines;
    board.eliminations = state.eliminations;
    board.dealt = state.dealt;
    board.next = [...state.next];
    board.store = [...state.store];
    board.out = state.out;
    board.incoming = state.incoming.map(([due, bomb, sender, seed]) => [due, bomb, sender, seed ?? null]);
    return board;
  }

  state() {
    return {
      seat: this.seat,
      t: this.now,
      field: [...this.field.text],
      piece: this.kind ? [this.kind, this.rotation, this.x, this.y] : null,
      lowest: this.lowest,
      resets: this.resets,
      touched: this.touched,
      soft: this.softFalling,
      fall_at: orNull(this.fallAt),
      lock_at: orNull(this.lockAt),
      repeat_at: orNull(this.repeatAt),
      control_until: orNull(this.controlUntil),
      last_fall: this.lastFall,
      held: [...this.held],
      charged: this.charged,
      score: this.score,
      level: this.level,
      lines: this.lines,
      level_lines: this.levelLines,
      eliminations: this.eliminations,
      start_level: this.startLevel,
      lines_per_level: this.linesPerLevel,
      bombs: this.bombs,
      handling: { ...this.handling },
      dealt: this.dealt,
      next: [...this.next],
      store: [...this.store],
      out: this.out,
      incoming: this.incoming.map(([due, bomb, sender, seed]) => (seed === null ? [due, bomb, sender] : [due, bomb, sender, seed])),
    };
  }

  // What a page draws: visible rows (0 = top), the piece's and the ghost's cells as
  // [visible row, column] (rows < 0 are in the hidden rows), the preview and the numbers.
  view() {
    let piece = null;
    let ghost = [];
    if (this.kind && !this.out) {
      const cells = (y) => R.CELLS[this.kind][this.rotation].map(([r, c]) => [y - HIDDEN + r, this.x + c]);
      piece = { kind: this.kind, rotation: this.rotation, x: this.x, y: this.y - HIDDEN, cells: cells(this.y) };
      ghost = cells(this.ghostY());
    }
    return {
      piece,
      ghost,
      field: this.field.text.slice(HIDDEN),
      next: this.next.slice(0, R.PREVIEW),
      score: this.score,
      level: this.level,
      lines: this.lines,
      eliminations: this.eliminations,
      store: [...this.store],
      reversedUntil: this.controlUntil === INF ? null : this.controlUntil,
    };
  }
}
