// The admin's item editor: add and remove answer rows, show the fields of the chosen kind,
// and re-render the learner's view of the question while the admin types.
(function () {
  "use strict";

  function setUpRows(container) {
    var body = container.querySelector("tbody");
    var template = container.querySelector("template[data-row-template]");
    var next = body.querySelectorAll("tr[data-row]").length;
    container.querySelector("[data-add-row]").addEventListener("click", function () {
      var html = template.innerHTML.replace(/__row__/g, String(next++));
      body.insertAdjacentHTML("beforeend", html);
      var input = body.lastElementChild.querySelector("input[type=text]");
      if (input) input.focus();
      container.dispatchEvent(new Event("input", { bubbles: true }));
    });
    container.addEventListener("click", function (event) {
      var button = event.target.closest("[data-remove-row]");
      if (!button) return;
      button.closest("tr").remove();
      container.dispatchEvent(new Event("input", { bubbles: true }));
    });
  }

  function showKind(form) {
    var kind = form.querySelector("[name=kind]").value;
    form.querySelectorAll("fieldset[class*=kind-]").forEach(function (fieldset) {
      fieldset.hidden = !fieldset.classList.contains("kind-" + kind);
    });
  }

  function setUpPreview(form, panel) {
    var url = panel.dataset.previewUrl;
    var frames = panel.querySelectorAll("iframe");
    var timer = null;
    var running = 0;
    function render() {
      var body = new FormData(form);
      var ticket = ++running;
      fetch(url, { method: "POST", body: body, credentials: "same-origin" })
        .then(function (response) { return response.text(); })
        .then(function (html) {
          if (ticket !== running) return;
          frames.forEach(function (frame) { frame.srcdoc = html; });
          panel.dataset.rendered = String(ticket);
        });
    }
    function later() {
      clearTimeout(timer);
      timer = setTimeout(render, 250);
    }
    form.addEventListener("input", later);
    form.addEventListener("change", later);
    render();
  }

  document.addEventListener("DOMContentLoaded", function () {
    var panel = document.getElementById("item-preview");
    if (!panel) return;
    var form = panel.closest("form");
    form.querySelectorAll("[data-item-rows]").forEach(setUpRows);
    var kind = form.querySelector("[name=kind]");
    if (kind) {
      kind.addEventListener("change", function () { showKind(form); });
      showKind(form);
    }
    setUpPreview(form, panel);
  });
})();
