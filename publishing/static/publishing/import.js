// Drag and drop for the import form (publishing/admin.py): files dropped on the zone become
// the file input's files. Without this script the plain file input does the same job.
"use strict";
document.addEventListener("DOMContentLoaded", () => {
  const zone = document.querySelector("[data-dropzone]");
  if (!zone) return;
  const input = zone.querySelector("input[type=file]");
  const chosen = zone.querySelector("[data-chosen]");
  const hint = zone.querySelector(".import-dropzone-hint");
  if (!input || typeof DataTransfer === "undefined") return;
  if (hint) hint.hidden = false;
  const list = () => {
    chosen.replaceChildren(
      ...Array.from(input.files, (file) => {
        const item = document.createElement("li");
        item.textContent = `${file.name} (${Math.ceil(file.size / 1000)} kB)`;
        return item;
      })
    );
  };
  input.addEventListener("change", list);
  // Files chosen before this ran (a fast pick, or the browser restoring the form on "back").
  list();
  zone.addEventListener("dragover", (event) => {
    event.preventDefault();
    zone.classList.add("is-dragover");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("is-dragover"));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    zone.classList.remove("is-dragover");
    const files = new DataTransfer();
    for (const file of input.files) files.items.add(file);
    for (const file of event.dataTransfer.files) files.items.add(file);
    input.files = files.files;
    list();
  });
});
