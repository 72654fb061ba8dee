// Block-Killer in the browser. Every action is one frame to the server, which decides
// and sends the fields back: draw, attack a player or pass (#bk-turn's buttons), stack
// garbage cards (click a card in your hand; the top row is the chosen one, click another
// row on your field to choose it; F or the Flip button flips it, Delete or "Back to hand"
// takes it back, PageUp / PageDown or the Up / Down buttons move it), then place block
// cards (click one: its piece enters; ← → ↓ move, ↑ or X rotates clockwise, Z
// counter-clockwise, Space drops). Esc or Back takes one step back (the falling piece,
// else the top garbage row, else the choice of a target); "Call off the attack" calls
// the whole attack off; Enter or Done sends the play. Everything has a button, for touch.
(function () {
  "use strict";
  const live = window.TableLive;
  if (!live) return;

  let selectedRow = null; // the stack row (0 = lowest) chosen on the field; null: the top row
  // One action at a time: a click that sends one (a card, Done, a row's edit …) waits for
  // the server's answer before another is taken, so a double click sends once and a
  // second edit of the stack is built on the first's result, not on the stack before it.
  let waiting = null;
  const WAIT_MS = 2000; // an answer lost (a socket closed) frees the buttons anyway

  const me = () => live.mySeat();
  function turn() {
    const el = document.getElementById("bk-turn");
    return el ? el.dataset : {};
  }
  const acting = () => Number(turn().acting || 0) === me() && me() > 0;
  const playing = () => acting() && (turn().phase === "attack" || turn().phase === "defend");
  // The play this page's player is making: its section in the arena.
  function myPlay() {
    const role = turn().phase === "attack" ? "attack" : "defence";
    const el = document.getElementById("bk-play-" + role);
    return el && Number(el.dataset.seat) === me() ? el : null;
  }
  const falling = () => { const p = myPlay(); return Boolean(p && p.dataset.piece); };
  const stackFixed = () => { const p = myPlay(); return !p || Number(p.dataset.locked) > 0 || falling(); };

  // --- the garbage stack, as the server has it (data-stack: "95f+96,120", lowest first) ---
  function readStack() {
    const p = myPlay();
    const text = p ? p.dataset.stack || "" : "";
    if (!text) return [];
    return text.split(",").map((row) => row.split("+").map((part) => {
      const flipped = part.endsWith("f");
      return [Number(flipped ? part.slice(0, -1) : part), flipped];
    }));
  }
  function once(name, fields) {
    if (waiting !== null) return;
    waiting = setTimeout(() => { waiting = null; }, WAIT_MS);
    live.intent(name, fields);
  }
  function sendStack(rows) {
    const text = rows.map((row) => row.map(([card, flipped]) => String(card) + (flipped ? "f" : "")).join("+")).join(",");
    once("stack", { rows: text });
  }
  function isChecker(card) {
    const el = document.querySelector('#bk-hand .bk-garbage[data-card="' + card + '"]');
    return el ? el.dataset.checker !== undefined : false;
  }
  // A garbage card from the hand goes on top of the stack; a checkerboard card on a lone
  // checkerboard row merges with it, flipped the other way.
  function addGarbage(card) {
    if (!playing() || stackFixed()) return;
    const rows = readStack();
    if (rows.some((row) => row.some(([c]) => c === card))) return; // on the stack already
    const top = rows[rows.length - 1];
    if (isChecker(card) && top && myPlay().dataset.topChecker !== undefined) top.push([card, !top[0][1]]);
    else rows.push([[card, false]]);
    selectedRow = null;
    sendStack(rows);
  }
  function chosenRow(rows) {
    return selectedRow !== null && selectedRow < rows.length ? selectedRow : rows.length - 1;
  }
  function editRow(how) {
    if (!playing() || stackFixed()) return;
    const rows = readStack();
    const i = chosenRow(rows);
    if (i < 0) return;
    if (how === "flip") rows[i] = rows[i].map(([card, flipped]) => [card, !flipped]);
    else if (how === "remove") { rows.splice(i, 1); selectedRow = null; }
    else if (how === "up" && i + 1 < rows.length) { [rows[i], rows[i + 1]] = [rows[i + 1], rows[i]]; selectedRow = i + 1; }
    else if (how === "down" && i > 0) { [rows[i], rows[i - 1]] = [rows[i - 1], rows[i]]; selectedRow = i - 1; }
    else return;
    sendStack(rows);
  }
  function rowOf(target) {
    const cell = target && target.closest ? target.closest(".bk-field > i") : null;
    const field = cell && cell.parentElement;
    if (!cell || !field || field.closest(".bk-play") !== myPlay()) return null;
    const index = Array.prototype.indexOf.call(field.children, cell);
    const fromBottom = 19 - Math.floor(index / 10);
    return fromBottom < readStack().length ? fromBottom : null;
  }

  // --- what the page shows of whose move it is ------------------------------------------
  // A piece picked from the hand (below the field on a phone) enters out of sight: bring
  // the rows it enters in on screen, once, as it enters.
  let wasFalling = false;
  function showEntering() {
    const p = myPlay();
    const spawn = p && p.querySelector(".bk-spawn");
    if (!spawn) return;
    const box = spawn.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) spawn.scrollIntoView({ block: "nearest" });
  }
  function myState() {
    const el = document.getElementById("bk-status-" + me());
    return el ? el.dataset.state : "";
  }
  function refresh() {
    const mine = acting();
    if (waiting !== null) { clearTimeout(waiting); waiting = null; }
    document.querySelectorAll(".bk-act").forEach((b) => { b.disabled = !mine; });
    // "Your turn: …" for the player whose turn it is; the others read their name
    document.querySelectorAll("#bk-turn .bk-you").forEach((el) => { el.hidden = !mine; });
    document.querySelectorAll("#bk-turn .bk-them").forEach((el) => { el.hidden = mine && Boolean(el.nextElementSibling); });
    const inPlay = playing();
    const nowFalling = inPlay && falling();
    if (nowFalling && !wasFalling) showEntering();
    wasFalling = nowFalling;
    document.querySelectorAll(".bk-key").forEach((b) => { b.disabled = !inPlay; });
    document.querySelectorAll("#bk-hand .bk-card").forEach((b) => {
      const block = b.classList.contains("bk-block");
      b.disabled = !inPlay || (block ? falling() : stackFixed());
    });
    const game = document.getElementById("game");
    if (game) {
      game.classList.toggle("bk-my-move", mine);
      // a spectator, or a player out of the game, sees no controls at all
      const state = myState();
      game.classList.toggle("bk-playing", me() > 0 && state !== "" && !["out", "left", "won", "waiting"].includes(state));
    }
    document.querySelectorAll(".bk-field > i.sel").forEach((el) => el.classList.remove("sel"));
    const p = myPlay();
    const rows = readStack();
    const editable = inPlay && Boolean(p) && !stackFixed() && rows.length > 0;
    if (editable) {
      const cells = p.querySelector(".bk-field").children;
      const start = (19 - chosenRow(rows)) * 10;
      for (let c = 0; c < 10; c++) cells[start + c].classList.add("sel");
    } else {
      selectedRow = null;
    }
    document.querySelectorAll(".bk-row-act").forEach((b) => {
      const i = editable ? chosenRow(rows) : -1;
      b.disabled = !editable || (b.dataset.rowAct === "up" && i + 1 >= rows.length) || (b.dataset.rowAct === "down" && i <= 0);
    });
    const rowTools = document.querySelector(".bk-rows");
    if (rowTools) rowTools.hidden = !(inPlay && p && !stackFixed());
    const callOff = document.querySelector(".bk-calloff");
    if (callOff) callOff.hidden = !(inPlay && turn().phase === "attack" && p && Number(p.dataset.locked) === 0);
  }
  live.onMessage(refresh);

  // --- acting ---------------------------------------------------------------------------
  const KEYS = { ArrowLeft: "left", ArrowRight: "right", ArrowDown: "down", ArrowUp: "rotate", " ": "drop",
                 x: "rotate", X: "rotate", z: "rotate_ccw", Z: "rotate_ccw", Escape: "back", Enter: "done" };
  const MOVES = ["left", "right", "down", "rotate", "rotate_ccw"]; // each press a step: never held back
  function key(name) {
    if (!playing()) return;
    if (MOVES.includes(name)) live.intent(name);
    else once(name);
  }
  document.addEventListener("click", (e) => {
    if (!me()) return;
    const act = e.target.closest(".bk-act");
    if (act && !act.disabled) {
      const what = act.dataset.act;
      if (what === "draw") once("draw", { blocks: false });
      else if (what === "draw-blocks") once("draw", { blocks: true });
      else if (what === "pass") once("pass");
      else if (what === "attack") once("attack", { target: Number(act.dataset.target) });
      return;
    }
    const k = e.target.closest(".bk-key");
    if (k && !k.disabled) { key(k.dataset.key); return; }
    const edit = e.target.closest(".bk-row-act");
    if (edit && !edit.disabled) { editRow(edit.dataset.rowAct); return; }
    const callOff = e.target.closest(".bk-calloff");
    if (callOff && !callOff.hidden) { if (playing()) once("calloff"); return; }
    const card = e.target.closest("#bk-hand .bk-card");
    if (card && !card.disabled) {
      card.blur(); // the keys that follow are the game's, not this button's
      if (card.classList.contains("bk-block")) once("piece", { card: Number(card.dataset.card) });
      else addGarbage(Number(card.dataset.card));
      return;
    }
    const row = rowOf(e.target);
    if (row !== null && playing() && !stackFixed()) { selectedRow = row; refresh(); }
  });
  document.addEventListener("keydown", (e) => {
    if (live.typing(e.target) || !playing() || e.ctrlKey || e.metaKey || e.altKey) return;
    // a focused button or link outside the game (the chat, leaving) keeps its own keys
    if (e.target.closest && e.target.closest("button, a, summary") && !e.target.closest("#game .bk-main")) return;
    if (e.key === "f" || e.key === "F") editRow("flip");
    else if (e.key === "Delete" || e.key === "Backspace") editRow("remove");
    else if (e.key === "PageUp") editRow("up");
    else if (e.key === "PageDown") editRow("down");
    else if (KEYS[e.key]) key(KEYS[e.key]);
    else return;
    e.preventDefault();
  });
  refresh();
})();
