// The chat of the lobby and of a table (templates/lobby/chat.html, lobby/chat.py).
// A message goes over the page's socket as {"intent": "say", "text": …}; it comes back,
// like everybody's, out of band into #chat-log. Keys typed in the box are the box's:
// the games ignore keys aimed at a text field (TableLive.typing).
(function () {
  "use strict";
  const socketElt = document.querySelector("[ws-connect]");
  let socket = null;
  let pending = "";  // the text last sent, given back if the server refuses it
  if (socketElt) {
    socketElt.addEventListener("htmx:wsOpen", (e) => { socket = e.detail.socketWrapper; });
    socketElt.addEventListener("htmx:wsClose", () => { socket = null; });
  }

  function panel() { return document.getElementById("chat"); }

  // Own messages marked, times in the reader's clock, the newest in view.
  function dress() {
    const box = panel();
    if (!box) return;
    const me = box.dataset.me;
    const log = document.getElementById("chat-log");
    if (!log) return;
    for (const item of log.querySelectorAll(".chat-msg:not([data-dressed])")) {
      item.dataset.dressed = "";
      if (me && item.dataset.author === me) item.classList.add("mine");
      const time = item.querySelector("time");
      if (time) time.textContent = localTime(time.getAttribute("datetime"), false);
    }
    const until = document.querySelector("[data-chat-until]");
    if (until && !until.dataset.dressed) {
      until.dataset.dressed = "";
      until.textContent = localTime(until.getAttribute("datetime"), true);
    }
  }
  function localTime(iso, withDay) {
    const when = new Date(iso);
    if (Number.isNaN(when.getTime())) return iso;
    const options = withDay ? { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" }
      : { hour: "2-digit", minute: "2-digit" };
    return when.toLocaleString(document.documentElement.lang || undefined, options);
  }

  function send(form) {
    const input = form.querySelector("input[name=text]");
    const text = input.value.trim();
    if (!text || !socket) return;
    socket.send(JSON.stringify({ intent: "say", text: text }));
    pending = text;
    input.value = "";
  }
  document.addEventListener("submit", (e) => {
    const form = e.target.closest("[data-chat-form]");
    if (!form) return;
    e.preventDefault();
    send(form);
  });

  // A refusal of a chat message: the text is given back to edit.
  const CHAT_CODES = /^(CHAT_|MUTED|BAD_TEXT)/;
  function refused() {
    const error = document.querySelector("#ws-error[data-code]");
    if (!error || !CHAT_CODES.test(error.dataset.code) || !pending) return;
    const input = document.getElementById("chat-input");
    const said = document.getElementById("chat-said");
    if (said) said.textContent = error.textContent;
    if (input && !input.value) input.value = pending;
    pending = "";
  }

  function after() {
    dress();
    refused();
    const log = document.getElementById("chat-log");
    if (log) log.scrollTop = log.scrollHeight;
  }
  if (socketElt) socketElt.addEventListener("htmx:wsAfterMessage", after);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", after);
  else after();

  // Report, hide: a POST, and its answer under the box.
  function csrf() {
    try { return JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"] || ""; }
    catch (err) { return ""; }
  }
  document.addEventListener("click", (e) => {
    const button = e.target.closest("[data-chat-report], [data-chat-ignore]");
    if (!button) return;
    const report = button.hasAttribute("data-chat-report");
    const id = report ? button.dataset.chatReport : button.dataset.chatIgnore;
    const url = report ? panel().dataset.reportUrl : panel().dataset.ignoreUrl;
    if (report && !window.confirm(panel().dataset.reportConfirm)) return;
    button.disabled = true;
    fetch(url, {
      method: "POST",
      headers: { "X-CSRFToken": csrf(), "Content-Type": "application/x-www-form-urlencoded" },
      body: "message=" + encodeURIComponent(id),
      credentials: "same-origin",
    }).then((r) => r.text()).then((text) => {
      const said = document.getElementById("chat-said");
      if (said) said.textContent = text;
      button.disabled = false;
    }, () => { button.disabled = false; });
  });
})();
