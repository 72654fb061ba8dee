// TetriWar's effects: a board flashes when lines clear, shakes when a bomb hits it and
// when its player tops out, and short synthesized sounds go with them (Web Audio: no
// files). Nothing here waits: the effects are read off the fragments the server sends
// anyway, as htmx is about to swap them (htmx:oobBeforeSwap), and the swap goes on.
//   score-N   the Lines number grew: a line clear (how many: the difference);
//   feed-N    the received-bomb row changed: a bomb hit board N (its last chip);
//   status-N  a "flash" status: player N topped out;
//   clock     stopped: the game is over.
// A mute switch (#tw-mute, remembered in localStorage) silences the sounds; the
// stylesheet drops the motion for prefers-reduced-motion.
(function () {
  "use strict";
  const MUTE_KEY = "tetriwar.muted";
  const FX_MS = 700; // the longest effect; its class comes off after it
  const CLASSES = ["fx-clear", "fx-tetris", "fx-hit-red", "fx-hit-green", "fx-out"];
  let muted = readMuted();
  let audio = null; // made on the first key or touch after sound is on (browsers' rule)
  let master = null;

  function readMuted() {
    try { return window.localStorage.getItem(MUTE_KEY) === "1"; } catch (err) { return false; }
  }
  function writeMuted() {
    try { window.localStorage.setItem(MUTE_KEY, muted ? "1" : "0"); } catch (err) { /* private mode: this page only */ }
  }
  function showMuted() {
    const button = document.getElementById("tw-mute");
    if (button) button.setAttribute("aria-pressed", String(muted));
  }

  // --- sound ---------------------------------------------------------------------------
  function wake() {
    if (muted) return;
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!audio && Context) {
      audio = new Context();
      master = audio.createGain();
      master.gain.value = 0.25;
      master.connect(audio.destination);
    }
    if (audio && audio.state === "suspended") audio.resume();
  }
  function ready() {
    return !muted && audio !== null && audio.state === "running";
  }
  function tone(freq, at, length, type, volume, slideTo) {
    const t = audio.currentTime + at;
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.type = type || "square";
    osc.frequency.setValueAtTime(freq, t);
    if (slideTo) osc.frequency.exponentialRampToValueAtTime(slideTo, t + length);
    gain.gain.setValueAtTime(0.0001, t);
    gain.gain.exponentialRampToValueAtTime(volume || 0.3, t + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, t + length);
    osc.connect(gain).connect(master);
    osc.start(t);
    osc.stop(t + length + 0.02);
  }
  function noise(at, length, volume, cutoff) {
    const t = audio.currentTime + at;
    const samples = Math.floor(audio.sampleRate * length);
    const buffer = audio.createBuffer(1, samples, audio.sampleRate);
    const data = buffer.getChannelData(0);
    for (let i = 0; i < samples; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / samples);
    const source = audio.createBufferSource();
    const filter = audio.createBiquadFilter();
    const gain = audio.createGain();
    source.buffer = buffer;
    filter.type = "lowpass";
    filter.frequency.value = cutoff;
    gain.gain.value = volume;
    source.connect(filter).connect(gain).connect(master);
    source.start(t);
  }
  const SOUNDS = {
    clear(lines) { // a rising arpeggio, one note a line; four lines end on a chord
      [523.25, 659.25, 783.99, 1046.5].slice(0, lines).forEach((f, i) => tone(f, i * 0.06, 0.14, "square", 0.22));
      if (lines >= 4) [1046.5, 1318.5, 1568].forEach((f) => tone(f, 0.26, 0.35, "triangle", 0.2));
    },
    hitRed() { // a thud and rubble
      noise(0, 0.3, 0.8, 900);
      tone(140, 0, 0.3, "sine", 0.6, 45);
    },
    hitGreen() { // a soft chime
      tone(880, 0, 0.25, "triangle", 0.3);
      tone(1320, 0.07, 0.3, "triangle", 0.25);
    },
    out() { // falling down
      tone(440, 0, 0.6, "sawtooth", 0.25, 70);
      noise(0.1, 0.4, 0.4, 500);
    },
    over() { // a closing cadence
      [523.25, 392, 329.63, 261.63].forEach((f, i) => tone(f, i * 0.16, 0.3, "triangle", 0.3));
    },
  };
  function play(name, arg) {
    if (!ready()) return;
    try { SOUNDS[name](arg); } catch (err) { /* a closed context: no sound, the game goes on */ }
  }

  // --- motion ------------------------------------------------------------------------------
  function flash(seat, cls, text) {
    const board = document.getElementById("board-" + seat);
    if (!board) return;
    board.classList.remove(...CLASSES);
    void board.offsetWidth; // restart the animation when the same effect comes again
    board.classList.add(cls);
    if (text) board.dataset.fx = text;
    else delete board.dataset.fx;
    clearTimeout(board.fxTimer);
    board.fxTimer = setTimeout(() => {
      board.classList.remove(...CLASSES);
      delete board.dataset.fx;
    }, FX_MS);
  }

  function lineWords(lines) {  // the words flashed over a board that cleared lines
    if (lines >= 4) return "TetriWar!";
    return interpolate(ngettext("+%s line", "+%s lines", lines), [lines]);
  }
  function number(el, index) {
    const dd = el && el.querySelectorAll("dd")[index];
    return dd ? Number(dd.textContent) : NaN;
  }
  function seatOf(id) { return Number(id.slice(id.indexOf("-") + 1)); }
  function mine(seat) {
    return Boolean(window.TableLive) && window.TableLive.mySeat() === seat;
  }

  function watch(e) {
    const old = e.detail && e.detail.target;
    const id = old && old.id;
    if (!id) return;
    const c = id.charCodeAt(0);
    if (c !== 115 && c !== 102 && c !== 99) return; // s(core, tatus), f(eed), c(lock): rows and pieces pass by
    const fresh = e.detail.fragment && e.detail.fragment.firstElementChild;
    if (!fresh) return;
    if (id.startsWith("score-")) {
      const lines = number(fresh, 2) - number(old, 2);
      if (lines > 0) {
        const seat = seatOf(id);
        flash(seat, lines >= 4 ? "fx-tetris" : "fx-clear", lineWords(lines));
        if (mine(seat)) play("clear", lines);
      }
    } else if (id.startsWith("feed-")) {
      const chip = fresh.lastElementChild;
      if (!chip) return;
      const seat = seatOf(id);
      const red = chip.classList.contains("red");
      flash(seat, red ? "fx-hit-red" : "fx-hit-green", (chip.title || "").split(" (")[0]);
      if (mine(seat)) play(red ? "hitRed" : "hitGreen");
    } else if (id.startsWith("status-")) {
      if (!fresh.classList.contains("flash")) return;
      const seat = seatOf(id);
      flash(seat, "fx-out", "");
      play("out");
    } else if (id === "clock") {
      if (fresh.hasAttribute("data-stopped") && !old.hasAttribute("data-stopped")) play("over");
    }
  }

  function start() {
    document.addEventListener("htmx:oobBeforeSwap", watch);
    // The game area arrives whole at times (the countdown's end, a resync): show the switch's state.
    document.addEventListener("htmx:wsAfterMessage", showMuted);
    showMuted();
    document.addEventListener("click", (e) => {
      const button = e.target.closest && e.target.closest("#tw-mute");
      if (!button) return;
      muted = !muted;
      writeMuted();
      showMuted();
      if (!muted) { wake(); play("hitGreen"); } // a sample, at the volume the game plays
      if (e.detail > 0) button.blur(); // clicked: Space and Enter go back to the game
    });
    document.addEventListener("click", (e) => {
      const summary = e.target.closest && e.target.closest(".tw-help > summary");
      if (summary && e.detail > 0) summary.blur();
    });
    // Browsers let a page start sound only after the person acted on it.
    for (const gesture of ["keydown", "pointerdown", "touchend", "click"]) document.addEventListener(gesture, wake, true);
  }

  // Deferred scripts run before DOMContentLoaded, while the document is "interactive".
  if (document.readyState === "complete") start();
  else document.addEventListener("DOMContentLoaded", start);
})();
