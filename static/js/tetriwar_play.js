// TetriWar: the page that plays a seat runs its own board ahead (tetriwar_predict.js).
// This wires it to the table's socket (live.js), the keys (tetriwar.js, touch.js) and the
// screen: every animation frame the board's clocks run and what changed is drawn.
import { Prediction } from "./tetriwar_predict.js";

const area = document.getElementById("game-area");
const socketElt = document.getElementById("table-socket");

function start() {
  const live = window.TableLive;
  if (!live || !area || !socketElt || !area.dataset.bindings) return; // watchers draw nothing
  let prediction = null;
  let game = null; // the #game element drawn on (a full render replaces it)

  // The seat this page plays: a new one starts afresh. (The seat panel may say none for
  // a moment, as it is swapped: the board played stays.)
  function seatPlayed() {
    const seat = live.mySeat();
    if (seat && (!prediction || prediction.seat !== seat)) {
      prediction = new Prediction({ seat: seat, doc: document });
      window.TetriWarPredict = prediction;
    }
    return prediction;
  }

  // The news of this page's board rides at the end of its socket's frame (one frame a
  // tick: the table's broadcast, then `<!--tw{...}-->`), or comes alone. It is taken
  // first, whatever the broadcast's fate (live.js may drop a stale one): the board it
  // sets is then the one played, and the broadcast's fragments of it are not swapped in.
  socketElt.addEventListener("htmx:wsBeforeMessage", (e) => {
    const p = seatPlayed();
    if (!p) return;
    const text = e.detail.message;
    const at = text.lastIndexOf("<!--tw");
    if (at !== -1 && p.message(text.slice(at))) {
      p.draw(document, false);
      if (at === 0) { e.preventDefault(); return; } // the news alone: nothing to swap
    }
    if (text.indexOf("data-stopped") !== -1) {
      p.stop(); // the game is over: the server's last word on this board is shown
    }
  });
  socketElt.addEventListener("htmx:wsOpen", () => { if (prediction) prediction.stop(); });
  document.body.addEventListener("htmx:oobBeforeSwap", (e) => {
    const target = e.detail.target;
    if (prediction && target && target.id && prediction.playing() && prediction.drawnHere(target.id)) {
      e.detail.shouldSwap = false;
    }
  });
  live.onMessage(() => {
    const p = seatPlayed();
    const now = document.getElementById("game");
    const over = !now || now.classList.contains("over") || document.querySelector("#clock[data-stopped]");
    if (p && over) { p.stop(); return; }
    const startIn = live.countdown();
    if (p && startIn !== null && startIn > 0) p.startsIn(startIn);
    if (p && now !== game) { game = now; p.draw(document, true); } // a full render: draw it all again
  });
  function frame() {
    if (prediction && prediction.tick()) prediction.draw(document, false);
    requestAnimationFrame(frame);
  }
  requestAnimationFrame(frame);
}

// Deferred scripts run in the page's order, and live.js comes after this one: it has run
// by DOMContentLoaded.
if (window.TableLive) start();
else document.addEventListener("DOMContentLoaded", start);
