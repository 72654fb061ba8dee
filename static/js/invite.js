// "Copy invite link" on a waiting table (templates/lobby/table.html#table_top): the
// table's address to the clipboard; where the clipboard cannot be written (an address
// that is not https, a browser that refuses), the link shows in a field, selected, to
// copy by hand. The button and field arrive with the page or with a push, so one
// listener on the document serves them all; their words come with the template.
(function () {
  "use strict";

  function linkOf(box) {
    const field = box.querySelector("[data-invite-link]");
    // Rendered without a request (a push), the field holds the table's path: made whole here.
    field.value = new URL(field.getAttribute("value"), window.location.href).href;
    return field;
  }

  function showField(box, button) {
    const field = linkOf(box);
    field.parentElement.hidden = false;
    box.querySelector(".invite-said").textContent = button.dataset.manual;
    field.focus();
    field.select();
  }

  document.addEventListener("click", (event) => {
    const button = event.target.closest("[data-invite-copy]");
    if (!button) return;
    const box = button.closest("[data-invite]");
    const field = linkOf(box);
    if (!navigator.clipboard || !window.isSecureContext) {
      showField(box, button);
      return;
    }
    navigator.clipboard.writeText(field.value).then(
      () => {
        field.parentElement.hidden = false;  // the link stays in view: what was copied
        box.querySelector(".invite-said").textContent = button.dataset.copied;
      },
      () => showField(box, button),
    );
  });
})();
