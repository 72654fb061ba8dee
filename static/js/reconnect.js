// Who lost the connection to the running game (#reconnect, templates/games/reconnect.html):
// the server says how many milliseconds each has left to come back, and this page counts
// them down, as live.js counts the clocks; it also marks their seat in the seat panel.
// The server takes the line away when they come back or their time runs out. The line
// stands above the game: a game that sizes itself to its room (TetriWar's boards,
// tetriwar_fit.js) counts it.
(function () {
  "use strict";
  const socketElt = document.getElementById("table-socket");
  if (!socketElt) return;
  let ticking = null;

  function entries() {
    return document.querySelectorAll("#reconnect .reconnect-seat");
  }

  // After every message: new lines start their countdown, and the seat panel (which a
  // push may have replaced) marks the seats away, with the words the server sent.
  function refresh() {
    const now = performance.now();
    const away = new Map();
    entries().forEach((entry) => {
      if (entry.dataset.backMs !== undefined) {
        entry.dataset.backAt = String(now + Number(entry.dataset.backMs));
        delete entry.dataset.backMs;
      }
      away.set(entry.dataset.seat, entry.dataset.mark);
    });
    document.querySelectorAll("#seat-panel .seat").forEach((seat) => {
      const mark = away.get(seat.id.replace("seat-", ""));
      if (mark) seat.dataset.away = mark;
      else delete seat.dataset.away;
    });
    if (away.size && !ticking) ticking = setInterval(tick, 250);
    tick();
  }

  function tick() {
    const now = performance.now();
    const shown = entries();
    shown.forEach((entry) => {
      const secs = entry.querySelector(".reconnect-clock .reconnect-secs");
      const left = String(Math.ceil(Math.max(0, Number(entry.dataset.backAt) - now) / 1000));
      if (secs && secs.textContent !== left) secs.textContent = left; // a new text once a second, not each tick
    });
    if (!shown.length && ticking) { clearInterval(ticking); ticking = null; }
  }

  socketElt.addEventListener("htmx:wsAfterMessage", refresh);
  document.body.addEventListener("htmx:afterSwap", refresh); // a form's answer replaces the seat panel too
})();
