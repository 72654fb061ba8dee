// Show whether the lobby's live connection is up, so players know the list is current.
// Its words come from the JavaScript catalogue (gettext: config/urls.py, templates/base.html).
(function () {
  "use strict";
  const dot = document.getElementById("live-dot");
  const text = document.getElementById("live-text");
  if (!dot || !text) return;
  document.body.addEventListener("htmx:wsOpen", () => { dot.classList.add("on"); text.textContent = gettext("Live."); });
  document.body.addEventListener("htmx:wsClose", () => { dot.classList.remove("on"); text.textContent = gettext("Reconnecting…"); });
})();
