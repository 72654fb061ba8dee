// TetriWar in the browser: keys in, HTML out. The server decides everything; this
// script only turns key presses into intents, keeps the clocks ticking between
// server messages, and asks for a full resync when it sees a gap in the versions.
(function () {
  "use strict";
  const area = document.getElementById("game-area");
  const socketElt = document.getElementById("table-socket");
  if (!area || !socketElt) return;

  // The seat this page plays, from the live seat panel: sitting down or standing
  // up changes it without a reload.
  function mySeat() {
    const panel = document.getElementById("seat-panel");
    return Number((panel && panel.dataset.mySeat) || 0);
  }
  const DAS = 170, ARR = 50; // RULES.md §1: auto-repeat after 170 ms, then every 50 ms
  let socket = null;
  let version = null;
  let seq = 0;

  // --- the socket -------------------------------------------------------------------
  socketElt.addEventListener("htmx:wsOpen", (e) => { socket = e.detail.socketWrapper; version = null; });
  socketElt.addEventListener("htmx:wsClose", () => { socket = null; });
  socketElt.addEventListener("htmx:wsBeforeMessage", (e) => {
    const m = /^<!--v(\d+)(?: a\d+:\d+)*-->/.exec(e.detail.message);
    if (!m) return; // not a game broadcast (seat panel, error)
    const v = Number(m[1]);
    const full = e.detail.message.indexOf('id="game"') !== -1;
    if (full || version === null) { version = v; return; }
    if (v <= version) { e.preventDefault(); return; } // stale: already have it
    if (v !== version + 1) {
      // A gap: drop this one and ask for the whole state.
      e.preventDefault();
      version = null;
      send({ action: "resync" });
      return;
    }
    version = v;
  });
  socketElt.addEventListener("htmx:wsAfterMessage", () => {
    area.dataset.me = String(mySeat()); // your own board is the big one
    clocks();
  });

  function send(frame) {
    if (socket) socket.send(JSON.stringify(frame));
  }
  function intent(name, target) {
    const frame = { intent: name, seq: ++seq };
    if (target !== undefined) frame.target = target;
    send(frame);
  }

  // --- clocks -----------------------------------------------------------------------
  let endAt = null, startAt = null, ticking = null, overlay = null;
  function clocks() {
    const clock = document.getElementById("clock");
    if (!clock) return;
    if (clock.dataset.remainingMs !== undefined) {
      endAt = performance.now() + Number(clock.dataset.remainingMs);
      delete clock.dataset.remainingMs;
      startAt = null;
    } else if (clock.dataset.countdownMs !== undefined) {
      startAt = performance.now() + Number(clock.dataset.countdownMs);
      delete clock.dataset.countdownMs;
      endAt = null;
    } else if (clock.textContent.trim() === "Time!") {
      endAt = startAt = null;
    }
    if (!ticking) ticking = setInterval(tick, 100);
    tick();
  }
  function tick() {
    const clock = document.getElementById("clock");
    const game = document.getElementById("game");
    if (!clock) return;
    const now = performance.now();
    if (startAt !== null && now < startAt) {
      const n = Math.ceil((startAt - now) / 1000);
      if (!overlay || !overlay.isConnected) {
        overlay = document.createElement("div");
        overlay.className = "countdown";
        overlay.setAttribute("aria-live", "assertive");
        game && game.appendChild(overlay);
      }
      overlay.textContent = String(n);
      clock.textContent = "Get ready…";
      return;
    }
    if (overlay) { overlay.remove(); overlay = null; }
    if (endAt !== null) {
      const left = Math.max(0, endAt - now);
      const s = Math.ceil(left / 1000);
      clock.textContent = Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
      clock.classList.toggle("low", s <= 10);
    }
  }

  // --- leaving ----------------------------------------------------------------------
  document.addEventListener("click", (e) => {
    const button = e.target.closest("#forfeit-button");
    if (!button) return;
    if (window.confirm(button.dataset.confirm)) send({ action: "forfeit" });
  });

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
    const t = e.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
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
