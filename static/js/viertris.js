// Viertris in the browser: click a column (or ←/→ and Enter) to drop; each move's
// cascade is played as a short film from the frames the server sends.
(function () {
  "use strict";
  const live = window.TableLive;
  if (!live) return;
  const STEP_MS = 550; // one cascade step on screen
  const reduced = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  let selected = 3;

  function myTurn() {
    const turn = document.querySelector("#vt-scores li.turn");
    return Boolean(live.mySeat() && turn && turn.querySelector(".vc.p" + live.mySeat()));
  }
  function drop(column) {
    if (!live.mySeat()) return; // spectators watch
    live.intent("drop", { column: column });
  }
  function mark() {
    document.querySelectorAll(".vt-col").forEach((b) => b.classList.toggle("sel", Number(b.dataset.column) === selected));
  }

  document.addEventListener("click", (e) => {
    const button = e.target.closest(".vt-col");
    if (button) { selected = Number(button.dataset.column); mark(); drop(selected); }
  });
  document.addEventListener("keydown", (e) => {
    if (live.typing(e.target) || !document.getElementById("vt-board") || !live.mySeat()) return;
    if (e.target.closest && e.target.closest("button") && e.key === "Enter" && !e.target.classList.contains("vt-col")) return;
    if (e.key === "ArrowLeft") { selected = Math.max(0, selected - 1); mark(); e.preventDefault(); }
    else if (e.key === "ArrowRight") { selected = Math.min(7, selected + 1); mark(); e.preventDefault(); }
    else if (e.key === "Enter" && myTurn()) { drop(selected); e.preventDefault(); }
  });

  // Play the frames of the last move, then show the board as it stands.
  let film = null;
  function play() {
    const board = document.getElementById("vt-board");
    mark();
    if (!board || board.dataset.played) return;
    board.dataset.played = "1";
    const frames = board.querySelectorAll(".vt-frame");
    if (!frames.length || reduced) return;
    clearTimeout(film);
    board.classList.add("playing");
    let i = 0;
    (function next() {
      frames.forEach((f, n) => f.classList.toggle("on", n === i));
      i += 1;
      if (i <= frames.length - 1) film = setTimeout(next, STEP_MS);
      else film = setTimeout(() => board.classList.remove("playing"), STEP_MS);
    })();
  }
  live.onMessage(play);

  // The move list scrolls; it follows the newest line unless the reader scrolled up.
  let following = true;
  document.addEventListener("scroll", (e) => {
    const log = e.target;
    if (log.id === "vt-log") following = log.scrollHeight - log.scrollTop - log.clientHeight < 8;
  }, true);
  live.onMessage(() => {
    const log = document.getElementById("vt-log");
    if (log && following) log.scrollTop = log.scrollHeight;
  });
})();
