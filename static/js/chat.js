// The chat of the lobby and of a table (templates/lobby/chat.html, lobby/chat.py).
// A message goes over the page's socket as {"intent": "say", "text": …}; it comes back,
// like everybody's, out of band into #chat-log. Keys aimed at the chat are the chat's:
// the games ignore them (TableLive.typing, static/js/live.js), and Escape hands the
// keys back to the game. What is decided here without the page is in chat_state.js.
import { atBottom, givenBack, isChatRefusal, messageNumber, roomOf, unreadCount } from "./chat_state.js";
import { whenText } from "./datetimes.js";

const socketElt = document.querySelector("[ws-connect]");
const chat = document.getElementById("chat");
// Below this width the page is one column (static/css/site.css): the chat folds away
// under the game, or under the tables, until it is asked for.
const NARROW = window.matchMedia("(max-width: 900px)");

let socket = null; // the htmx wrapper of the page's socket, while it is open
let openSocket = null; // the WebSocket it opened last: an older one's close is old news
let sent = ""; // the text last sent, given back if the server refuses it
let seenUpTo = 0; // the newest message the reader had in view
let following = true; // the log shows its newest line, and keeps doing so
let shownLog = null; // the log element last scrolled (a reconnect brings a new one)
let shownLast = null; // and its last message then
let kept = null; // the box's text and focus, across the box's replacement

function log() { return document.getElementById("chat-log"); }
function input() { return document.getElementById("chat-input"); }
function said(text, kind) {
  const line = document.getElementById("chat-said");
  if (!line) return;
  line.textContent = text;
  line.classList.toggle("error", kind === "error");
}

if (chat && socketElt) start();

function start() {
  socketElt.addEventListener("htmx:wsOpen", (e) => {
    socket = e.detail.socketWrapper;
    openSocket = e.detail.event && e.detail.event.target;
  });
  socketElt.addEventListener("htmx:wsClose", (e) => {
    const closed = e.detail.event && e.detail.event.target;
    if (closed && openSocket && closed !== openSocket) return; // a replaced socket closing late
    socket = null;
  });
  socketElt.addEventListener("htmx:wsAfterMessage", (e) => {
    // A table's socket brings the game's many small changes too: the chat looks only at
    // what may change it (itself, the seat panel and status that say where a message
    // goes, a refusal).
    if (/chat|seat-panel|table-status|ws-error/.test(e.detail.message)) after();
  });
  // The box comes again as the socket (re)connects: what was being typed stays.
  document.body.addEventListener("htmx:oobBeforeSwap", (e) => {
    const box = input();
    if (e.detail.target && e.detail.target.id === "chat-box" && box) {
      kept = { text: box.value, focused: document.activeElement === box,
        start: box.selectionStart, end: box.selectionEnd };
    }
  });
  if (NARROW.matches) chat.open = false;
  chat.addEventListener("toggle", () => {
    if (chat.open) { following = true; shownLast = null; } // folded, it was not scrolled
    after();
  });
  document.addEventListener("scroll", (e) => {
    if (e.target === log()) following = atBottom(e.target);
  }, true);
  document.addEventListener("input", (e) => {
    if (e.target.id === "chat-input") sayLength(e.target);
  });
  document.addEventListener("submit", (e) => {
    const form = e.target.closest("[data-chat-form]");
    if (!form) return;
    e.preventDefault();
    send(form);
  });
  chat.addEventListener("keydown", (e) => {
    // Escape hands the keys back to the game (live.js ignores keys aimed at the chat).
    if (e.key === "Escape" && e.target instanceof HTMLElement) {
      e.target.blur();
      e.preventDefault();
    }
  });
  chat.addEventListener("click", clicked);
  seenUpTo = newest();
  after();
}

// --- after every message (and at load) ----------------------------------------------------
function after() {
  restoreBox();
  dress();
  refused();
  placeholder();
  scroll();
  unread();
}

function restoreBox() {
  const box = input();
  if (!kept || !box) return;
  if (kept.text && !box.value) box.value = kept.text;
  if (kept.focused) {
    box.focus();
    if (kept.start !== null) box.setSelectionRange(kept.start, kept.end);
  }
  kept = null;
}

// Own messages marked (their report and hide buttons go, by the stylesheet), times in
// the reader's clock, in the server's format for the page's language (datetimes.js).
function dress() {
  const me = chat.dataset.me;
  const list = log();
  if (!list) return;
  for (const item of list.querySelectorAll(".chat-msg:not([data-dressed])")) {
    item.dataset.dressed = "";
    if (me && item.dataset.author === me) {
      item.classList.add("mine");
      // It went through: no refusal is coming for it. (Another message of one's own may
      // arrive between a send and its refusal: only this text's arrival settles it.)
      const text = item.querySelector(".chat-text");
      if (sent && text && text.textContent === sent.replace(/\s+/g, " ")) sent = "";
    }
    const time = item.querySelector("time");
    if (time) time.textContent = whenText(time.getAttribute("datetime"), document.documentElement.lang);
  }
  const until = document.querySelector("[data-chat-until]");
  if (until && !until.dataset.dressed) {
    until.dataset.dressed = "";
    until.textContent = whenText(until.getAttribute("datetime"), document.documentElement.lang, "datetime");
  }
}

// The box says where a message goes: the table, its spectators (the players do not see
// it), or the lobby; it changes as the viewer sits or stands and games start and end.
function placeholder() {
  const box = input();
  if (!box) return;
  const panel = document.getElementById("seat-panel");
  // A player who left the running game keeps the seat (lobby.selectors seat_and_status):
  // the panel says 0 for them, and still marks the seat theirs.
  const seated = Boolean(panel && (Number(panel.dataset.mySeat || 0) > 0 || panel.querySelector(".seat.mine")));
  const room = roomOf({
    lobby: box.hasAttribute("data-lobby"),
    seated: seated,
    running: Boolean(document.querySelector("#table-status .badge-running")),
  });
  chat.toggleAttribute("data-seated", seated);
  const words = box.dataset["words" + room[0].toUpperCase() + room.slice(1)];
  if (words && box.placeholder !== words) { box.placeholder = words; box.title = words; }
  chat.dataset.room = room;
  // The placeholder is cut short in a narrow box, and goes as one types: the spectators'
  // room, which the players do not read, is said in a line of its own too.
  const note = chat.querySelector("[data-chat-to]");
  if (note) note.hidden = room !== "spectators";
}

// The newest line in view, unless the reader scrolled up to read; a new log (the socket
// came back) starts at its newest line.
function scroll() {
  const list = log();
  if (!list || !chat.open) return;
  if (list !== shownLog) { shownLog = list; shownLast = null; following = true; }
  if (list.lastElementChild === shownLast) return; // nothing new: no layout to ask for
  shownLast = list.lastElementChild;
  if (following) list.scrollTop = list.scrollHeight;
}

function newest() {
  const list = log();
  let top = 0;
  if (list) for (const item of list.querySelectorAll(".chat-msg")) top = Math.max(top, messageNumber(item.id));
  return top;
}

// Folded, the summary counts what came since the reader last looked; opened, it is read.
function unread() {
  const badge = chat.querySelector(".chat-unread");
  if (chat.open) seenUpTo = Math.max(seenUpTo, newest());
  const list = log();
  const messages = list ? [...list.querySelectorAll(".chat-msg")].map((item) => ({
    id: messageNumber(item.id), mine: item.classList.contains("mine") })) : [];
  const count = chat.open ? 0 : unreadCount(messages, seenUpTo);
  if (!badge || badge.dataset.count === String(count)) return;
  badge.dataset.count = String(count);
  badge.hidden = count === 0;
  // The number on screen, the words for a screen reader.
  const number = document.createElement("span");
  number.setAttribute("aria-hidden", "true");
  number.textContent = count > 99 ? "99+" : String(count);
  const words = document.createElement("span");
  words.className = "sr-only";
  words.textContent = interpolate(ngettext("%s unread message", "%s unread messages", count), [count]);
  badge.replaceChildren(number, words);
}

// --- writing ---------------------------------------------------------------------------
// A message longer than the chat takes (the box's data-max-length, lobby/chat.py's
// CHAT_MAX_LENGTH, counted as the server counts: in characters) is said so at once, as it
// is typed or pasted, and not sent; nothing is cut off without a word.
function tooLong(box) {
  const max = Number(box.dataset.maxLength || 0);
  const over = max ? [...box.value.trim()].length - max : 0;
  return over > 0 ? over : 0;
}
function sayLength(box) {
  const over = tooLong(box);
  box.toggleAttribute("aria-invalid", over > 0);
  if (over) {
    said(interpolate(ngettext("%s character too many: a message has at most %s.",
      "%s characters too many: a message has at most %s.", over), [over, box.dataset.maxLength]), "error");
  } else if (document.getElementById("chat-said")?.hasAttribute("data-length")) {
    said("", ""); // short enough again: the length's message goes (another one stays)
  }
  document.getElementById("chat-said")?.toggleAttribute("data-length", over > 0);
}

function send(form) {
  const box = form.querySelector("input[name=text]");
  const text = box.value.trim();
  if (!text) return;
  if (tooLong(box)) { sayLength(box); return; } // kept in the box, to shorten
  // A socket closed but whose close is not yet told (closing) is no socket: htmx's wrapper
  // would keep the message and send it again on reconnecting, while the box keeps it too.
  if (!socket || openSocket?.readyState !== WebSocket.OPEN) {
    // Nothing is lost: the text stays in the box, to send once the page is back.
    said(gettext("Not connected: your message is still in the box. Send it again when the connection is back."),
      "error");
    return;
  }
  // The box empties at once, so a second Enter or click has nothing to send twice.
  box.value = "";
  sent = text;
  said("", "");
  socket.send(JSON.stringify({ intent: "say", text: text }));
}

// A refusal of a message: its reason under the box (not over the game), its text back in the box.
function refused() {
  const error = document.querySelector("#ws-error[data-code]");
  if (!error || !isChatRefusal(error.dataset.code)) return;
  said(error.textContent.trim(), "error");
  const box = input();
  if (box && sent) box.value = givenBack(box.value, sent);
  sent = "";
  const empty = document.createElement("div");
  empty.id = "ws-error";
  error.replaceWith(empty);
}

// --- the buttons -----------------------------------------------------------------------
function clicked(e) {
  const summary = e.target.closest("summary");
  // Clicked, not reached with the keys: the keys that follow are the game's again.
  if (summary && e.detail > 0) { summary.blur(); return; }
  const submit = e.target.closest("[data-chat-form] button");
  if (submit && e.detail > 0) { setTimeout(() => { const box = input(); if (box) box.focus(); }); return; }
  const button = e.target.closest("[data-chat-report], [data-chat-ignore]");
  if (!button) return;
  if (e.detail > 0) button.blur();
  const report = button.hasAttribute("data-chat-report");
  const id = report ? button.dataset.chatReport : button.dataset.chatIgnore;
  const url = report ? chat.dataset.reportUrl : chat.dataset.ignoreUrl;
  if (report && !window.confirm(chat.dataset.reportConfirm)) return;
  button.disabled = true;
  fetch(url, {
    method: "POST",
    headers: { "X-CSRFToken": csrf(), "Content-Type": "application/x-www-form-urlencoded" },
    body: "message=" + encodeURIComponent(id),
    credentials: "same-origin",
  }).then((r) => r.text().then((text) => said(text, r.ok ? "" : "error")))
    .catch(() => said(gettext("That did not reach the server. Try again in a moment."), "error"))
    .finally(() => { button.disabled = false; });
}

function csrf() {
  try { return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"] || ""; }
  catch (err) { return ""; }
}
