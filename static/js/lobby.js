// Show whether the lobby's live connection is up, so players know the list is current.
// Its words come from the JavaScript catalogue (gettext: config/urls.py, templates/base.html).
(function () {
  "use strict";
  // The lobby's socket brings every change of every listed table, and this page does not
  // show them all: a practice table (never listed) that starts, a row another page shows
  // while this list is filtered by game, a row gone already. Their updates and removals
  // are news for other pages: dropped here, where htmx would report each missing target
  // as an error (htmx:oobErrorNoTarget). Rows that are new come in by #table-list.
  htmx.defineExtension("lobby-rows", {
    transformResponse(text) {
      const parsed = document.createElement("template");
      parsed.innerHTML = text;
      const elsewhere = [...parsed.content.children].filter((el) =>
        el.id && el.hasAttribute("hx-swap-oob") && !document.getElementById(el.id));
      elsewhere.forEach((el) => el.remove());
      return elsewhere.length ? parsed.innerHTML : text;
    },
  });

  const dot = document.getElementById("live-dot");
  const text = document.getElementById("live-text");
  if (!dot || !text) return;
  document.body.addEventListener("htmx:wsOpen", () => { dot.classList.add("on"); text.textContent = gettext("Live."); });
  document.body.addEventListener("htmx:wsClose", () => { dot.classList.remove("on"); text.textContent = gettext("Reconnecting…"); });
})();
