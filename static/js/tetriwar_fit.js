// Fits TetriWar's boards to the screen: the size of a cell (--cell, static/css/tetriwar.css)
// of one's own board, of the others' boards, or of every board for a spectator, from the
// room the game area has. It runs when a whole game area arrives (the countdown, the
// start, a resync), when this page's seat changes, when the line saying who lost the
// connection comes or goes above the game, and when the window is resized; never on the
// many small updates in between, which only swap rows and pieces.
//
//   seated     one's own board as large as the screen's height allows below the game's
//              top, with its preview, score and the bomb row beside it; the others,
//              smaller, beside it when they fit, else below;
//   spectator  every board the same size, all in one row when they fit.
// Where the game area starts too far down the page (a phone, under the seats), the
// boards are sized for the screen's whole height and the page is scrolled to the game
// when one arrives. Without this script the boards keep the stylesheet's sizes.
(function () {
  "use strict";
  const GAP = 16; // between boards (.tw-boards' gap)
  const COLUMN_GAP = 10; // between a board and its side column
  const BORDER = 4; // a board's two borders
  const WIDE_SIDE = 220; // one's own side column where twelve bombs fit in one row
  const NARROW_SIDE = 84; // the least side column: the score's words and digits
  const SPECTATOR_SIDE = 70;
  const ROOM_BELOW = 20; // the game area's padding and border under the boards
  const MIN_CELL = 8;
  const MAX_CELL = 34;
  const COMFORTABLE = 20; // a cell this big where the game area stands needs no scrolling

  function start() {
    const live = window.TableLive;
    if (!live) return;
    let shown = null; // the game area last fitted
    let seat = -1;
    let lineShown = false; // whether the game had the line of players away above it
    let frame = 0;

    function px(n) { return Math.max(MIN_CELL, Math.min(MAX_CELL, Math.floor(n))) + "px"; }

    function fixedHeight(el) {
      if (!el || !el.getClientRects().length) return 0;
      const position = getComputedStyle(el).position;
      return position === "fixed" || position === "sticky" ? el.getBoundingClientRect().height : 0;
    }

    // The line of players who lost the connection (#reconnect, static/js/reconnect.js),
    // when it stands above the game: the game's room starts at it.
    function awayLine() {
      return document.querySelector("#reconnect:has(.reconnect-seat)");
    }

    // The room for one board's cells, from the top of the screen or of the game area.
    function heights(game, board) {
      const gameBox = (awayLine() || game).getBoundingClientRect();
      const above = board.getBoundingClientRect().top - gameBox.top; // clock, name, feed
      const below = fixedHeight(game.querySelector(".tw-touch")) + ROOM_BELOW + BORDER;
      const top = gameBox.top + window.scrollY;
      const ceiling = fixedHeight(document.querySelector(".topbar"));
      return {
        natural: (window.innerHeight - top - above - below) / 20,
        scrolled: (window.innerHeight - ceiling - above - below) / 20,
        scrollTo: top - ceiling,
      };
    }

    function seatedSizes(game, mine, others, width) {
      const h = heights(game, mine.querySelector(".board"));
      const natural = h.natural >= COMFORTABLE || h.natural >= 0.8 * h.scrolled;
      const high = natural ? h.natural : h.scrolled;
      let side = WIDE_SIDE;
      let byWidth = (width - side - COLUMN_GAP - BORDER) / 10;
      if (byWidth < COMFORTABLE) { // a narrow screen: the side column grows with the board
        byWidth = (width - COLUMN_GAP - BORDER) / 14.5;
        if (byWidth * 4.5 < NARROW_SIDE) byWidth = (width - NARROW_SIDE - COLUMN_GAP - BORDER) / 10;
        side = 0;
      }
      const own = Math.floor(Math.max(MIN_CELL, Math.min(MAX_CELL, high, byWidth)));
      const ownWidth = own * 10 + BORDER + COLUMN_GAP + (side || Math.max(NARROW_SIDE, own * 4.5));
      const k = others.length;
      let other = 0;
      if (k) {
        const room = width - ownWidth - GAP;
        other = Math.min(own * 0.75, 22, ((room - GAP * (k - 1)) / k - BORDER) / 10);
        if (other < 10) other = Math.min(18, ((width - GAP * (k - 1)) / k - BORDER) / 10); // below
      }
      return { own: own, other: other, side: side, scroll: natural ? null : h.scrollTo };
    }

    function spectatorSize(game, players, width) {
      const h = heights(game, players[0].querySelector(".board"));
      const high = Math.max(h.natural, h.scrolled * 0.6);
      const n = players.length;
      for (const k of [n, Math.ceil(n / 2), 1]) {
        const each = (width - GAP * (k - 1)) / k - BORDER - COLUMN_GAP;
        let cell = each / 14.5;
        if (cell * 4.5 < SPECTATOR_SIDE) cell = (each - SPECTATOR_SIDE) / 10;
        if (k === n) cell = Math.min(cell, high);
        if (cell >= 12 || k === 1) return Math.min(cell, 30);
      }
      return 12;
    }

    function fit(arrived) {
      const game = document.getElementById("game");
      if (!game || !game.classList.contains("tw-game")) return;
      const players = [...game.querySelectorAll(".player")];
      if (!players.length) return;
      const me = live.mySeat();
      const mine = players.find((p) => Number(p.dataset.seat) === me) || null;
      players.forEach((p) => p.classList.toggle("mine", p === mine));
      game.classList.toggle("seated", mine !== null);
      const groups = game.querySelector(".tw-groups");
      const pairs = game.querySelectorAll(".tw-group.pair").length;
      // a pair's frame and padding, twice a row
      const width = groups.clientWidth - (pairs ? 2 * 20 : 0);
      const style = game.style;
      if (mine) {
        const sizes = seatedSizes(game, mine, players.filter((p) => p !== mine), width);
        style.setProperty("--own-cell", px(sizes.own));
        style.setProperty("--opp-cell", px(sizes.other));
        if (sizes.side) style.setProperty("--own-side", sizes.side + "px");
        else style.removeProperty("--own-side");
        game.classList.toggle("roomy", sizes.side > 0);
        if (arrived && sizes.scroll !== null) {
          const box = mine.querySelector(".board").getBoundingClientRect();
          const pad = fixedHeight(game.querySelector(".tw-touch"));
          const line = awayLine();
          if (box.top < 0 || box.bottom > window.innerHeight - pad || (line && line.getBoundingClientRect().top < 0)) {
            window.scrollTo({ top: Math.max(0, sizes.scroll), behavior: "instant" });
          }
        }
      } else {
        style.setProperty("--all-cell", px(spectatorSize(game, players, width)));
      }
    }

    live.onMessage(() => {
      const game = document.getElementById("game");
      const me = live.mySeat();
      const line = awayLine() !== null;
      if (game === shown && me === seat && line === lineShown) return;
      shown = game;
      seat = me;
      lineShown = line;
      fit(true);
    });
    function later() {
      if (frame) return;
      frame = requestAnimationFrame(() => { frame = 0; fit(false); });
    }
    window.addEventListener("resize", later);
    window.addEventListener("orientationchange", later);
    window.TetriWarFit = fit;
  }

  // Deferred scripts run before DOMContentLoaded, while the document is "interactive".
  if (document.readyState === "complete") start();
  else document.addEventListener("DOMContentLoaded", start);
})();
