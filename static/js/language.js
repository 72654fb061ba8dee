// The header's language menu: a pick made with the mouse or a touch sends the form at
// once. Arrow keys on a closed <select> change it one option at a time, so a keyboard
// user moves freely and sends with Enter (or the button beside it), never by accident.
(function () {
  "use strict";
  const select = document.getElementById("language-select");
  if (!select || !select.form) return;
  let byKey = false;
  select.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      select.form.requestSubmit();
      return;
    }
    byKey = event.key !== "Tab";
  });
  select.addEventListener("pointerdown", () => { byKey = false; });
  select.addEventListener("change", () => {
    if (!byKey) select.form.requestSubmit();
  });
})();
