// A dropped bomb's own dice (RULES.md §1, rules version 4): the page's copy of
// games/tetriwar/dice.py, number for number. The seed comes with the bomb's
// announcement (the server drew it from the dropper's chance at the drop), so the page
// lands add line, earthquake and drill itself, with the piece, in the same frame.
//
//   const dice = new Dice(seed);
//   dice.below(10);            // 0..9, without modulo bias
//   dice.sample(cells, 10);    // up to 10 of `cells`, a partial Fisher–Yates
//
// Mulberry32 (Tommy Ettinger's, public domain): integer operations JavaScript and
// Python write alike (tests/js/tetriwar_dice.test.js and tests/unit/tetriwar/
// test_bomb_dice.py pin the same numbers).
const TWO_32 = 4294967296;

export class Dice {
  constructor(seed) {
    this.state = seed >>> 0;
  }

  // The next 32-bit number.
  next() {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    const a = this.state;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t = (t + Math.imul(t ^ (t >>> 7), t | 61)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  }

  // A number in 0..n−1, each as likely (draws past the last whole multiple of n below
  // 2³² are drawn again).
  below(n) {
    if (!(n > 0 && n <= TWO_32)) throw new RangeError(`n must be in 1..2**32, not ${n}`);
    const limit = TWO_32 - (TWO_32 % n);
    for (;;) {
      const x = this.next();
      if (x < limit) return x % n;
    }
  }

  // k of items (all of them if fewer), drawn without repeats: the first k places of a
  // Fisher–Yates shuffle of a copy.
  sample(items, k) {
    const pool = [...items];
    const count = Math.min(k, pool.length);
    for (let i = 0; i < count; i++) {
      const j = i + this.below(pool.length - i);
      [pool[i], pool[j]] = [pool[j], pool[i]];
    }
    return pool.slice(0, count);
  }
}
