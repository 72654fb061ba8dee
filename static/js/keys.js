// Key bindings page: a focused .key-capture box takes the next key pressed and
// stores its KeyboardEvent.key, so arrows, Control, Enter and Space can be bound.
// Tab still moves between boxes (keyboard users must be able to leave a box), and a
// modifier (Shift, Control, Alt, Meta) is taken on key-up only if no other key came
// with it, so Shift+Tab navigates instead of binding Shift.
(function () {
  "use strict";

  const NAMES = {
    " ": pgettext("key", "Space"), ArrowLeft: "←", ArrowRight: "→", ArrowUp: "↑", ArrowDown: "↓",
    Control: pgettext("key", "Ctrl"), Meta: "⌘",
  };
  const MODIFIERS = new Set(["Shift", "Control", "Alt", "Meta"]);

  function label(key) {
    return NAMES[key] || key;
  }

  function showName(input) {
    let badge = input.nextElementSibling;
    if (!badge || !badge.classList.contains("key-name")) {
      badge = document.createElement("kbd");
      badge.className = "key-name";
      badge.setAttribute("aria-hidden", "true");
      input.insertAdjacentElement("afterend", badge);
    }
    badge.textContent = label(input.value);
  }

  function set(input, key) {
    input.value = key;
    showName(input);
    input.classList.add("key-captured");
  }

  document.querySelectorAll("input.key-capture").forEach((input) => {
    let pendingModifier = null;
    input.setAttribute("autocomplete", "off");
    input.setAttribute("spellcheck", "false");
    showName(input);

    input.addEventListener("keydown", (event) => {
      if (event.key === "Tab") {
        pendingModifier = null;
        return; // let the browser move focus
      }
      event.preventDefault();
      if (MODIFIERS.has(event.key)) {
        pendingModifier = event.key;
        return;
      }
      pendingModifier = null;
      set(input, event.key);
    });

    input.addEventListener("keyup", (event) => {
      if (pendingModifier && event.key === pendingModifier) {
        event.preventDefault();
        set(input, pendingModifier);
      }
      pendingModifier = null;
    });

    input.addEventListener("focus", () => {
      pendingModifier = null;
      input.select();
    });
    // Typing is replaced by capturing: keep pasted or dropped text out.
    input.addEventListener("paste", (event) => event.preventDefault());
    input.addEventListener("drop", (event) => event.preventDefault());
  });
})();
