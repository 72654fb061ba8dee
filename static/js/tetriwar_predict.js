// TetriWar: the player's own board, played in the page ahead of the server.
//
// The server stays the judge (games/tetriwar/live.py): this page applies each of its
// keys at once to its own copy of its board (tetriwar_engine.js, the rules generated
// from the Python engine), draws it in the same frame, and sends the key stamped with
// the game's clock and the hash of the board it produced. The server applies the key at
// that time (within the lag allowance, games/tetriwar/lag.py) and answers
// `<!--tw{...}-->` to this seat alone: the last key it applied, its board's hash, the
// pieces of the preview, and its whole board when ours differs or when something only the
// server knows happened to it (a bomb landed, bombs appeared in cleared lines). Then
// the page takes the server's board and plays again the keys not yet answered
// (Gambetta's "server reconciliation").
//
// Everybody else's boards, and spectators, are drawn by the server's fragments as before;
// the server's fragments of this board are not swapped in while the page plays it.
import { Board } from "./tetriwar_engine.js";
import { CELL_HTML, HIDDEN_ROWS } from "./tetriwar_rules.js";

const OWN_NEWS = /^<!--tw(\{.*\})-->$/s;
const SAMPLES = 16; // round trips remembered for the clock
const BEHIND_MS = 8; // the page's clock keeps this far behind the server's estimate

export class Prediction {
  // seat: the seat this page plays; doc: where its board is drawn (none: not drawn);
  // now(): performance.now()
  constructor({ seat, doc, now }) {
    this.seat = seat;
    this.doc = doc || null;
    this.perf = now || (() => performance.now());
    this.board = null;
    this.offset = null; // game ms = performance.now() + offset
    this.bestRtt = Infinity;
    this.samples = []; // {rtt, offset} of the latest answered keys
    this.floor = null; // the clock is at least this far ahead of performance.now()
    this.pending = []; // keys sent and not yet answered: {seq, name, t}
    this.sentAt = new Map(); // seq -> performance.now() when sent (round trips)
    this.corrections = 0; // the server's board differed from ours after a key
    this.echoes = -1; // keys up to this seq were sent on a board already corrected
    this.resets = 0; // the server's board replaced ours for what only it knows
    this.drawn = { rows: [], piece: "", ghost: "", score: "", next: "" };
  }

  // --- the clock -------------------------------------------------------------------
  clock() {
    return this.offset === null ? null : Math.floor(this.perf() + this.offset);
  }
  startsIn(ms) {
    // The 3-2-1 says when the game's clock reads 0 (a first guess: a one-way trip late).
    this.offset = -(this.perf() + ms);
  }
  hear(serverNow, rtt) {
    // The server's clock read serverNow when it sent this: it reads more now (the
    // message took some time), which bounds the clock from below whatever else is known.
    // Answering a key sent rtt ms ago, it reads about serverNow + rtt/2, give or take the
    // difference between the two ways, which is smallest for the quickest round trip: of
    // the latest SAMPLES, that one sets the clock. A little behind rather than ahead: a
    // key stamped ahead of the server's clock is applied later than played (a
    // correction), one stamped behind only spends a little of the lag allowance. Going
    // back is harmless: keys are never stamped before the board's time, here as there.
    const floor = serverNow - this.perf();
    if (this.floor === null || floor > this.floor) this.floor = floor;
    if (rtt !== null) {
      this.samples.push({ rtt: rtt, offset: serverNow + rtt / 2 - this.perf() });
      if (this.samples.length > SAMPLES) this.samples.shift();
    }
    if (this.samples.length) {
      const best = this.samples.reduce((a, b) => (b.rtt < a.rtt ? b : a));
      this.bestRtt = best.rtt;
      this.offset = Math.max(best.offset - BEHIND_MS, this.floor);
    } else if (this.offset === null || this.offset < this.floor) {
      this.offset = this.floor;
    }
  }

  // --- keys --------------------------------------------------------------------------
  playing() {
    return Boolean(this.board && !this.board.out && this.clock() !== null && this.clock() >= 0);
  }
  // A key: applied here now, then sent with when and what it made. Returns the fields
  // to send with the intent, or null when this page is not playing (the game has not
  // started on its clock, or is over for its board). A key before the server's first
  // word of the board, or while the board is unsure of what only the server knows (a
  // bomb's landing, the next piece), is sent stamped without a hash: the server applies
  // it at its time and answers with its board.
  key(name, seq) {
    const now = this.clock();
    if (now === null || now < 0 || (this.board && this.board.out)) return null;
    const t = this.board ? Math.max(now, this.board.now) : now;
    this.pending.push({ seq: seq, name: name, t: t });
    this.sentAt.set(seq, this.perf());
    if (!this.board) return { t: t };
    this.board.apply(name, t);
    if (this.doc) this.draw(this.doc, false); // on screen in the frame the key went down
    return this.board.unsure ? { t: t } : { t: t, h: this.board.hash() };
  }
  // The board's clocks run to now (gravity, lock delay, held keys); whether to draw.
  tick() {
    if (!this.playing()) return false;
    const before = this.board.now;
    this.board.advance(this.clock());
    return this.board.now !== before;
  }

  // --- the server's news ----------------------------------------------------------------
  // Returns true if the message was ours (the page must not swap it).
  message(text) {
    const m = OWN_NEWS.exec(text);
    if (!m) return false;
    let news;
    try { news = JSON.parse(m[1]); } catch (err) { return true; }
    const sent = news.seq != null ? this.sentAt.get(news.seq) : undefined;
    const rtt = sent === undefined ? null : this.perf() - sent;
    for (const seq of this.sentAt.keys()) if (news.seq != null && seq <= news.seq) this.sentAt.delete(seq);
    if (typeof news.now === "number") this.hear(news.now, rtt);
    if (news.seq != null) this.pending = this.pending.filter((k) => k.seq > news.seq);
    if (news.state) {
      // The server's board, with the keys it has not answered yet played on it again,
      // both run to one moment: if it differs from what the page shows, that is a
      // correction (unless the page knew it could not tell: a reset); keys already on
      // their way were played on the board found wrong, and their answers are the same
      // correction again, not another.
      const old = this.board;
      const board = Board.fromState(news.state);
      for (const k of this.pending) board.apply(k.name, Math.max(k.t, board.now));
      const at = Math.max(this.clock() || 0, board.now, old ? old.now : 0);
      board.advance(at);
      if (old && !old.out) {
        old.advance(at);
        if (old.unsure) this.resets += 1;
        else if (old.hash() !== board.hash() && (news.seq == null ? -1 : news.seq) > this.echoes) {
          this.corrections += 1;
          this.echoes = this.pending.length ? this.pending[this.pending.length - 1].seq : news.seq;
        }
      }
      this.board = board;
    } else if (this.board && news.next) {
      this.board.learn(news.dealt, news.next);
    }
    if (this.board && this.clock() !== null) this.board.advance(Math.max(this.clock(), this.board.now));
    return true;
  }
  stop() {
    this.board = null;
    this.pending = [];
  }

  // --- drawing: the same markup as the server's (games/tetriwar/render.py) -------------------
  draw(doc, force) {
    if (!this.board) return;
    const seat = this.seat;
    const view = this.board.view();
    const d = force ? { rows: [], piece: "", ghost: "", score: "", next: "" } : this.drawn;
    view.field.forEach((text, r) => {
      if (d.rows[r] === text) return;
      const row = doc.getElementById(`board-${seat}-row-${r}`);
      if (row) row.innerHTML = rowCells(text);
      d.rows[r] = text;
    });
    const p = view.piece;
    const piece = p ? `${p.kind} ${p.rotation} ${p.x} ${p.y}` : "";
    if (piece !== d.piece) { placePiece(doc.getElementById(`piece-${seat}`), p, false); d.piece = piece; }
    const ghostY = p ? this.board.ghostY() - HIDDEN_ROWS : 0;
    const ghost = p ? `${p.kind} ${p.rotation} ${p.x} ${ghostY}` : "";
    if (ghost !== d.ghost) {
      placePiece(doc.getElementById(`ghost-${seat}`), p && { ...p, y: ghostY }, true);
      d.ghost = ghost;
    }
    const score = `${view.score} ${view.level} ${view.lines} ${view.eliminations}`;
    if (score !== d.score) {
      const dds = doc.querySelectorAll(`#score-${seat} dd`);
      [view.score, view.level, view.lines, view.eliminations].forEach((v, i) => { if (dds[i]) dds[i].textContent = String(v); });
      d.score = score;
    }
    const next = view.next.join("");
    if (next !== d.next) {
      const box = doc.getElementById(`next-${seat}`);
      if (box) box.innerHTML = view.next.map((k) => `<div class="pc nx ${k} r0"><i></i><i></i><i></i><i></i></div>`).join("");
      d.next = next;
    }
    this.drawn = d;
  }
  // The server's fragments of what this page draws itself are not swapped in.
  drawnHere(id) {
    if (!this.board) return false;
    const s = this.seat;
    return id === `piece-${s}` || id === `ghost-${s}` || id === `score-${s}` || id === `next-${s}` ||
      id.startsWith(`board-${s}-row-`);
  }
}

function rowCells(text) {
  let html = "";
  for (const ch of text) html += CELL_HTML[ch] || CELL_HTML["."];
  return html;
}

function placePiece(el, p, ghost) {
  if (!el) return;
  if (!p) {
    el.className = "pc none";
    el.removeAttribute("style");
    el.innerHTML = "";
    return;
  }
  el.className = `pc${ghost ? " gh" : ""} ${p.kind} r${p.rotation}`;
  el.setAttribute("style", `--x:${p.x};--y:${p.y}`);
  if (el.children.length !== 4) el.innerHTML = "<i></i><i></i><i></i><i></i>";
}
