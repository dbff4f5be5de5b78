// Copy buttons: <button class="copy" data-copy="text" data-done="Copied">.
// A file of its own because the Content-Security-Policy forbids inline scripts.
"use strict";

function copyWithSelection(text) {
  // Older in-app browsers and plain-http pages have no navigator.clipboard.
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.className = "offscreen";
  document.body.appendChild(area);
  area.select();
  let copied = false;
  try {
    copied = document.execCommand("copy");
  } catch (error) {
    copied = false;
  }
  document.body.removeChild(area);
  return copied;
}

async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch (error) {
      // Refused (permissions): try the old way below.
    }
  }
  return copyWithSelection(text);
}

function showDone(button) {
  const label = button.textContent;
  button.textContent = button.dataset.done || label;
  button.disabled = true;
  window.setTimeout(() => {
    button.textContent = label;
    button.disabled = false;
  }, 1500);
}

document.addEventListener("click", async (event) => {
  const button = event.target instanceof Element ? event.target.closest("button.copy") : null;
  if (button === null || button.dataset.copy === undefined) {
    return;
  }
  if (await copyText(button.dataset.copy)) {
    showDone(button);
  }
});
