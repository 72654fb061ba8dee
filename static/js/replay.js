// A finished game played back (templates/games/replay.html): the server renders the
// game area at any moment (/games/<id>/replay/at/?t=<seconds> or ?i=<moment>); this
// fetches it and swaps it in whole. Play, pause, four speeds, a step to the moment before
// or after, a seek bar with the game's moments marked, and a link at the moment shown.
//   real time (TetriWar)  playing asks for the frame at the time now, ten times a second;
//   moves (turn-based)    playing steps from one move to the next, at the pace they were
//                         made but never more than a second apart (at 1×).
// Keys: Space play/pause, ← → the moment before/after, 1–4 the speeds.
(function () {
  "use strict";
  const box = document.getElementById("replay");
  if (!box) return;
  const atUrl = box.dataset.atUrl;
  const duration = Number(box.dataset.duration);
  const byMoves = box.dataset.mode === "moves";
  const data = document.getElementById("replay-moments");
  const times = data ? JSON.parse(data.textContent).map((m) => m[0]) : [];
  const labels = data ? JSON.parse(data.textContent).map((m) => m[1]) : [];
  const seek = document.getElementById("replay-seek");
  const playButton = document.getElementById("replay-play");
  const nowText = document.getElementById("replay-now");
  const caption = document.getElementById("replay-caption");
  const linkBox = document.getElementById("replay-link");
  const linkText = document.getElementById("replay-link-text");
  const copied = document.getElementById("replay-copied");
  const FRAME_MS = 100;
  const SPEEDS = [0.5, 1, 2, 4];

  let t = Number(box.dataset.t);
  let moment = Number(box.dataset.moment);
  let speed = 1;
  let playing = false;
  let playFrom = 0, playWall = 0; // real time: the moment and the wall clock when play began
  let timer = null;
  let inFlight = false;
  let queued = null; // the latest frame asked for while one was on its way
  let dragging = false;
  let revealing = false; // a moment picked in the list: show it once its frame is in

  // What the boards' own helpers ask of a table page (static/js/tetriwar_fit.js fits
  // TetriWar's boards when a whole game area arrives): nobody's seat, and each frame.
  const afterFrame = [];
  window.TableLive = {
    area: document.getElementById("game-area"),
    mySeat: () => 0,
    typing: typing,
    onMessage: (fn) => afterFrame.push(fn),
    intent: () => {},
  };

  function typing(target) {
    return target && (target.isContentEditable || /^(TEXTAREA|SELECT)$/.test(target.tagName)
      || (target.tagName === "INPUT" && target.type !== "range"));
  }

  function clockText(s) {
    const m = Math.floor(s / 60);
    const rest = s - m * 60;
    return m + ":" + rest.toFixed(1).padStart(4, "0");
  }

  // The game's clock, as live.js shows it at a table: its remaining time, counted from
  // the server's number (frozen here: the moment is the replay's).
  function drawClock() {
    const clock = document.getElementById("clock");
    if (!clock || clock.dataset.remainingMs === undefined) return;
    const s = Math.ceil(Math.max(0, Number(clock.dataset.remainingMs)) / 1000);
    const slot = clock.querySelector(".vt-secs") || clock;
    slot.textContent = Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
    clock.classList.toggle("low", s <= 10);
  }

  function drawControls() {
    nowText.textContent = clockText(t);
    if (!dragging) seek.value = String(t);
    caption.textContent = moment >= 0 ? labels[moment] : gettext("The start.");
    playButton.textContent = playing ? pgettext("replay button", "Pause") : pgettext("replay button", "Play");
    playButton.setAttribute("aria-pressed", String(playing));
    box.classList.toggle("playing", playing);
  }

  function show(answer) {
    const old = document.getElementById("game");
    const tpl = document.createElement("template");
    tpl.innerHTML = answer.html;
    const fresh = tpl.content.getElementById("game");
    if (old && fresh) old.replaceWith(fresh);
    t = answer.t;
    moment = answer.moment;
    drawClock();
    drawLogs();
    drawControls();
    afterFrame.forEach((fn) => fn());
    if (revealing) { revealing = false; showFirst(); }
  }

  // A game's log of moves ends at the moment shown: its newest lines in view, as at a table.
  function drawLogs() {
    document.querySelectorAll("#game ol[id$='-log']").forEach((log) => { log.scrollTop = log.scrollHeight; });
  }

  function fail(words) {
    revealing = false;
    pause();
    caption.textContent = words;
  }

  // One frame on its way at a time: a newer request while it travels replaces the queued one.
  function ask(query) {
    if (inFlight) { queued = query; return; }
    inFlight = true;
    fetch(atUrl + "?" + new URLSearchParams(query), { headers: { Accept: "application/json" } })
      .then((r) => r.json().then((body) => ({ ok: r.ok, body: body })))
      .then(({ ok, body }) => {
        if (ok) show(body);
        else fail(body.error || gettext("This moment could not be shown."));
      })
      .catch(() => fail(gettext("The replay could not be reached. Try again in a moment.")))
      .finally(() => {
        inFlight = false;
        if (queued) { const next = queued; queued = null; ask(next); }
      });
  }

  function askTime(s) { ask({ t: Math.max(0, Math.min(duration, s)).toFixed(3) }); }
  function askMoment(i) { ask({ i: String(i) }); }

  // --- playing -------------------------------------------------------------------------------
  function tick() {
    if (!playing) return;
    if (byMoves) {
      const next = moment + 1;
      if (next >= times.length) { askTime(duration); pause(); return; }
      askMoment(next);
      const gap = next + 1 < times.length ? times[next + 1] - times[next] : 1;
      timer = setTimeout(tick, Math.max(FRAME_MS, Math.min(1, gap) * 1000 / speed));
      return;
    }
    const at = playFrom + (performance.now() - playWall) / 1000 * speed;
    if (at >= duration) { askTime(duration); pause(); return; }
    if (!inFlight) askTime(at); // a slow answer skips frames rather than falling behind
    timer = setTimeout(tick, FRAME_MS);
  }

  function play() {
    if (playing) return;
    if (t >= duration - 0.05) { t = 0; moment = -1; } // at the end: from the start again
    playing = true;
    playFrom = t;
    playWall = performance.now();
    drawControls();
    tick();
  }

  function pause() {
    playing = false;
    clearTimeout(timer);
    timer = null;
    drawControls();
    remember();
  }

  function setSpeed(s) {
    if (playing) { playFrom = t; playWall = performance.now(); }
    speed = s;
    box.querySelectorAll("[data-speed]").forEach((b) => b.setAttribute("aria-pressed", String(Number(b.dataset.speed) === s)));
  }

  // --- stepping and seeking --------------------------------------------------------------------
  function forward() {
    pause();
    const next = moment + 1;
    if (next < times.length) askMoment(next);
    else askTime(duration);
  }

  function back() {
    pause();
    // Between two moments: back to the last one; on one: the one before.
    if (moment >= 0 && t > times[moment] + 0.0005) askMoment(moment);
    else if (moment > 0) askMoment(moment - 1);
    else askTime(0);
  }

  function seekTo(s) {
    t = s;
    if (playing) { playFrom = s; playWall = performance.now(); }
    askTime(s);
  }

  // The address names the moment shown, so reloading or sharing it opens there.
  function linkAt() {
    const url = new URL(window.location.href);
    url.searchParams.delete("i");
    url.searchParams.set("t", String(Math.round(t * 1000) / 1000));
    return url.toString();
  }
  function remember() { window.history.replaceState(null, "", linkAt()); }

  function copyLink() {
    const link = linkAt();
    remember();
    linkBox.hidden = false;
    linkText.value = link;
    linkText.select();
    const done = (words) => { copied.textContent = words; };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(link).then(() => done(gettext("Copied.")), () => done(gettext("Copy it from here.")));
    } else {
      done(gettext("Copy it from here."));
    }
  }

  playButton.addEventListener("click", () => (playing ? pause() : play()));
  document.getElementById("replay-forward").addEventListener("click", forward);
  document.getElementById("replay-back").addEventListener("click", back);
  document.getElementById("replay-copy").addEventListener("click", copyLink);
  box.querySelectorAll("[data-speed]").forEach((b) => b.addEventListener("click", () => setSpeed(Number(b.dataset.speed))));
  seek.addEventListener("pointerdown", () => { dragging = true; });
  seek.addEventListener("input", () => seekTo(Number(seek.value)));
  seek.addEventListener("change", () => { dragging = false; seekTo(Number(seek.value)); if (!playing) remember(); });
  document.addEventListener("pointerup", () => { dragging = false; });

  // Back to whichever comes first on the page: the controls (above the boards), or on a
  // phone the boards, from their top, clear of a header that stays on screen.
  function showFirst() {
    const area = window.TableLive.area;
    if (!area || area.getBoundingClientRect().top > box.getBoundingClientRect().top) {
      box.scrollIntoView({ block: "nearest" });
      return;
    }
    const bar = document.querySelector(".topbar");
    const covered = bar && getComputedStyle(bar).position === "sticky" ? bar.getBoundingClientRect().bottom : 0;
    window.scrollBy(0, area.getBoundingClientRect().top - covered);
  }

  // The moments listed under the boards open there without a page load.
  document.addEventListener("click", (e) => {
    const a = e.target.closest && e.target.closest(".replay-moments a[data-i]");
    if (!a || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey) return;
    e.preventDefault();
    pause();
    revealing = true;
    askMoment(Number(a.dataset.i));
  });

  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
    if (e.key === " ") { e.preventDefault(); if (!e.repeat) { if (playing) pause(); else play(); } }
    else if (e.key === "ArrowRight") { e.preventDefault(); forward(); }
    else if (e.key === "ArrowLeft") { e.preventDefault(); back(); }
    else if (/^[1-4]$/.test(e.key)) setSpeed(SPEEDS[Number(e.key) - 1]);
  });
  // Space on a focused button would press it again when the key comes up.
  document.addEventListener("keyup", (e) => {
    if (e.key === " " && !typing(e.target)) e.preventDefault();
  });

  drawClock();
  drawLogs();
  drawControls();
  // The page arrived with its first frame: the boards' helpers see it once they have started.
  const first = () => afterFrame.forEach((fn) => fn());
  if (document.readyState === "complete") setTimeout(first);
  else window.addEventListener("load", first);
})();
