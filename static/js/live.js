// What every live table shares in the browser: the socket, numbered broadcasts
// (a gap asks the server for a full resync), the seat this page plays, the clocks
// and leaving a game. Games add their keys through window.TableLive.
(function () {
  "use strict";
  const area = document.getElementById("game-area");
  const socketElt = document.getElementById("table-socket");
  if (!area || !socketElt) return;

  let socket = null;
  let version = null;
  let seq = 0;
  const afterMessage = [];

  // The seat this page plays, from the live seat panel: sitting down or standing
  // up changes it without a reload.
  function mySeat() {
    const panel = document.getElementById("seat-panel");
    return Number((panel && panel.dataset.mySeat) || 0);
  }

  socketElt.addEventListener("htmx:wsOpen", (e) => { socket = e.detail.socketWrapper; version = null; });
  socketElt.addEventListener("htmx:wsClose", () => { socket = null; });

  // A page the browser restores as it was (Back, forward) shows a table that has moved
  // on: load it afresh. (The page is sent no-store, so this is the rare case.)
  window.addEventListener("pageshow", (e) => { if (e.persisted) window.location.reload(); });
  socketElt.addEventListener("htmx:wsBeforeMessage", (e) => {
    const m = /^<!--v(\d+)(?: a\d+:\d+)*-->/.exec(e.detail.message);
    if (!m) return; // not a game broadcast (seat panel, error)
    const v = Number(m[1]);
    const full = e.detail.message.indexOf('id="game"') !== -1;
    if (full) { version = v; return; }
    // No state yet (just connected, or a resync asked for): the full state is on its way,
    // and a change before it has no board to land on.
    if (version === null) { e.preventDefault(); return; }
    if (v <= version) { e.preventDefault(); return; } // stale: already have it
    if (v !== version + 1) {
      // A gap: drop this one and ask for the whole state.
      e.preventDefault();
      version = null;
      send({ intent: "resync" });
      return;
    }
    version = v;
  });
  socketElt.addEventListener("htmx:wsAfterMessage", () => {
    area.dataset.me = String(mySeat()); // your own board is the big one
    clocks();
    notices();
    results();
    later();
    afterMessage.forEach((fn) => fn());
  });
  document.body.addEventListener("htmx:afterSwap", later); // a form's answer brings panels too

  // A control the server offers after a while (the host's Free seat for a player who has
  // not got ready: lobby/selectors.py) comes hidden, with the ms until it is offered.
  function later() {
    document.querySelectorAll("[data-shown-in-ms]").forEach((el) => {
      const ms = Number(el.dataset.shownInMs);
      delete el.dataset.shownInMs;
      setTimeout(() => { el.hidden = false; }, ms);
    });
  }
  later();

  function send(frame) {
    if (socket) socket.send(JSON.stringify(frame));
  }
  // fields: more of the frame, or a function of the intent's seq that gives them (a
  // game's page that plays its board ahead stamps the key with them).
  function intent(name, fields) {
    // During the 3-2-1 the game has not started: a key then is nobody's move (the
    // server would only refuse it), so it is not sent.
    if (startAt !== null && performance.now() < startAt) return;
    clearNotice(); // a new try: the last refusal is old news
    const n = ++seq;
    const more = typeof fields === "function" ? fields(n) : fields;
    send(Object.assign({ intent: name, seq: n }, more || {}));
  }
  // The ms until the game starts (the 3-2-1 on screen), or null.
  function countdown() {
    return startAt === null ? null : startAt - performance.now();
  }

  // --- the table's messages: one place, over the top of the game (lobby/table.html) -------
  // A refusal replaces #ws-error; an answer to a panel's form lands in #table-message,
  // under the panels, and is brought here. Either goes after a while, or on a click.
  const NOTICE_MS = 6000;
  let shown = null, noticeTimer = null;
  function clearNotice() {
    const slot = document.getElementById("ws-error");
    if (!slot || !slot.textContent) return;
    const empty = document.createElement("div");
    empty.id = "ws-error";
    slot.replaceWith(empty);
    shown = null;
  }
  function notices() {
    const slot = document.getElementById("ws-error");
    if (!slot || slot === shown || !slot.textContent.trim()) return;
    shown = slot;
    clearTimeout(noticeTimer);
    // A socket closed for good (no such table) keeps its last word on screen.
    noticeTimer = setTimeout(() => { if (socket && shown === slot) clearNotice(); }, NOTICE_MS);
  }
  function panelMessage() {
    const answer = document.querySelector("#table-message .message");
    const slot = document.getElementById("ws-error");
    if (!answer || !slot) return;
    const moved = answer.cloneNode(true);
    moved.id = "ws-error";
    slot.replaceWith(moved);
    answer.remove();
    notices();
  }
  document.addEventListener("click", (e) => {
    if (e.target.closest("#notice-slot .message")) clearNotice();
  });

  // --- the end: the results in view, and the one thing to do next ---------------------
  // The results panel (games/results.html) shows the table status's own Rematch button
  // (a click there clicks it) or, once asked, what the rematch waits for.
  let seenResults = null;
  let seenOwn = null;
  function results() {
    const panel = document.getElementById("results");
    if (!panel || !panel.querySelector("#results-title")) {
      // The results gone (the next game runs): a reload puts the page's scroll back again.
      if (history.scrollRestoration === "manual") history.scrollRestoration = "auto";
      return;
    }
    nextAction();
    const own = markOwnRow(panel);
    if (panel !== seenResults) {
      seenResults = panel;
      userMoved = false;
      fitList(panel);
      resultsInView(panel);
    } else if (!userMoved) {
      // A push (the seats, the status) may move them before the reader has done
      // anything: they are put back once it is laid out.
      requestAnimationFrame(() => { if (!userMoved && panel.isConnected) resultsInView(panel); });
    }
    if (own && own !== seenOwn) { seenOwn = own; ownRowInView(own); }
  }
  // In view means below the top bar too, where it stays on screen (sticky: on a phone
  // it is three lines tall), and a reloaded page keeps the scroll it had.
  function resultsInView(panel) {
    const covered = coveredByBar();
    const box = panel.getBoundingClientRect();
    if (box.top < covered || box.bottom > window.innerHeight + 0.5) {
      panel.style.scrollMarginTop = `${Math.ceil(covered) + 12}px`;
      panel.scrollIntoView({ block: "start" });
    }
  }
  // Whether the reader has scrolled, tapped or pressed a key since the results came:
  // from then on the page stays where they put it.
  let userMoved = false;
  for (const type of ["wheel", "touchstart", "keydown", "mousedown"]) {
    window.addEventListener(type, () => { userMoved = true; }, { capture: true, passive: true });
  }
  // A scroll the reader did not make (the browser keeping some other part in place as
  // the page around it settles) puts them back too.
  window.addEventListener("scroll", () => {
    const panel = seenResults;
    if (userMoved || !panel || !panel.isConnected) return;
    requestAnimationFrame(() => { if (!userMoved && panel.isConnected) resultsInView(panel); });
  }, { passive: true });
  // The list of results takes at most the screen's height left under the bar and the
  // panel's top (its heading and Rematch): with twelve players, the reader sees Rematch
  // and their own row at once, the others a scroll away inside the list.
  function fitList(panel) {
    const list = panel.querySelector(".results-scroll");
    if (!list) return;
    const above = list.getBoundingClientRect().top - panel.getBoundingClientRect().top;
    const below = panel.getBoundingClientRect().bottom - list.getBoundingClientRect().bottom;
    const room = window.innerHeight - coveredByBar() - 12 - above - below - 8;
    list.style.maxHeight = `${Math.max(160, Math.floor(room))}px`;
  }
  window.addEventListener("resize", () => {
    const panel = document.getElementById("results");
    if (panel && panel === seenResults) fitList(panel);
    if (seenOwn && seenOwn.isConnected) ownRowInView(seenOwn);
  });
  // The reader's own row is marked "you" (its words are in every row, shown by CSS for
  // the marked one alone: a page learns its seat from the seat panel, the results are
  // the same for everybody).
  function markOwnRow(panel) {
    const me = String(mySeat());
    let own = null;
    panel.querySelectorAll("tr[data-seats]").forEach((row) => {
      const mine = me !== "0" && row.dataset.seats.split(" ").includes(me);
      row.classList.toggle("me", mine);
      if (mine) { row.setAttribute("aria-current", "true"); own = row; } else row.removeAttribute("aria-current");
    });
    return own;
  }
  // A long list (twelve players) scrolls inside its panel, under the Rematch at its top:
  // the reader's row is brought into the list's view, the panel's top stays in place.
  function ownRowInView(row) {
    const list = row.closest(".results-scroll");
    if (!list || list.scrollHeight <= list.clientHeight) return;
    const head = list.querySelector("thead");
    const headHeight = head ? head.getBoundingClientRect().height : 0;
    const rowBox = row.getBoundingClientRect();
    const listBox = list.getBoundingClientRect();
    if (rowBox.top >= listBox.top + headHeight && rowBox.bottom <= listBox.bottom) return;
    list.scrollTop += rowBox.top - listBox.top - headHeight - (list.clientHeight - headHeight - rowBox.height) / 2;
  }
  function nextAction() {
    const next = document.querySelector("[data-results-next]");
    if (!next) return;
    const button = document.getElementById("rematch-button");
    const hint = document.getElementById("rematch-hint");
    const ask = next.querySelector("[data-rematch]");
    const wait = next.querySelector("[data-rematch-wait]");
    if (ask) { ask.hidden = !button; ask.disabled = false; }
    // The results' button is the one to press: the status's own stays out of sight.
    if (button && ask) button.closest("form").hidden = true;
    if (wait) {
      wait.hidden = Boolean(button) || !hint;
      wait.textContent = hint && !button ? hint.textContent : "";
    }
  }
  document.addEventListener("click", (e) => {
    const ask = e.target.closest("[data-rematch]");
    if (!ask) return;
    const button = document.getElementById("rematch-button");
    if (!button) return;
    ask.disabled = true; // one tap asks once; the answer's panels say what comes next
    button.closest("form").requestSubmit(button);
  });
  document.body.addEventListener("htmx:afterSwap", () => { panelMessage(); nextAction(); });
  // A socket that comes back after the game is sent its results (lobby/consumers.py), for
  // a page that missed the end and still shows the boards. A page showing them already
  // keeps what it shows (the final boards, its Rematch as it stands, its scroll).
  document.body.addEventListener("htmx:oobBeforeSwap", (e) => {
    if (e.detail.target.id !== "game") return;
    const coming = e.detail.fragment.querySelector("#results");
    const shown = document.getElementById("results");
    if (coming && shown && coming.querySelector("#results-title") && shown.querySelector("#results-title") &&
        coming.dataset.game === shown.dataset.game) e.detail.shouldSwap = false;
  });
  // A page opened after a game shows its results (lobby/table.html), and brings them into
  // view itself: the browser would put back, after this, the scroll of the page reloaded
  // (or gone Back to), which had boards above the results, and hide them under the bar.
  if (document.getElementById("results-title")) history.scrollRestoration = "manual";
  results();

  // --- clocks: counted down here from the server's remaining time ----------------------
  let endAt = null, startAt = null, ticking = null, overlay = null;
  function clocks() {
    const clock = document.getElementById("clock");
    if (!clock) return;
    const countdown = document.querySelector("[data-countdown-ms]");
    if (clock.dataset.remainingMs !== undefined) {
      endAt = performance.now() + Number(clock.dataset.remainingMs);
      delete clock.dataset.remainingMs;
      startAt = null;
    } else if (countdown) {
      startAt = performance.now() + Number(countdown.dataset.countdownMs);
      delete countdown.dataset.countdownMs;
      endAt = null;
      // The game starts: the player's own board in view (laid out first: two frames).
      requestAnimationFrame(() => requestAnimationFrame(ownIntoView));
    } else if (clock.dataset.stopped !== undefined) {
      endAt = startAt = null; // the game is over: the server's text stays
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
      if (!overlay || !overlay.isConnected) {
        overlay = document.createElement("div");
        overlay.className = "countdown";
        overlay.setAttribute("aria-live", "assertive");
        game && game.appendChild(overlay);
      }
      show(overlay, String(Math.ceil((startAt - now) / 1000)));
      return;
    }
    if (overlay) { overlay.remove(); overlay = null; }
    if (endAt !== null) {
      const s = Math.ceil(Math.max(0, endAt - now) / 1000);
      const text = Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
      const slot = clock.querySelector(".vt-secs") || clock;
      show(slot, text);
      clock.classList.toggle("low", s <= 10);
    }
  }
  // Ten ticks a second, a new text once a second: writing the same text again would still
  // replace its node, lay out and paint the page anew, and have a live region (the 3-2-1)
  // say it again.
  function show(el, text) {
    if (el.textContent !== text) el.textContent = text;
  }

  // --- the start and the end: what a player looks at stays in view ------------------------
  // Under the top bar where it stays on screen (sticky: three lines tall on a phone).
  function coveredByBar() {
    const bar = document.querySelector(".topbar");
    return bar && getComputedStyle(bar).position === "sticky" ? bar.getBoundingClientRect().bottom : 0;
  }
  // As a game starts, a player's own board (with its name and clock) comes wholly into
  // view, its top first where it is taller than the screen: the host has often scrolled
  // down to press Start. A game on one shared board brings the game's top into view.
  function ownIntoView() {
    const me = mySeat();
    if (!me) return;
    const own = document.querySelector(`#player-${me}, #to-seat-${me}, #tx-seat-${me}`) || document.getElementById("game");
    if (!own) return;
    const covered = coveredByBar();
    const box = own.getBoundingClientRect();
    if (box.top >= covered - 0.5 && box.bottom <= window.innerHeight + 0.5) return;
    const fits = box.height <= window.innerHeight - covered;
    const top = fits && box.top > covered ? box.bottom - window.innerHeight : box.top - covered - 8;
    window.scrollBy({ top: Math.round(top), behavior: "instant" });
  }
  // Once the game is over its keys scroll nothing: Space or an arrow pressed as the game
  // ends (mid-drop) would scroll the results and Rematch away. The page's controls,
  // fields and the chat keep their keys.
  const SCROLL_KEYS = new Set([" ", "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight"]);
  document.addEventListener("keydown", (e) => {
    if (!SCROLL_KEYS.has(e.key) || e.defaultPrevented || !mySeat() || typing(e.target)) return;
    if (e.target.closest && e.target.closest("button, a[href], summary, [tabindex], [contenteditable]")) return;
    if (document.querySelector("#game #clock[data-stopped]") || document.getElementById("results-title")) e.preventDefault();
  });

  // --- answers overtaken by a push --------------------------------------------------------
  // A form's answer goes into #table-panels (templates/lobby/table.html). The push of the
  // same change, or of a later one, may come first and replace the form that asked: the
  // page already shows that state or a newer one, so only the answer's message is news.
  function dropIfOvertaken(e) {
    const form = e.detail.requestConfig && e.detail.requestConfig.elt;
    if (!form || form.isConnected || e.detail.target.id !== "table-panels") return;
    e.detail.shouldSwap = false;
    const answer = new DOMParser().parseFromString(e.detail.serverResponse || "", "text/html");
    const fresh = answer.getElementById("table-message");
    const current = document.getElementById("table-message");
    if (fresh && current) current.replaceWith(document.importNode(fresh, true));
    panelMessage();
  }
  document.body.addEventListener("htmx:beforeSwap", dropIfOvertaken);

  // --- leaving ------------------------------------------------------------------------
  document.addEventListener("click", (e) => {
    const button = e.target.closest("#forfeit-button");
    if (!button) return;
    if (window.confirm(button.dataset.confirm)) send({ intent: "forfeit" });
  });

  // Keys aimed at a text field, or anywhere in the chat (its box, its buttons: Enter and
  // Space work them there), are not the game's: every game's key handler asks this first.
  function typing(target) {
    return Boolean(target) && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)
      || Boolean(target.closest && target.closest("[data-chat]")));
  }

  window.TableLive = {
    area: area,
    mySeat: mySeat,
    intent: intent,
    send: send,
    countdown: countdown,
    typing: typing,
    onMessage: (fn) => afterMessage.push(fn),
  };
})();
