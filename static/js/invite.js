// "Copy invite link" on a waiting table (templates/lobby/table.html#table_top): the
// table's address to the clipboard; where the clipboard cannot be written (an address
// that is not https, a browser that refuses), the link shows in a field, selected, to
// copy by hand. The region arrives with the page and again with every push of the
// table's panels, so one listener on the document serves every copy of it, and what it
// showed (the link, the word) is shown again in the copy that replaces it.
(function () {
  "use strict";
  let said = "";  // what the last click said, kept across pushes

  function linkOf(box) {
    const field = box.querySelector("[data-invite-link]");
    // Rendered without a request (a push), the field holds the table's path: made whole here.
    field.value = new URL(field.getAttribute("value"), window.location.href).href;
    return field;
  }

  function show(box, words) {
    said = words;
    linkOf(box).parentElement.hidden = false;
    box.querySelector(".invite-said").textContent = words;
  }

  function byHand(box, button) {
    show(box, button.dataset.manual);
    const field = linkOf(box);
    field.focus();
    field.select();
  }

  document.addEventListener("click", (event) => {
    const button = event.target.closest("[data-invite-copy]");
    if (!button) return;
    const box = button.closest("[data-invite]");
    if (!navigator.clipboard || !window.isSecureContext) {
      byHand(box, button);
      return;
    }
    navigator.clipboard.writeText(linkOf(box).value).then(
      () => show(box, button.dataset.copied),  // the link stays in view: what was copied
      () => byHand(box, button),
    );
  });

  let hadFocus = false;  // the field, focused when a push replaced it: focused again
  document.addEventListener("htmx:oobBeforeSwap", () => {
    hadFocus = Boolean(document.activeElement && document.activeElement.matches("[data-invite-link]"));
  });
  document.addEventListener("htmx:oobAfterSwap", () => {
    const box = document.querySelector("[data-invite]");
    if (!box || !said) return;
    show(box, said);
    if (hadFocus) {
      const field = linkOf(box);
      field.focus();
      field.select();
    }
  });
})();
