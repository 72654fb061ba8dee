// bench/live.py --client node: the lean load generator, in Node on the npm package ws.
//
//     node bench/node/lean_client.mjs PLAN.json     (or the plan as the first line of stdin)
//
// It plays what bench/live.py's lean client (--client scripted: Script, key_frames, player,
// spectator, answered_up_to, Keys, Track) plays, and measures what it measures, so that
// one core of the client can drive hundreds of tables. bench/live.py writes the plan (each
// table's sockets: URL, cookie, Origin, the table's own source address, the seat, 1-4, or 0
// for the spectator, and each player's two seeds), prepares, starts and restarts the tables
// over HTTP itself, and talks to this program by lines:
//
//   stdout {"event": "connected", ...}  every socket open and greeted (its first frame read)
//   stdin  started                      every game's start was pressed
//   stdout {"event": "running", ...}    every table runs (or 30 s went by)
//   stdin  open                         the play window opens (for plan.seconds)
//   stdout {"event": "results", "table": t}   table t's game ended (the parent restarts it)
//   stdout {"event": "closed"}          the play window closed
//   stdout {"event": "result", ...}     the end: every figure, one line of JSON
//
// Every time is performance.now() in seconds; the parent moves them onto its own clock by
// the window's start. Random draws are Python's: a Mersenne Twister seeded as Python's
// random.Random(x) is (the parent sends hash(x) as 32-bit words), with Python's random(),
// expovariate() and randint(), so a seed plays the keys the Python client plays.
// A frame is read as little as the Python client reads it: regular expressions over its
// text for the version head and its acknowledgements, substrings for the rest.

import { EventEmitter } from "node:events";
import { readFileSync } from "node:fs";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import WebSocket from "ws";

const HEAD = /^<!--v(\d+)((?: a\d+:\d+)*)-->/;
const UNSHOWN = /^<!--a(\d+):(\d+)-->$/; // keys taken that changed nothing: the sender's alone
const ACK = / a(\d+):(\d+)/g;
const ERROR_CODE = /data-code="([A-Z_]*)"/;
const RESULTS = 'id="results-title"';
const RESULTS_TITLE = /<h2 id="results-title">([^<]*)<\/h2>/;
const SEATS = [1, 2, 3, 4];
const LAG_RESOLUTION_MS = 5; // the loop-delay monitor's timer, as bench/live.py's 5 ms probe
const LAG_STRETCH_S = 5; // client_loop_lag_p99_ms_by_5s

const now = () => performance.now() / 1000;

// --- Python's random, bit for bit --------------------------------------------------------

export class PyRandom {
  // MT19937 as CPython's _randommodule.c: init_by_array(key), genrand_uint32, random().
  constructor(key) {
    this.mt = new Uint32Array(624);
    this.mti = 624;
    this.initByArray(key);
  }

  initGenrand(seed) {
    const mt = this.mt;
    mt[0] = seed >>> 0;
    for (let i = 1; i < 624; i++) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.mti = 624;
  }

  initByArray(key) {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(624, key.length); k; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1664525)) + key[j] + j) >>> 0;
      i++;
      j++;
      if (i >= 624) {
        mt[0] = mt[623];
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = 623; k; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= 624) {
        mt[0] = mt[623];
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  uint32() {
    const mt = this.mt;
    if (this.mti >= 624) {
      let kk = 0;
      let y;
      for (; kk < 624 - 397; kk++) {
        y = (mt[kk] & 0x80000000) | (mt[kk + 1] & 0x7fffffff);
        mt[kk] = mt[kk + 397] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      for (; kk < 623; kk++) {
        y = (mt[kk] & 0x80000000) | (mt[kk + 1] & 0x7fffffff);
        mt[kk] = mt[kk - 227] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      y = (mt[623] & 0x80000000) | (mt[0] & 0x7fffffff);
      mt[623] = mt[396] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      this.mti = 0;
    }
    let y = mt[this.mti++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  random() {
    const a = this.uint32() >>> 5;
    const b = this.uint32() >>> 6;
    return (a * 67108864 + b) / 9007199254740992;
  }

  belowSmall(n) {
    // Python's _randbelow for n < 2**32: getrandbits(n.bit_length()) until below n
    const k = 32 - Math.clz32(n);
    let r = this.uint32() >>> (32 - k);
    while (r >= n) r = this.uint32() >>> (32 - k);
    return r;
  }

  randint(a, b) {
    return a + this.belowSmall(b - a + 1);
  }

  randrange(n) {
    return this.belowSmall(n);
  }

  expovariate(lambd) {
    return -Math.log(1.0 - this.random()) / lambd;
  }
}

// --- what a player presses: bench/live.py's Script and key_frames ----------------------

export class Script {
  constructor(seat, rng, enterChance) {
    this.seat = seat;
    this.rng = rng;
    this.enterChance = enterChance;
    this.storeId = `id="bombs-${seat}"`;
    this.scoreId = `id="score-${seat}"`;
    this.storeRx = new RegExp(`<div id="bombs-${seat}" class="store" aria-label="[^"]*"(?: hx-swap-oob="true")?>(<span)?`);
    this.scoreRx = new RegExp(
      `<dl id="score-${seat}" class="stats".*?<dd>\\d+</dd>.*?<dd>\\d+</dd>.*?<dd>(\\d+)</dd>`,
    );
    this.plan = [];
    this.store = false;
    this.lines = 0;
    this.linesBanked = 0;
    this.playing = false;
  }

  read(message) {
    if (message.includes(this.storeId)) {
      const m = this.storeRx.exec(message);
      if (m !== null) this.store = m[1] !== undefined;
    }
    if (message.includes(this.scoreId)) {
      const m = this.scoreRx.exec(message);
      if (m !== null) this.lines = Number(m[1]);
    }
    if (message.includes(RESULTS)) {
      this.linesBanked += this.lines;
      this.lines = 0;
      this.playing = false;
      this.plan = [];
    } else if (!this.playing && message.includes("data-remaining-ms")) {
      this.playing = true;
    }
  }

  key() {
    if (!this.playing) return null;
    if (this.store && this.rng.random() < this.enterChance) return "bomb";
    if (this.plan.length === 0) {
      const shift = this.rng.randint(-3, 3);
      const turns = this.rng.randrange(4);
      this.plan = ["hard_drop"];
      for (let i = 0; i < Math.abs(shift); i++) this.plan.push(shift < 0 ? "left" : "right");
      for (let i = 0; i < turns; i++) this.plan.push("rotate"); // popped from the end: turns first
    }
    return this.plan.pop();
  }
}

// The frames a page sends (static/js/tetriwar.js), as json.dumps writes them: ← and → as a
// numbered key-down and at once its key-up, every other key as one numbered frame.
export function keyFrames(key, seq) {
  if (key === "left" || key === "right") {
    return [`{"intent": "hold_${key}", "seq": ${seq}}`, `{"intent": "release_${key}"}`];
  }
  return [`{"intent": "${key}", "seq": ${seq}}`, null];
}

// --- what is measured: bench/live.py's Stats, Window, Track, answered_up_to, Keys ------

function samples() {
  return { ms: [], sent: [] };
}

function addSample(into, sentAt, ms) {
  into.ms.push(ms);
  into.sent.push(sentAt);
}

class Window {
  constructor(ackTimeout) {
    this.start = Infinity;
    this.until = Infinity;
    this.ackTimeout = ackTimeout;
  }

  measures(at) {
    return this.start <= at && at < this.until;
  }

  get playUntil() {
    return this.until + this.ackTimeout;
  }
}

class Track {
  // one table's measured keys in flight, by seat then seq: [sentAt, the sender has its ack]
  constructor() {
    this.sent = new Map(SEATS.map((seat) => [seat, new Map()]));
    this.seenBy = new Map(
      SEATS.map((watcher) => [watcher, new Map(SEATS.filter((s) => s !== watcher).map((s) => [s, new Map()]))]),
    );
  }

  add(seat, seq, entry) {
    this.sent.get(seat).set(seq, entry);
    for (const [watcher, bySeat] of this.seenBy) {
      if (watcher !== seat) bySeat.get(seat).set(seq, entry);
    }
  }

  missingAtSpectator() {
    const out = [];
    for (const bySeq of this.sent.values()) for (const entry of bySeq.values()) if (entry[1]) out.push(entry[0]);
    return out;
  }

  missingAtOpponents() {
    const out = [];
    for (const bySeat of this.seenBy.values()) {
      for (const bySeq of bySeat.values()) for (const entry of bySeq.values()) if (entry[1]) out.push(entry[0]);
    }
    return out;
  }
}

export function answeredUpTo(bySeq, seq, received, into, timeouts, ackTimeout, prompt = null, mark = false) {
  if (prompt === null) {
    const entry = bySeq.get(seq);
    prompt = entry !== undefined && received - entry[0] <= ackTimeout;
  }
  let passed = 0;
  for (const [number, entry] of bySeq) {
    if (number > seq) break;
    bySeq.delete(number);
    if (mark) entry[1] = true;
    if (received - entry[0] <= ackTimeout) addSample(into, entry[0], (received - entry[0]) * 1000);
    else if (number !== seq && prompt) passed++;
    else timeouts.push(entry[0]);
  }
  return passed;
}

class Keys {
  // one player's measured keys and their answers, in the order sent
  constructor(stats, track, seat, window) {
    this.stats = stats;
    this.track = track;
    this.seat = seat;
    this.window = window;
    this.pending = new Map();
    this.after = new Map();
  }

  sent(seq, at) {
    if (this.window.measures(at)) {
      const entry = [at, false];
      this.pending.set(seq, entry);
      this.track.add(this.seat, seq, entry);
      this.stats.sent++;
    } else if (at >= this.window.until) {
      this.after.set(seq, at);
    }
  }

  answered(seq, received) {
    const ackTimeout = this.window.ackTimeout;
    const mine = this.pending.get(seq);
    const own = mine !== undefined ? mine[0] : this.after.get(seq);
    for (const number of this.after.keys()) if (number <= seq) this.after.delete(number);
    const prompt = own !== undefined && received - own <= ackTimeout;
    this.stats.withoutEffect += answeredUpTo(
      this.pending, seq, received, this.stats.latencies, this.stats.timeouts, ackTimeout, prompt, true,
    );
  }

  unshown(seq, received) {
    const taken = [...this.pending.keys()].filter((n) => n <= seq);
    this.answered(seq, received);
    for (const bySeat of [this.track.sent, ...this.track.seenBy.values()]) {
      const bySeq = bySeat.get(this.seat);
      if (bySeq !== undefined) for (const number of taken) bySeq.delete(number);
    }
  }

  unanswered() {
    for (const entry of this.pending.values()) this.stats.timeouts.push(entry[0]);
    this.stats.timeoutsAtStop += this.pending.size;
    this.pending.clear();
  }
}

// --- sockets -------------------------------------------------------------------------------

class Gate {
  // at most n handshakes in flight, served in the order asked
  constructor(n) {
    this.free = n;
    this.waiting = [];
  }

  acquire() {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  release() {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

const sleep = (seconds) => new Promise((resolve) => setTimeout(resolve, Math.max(0, seconds * 1000)));

function closedText(code, reason) {
  return `received ${code}${reason ? ` (${reason})` : ""}`;
}

class Client {
  constructor(plan) {
    this.plan = plan;
    this.ackTimeout = plan.ack_timeout;
    this.window = new Window(plan.ack_timeout);
    this.gate = new Gate(plan.connecting);
    this.sockets = [];
    this.tables = [];
    this.ended = [];
    this.stats = {
      latencies: samples(),
      spectatorLatencies: samples(),
      opponentLatencies: samples(),
      timeouts: [],
      opponentTimeouts: [],
      spectatorTimeouts: [],
      timeoutsAtStop: 0,
      withoutEffect: 0,
      skipped: 0,
      dropped: [],
      droppedAt: [],
      updateBytes: [],
      windowFrames: 0,
      windowBytes: 0,
      windowBroadcasts: 0,
      sent: 0,
      errors: {},
      gamesFinished: 0,
      gamesAborted: 0,
      connected: 0,
      connectRetries: 0,
      greeted: 0,
    };
  }

  emit(event) {
    process.stdout.write(`${JSON.stringify(event)}\n`);
  }

  async connect(spec, address, read) {
    // the frames' reader is in place before the socket opens: its first frame may come
    // with the handshake's answer
    const { connect_tries: tries, open_timeout: openTimeout } = this.plan;
    for (let attempt = 1; attempt <= tries; attempt++) {
      await this.gate.acquire();
      try {
        const ws = await new Promise((resolve, reject) => {
          const ws = new WebSocket(spec.url, {
            headers: { Cookie: spec.cookie, Origin: spec.origin },
            localAddress: address ?? undefined,
            perMessageDeflate: false,
            handshakeTimeout: openTimeout * 1000,
            skipUTF8Validation: true,
          });
          ws.read = read;
          ws.on("message", this.received(ws));
          ws.on("close", (code, reason) => (ws.closedWith = closedText(code, reason.toString())));
          ws.once("open", () => resolve(ws));
          ws.once("error", (err) => reject(err));
        });
        this.stats.connected++;
        this.sockets.push(ws);
        return ws;
      } catch (err) {
        this.stats.connectRetries++;
        if (attempt === tries) throw err;
      } finally {
        this.gate.release();
      }
      await sleep(0.5 * attempt);
    }
    throw new Error("unreachable");
  }

  received(ws) {
    // every frame a socket reads: counted in the window, its first one greets
    return (data) => {
      const at = now();
      if (!ws.greeted) {
        ws.greeted = true;
        this.stats.greeted++;
        if (this.stats.greeted === this.expected) this.onGreeted();
      }
      const text = data.toString();
      if (this.window.measures(at)) {
        this.stats.windowFrames++;
        this.stats.windowBytes += text.length; // characters, as the Python client counts them
      }
      ws.read(text, at);
    };
  }

  async player(table, spec, address) {
    const { stats, window } = this;
    const seat = spec.seat;
    const script = new Script(seat, new PyRandom(spec.script_seed), this.plan.enter_chance);
    const schedule = new PyRandom(spec.schedule_seed);
    table.scripts.push(script);
    const keys = new Keys(stats, table.track, seat, window);
    const others = table.track.seenBy.get(seat);
    const ackTimeout = this.ackTimeout;
    const read = (message, received) => {
      const head = HEAD.exec(message);
      if (head === null) {
        const unshown = UNSHOWN.exec(message);
        if (unshown !== null && Number(unshown[1]) === seat) keys.unshown(Number(unshown[2]), received);
        else if (message.includes("ws-error")) {
          const code = ERROR_CODE.exec(message);
          const name = code ? code[1] : "?";
          stats.errors[name] = (stats.errors[name] || 0) + 1;
        }
        return;
      }
      script.read(message);
      if (script.playing) table.start();
      for (const [, ackedSeat, ackedSeq] of head[2].matchAll(ACK)) {
        const who = Number(ackedSeat);
        if (who === seat) keys.answered(Number(ackedSeq), received);
        else if (others.has(who)) {
          answeredUpTo(others.get(who), Number(ackedSeq), received, stats.opponentLatencies, stats.opponentTimeouts,
            ackTimeout);
        }
      }
    };
    const ws = await this.connect(spec, address, read);

    await (this.plan.press_from === "window" ? this.everyRunning : table.started);
    // open loop: keys are due on their schedule, answered or not
    const pressesAt = (due) =>
      due < window.playUntil || (keys.pending.size > 0 && due < window.playUntil + this.plan.decide_seconds);
    let seq = 0;
    let last = 0;
    let due = now();
    let dropped = false;
    await new Promise((done) => {
      const press = () => {
        // false: stop pressing
        if (!pressesAt(now())) return false; // the window may close early
        const key = script.key(); // null too between a game's results and the next game
        if (key === null) {
          stats.skipped++;
          return true;
        }
        if (ws.readyState !== WebSocket.OPEN) {
          stats.dropped.push(`seat ${seat}: ${ws.closedWith ?? "closing"}`);
          stats.droppedAt.push(now());
          dropped = true;
          return false;
        }
        seq++;
        const [frame, keyUp] = keyFrames(key, seq);
        last = now();
        keys.sent(seq, last);
        ws.send(frame);
        if (keyUp !== null) ws.send(keyUp);
        return true;
      };
      const next = () => {
        for (;;) {
          due += schedule.expovariate(this.plan.rate);
          if (!pressesAt(due)) return done();
          const delay = due - now();
          if (delay > 0) {
            setTimeout(() => (press() ? next() : done()), delay * 1000);
            return;
          }
          if (!press()) return done();
        }
      };
      next();
    });
    if (!dropped) {
      const until = keys.pending.size > 0 ? Math.max(window.playUntil, last + ackTimeout) : window.playUntil;
      await sleep(until + 0.1 - now());
    }
    keys.unanswered();
    ws.read = () => {};
  }

  async spectator(table, spec, address) {
    const { stats, window } = this;
    const sent = table.track.sent;
    const ackTimeout = this.ackTimeout;
    const read = (message, received) => {
      const head = HEAD.exec(message);
      if (head === null) return;
      if (window.measures(received)) stats.windowBroadcasts++;
      for (const [, ackedSeat, ackedSeq] of head[2].matchAll(ACK)) {
        const bySeq = sent.get(Number(ackedSeat));
        if (bySeq !== undefined && bySeq.size) {
          answeredUpTo(bySeq, Number(ackedSeq), received, stats.spectatorLatencies, stats.spectatorTimeouts,
            ackTimeout);
        }
      }
      if (!message.includes('id="game"')) stats.updateBytes.push(Buffer.byteLength(message));
      if (message.includes(RESULTS)) {
        const m = RESULTS_TITLE.exec(message);
        if (m !== null && m[1] === "Game aborted") stats.gamesAborted++;
        else stats.gamesFinished++;
        this.emit({ event: "results", table: table.index });
      }
    };
    const ws = await this.connect(spec, address, read);
    let ending = false;
    await new Promise((done) => {
      ws.once("close", (code, reason) => {
        if (!ending && code !== 1000 && code !== 1001) {
          stats.dropped.push(`spectator: ${closedText(code, reason.toString())}`);
          stats.droppedAt.push(now());
        }
        done();
      });
      this.spectatorsEnd.push(() => {
        ending = true;
        done();
      });
    });
    ws.read = () => {};
  }

  async run() {
    const plan = this.plan;
    this.expected = plan.tables.length * 5;
    this.spectatorsEnd = [];
    const t0 = now();
    const connected = new Promise((resolve) => (this.onGreeted = resolve));
    this.everyRunning = new Promise((resolve) => (this.letPress = resolve)); // --press-from window
    const tasks = [];
    plan.tables.forEach((setup, index) => {
      const table = { index, track: new Track(), scripts: [], running: false };
      table.started = new Promise((resolve) => {
        table.start = () => {
          if (!table.running) {
            table.running = true;
            resolve();
          }
        };
      });
      this.tables.push(table);
      for (const spec of setup.sockets) {
        tasks.push(spec.seat ? this.player(table, spec, setup.address) : this.spectator(table, spec, setup.address));
      }
    });
    const failed = Promise.race(tasks.map((task) => task.then(() => new Promise(() => {}))));
    if (this.expected === 0) this.onGreeted();
    await Promise.race([connected, failed]); // a socket that never opens throws here
    this.emit({
      event: "connected", connected: this.stats.connected, retries: this.stats.connectRetries, connect_s: now() - t0,
    });

    await this.command("started");
    const everyTable = Promise.all(this.tables.map((table) => table.started));
    await Promise.race([everyTable, sleep(plan.start_timeout)]);
    const running = this.tables.filter((table) => table.running).length;
    for (const table of this.tables) table.start(); // a table that never started: its players stop with the others
    this.letPress();
    this.emit({ event: "running", tables_running: running });

    await this.command("open");
    this.openWindow();
    await Promise.all(tasks);
    for (const table of this.tables) {
      this.stats.spectatorTimeouts.push(...table.track.missingAtSpectator());
      this.stats.opponentTimeouts.push(...table.track.missingAtOpponents());
    }
    this.emit(this.result());
    await this.closeAll();
  }

  openWindow() {
    const window = this.window;
    const whole = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
    const stretch = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
    whole.enable();
    stretch.enable();
    const cpu0 = process.cpuUsage();
    window.start = now();
    window.until = window.start + this.plan.seconds;
    let stretchStart = window.start;
    const lag = (histogram, q) =>
      histogram.count ? Math.max(0, histogram.percentile(q * 100) / 1e6 - LAG_RESOLUTION_MS) : null;
    this.lagByStretch = [];
    const cut = () => {
      this.lagByStretch.push(lag(stretch, 0.99));
      stretch.reset();
      stretchStart = now();
    };
    const every = setInterval(cut, LAG_STRETCH_S * 1000);
    setTimeout(() => {
      clearInterval(every);
      if (now() - stretchStart > 0.5) cut();
      whole.disable();
      stretch.disable();
      const cpu = process.cpuUsage(cpu0);
      this.windowEnd = now();
      this.clientCpuS = (cpu.user + cpu.system) / 1e6;
      this.lagP50 = lag(whole, 0.5);
      this.lagP99 = lag(whole, 0.99);
      this.emit({ event: "closed" });
    }, this.plan.seconds * 1000);
    setTimeout(() => {
      for (const end of this.spectatorsEnd) end();
    }, (window.playUntil + 0.1 - now()) * 1000);
  }

  command(word) {
    return new Promise((resolve) => {
      this.commands.once(word, resolve);
    });
  }

  result() {
    const s = this.stats;
    const round = (values, digits) => values.map((v) => Number(v.toFixed(digits)));
    const pack = (into) => ({ ms: round(into.ms, 4), sent: round(into.sent, 6) });
    return {
      event: "result",
      window_start: this.window.start,
      window_end: this.windowEnd,
      client_cpu_s: this.clientCpuS,
      loop_lag_p50_ms: this.lagP50,
      loop_lag_p99_ms: this.lagP99,
      loop_lag_p99_ms_by_5s: this.lagByStretch,
      latencies: pack(s.latencies),
      spectator_latencies: pack(s.spectatorLatencies),
      opponent_latencies: pack(s.opponentLatencies),
      timeouts: round(s.timeouts, 6),
      opponent_timeouts: round(s.opponentTimeouts, 6),
      spectator_timeouts: round(s.spectatorTimeouts, 6),
      timeouts_at_stop: s.timeoutsAtStop,
      without_effect: s.withoutEffect,
      skipped: s.skipped,
      dropped: s.dropped,
      dropped_at: s.droppedAt,
      update_bytes: s.updateBytes,
      window_frames: s.windowFrames,
      window_bytes: s.windowBytes,
      window_broadcasts: s.windowBroadcasts,
      sent: s.sent,
      errors: s.errors,
      games_finished: s.gamesFinished,
      games_aborted: s.gamesAborted,
      greeted: s.greeted,
      lines: this.tables.flatMap((table) => table.scripts.map((script) => [script.lines, script.linesBanked])),
    };
  }

  async closeAll() {
    const closing = this.sockets
      .filter((ws) => ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CLOSING)
      .map((ws) => new Promise((resolve) => {
        ws.once("close", resolve);
        ws.close(1000);
      }));
    await Promise.race([Promise.all(closing), sleep(3)]);
    for (const ws of this.sockets) ws.terminate();
  }
}

// --- the program ---------------------------------------------------------------------------

async function main() {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
  const commands = new EventEmitter();
  let planText = process.argv[2] && process.argv[2] !== "-" ? readFileSync(process.argv[2], "utf8") : null;
  let gotPlan;
  const planRead = new Promise((resolve) => (gotPlan = resolve));
  if (planText !== null) gotPlan(planText);
  lines.on("line", (line) => {
    if (planText === null) {
      planText = line;
      gotPlan(line);
    } else commands.emit(line.trim());
  });
  const client = new Client(JSON.parse(await planRead));
  client.commands = commands;
  try {
    await client.run();
  } catch (err) {
    client.emit({ event: "failed", error: String(err && err.message ? err.message : err) });
    process.exitCode = 1;
  }
  lines.close();
  process.stdin.destroy();
  process.exit();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
