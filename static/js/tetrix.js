// Te-Trix in the browser. The roller picks a tetromino (its button, or I O T S Z J L)
// and the dice fill its cells; clicking two cells (or 1–4 twice) swaps their symbols;
// Arrange (Enter) hands the shape to everyone. Then everyone writes it: turn it (R),
// point at the sheet and see where it would go (green fits, red does not; cells past
// the edge are shown hanging over), click to write it. Keyboard: arrows move, Enter
// writes. On a touch screen the first tap moves the shape, a second tap on the same
// cell (or Write) writes it. The page checks with the sheet it has (data-sheet); the
// server checks every intent again.
(function () {
  "use strict";
  const live = window.TableLive;
  if (!live) return;
  const SIZE = 7;
  const LOW = -3, HIGH = 6; // the box's top-left cell, as the server takes it
  const SIGNS = { o: "○", s: "□", x: "✕" };
  const NAMES = { o: gettext("circle"), s: gettext("square"), x: gettext("cross") };
  // games/tetrix/constants.py TETROMINOES: cells row by row, the order of the symbols
  const SHAPES = { I: "####", O: "##/##", T: ".#./###", S: ".##/##.", Z: "##./.##", J: "#../###", L: "..#/###" };

  let arr = null; // { round, shape, symbols, picked }: the roller's arrangement being made
  let arranged = 0; // the round whose arrangement was sent
  let turns = 0;
  let turnsRound = 0;
  let at = null; // [row, column] of the sheet cell the shape's handle is on (may lie off it)
  let sent = 0; // the round whose write was sent (no second one while it travels)

  // --- shapes: the engine's cells and turns (games/tetrix/sheet.py) ------------------------
  function parse(picture) {
    const cells = [];
    picture.split("/").forEach((line, r) => {
      for (let c = 0; c < line.length; c++) if (line[c] === "#") cells.push([r, c]);
    });
    return cells;
  }
  // Clockwise quarter turns; each cell keeps its place in the list (and so its symbol).
  function turned(cells, t) {
    let out = cells.slice();
    for (let i = 0; i < t % 4; i++) out = out.map(([r, c]) => [c, -r]);
    const top = Math.min(...out.map((x) => x[0])), left = Math.min(...out.map((x) => x[1]));
    return out.map(([r, c]) => [r - top, c - left]);
  }
  // The cell the pointer holds: the shape's cell nearest the middle of its box.
  function handle(cells) {
    const h = Math.max(...cells.map((x) => x[0])), w = Math.max(...cells.map((x) => x[1]));
    let best = cells[0], dist = Infinity;
    cells.forEach(([r, c]) => {
      const d = (r - h / 2) ** 2 + (c - w / 2) ** 2;
      if (d < dist - 1e-9) { dist = d; best = [r, c]; }
    });
    return best;
  }
  const clamp = (v) => Math.min(HIGH, Math.max(LOW, v));
  function check(cells, top, left, grid, mayHang) {
    let on = 0, hang = 0, clash = false;
    cells.forEach(([r, c]) => {
      const rr = r + top, cc = c + left;
      if (rr >= 0 && rr < SIZE && cc >= 0 && cc < SIZE) {
        on++;
        if (grid[rr * SIZE + cc] !== ".") clash = true;
      } else hang++;
    });
    return { on: on, hang: hang, legal: on > 0 && !clash && hang <= mayHang };
  }
  function fitsAnywhere(shape, grid, mayHang) {
    for (let t = 0; t < 4; t++) {
      const cells = turned(parse(SHAPES[shape]), t);
      for (let r = LOW; r <= HIGH; r++) for (let c = LOW; c <= HIGH; c++) if (check(cells, r, c, grid, mayHang).legal) return true;
    }
    return false;
  }

  // --- what the page says --------------------------------------------------------------------
  const me = () => live.mySeat();
  function round() {
    const t = document.getElementById("tx-turn");
    if (!t) return null;
    return { round: Number(t.dataset.round), phase: t.dataset.phase, dice: t.dataset.dice || "",
             shape: t.dataset.shape || "", symbols: t.dataset.symbols || "" };
  }
  const sheet = () => document.getElementById("tx-sheet-" + me());
  const grid = () => { const s = sheet(); return s ? s.dataset.sheet || "" : ""; };
  const mayHang = () => { const s = sheet(); return s ? Number(s.dataset.mayHang || 0) : 0; };
  function doing() {
    const el = document.getElementById("tx-status-" + me());
    const state = el ? el.dataset.state : "";
    return state === "arrange" || state === "write" ? state : "";
  }

  // --- arranging -------------------------------------------------------------------------------
  function cellButton(symbol, index, picked) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "tx-cell " + symbol + (picked ? " sel" : "");
    b.dataset.index = String(index);
    b.textContent = SIGNS[symbol];
    b.setAttribute("aria-label", interpolate(
      picked ? gettext("Cell %(number)s: %(symbol)s, chosen to swap") : gettext("Cell %(number)s: %(symbol)s"),
      { number: index + 1, symbol: NAMES[symbol] }, true));
    b.setAttribute("aria-pressed", picked ? "true" : "false");
    return b;
  }
  function drawBuild(r) {
    const build = document.getElementById("tx-build");
    if (!build) return;
    if (!arr || !arr.shape) {
      const p = document.createElement("span");
      p.className = "muted small";
      p.textContent = interpolate(gettext("Choose a shape for %s"), [r.dice.split("").map((s) => SIGNS[s]).join(" ")]);
      build.replaceChildren(p);
      build.style.removeProperty("--w");
      return;
    }
    const cells = parse(SHAPES[arr.shape]);
    const h = Math.max(...cells.map((x) => x[0])) + 1, w = Math.max(...cells.map((x) => x[1])) + 1;
    const box = document.createElement("span");
    box.className = "tx-build-shape";
    box.style.setProperty("--w", w);
    box.style.setProperty("--h", h);
    const slots = Array.from({ length: w * h }, () => document.createElement("i"));
    cells.forEach(([rr, cc], i) => { slots[rr * w + cc] = cellButton(arr.symbols[i], i, arr.picked === i); });
    box.replaceChildren(...slots);
    build.replaceChildren(box);
  }
  function refreshArrange(r) {
    if (!arr || arr.round !== r.round) arr = { round: r.round, shape: null, symbols: r.dice, picked: null };
    const solo = document.querySelector("#game[data-solo]") !== null;
    document.querySelectorAll(".tx-pick").forEach((el) => {
      const on = arr.shape === el.dataset.shape;
      el.classList.toggle("sel", on);
      el.setAttribute("aria-pressed", on ? "true" : "false");
      // solo: a shape that fits nowhere may not be arranged (NO_ROOM)
      el.classList.toggle("nofit", solo && !fitsAnywhere(el.dataset.shape, grid(), mayHang()));
    });
    drawBuild(r);
    const go = document.querySelector('.tx-tool[data-action="arrange"]');
    if (go) go.disabled = !arr.shape || arranged === r.round;
  }
  function pick(shape) {
    const r = round();
    if (!r || doing() !== "arrange" || !SHAPES[shape]) return;
    refreshArrange(r);
    arr.shape = shape;
    arr.picked = null;
    refresh();
  }
  function swap(index) {
    if (!arr || !arr.shape || index < 0 || index > 3) return;
    if (arr.picked === null) arr.picked = index;
    else if (arr.picked === index) arr.picked = null;
    else {
      const s = arr.symbols.split("");
      [s[arr.picked], s[index]] = [s[index], s[arr.picked]];
      arr.symbols = s.join("");
      arr.picked = null;
    }
    refresh();
  }
  function arrange() {
    const r = round();
    if (!r || doing() !== "arrange" || !arr || !arr.shape || arranged === r.round) return;
    arranged = r.round;
    live.intent("arrange", { shape: arr.shape, symbols: arr.symbols });
    refresh();
  }

  // --- writing ---------------------------------------------------------------------------------
  function placement() {
    const r = round();
    if (!r || !r.shape || !at) return null;
    const cells = turned(parse(SHAPES[r.shape]), turns);
    const [hr, hc] = handle(cells);
    const top = clamp(at[0] - hr), left = clamp(at[1] - hc);
    return Object.assign({ cells: cells, symbols: r.symbols, top: top, left: left, round: r.round },
                         check(cells, top, left, grid(), mayHang()));
  }
  // Where the sheet's cells are on the screen: cell (0, 0) and the distance to the next.
  function metrics(s) {
    const a = s.children[0].getBoundingClientRect(), b = s.children[1].getBoundingClientRect();
    return { top: a.top, left: a.left, size: a.width, pitch: b.left - a.left };
  }
  function clear() {
    document.querySelectorAll(".tx-sheet .c.pv-ok, .tx-sheet .c.pv-bad").forEach((el) => {
      el.classList.remove("pv-ok", "pv-bad");
      delete el.dataset.pv;
    });
    document.querySelectorAll(".tx-hang").forEach((el) => el.remove());
  }
  function show() {
    clear();
    const s = sheet();
    const hint = document.getElementById("tx-hint");
    const p = placement();
    if (s) s.classList.toggle("pv-illegal", Boolean(p && !p.legal && doing() === "write"));
    if (hint) hint.textContent = "";
    if (!s || !p || doing() !== "write" || sent === p.round) return;
    const pad = s.parentElement, m = metrics(s), box = pad.getBoundingClientRect();
    const kind = p.legal ? "pv-ok" : "pv-bad";
    p.cells.forEach(([r, c], i) => {
      const rr = r + p.top, cc = c + p.left, sign = SIGNS[p.symbols[i]];
      if (rr >= 0 && rr < SIZE && cc >= 0 && cc < SIZE) {
        const cell = s.children[rr * SIZE + cc];
        cell.classList.add(kind);
        cell.dataset.pv = sign;
      } else {
        const ghost = document.createElement("b");
        ghost.className = "tx-hang " + kind;
        ghost.textContent = sign;
        ghost.setAttribute("aria-hidden", "true");
        ghost.style.setProperty("--x", (m.left - box.left + cc * m.pitch) + "px");
        ghost.style.setProperty("--y", (m.top - box.top + rr * m.pitch) + "px");
        ghost.style.setProperty("--s", m.size + "px");
        pad.appendChild(ghost);
      }
    });
    if (hint) {
      const max = mayHang();
      hint.textContent = p.on === 0 ? gettext("Write at least one symbol on the sheet")
        : !p.legal && p.hang > max ? interpolate(gettext("%(count)s hanging over: at most %(most)s"), { count: p.hang, most: max }, true)
        : !p.legal ? gettext("Only on empty cells")
        : p.hang ? interpolate(ngettext("%s hanging over the edge", "%s hanging over the edge", p.hang), [p.hang]) : "";
    }
  }
  function rotate() {
    if (doing() !== "write") return;
    turns = (turns + 1) % 4;
    show();
  }
  function place() {
    const p = placement();
    if (doing() !== "write" || !p || !p.legal || sent === p.round) return;
    sent = p.round;
    live.intent("write", { turns: turns, row: p.top, column: p.left });
    show();
  }
  // The sheet cell under a point, counted from the sheet's cell (0, 0): off the sheet too.
  function cellAt(x, y) {
    const s = sheet();
    if (!s || !s.children.length) return null;
    const m = metrics(s), gap = m.pitch - m.size;
    const r = Math.floor((y - m.top + gap / 2) / m.pitch), c = Math.floor((x - m.left + gap / 2) / m.pitch);
    return [Math.max(LOW, Math.min(HIGH + 3, r)), Math.max(LOW, Math.min(HIGH + 3, c))];
  }
  function onMySheet(target) {
    const s = sheet();
    return Boolean(s && target && target.closest && target.closest(".tx-pad") === s.parentElement);
  }

  // --- after every message ------------------------------------------------------------------------
  function refresh() {
    const r = round();
    const game = document.getElementById("game");
    const now = doing();
    if (game) game.dataset.doing = now;
    if (!r) return;
    // A new round starts with no preview: the last tap's spot means nothing for the new
    // shape (and is written now, so it would show red there).
    if (turnsRound !== r.round) { turnsRound = r.round; turns = 0; at = null; }
    if (now === "arrange") refreshArrange(r);
    show();
  }
  live.onMessage(refresh);
  // A refused intent (its error replaces #ws-error) may be tried again.
  document.body.addEventListener("htmx:wsAfterMessage", (e) => {
    if (e.detail && /id="ws-error"/.test(e.detail.message || "")) { sent = 0; arranged = 0; refresh(); }
  });

  // --- input -------------------------------------------------------------------------------------
  document.addEventListener("pointermove", (e) => {
    if (e.pointerType !== "mouse" || doing() !== "write" || !onMySheet(e.target)) return;
    const cell = cellAt(e.clientX, e.clientY);
    if (cell && (!at || at[0] !== cell[0] || at[1] !== cell[1])) { at = cell; show(); }
  });
  document.addEventListener("click", (e) => {
    if (!me()) return;
    const pickEl = e.target.closest(".tx-pick");
    if (pickEl) { pick(pickEl.dataset.shape); return; }
    const cellEl = e.target.closest(".tx-cell");
    if (cellEl) { swap(Number(cellEl.dataset.index)); return; }
    const tool = e.target.closest(".tx-tool");
    if (tool) {
      const action = tool.dataset.action;
      if (action === "arrange") arrange();
      else if (action === "rotate") rotate();
      else if (action === "place") place();
      else if (action === "stop" && window.confirm(tool.dataset.confirm)) live.intent("stop");
      return;
    }
    if (doing() !== "write" || !onMySheet(e.target)) return;
    const cell = cellAt(e.clientX, e.clientY);
    if (!cell) return;
    const touch = e.pointerType && e.pointerType !== "mouse";
    if (touch && (!at || at[0] !== cell[0] || at[1] !== cell[1])) { at = cell; show(); return; }
    at = cell;
    place();
  });
  document.addEventListener("keydown", (e) => {
    if (live.typing(e.target) || !me() || e.ctrlKey || e.metaKey || e.altKey) return;
    const now = doing();
    const key = e.key;
    if (now === "arrange") {
      const letter = key.length === 1 ? key.toUpperCase() : "";
      if (SHAPES[letter]) pick(letter);
      else if (key >= "1" && key <= "4") swap(Number(key) - 1);
      else if (key === "Enter") {
        if (e.target.closest && e.target.closest("button, a") && !e.target.closest("#game")) return;
        arrange();
      } else return;
    } else if (now === "write") {
      if (key === "r" || key === "R") rotate();
      else if (key.startsWith("Arrow")) {
        const [dr, dc] = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[key] || [0, 0];
        const [r, c] = at || [3, 3];
        at = [Math.min(HIGH + 3, Math.max(LOW, r + dr)), Math.min(HIGH + 3, Math.max(LOW, c + dc))];
        show();
      } else if (key === "Enter") {
        if (e.target.closest && e.target.closest("button, a") && !e.target.closest("#game")) return;
        if (!at) { at = [3, 3]; show(); return; }
        place();
      } else return;
    } else return;
    e.preventDefault();
  });
  window.addEventListener("resize", show);
})();
