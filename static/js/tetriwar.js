// TetriWar in the browser: keys in, HTML out. The server decides everything; this
// script only turns key presses into intents (the socket, versions and clocks are
// live.js's).
(function () {
  "use strict";
  const live = window.TableLive;
  if (!live) return;
  const area = live.area;
  const mySeat = live.mySeat;
  const DAS = 170, ARR = 50; // RULES.md §1: auto-repeat after 170 ms, then every 50 ms

  function intent(name, target) {
    live.intent(name, target === undefined ? undefined : { target: target });
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
    return game && game.classList.contains("tw-game") && !game.classList.contains("over");
  }
  const repeaters = {};
  function stopRepeat(action) {
    const r = repeaters[action];
    if (r) { clearTimeout(r.delay); clearInterval(r.every); delete repeaters[action]; }
  }

  document.addEventListener("keydown", (e) => {
    if (live.typing(e.target)) return;
    const action = actionOf[norm(e.key)];
    if (!action || !mySeat() || !playing()) return; // spectators' keys do nothing
    e.preventDefault(); // game keys never scroll the page or move focus
    if (e.repeat) return; // we repeat ourselves, at the rule's pace
    if (action === "left" || action === "right") {
      const other = action === "left" ? "right" : "left";
      stopRepeat(other);
      intent(action);
      repeaters[action] = {
        delay: setTimeout(() => { repeaters[action].every = setInterval(() => intent(action), ARR); }, DAS),
      };
    } else if (action === "soft_drop") {
      intent("soft_drop_on");
    } else if (action === "rotate" || action === "hard_drop") {
      intent(action);
    } else if (action === "bomb") {
      intent("bomb");
    } else if (action.startsWith("bomb_")) {
      intent("bomb", Number(action.slice(5)));
    }
  });
  document.addEventListener("keyup", (e) => {
    const action = actionOf[norm(e.key)];
    if (!action) return;
    if (action === "left" || action === "right") stopRepeat(action);
    if (action === "soft_drop") intent("soft_drop_off");
  });
  window.addEventListener("blur", () => {
    stopRepeat("left"); stopRepeat("right");
    if (playing()) intent("soft_drop_off");
  });
})();
