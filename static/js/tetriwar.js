// TetriWar in the browser: keys in, HTML out. The server decides everything; this
// script turns key presses into intents (the socket, versions and clocks are
// live.js's), which the page's copy of its own board plays at once (tetriwar_play.js). The touch pad (touch.js) sends the same intents through
// window.TetriWarInput, so a held button and a held key are one held key.
(function () {
  "use strict";
  const live = window.TableLive;
  if (!live) return;
  const area = live.area;
  const mySeat = live.mySeat;
  // Held keys: the page says when a key goes down and up; the server repeats it at the
  // player's own auto-repeat settings (their keys page), so holding costs two frames.
  const HOLD = { left: "left", right: "right", soft_drop: "down" };
  const held = new Set();

  // A key this page plays on its own board first, when it does (tetriwar_play.js):
  // the frame then says when, and what the board became.
  function intent(name, target) {
    live.intent(name, (seq) => {
      const fields = target === undefined ? {} : { target: target };
      const ahead = window.TetriWarPredict;
      return Object.assign(fields, ahead ? ahead.key(name, seq) : null);
    });
  }

  // --- keys -------------------------------------------------------------------------
  if (!area.dataset.bindings) return; // anonymous visitors only watch
  const bindings = JSON.parse(area.dataset.bindings);
  const actionOf = {};
  for (const [action, key] of Object.entries(bindings)) actionOf[norm(key)] = action;
  if (bindings.hard_drop === "Control") actionOf["Meta"] = "hard_drop"; // ⌘ on a Mac
  actionOf[" "] = "hard_drop"; // Space always hard-drops too

  function norm(key) { return key.length === 1 ? key.toLowerCase() : key; }
  function playing() {
    const game = document.getElementById("game");
    if (!game || !game.classList.contains("tw-game") || game.classList.contains("over")) return false;
    const clock = document.getElementById("clock"); // stopped: time is up, keys do nothing
    return !(clock && clock.hasAttribute("data-stopped"));
  }
  function hold(action) {
    if (!mySeat() || !playing() || held.has(action)) return;
    held.add(action);
    intent("hold_" + HOLD[action]);
  }
  function release(action) {
    if (!held.has(action)) return;
    held.delete(action);
    if (playing()) intent("release_" + HOLD[action]); // over: nothing to release
  }
  // One press: rotate, hard_drop, bomb (Enter's target), bomb_1 … bomb_4.
  function press(action) {
    if (!mySeat() || !playing()) return;
    if (action === "rotate" || action === "hard_drop" || action === "bomb") intent(action);
    else if (action.startsWith("bomb_")) intent("bomb", Number(action.slice(5)));
  }
  // Enter and Space on the game's own tools (the mute switch, the help panel) work
  // those tools; every other key still plays.
  function onTool(e) {
    return (e.key === "Enter" || e.key === " ") && e.target.closest && e.target.closest(".tw-tools");
  }

  document.addEventListener("keydown", (e) => {
    if (live.typing(e.target) || onTool(e)) return;
    const action = actionOf[norm(e.key)];
    if (!action || !mySeat() || !playing()) return; // spectators' keys do nothing
    e.preventDefault(); // game keys never scroll the page or move focus
    if (e.repeat) return; // the server repeats, at the player's own pace
    if (action in HOLD) hold(action);
    else press(action);
  });
  document.addEventListener("keyup", (e) => {
    const action = actionOf[norm(e.key)];
    if (action in HOLD) release(action);
  });
  function releaseAll() { for (const action of [...held]) release(action); }
  window.addEventListener("blur", releaseAll);
  // A key held down as the chat's box takes the focus would let the piece slide on until
  // the key comes up: from then on the keys are the box's, not the game's.
  document.addEventListener("focusin", (e) => { if (live.typing(e.target)) releaseAll(); });

  window.TetriWarInput = { HOLD: HOLD, hold: hold, release: release, press: press, playing: playing };
})();
