// The sandbox chat: sends what the person does (JSON, or a file's bytes), reloads the chat
// every second and keeps the newest message in view, as a messenger does.
// A file of its own: the Content-Security-Policy forbids inline scripts.
"use strict";

(() => {
  const chat = document.getElementById("chat");
  const notice = document.getElementById("notice");
  const form = document.getElementById("send");
  const file = document.getElementById("file");
  const replying = document.getElementById("replying");
  const replyingTo = document.getElementById("replying-to");
  const NOTICE_FOR_MS = 5000;
  let shown = null;
  let replyTo = null; // the id of the message the next one answers
  let hideNotice = null;

  // A button's answer shows above the text box, where the person is looking, for a while.
  function say(text) {
    clearTimeout(hideNotice);
    notice.hidden = !text;
    notice.textContent = text || "";
    if (text) hideNotice = setTimeout(() => say(""), NOTICE_FOR_MS);
  }

  function atBottom() {
    return window.innerHeight + window.scrollY >= document.body.scrollHeight - 80;
  }

  function toBottom() {
    window.scrollTo(0, document.body.scrollHeight);
  }

  // follow: scroll to the newest message (the person just wrote); otherwise only when
  // the person was at the bottom already, so that reading older messages is not disturbed.
  async function refresh(follow) {
    const response = await fetch("/sandbox/chat", { cache: "no-store" });
    if (!response.ok) return;
    const html = await response.text();
    const keep = follow || atBottom();
    if (html !== shown) {
      chat.innerHTML = html; // rendered and escaped by the server
      shown = html;
    }
    if (keep) toBottom();
  }

  function reply(id) {
    replyTo = id;
    const message = id && chat.querySelector(`.msg[data-id="${id}"]`);
    replying.hidden = !message;
    if (!message) return;
    const doc = message.querySelector(".file");
    const text = message.querySelector(".text");
    replyingTo.textContent = (text && text.textContent.trim()) || (doc && doc.textContent) || "";
    form.elements.text.focus();
  }

  async function send(path, init, follow) {
    say("");
    try {
      const response = await fetch(path, { method: "POST", ...init });
      const answer = await response.json().catch(() => ({}));
      say(answer.notice || (response.ok ? "" : `${response.status} ${response.statusText}`));
      return response.ok;
    } catch (error) {  // jellybit stopped, or the network: what was typed stays
      say(String(error));
      return false;
    } finally {
      await refresh(follow).catch(() => {});
    }
  }

  function post(path, body, follow) {
    const init = { headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
    return send(path, init, follow);
  }

  chat.addEventListener("click", (event) => {
    const toReply = event.target.closest("button[data-reply]");
    if (toReply) {
      reply(Number(toReply.dataset.reply));
      return;
    }
    const button = event.target.closest("button[data-message]");
    if (!button) return;
    button.disabled = true;
    post("/sandbox/press", { message_id: Number(button.dataset.message), button: button.dataset.button }, false);
  });

  document.getElementById("reply-cancel").addEventListener("click", () => reply(null));

  for (const button of document.querySelectorAll("button[data-sample]")) {
    button.addEventListener("click", () => post("/sandbox/sample", { sample: Number(button.dataset.sample) }, true));
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = form.elements.text.value.trim();
    if (!text) return;
    const body = replyTo ? { text, reply_to: replyTo } : { text };
    if (await post("/sandbox/send", body, true)) {  // refused: what was typed stays
      form.elements.text.value = "";
      reply(null);
    }
  });

  // A file is sent as soon as it is picked, with the text box as its caption.
  file.addEventListener("change", async () => {
    const picked = file.files[0];
    file.value = "";
    if (!picked) return;
    if (picked.size > Number(form.dataset.maxFile)) {
      say(form.dataset.tooLarge);
      return;
    }
    const query = new URLSearchParams({ name: picked.name, caption: form.elements.text.value.trim() });
    if (replyTo) query.set("reply_to", String(replyTo));
    const init = { headers: { "Content-Type": "application/octet-stream" }, body: picked };
    if (await send(`/sandbox/file?${query}`, init, true)) {
      form.elements.text.value = "";
      reply(null);
    }
  });

  setInterval(() => refresh(false).catch(() => {}), 1000);
  refresh(true).catch(() => {});
})();
