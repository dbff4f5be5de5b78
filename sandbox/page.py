"""``/sandbox``: the sandbox person's Telegram chat with the bot, as a web page.

The page shows what the embedded Bot API server holds for the chat and acts through
:class:`~sandbox.botapi.Person`, so the bot hears exactly what Telegram would send it.
It needs no sign-in: it is served only in sandbox mode, on loopback, and it is the
sandbox person's own chat. POSTs take JSON (a file: application/octet-stream) only,
which a form on another site cannot send without a CORS preflight that this app never
grants.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

import jinja2
from aiohttp import web
from markupsafe import Markup

from common.i18n import Texts
from core import clock
from core.links import sign_user_token
from sandbox.botapi import MAX_CAPTION, MAX_GETFILE_SIZE, Json, Message, NoSuchButton, Person
from sandbox.samples import Sample
from web.app import DEPS

STATIC = Path(__file__).parent / "static"
MAX_TEXT = 4096
MAX_FILE = MAX_GETFILE_SIZE  # the largest file a bot can fetch; kept in memory here
MAX_FILE_NAME = 255
_TAGS = {
    "bold": ("<b>", "</b>"),
    "italic": ("<i>", "</i>"),
    "underline": ("<u>", "</u>"),
    "strikethrough": ("<s>", "</s>"),
    "code": ("<code>", "</code>"),
    "pre": ("<pre>", "</pre>"),
    "spoiler": ('<span class="spoiler">', "</span>"),
    "blockquote": ("<blockquote>", "</blockquote>"),
    "expandable_blockquote": ("<blockquote>", "</blockquote>"),
}


@dataclass(frozen=True)
class SandboxChat:
    """What the page works with: the person and the samples they can send."""

    person: Person
    samples: Sequence[Sample]

    def setup(self, app: web.Application) -> None:
        """Mount the page on the jellybit web app (``Tuning.web_parts`` of ``jellybit.app``)."""
        app[CHAT] = self
        app.router.add_get("/sandbox", _page)
        app.router.add_get("/sandbox/chat", _chat)
        app.router.add_post("/sandbox/send", _send)
        app.router.add_post("/sandbox/file", _file)
        app.router.add_post("/sandbox/sample", _sample)
        app.router.add_post("/sandbox/press", _press)
        app.router.add_static("/sandbox/static/", STATIC)


CHAT = web.AppKey("sandbox_chat", SandboxChat)
_TEMPLATES = jinja2.Environment(
    loader=jinja2.PackageLoader("sandbox", "templates"),
    autoescape=True,
    auto_reload=False,
    undefined=jinja2.StrictUndefined,
)


def message_html(text: str, entities: Sequence[Json]) -> Markup:
    """A message's plain text with its Bot API entities as safe HTML (links: http(s) only).

    Offsets count UTF-16 units, as Telegram's do; entities nest (outer first)."""
    index_at: dict[int, int] = {}
    units = 0
    for i, char in enumerate(text):
        index_at[units] = i
        units += 2 if ord(char) > 0xFFFF else 1
    index_at[units] = len(text)
    spans: list[tuple[int, int, str, str]] = []
    for entity in sorted(entities, key=lambda e: (e["offset"], -e["length"])):
        start = index_at.get(entity["offset"])
        end = index_at.get(entity["offset"] + entity["length"])
        tags = _tags(entity)
        if start is not None and end is not None and tags is not None:
            spans.append((start, end, *tags))
    out: list[str] = []
    stack: list[tuple[int, str]] = []  # (end, closing tag)
    for i in range(len(text) + 1):
        while stack and stack[-1][0] <= i:
            out.append(stack.pop()[1])
        for start, end, opening, closing in spans:
            if start == i:
                # Clipped to the enclosing entity, so the tags always nest.
                stack.append((min(end, stack[-1][0]) if stack else end, closing))
                out.append(opening)
        if i < len(text):
            out.append(escape(text[i], quote=False))
    return Markup("".join(out))


def _tags(entity: Json) -> tuple[str, str] | None:
    if entity["type"] == "text_link":
        url = str(entity.get("url", ""))
        if not url.startswith(("http://", "https://")):
            return None
        return f'<a href="{escape(url)}" target="_blank" rel="noopener noreferrer">', "</a>"
    return _TAGS.get(entity["type"])


def _texts(request: web.Request) -> Texts:
    return request.app[DEPS].i18n.texts(request.app[CHAT].person.language_code)


def _render(request: web.Request, template: str, **values: Any) -> str:
    tx = _texts(request)
    messages = request.app[CHAT].person.messages()
    return _TEMPLATES.get_template(template).render(
        _=tx.plain,
        lang=tx.language,
        messages=messages,
        by_id={m.message_id: m for m in messages},  # what a reply quotes
        message_html=message_html,
        **values,
    )


async def _page(request: web.Request) -> web.Response:
    deps, chat = request.app[DEPS], request.app[CHAT]
    # A bot-style signed link: opening it gives this browser a session for the pages.
    token = sign_user_token(deps.secret, chat.person.id, clock.now_ms() // 1000)
    html = _render(
        request, "sandbox.html", samples=chat.samples, list_url=f"/?t={token}", max_file=MAX_FILE
    )
    return web.Response(text=html, content_type="text/html")


async def _chat(request: web.Request) -> web.Response:
    html = _render(request, "sandbox_chat.html")
    return web.Response(text=html, content_type="text/html", headers={"Cache-Control": "no-store"})


async def _json_body(request: web.Request) -> dict[str, Any]:
    if request.content_type != "application/json":
        raise web.HTTPUnsupportedMediaType(text="JSON only")
    try:
        body = await request.json()
    except ValueError:
        raise web.HTTPBadRequest(text="not JSON") from None
    if not isinstance(body, dict):
        raise web.HTTPBadRequest(text="a JSON object, please")
    return body


async def _send(request: web.Request) -> web.Response:
    body = await _json_body(request)
    text = body.get("text")
    if not isinstance(text, str) or not 1 <= len(text.strip()) <= MAX_TEXT:
        raise web.HTTPBadRequest(text="1-4096 characters")
    person = request.app[CHAT].person
    replied = _find(person.messages(), _message_id(body.get("reply_to")))
    if body.get("reply_to") is not None and replied is None:
        notice = _texts(request).plain("That message is gone.")
        return web.json_response({"notice": notice}, status=400)
    await person.send_text(text.strip(), reply_to=replied)
    return web.json_response({})


async def _file(request: web.Request) -> web.Response:
    """A file the person sends (a ``.torrent``): the raw bytes; the name, the caption and
    the message it replies to in the query."""
    if request.content_type != "application/octet-stream":
        raise web.HTTPUnsupportedMediaType(text="application/octet-stream only")
    name = request.query.get("name", "").strip()
    caption = request.query.get("caption", "").strip()
    if not 1 <= len(name) <= MAX_FILE_NAME or "/" in name or len(caption) > MAX_CAPTION:
        raise web.HTTPBadRequest(text="a file name, and a caption of up to 1024 characters")
    tx = _texts(request)
    data = bytearray()
    async for chunk in request.content.iter_chunked(64 * 1024):
        data += chunk
        if len(data) > MAX_FILE:
            notice = tx.plain("That file is too large for the sandbox: up to 20 MB.")
            return web.json_response({"notice": notice}, status=413)
    if not data:
        return web.json_response({"notice": tx.plain("That file is empty.")}, status=400)
    person = request.app[CHAT].person
    replied = _find(person.messages(), _message_id(request.query.get("reply_to")))
    if request.query.get("reply_to") and replied is None:
        return web.json_response({"notice": tx.plain("That message is gone.")}, status=400)
    await person.send_document(name, bytes(data), caption=caption or None, reply_to=replied)
    return web.json_response({})


def _message_id(value: object) -> int | None:
    """A message id from JSON (a number) or a query (digits); None when absent."""
    if value is None or value == "":
        return None
    if isinstance(value, int) or (isinstance(value, str) and value.isdigit()):
        return int(value)
    raise web.HTTPBadRequest(text="reply_to: a message id")


async def _sample(request: web.Request) -> web.Response:
    samples = request.app[CHAT].samples
    index = (await _json_body(request)).get("sample")
    if not isinstance(index, int) or not 0 <= index < len(samples):
        raise web.HTTPBadRequest(text="no such sample")
    await request.app[CHAT].person.send_text(samples[index].magnet)
    return web.json_response({})


async def _press(request: web.Request) -> web.Response:
    body = await _json_body(request)
    person = request.app[CHAT].person
    message = _find(person.messages(), body.get("message_id"))
    button = body.get("button")
    gone = {"notice": _texts(request).plain("That button is gone.")}
    if message is None or not isinstance(button, str):
        return web.json_response(gone)
    try:
        answer = await person.press(message, button)
    except NoSuchButton:  # gone since the page showed it, or a link button
        return web.json_response(gone)
    if answer is None:
        return web.json_response({"notice": _texts(request).plain("The bot did not answer.")})
    return web.json_response({"notice": answer.text})


def _find(messages: list[Message], message_id: object) -> Message | None:
    return next((m for m in messages if m.message_id == message_id), None)
