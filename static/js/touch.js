// TetriWar's touch pad (templates/games/tetriwar/partials.html, .tw-touch): the same
// intents as the keys, through window.TetriWarInput (tetriwar.js).
//   ◀ ▶ ▼  are held keys: key-down on pointerdown, key-up on pointerup, pointercancel
//          or pointerleave, so the server's auto-repeat runs while a finger stays on;
//   ⟳ ⤓    rotate and hard drop, on pointerdown (no wait for the click);
//   bombs  "Bomb" is Enter (the automatic target); one button per board drops the
//          oldest bomb on that player (keys 1–4 count from oneself, in seat order).
// Loaded from the page's head (games/tetriwar/head.html), before live.js and
// tetriwar.js: it starts once they have run. The pad is replaced with the game area,
// so every listener is on the document.
(function () {
  "use strict";

  function start() {
    const input = window.TetriWarInput;
    const live = window.TableLive;
    if (!input || !live) return; // watching only: no pad to work
    const active = new Map(); // pointerId -> {hold, button}

    // Keys 1–4: 1 is oneself, then the others in seat order after oneself, going round.
    function targetOf(seat) {
      const seats = [...document.querySelectorAll("#game .player[data-seat]")]
        .map((p) => Number(p.dataset.seat)).sort((a, b) => a - b);
      const me = seats.indexOf(live.mySeat());
      if (me < 0) return null;
      const order = seats.slice(me).concat(seats.slice(0, me));
      return order.indexOf(seat) + 1 || null;
    }

    function padButton(e) {
      return e.target.closest ? e.target.closest(".tw-touch button") : null;
    }

    function down(e) {
      const button = padButton(e);
      if (!button || e.button > 0) return;
      e.preventDefault(); // no focus ring, no text selection, no emulated mouse
      // A tap on the pad is back to the game: the chat's box lets go (and the phone's keyboard goes).
      const focused = document.activeElement;
      if (focused && focused !== document.body && live.typing(focused)) focused.blur();
      const hold = button.dataset.hold;
      if (hold) {
        // A touch captures its pointer until it lifts; let go, so that sliding off the
        // button is a pointerleave, which lets the key up.
        if (button.hasPointerCapture && button.hasPointerCapture(e.pointerId)) {
          button.releasePointerCapture(e.pointerId);
        }
        active.set(e.pointerId, { hold: hold, button: button });
        input.hold(hold);
        button.classList.add("down");
      } else if (button.dataset.press) {
        input.press(button.dataset.press);
      } else if (button.dataset.bombSeat) {
        const target = targetOf(Number(button.dataset.bombSeat));
        if (target) input.press("bomb_" + target);
      }
    }

    function up(e) {
      const held = active.get(e.pointerId);
      if (!held) return;
      // pointerleave is heard from every element the pointer leaves: only the button's counts
      if (e.type === "pointerleave" && e.target !== held.button) return;
      active.delete(e.pointerId);
      held.button.classList.remove("down");
      if (![...active.values()].some((other) => other.hold === held.hold)) input.release(held.hold);
    }

    // Activated without a pointer (a screen reader, a keyboard on the pad): one press.
    function click(e) {
      const button = padButton(e);
      if (!button || e.detail !== 0) return;
      if (button.dataset.hold) {
        input.hold(button.dataset.hold);
        input.release(button.dataset.hold);
      } else {
        down({ target: button, button: 0, pointerId: -1, preventDefault() {} });
      }
    }

    document.addEventListener("pointerdown", down);
    document.addEventListener("pointerup", up);
    document.addEventListener("pointercancel", up);
    document.addEventListener("pointerleave", up, true); // does not bubble: caught on the way down
    document.addEventListener("click", click);
    document.addEventListener("contextmenu", (e) => { if (padButton(e)) e.preventDefault(); });
  }

  // Deferred scripts run before DOMContentLoaded, while the document is "interactive".
  if (document.readyState === "complete") start();
  else document.addEventListener("DOMContentLoaded", start);
})();
