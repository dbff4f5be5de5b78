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

// Live progress: elements with data-live="<download id>" are refreshed from /live every
// few seconds while one of them is active (data-active); nothing is polled otherwise.
// Without JavaScript the page shows what it showed when it loaded.
const LIVE_EVERY_MS = 3000;

function liveElements() {
  return Array.from(document.querySelectorAll("[data-live]"));
}

function showLive(element, data) {
  const state = element.querySelector("[data-live-state]");
  if (state !== null) {
    state.textContent = data.label;
    state.className = state.className.replace(/state-\S+/, "state-" + data.state);
  }
  const progress = element.querySelector("[data-live-progress]");
  if (progress !== null) {
    progress.value = data.percent;
  }
  const percent = element.querySelector("[data-live-percent]");
  if (percent !== null) {
    percent.textContent = data.percent + "%";
  }
  const numbers = element.querySelector("[data-live-numbers]");
  if (numbers !== null) {
    numbers.textContent = data.numbers;
  }
  element.toggleAttribute("data-active", data.active);
}

async function refreshLive() {
  const elements = liveElements();
  if (!elements.some((element) => element.hasAttribute("data-active"))) {
    return; // nothing is moving: stop
  }
  try {
    const ids = elements.map((element) => element.dataset.live).join(",");
    const response = await fetch("/live?ids=" + encodeURIComponent(ids), {
      credentials: "same-origin",
    });
    if (response.ok) {
      const answer = await response.json();
      for (const element of elements) {
        const data = answer[element.dataset.live];
        if (data !== undefined) {
          showLive(element, data);
        }
      }
    }
  } catch (error) {
    // Offline for a moment: try again at the next tick.
  }
  window.setTimeout(refreshLive, LIVE_EVERY_MS);
}

window.setTimeout(refreshLive, LIVE_EVERY_MS);
