// Third Option in the browser: choose a card, turn it (R) and mirror it (M), and see
// under the pointer where it would go on your grid (green fits, red does not), from the
// grid the page has (data-grid); click to place. Keyboard: 1/2/3 choose, arrows move,
// Enter places. On a touch screen the first tap moves the shape, a second tap on the
// same square (or Place) places it. The server checks every placement again.
(function () {
  "use strict";
  const live = window.TableLive;
  if (!live) return;
  const SIZE = 9;

  let chosen = null; // { card: 0 | 1 | 2, shape: "##./.##", round: 3 }
  let turns = 0;
  let mirrored = false;
  let at = null; // [row, column] of the grid square the shape's handle is on
  let sent = 0; // the round of the last placement sent (no second one while it travels)

  // --- shapes: the same turning and mirroring as the engine (games/core/geometry.py) ---
  function parse(picture) {
    const cells = [];
    picture.split("/").forEach((line, r) => {
      for (let c = 0; c < line.length; c++) if (line[c] === "#") cells.push([r, c]);
    });
    return cells;
  }
  function normalise(cells) {
    const top = Math.min(...cells.map((x) => x[0]));
    const left = Math.min(...cells.map((x) => x[1]));
    return cells.map(([r, c]) => [r - top, c - left]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  }
  function oriented(picture, t, m) {
    let cells = normalise(parse(picture));
    if (m) cells = normalise(cells.map(([r, c]) => [r, -c]));
    for (let i = 0; i < t; i++) cells = normalise(cells.map(([r, c]) => [c, -r]));
    return cells;
  }
  // The square the pointer holds: the shape's cell nearest the middle of its box.
  function handle(cells) {
    const h = Math.max(...cells.map((x) => x[0])), w = Math.max(...cells.map((x) => x[1]));
    let best = cells[0], dist = Infinity;
    cells.forEach(([r, c]) => {
      const d = (r - h / 2) ** 2 + (c - w / 2) ** 2;
      if (d < dist - 1e-9) { dist = d; best = [r, c]; }
    });
    return best;
  }
  function legalAt(cells, top, left, grid) {
    return cells.every(([r, c]) => {
      const rr = r + top, cc = c + left;
      return rr >= 0 && rr < SIZE && cc >= 0 && cc < SIZE && grid[rr * SIZE + cc] === ".";
    });
  }
  function fitsAnywhere(picture, grid) {
    for (let t = 0; t < 4; t++) for (const m of [false, true]) {
      const cells = oriented(picture, t, m);
      for (let r = 0; r < SIZE; r++) for (let c = 0; c < SIZE; c++) if (legalAt(cells, r, c, grid)) return true;
    }
    return false;
  }

  // --- what the page says ---------------------------------------------------------------
  const me = () => live.mySeat();
  const board = () => document.getElementById("to-board-" + me());
  const gridText = () => { const b = board(); return b ? b.dataset.grid || "" : ""; };
  function round() {
    const el = document.getElementById("to-round");
    return el ? Number(el.dataset.round) : 0;
  }
  function state() {
    const el = document.getElementById("to-status-" + me());
    return el ? el.dataset.state : "";
  }
  // The cards this player may place now.
  function offered() {
    const s = state();
    if (s === "place") return Array.from(document.querySelectorAll("#to-round .to-card"));
    if (s === "third" || s === "free") return Array.from(document.querySelectorAll("#to-mine-" + me() + " .to-card"));
    return [];
  }
  function cardEl() {
    if (!chosen) return null;
    return offered().find((el) => Number(el.dataset.card) === chosen.card) || null;
  }

  // --- showing --------------------------------------------------------------------------
  function drawCard(el, cells) {
    const box = el.querySelector(".to-shape");
    if (!box) return;
    const h = Math.max(...cells.map((x) => x[0])) + 1, w = Math.max(...cells.map((x) => x[1])) + 1;
    box.style.setProperty("--w", w);
    box.style.setProperty("--h", h);
    const on = new Set(cells.map(([r, c]) => r * w + c));
    box.replaceChildren(...Array.from({ length: w * h }, (_, i) => {
      const cell = document.createElement("i");
      if (on.has(i)) cell.className = "on";
      return cell;
    }));
  }
  function placement() {
    if (!chosen || !at) return null;
    const cells = oriented(chosen.shape, turns, mirrored);
    const [hr, hc] = handle(cells);
    const top = at[0] - hr, left = at[1] - hc;
    return { cells, top, left, legal: legalAt(cells, top, left, gridText()) };
  }
  function show() {
    const b = board();
    document.querySelectorAll(".tc.pv-ok, .tc.pv-bad").forEach((el) => el.classList.remove("pv-ok", "pv-bad"));
    if (!b) return;
    const p = placement();
    b.classList.toggle("pv-illegal", Boolean(p && !p.legal));
    if (!p || sent === round()) return;
    const squares = b.children;
    p.cells.forEach(([r, c]) => {
      const rr = r + p.top, cc = c + p.left;
      if (rr >= 0 && rr < SIZE && cc >= 0 && cc < SIZE) squares[rr * SIZE + cc].classList.add(p.legal ? "pv-ok" : "pv-bad");
    });
  }
  // After every message: keep the chosen card if it is still on offer, else choose the
  // first that fits; mark the cards; draw the chosen one turned as it will be placed.
  function refresh() {
    const cards = offered();
    const grid = gridText();
    if (chosen && (chosen.round !== round() || !cardEl() || cardEl().dataset.shape !== chosen.shape)) {
      if (chosen.round !== round()) { turns = 0; mirrored = false; }
      chosen = null;
    }
    if (sent && sent !== round()) sent = 0;
    document.querySelectorAll(".to-card").forEach((el) => {
      el.classList.remove("sel", "nofit");
      const mine = cards.includes(el);
      el.disabled = !mine;
      el.setAttribute("aria-pressed", "false");
      if (mine && grid && !fitsAnywhere(el.dataset.shape, grid)) el.classList.add("nofit");
    });
    if (!chosen) {
      const first = cards.find((el) => !el.classList.contains("nofit"));
      if (first) chosen = { card: Number(first.dataset.card), shape: first.dataset.shape, round: round() };
    }
    const el = cardEl();
    if (el) {
      el.classList.add("sel");
      el.setAttribute("aria-pressed", "true");
      drawCard(el, oriented(chosen.shape, turns, mirrored));
    }
    show();
  }
  live.onMessage(refresh);
  // A refused placement (its error replaces #ws-error) may be tried again.
  document.body.addEventListener("htmx:wsAfterMessage", (e) => {
    if (e.detail && /id="ws-error"/.test(e.detail.message || "")) { sent = 0; show(); }
  });

  // --- acting ---------------------------------------------------------------------------
  function choose(el) {
    if (!offered().includes(el)) return;
    chosen = { card: Number(el.dataset.card), shape: el.dataset.shape, round: round() };
    refresh();
  }
  function turn() { turns = (turns + 1) % 4; refresh(); }
  function flip() { mirrored = !mirrored; refresh(); }
  function place() {
    const p = placement();
    if (!p || !p.legal || sent === round()) return;
    sent = round();
    live.intent("place", { round: round(), card: chosen.card, turns: turns, mirrored: mirrored, row: p.top, column: p.left });
    show();
  }
  function squareOf(target) {
    const b = board();
    const cell = target && target.closest ? target.closest(".tc") : null;
    if (!b || !cell || cell.parentElement !== b) return null;
    const i = Array.prototype.indexOf.call(b.children, cell);
    return [Math.floor(i / SIZE), i % SIZE];
  }

  document.addEventListener("pointermove", (e) => {
    if (e.pointerType !== "mouse" || !me()) return;
    const square = squareOf(e.target);
    if (square) { at = square; show(); }
  });
  document.addEventListener("click", (e) => {
    if (!me()) return;
    const card = e.target.closest(".to-card");
    if (card) { choose(card); return; }
    const tool = e.target.closest(".to-tool");
    if (tool) {
      const action = tool.dataset.action;
      if (action === "rotate") turn();
      else if (action === "mirror") flip();
      else if (action === "place") place();
      return;
    }
    const square = squareOf(e.target);
    if (!square) return;
    const touch = e.pointerType && e.pointerType !== "mouse";
    if (touch && (!at || at[0] !== square[0] || at[1] !== square[1])) { at = square; show(); return; }
    at = square;
    place();
  });
  document.addEventListener("keydown", (e) => {
    if (live.typing(e.target) || !me() || !board() || e.ctrlKey || e.metaKey || e.altKey) return;
    const key = e.key;
    if (key === "r" || key === "R") turn();
    else if (key === "m" || key === "M") flip();
    else if (key === "1" || key === "2" || key === "3") {
      const el = offered()[Number(key) - 1];
      if (el) choose(el);
    } else if (key.startsWith("Arrow")) {
      const [dr, dc] = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[key] || [0, 0];
      const [r, c] = at || [4, 4];
      at = [Math.min(SIZE - 1, Math.max(0, r + dr)), Math.min(SIZE - 1, Math.max(0, c + dc))];
      show();
    } else if (key === "Enter") {
      // a focused button or link elsewhere on the page keeps its own Enter
      if (e.target.closest && e.target.closest("button, a") && !e.target.closest("#game")) return;
      if (!at) at = [4, 4];
      place();
    } else return;
    e.preventDefault();
  });
})();
