// The sandbox chat: sends what the person does as JSON, and reloads the chat every second.
// A file of its own: the Content-Security-Policy forbids inline scripts.
"use strict";

(() => {
  const chat = document.getElementById("chat");
  const notice = document.getElementById("notice");
  const form = document.getElementById("send");
  let shown = null;

  function say(text) {
    notice.hidden = !text;
    notice.textContent = text || "";
  }

  async function refresh() {
    const response = await fetch("/sandbox/chat", { cache: "no-store" });
    if (!response.ok) return;
    const html = await response.text();
    if (html === shown) return;
    const atBottom = window.innerHeight + window.scrollY >= document.body.scrollHeight - 80;
    chat.innerHTML = html; // rendered and escaped by the server
    shown = html;
    if (atBottom) window.scrollTo(0, document.body.scrollHeight);
  }

  async function post(path, body) {
    say("");
    try {
      const response = await fetch(path, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      const answer = await response.json().catch(() => ({}));
      say(response.ok ? answer.notice : `${response.status} ${response.statusText}`);
    } finally {
      await refresh();
    }
  }

  chat.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-message]");
    if (!button) return;
    button.disabled = true;
    post("/sandbox/press", { message_id: Number(button.dataset.message), button: button.dataset.button });
  });

  for (const button of document.querySelectorAll("button[data-sample]")) {
    button.addEventListener("click", () => post("/sandbox/sample", { sample: Number(button.dataset.sample) }));
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = form.elements.text.value.trim();
    if (!text) return;
    form.elements.text.value = "";
    post("/sandbox/send", { text });
  });

  setInterval(() => refresh().catch(() => {}), 1000);
  refresh().catch(() => {});
})();
