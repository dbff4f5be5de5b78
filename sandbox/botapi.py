"""The sandbox's Telegram: an embedded Bot API server and the person who chats through it.

``make run`` without a config points jellybit's real aiogram ``Bot`` at
:class:`BotApiServer` (``telegram.api_base``); the ``/sandbox`` page acts through
:class:`Person`, so the bot hears exactly what Telegram would send it.

It answers the methods jellybit calls while it polls (``getUpdates``, ``deleteWebhook``,
``sendMessage``, ``editMessageText``, ``answerCallbackQuery``, ``sendPhoto`` — by URL, which
it fetches as Telegram does and refuses when it cannot, or uploaded —,
``editMessageCaption``, ``editMessageReplyMarkup``, ``editMessageMedia`` (photos),
``getFile`` and the file URL (for a ``.torrent`` the person sent: ``Person.send_document``),
and ``getMe``, which aiogram asks when a command names a bot:
``/help@jellybit_sandbox_bot``) and refuses what real
Telegram refuses, with Telegram's own wording: HTML is parsed as tdlib parses it
(:func:`parse_html`), texts are 1-4096 characters after parsing, captions 0-1024,
callback_data is 1-64
bytes, button URLs must be http(s) with a dotted host (``localhost`` is refused), edits
must change something, unknown messages, chats and callback queries are refused.

The tests' server, ``tests/support/telegram.py``, extends this one with what only tests
need: faults (429s, 5xx, an unreachable Telegram), webhook mode, a blocked bot,
group chats, the log of calls, and the methods jellybit calls only outside the sandbox:
in webhook mode or in ``jellybit check`` (``setWebhook``, ``getWebhookInfo``).

Deliberately not modelled: Markdown parse modes (refused with a message saying so),
``tg-emoji`` (no custom emoji here: "Unsupported start tag"), inline mode, media but
photos.

    async with BotApiServer(token=TOKEN, bot_username="jellybit_sandbox_bot") as server:
        person = server.user(42, first_name="Ann", language_code="en")
        await person.send_text("/start")
        ...  # jellybit, with telegram.api_base = server.base_url
        answer = await person.press(person.messages()[-1], "Cancel")  # None: no answer in time
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import hashlib
import json
import mimetypes
import re
import secrets
import string
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from types import TracebackType
from typing import Any, Self
from urllib.parse import urlsplit

import aiohttp
from aiohttp import web

from core import clock

Json = dict[str, Any]
Handler = Callable[["Params"], Awaitable[Any]]

MAX_TEXT = 4096
MAX_CAPTION = 1024
MAX_CALLBACK_DATA = 64
WRONG_PHOTO = "Bad Request: wrong file identifier/HTTP URL specified"
FETCH_WITHIN = 5.0  # seconds Telegram gives a photo URL (it fetches it itself)
MAX_GETFILE_SIZE = 20 * 1024 * 1024  # bytes: bigger files get "file is too big"

DELETE_WITHIN = 48 * 3600  # seconds: a bot's message is deleted for everyone only within
NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup are "
    "exactly the same as a current content and reply markup of the message"
)
QUERY_TOO_OLD = "Bad Request: query is too old and response timeout expired or query ID is invalid"
_BUTTON_ACTIONS = (
    "url", "callback_data", "web_app", "login_url", "switch_inline_query", "copy_text",
    "switch_inline_query_current_chat", "switch_inline_query_chosen_chat", "callback_game", "pay",
)  # fmt: skip


# --- HTML, as Telegram parses it --------------------------------------------------------------

HTML_TAGS = frozenset({
    "a", "b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "code", "pre", "tg-spoiler",
    "span", "blockquote",
})  # fmt: skip
_ENTITY_TYPES = {
    **dict.fromkeys(("b", "strong"), "bold"),
    **dict.fromkeys(("i", "em"), "italic"),
    **dict.fromkeys(("u", "ins"), "underline"),
    **dict.fromkeys(("s", "strike", "del"), "strikethrough"),
    **dict.fromkeys(("tg-spoiler", "span"), "spoiler"),
    "code": "code",
    "pre": "pre",
}
_SPACE = " \t\r\n\v\f\0"  # tdlib's is_space; "\0" stands for the end of the text
_NAME_TOKEN = frozenset(string.ascii_letters + string.digits + ".-")
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)
_NAMED_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_TRIM = " \t\r\n"


class HtmlParseError(ValueError):
    """HTML Telegram refuses; the message is Telegram's (after ``can't parse entities: ``)."""


def _u16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _decode_entity(html: str, pos: int) -> tuple[str | None, int]:
    """tdlib's decode_html_entity: (character, position after it) or (None, pos)."""
    n, end = len(html), pos + 1
    if end < n and html[end] == "#":
        end += 1
        code, digits, base = 0, string.digits, 10
        if end < n and html[end] == "x":
            end, digits, base = end + 1, string.hexdigits, 16
        while end < n and html[end] in digits:
            code = code * base + int(html[end], 16)
            end += 1
        if code == 0 or code >= 0x10FFFF or end - pos >= 10:
            return None, pos
        if 0xD800 <= code <= 0xDFFF:
            raise HtmlParseError(
                "Text contains invalid Unicode characters after decoding HTML entities, "
                "check for unmatched surrogate code units"
            )
        char = chr(code)
    else:
        while end < n and html[end] in string.ascii_letters:
            end += 1
        named = _NAMED_ENTITIES.get(html[pos + 1 : end])
        if named is None:
            return None, pos
        char = named
    return char, end + 1 if end < n and html[end] == ";" else end


def _link(url: str) -> str | None:
    """The URL of a text_link, or None when Telegram drops the link."""
    try:
        parts = urlsplit(url if "://" in url else f"http://{url}")
    except ValueError:
        return None
    if parts.scheme in ("http", "https") and parts.hostname and " " not in url:
        return parts.geturl() if parts.path else parts._replace(path="/").geturl()
    return url if parts.scheme == "tg" else None


def parse_html(html: str) -> tuple[str, list[Json]]:
    """Parse ``parse_mode=HTML`` text as Telegram does: (plain text, Bot API entities).

    A port of tdlib's ``parse_html`` (what the Bot API runs), not of a browser's parser: any
    ``<`` that does not open a supported tag is an error (``a < b`` → ``Unsupported start tag
    ""``), only ``&lt; &gt; &amp; &quot;`` and numeric references are decoded (a bare ``&``,
    ``&nbsp;`` or ``>`` stays as it is), and byte offsets count UTF-8 bytes of the input.
    """
    n = len(html)

    def at(i: int) -> str:
        return html[i] if i < n else "\0"

    def offset(i: int) -> int:
        return len(html[:i].encode())

    out: list[str] = []
    u16 = 0
    stack: list[tuple[str, str, int, int]] = []  # tag, argument, utf-16 offset, len(out)
    entities: list[Json] = []
    i = 0
    while i < n:
        if html[i] == "&":
            char, end = _decode_entity(html, i)
            if char is not None:
                out.append(char)
                u16, i = u16 + _u16(char), end
                continue
        if html[i] != "<":
            out.append(html[i])
            u16, i = u16 + _u16(html[i]), i + 1
            continue
        begin, i = i, i + 1
        if at(i) != "/":
            while at(i) not in _SPACE and at(i) != ">":
                i += 1
            if i >= n:
                raise HtmlParseError(f"Unclosed start tag at byte offset {offset(begin)}")
            tag = html[begin + 1 : i].translate(_ASCII_LOWER)
            if tag not in HTML_TAGS:
                raise HtmlParseError(
                    f'Unsupported start tag "{tag}" at byte offset {offset(begin)}'
                )
            argument = ""
            while at(i) != ">":
                while i < n and at(i) in _SPACE:
                    i += 1
                if at(i) == ">":
                    break
                name_begin = i
                while at(i) not in _SPACE and at(i) not in "=>":
                    i += 1
                name = html[name_begin:i]
                where = f'the tag "{tag}" at byte offset {offset(begin)}'
                if not name:
                    raise HtmlParseError(f"Empty attribute name in {where}")
                while i < n and at(i) in _SPACE:
                    i += 1
                if at(i) != "=":
                    if tag == "blockquote" and name == "expandable":
                        argument = "1"
                        continue
                    raise HtmlParseError(
                        f"Expected equal sign in declaration of an attribute of {where}"
                    )
                i += 1
                while i < n and at(i) in _SPACE:
                    i += 1
                if i >= n:
                    raise HtmlParseError(
                        f'Unclosed start tag "{tag}" at byte offset {offset(begin)}'
                    )
                if at(i) not in "'\"":
                    token_begin = i
                    while at(i) in _NAME_TOKEN:
                        i += 1
                    value = html[token_begin:i].translate(_ASCII_LOWER)
                    if at(i) not in _SPACE and at(i) != ">":
                        raise HtmlParseError(
                            f"Unexpected end of name token at byte offset {offset(token_begin)}"
                        )
                else:
                    quote, chars = html[i], []
                    i += 1
                    while i < n and html[i] != quote:
                        char, end = _decode_entity(html, i) if html[i] == "&" else (None, i)
                        chars.append(html[i] if char is None else char)
                        i = i + 1 if char is None else end
                    i += 1 if i < n else 0
                    value = "".join(chars)
                if i >= n:
                    raise HtmlParseError(f"Unclosed start tag at byte offset {offset(begin)}")
                if tag == "a" and name == "href":
                    argument = value
                elif tag == "code" and name == "class" and value.startswith("language-"):
                    argument = value[len("language-") :]
                elif tag == "span" and name == "class" and value.startswith("tg-"):
                    argument = value[len("tg-") :]
            if tag == "span" and argument != "spoiler":
                raise HtmlParseError(
                    f'Tag "span" must have class "tg-spoiler" at byte offset {offset(begin)}'
                )
            stack.append((tag, argument, u16, len(out)))
        else:
            if not stack:
                raise HtmlParseError(f"Unexpected end tag at byte offset {offset(begin)}")
            while at(i) not in _SPACE and at(i) != ">":
                i += 1
            end_name = html[begin + 2 : i]
            while i < n and at(i) in _SPACE:
                i += 1
            if at(i) != ">":
                raise HtmlParseError(f"Unclosed end tag at byte offset {offset(begin)}")
            tag, argument, start, out_start = stack.pop()
            if end_name and end_name != tag:
                raise HtmlParseError(
                    f"Unmatched end tag at byte offset {offset(begin)}, "
                    f'expected "</{tag}>", found "</{end_name}>"'
                )
            if u16 > start:
                entity = _entity(tag, argument, start, u16 - start, "".join(out[out_start:]))
                last = entities[-1] if entities else None
                if (
                    tag == "pre"
                    and last is not None
                    and last["type"] == "code"
                    and (last["offset"], last["length"]) == (start, u16 - start)
                    and last.get("language")
                ):
                    entities[-1] = {**last, "type": "pre"}
                elif entity is not None:
                    entities.append(entity)
        i += 1  # past the ">"
    if stack:
        raise HtmlParseError(f'Can\'t find end tag corresponding to start tag "{stack[-1][0]}"')
    for entity in entities:
        if entity["type"] == "code":
            entity.pop("language", None)
    order = sorted(enumerate(entities), key=lambda p: (p[1]["offset"], -p[1]["length"], -p[0]))
    return "".join(out), [entity for _, entity in order]  # outer first


def _entity(tag: str, argument: str, start: int, length: int, inner: str) -> Json | None:
    span: Json = {"offset": start, "length": length}
    if tag == "a":
        url = _link(argument or inner)
        return None if url is None else {"type": "text_link", **span, "url": url}
    if tag == "blockquote":
        return {"type": "expandable_blockquote" if argument else "blockquote", **span}
    if tag == "code" and argument:
        return {"type": "code", **span, "language": argument}
    return {"type": _ENTITY_TYPES[tag], **span}


def format_text(text: str, parse_mode: str | None, entities: Any) -> tuple[str, list[Json], str]:
    """(plain text, entities, html) of a message text as Telegram stores it; raises ApiError."""
    if parse_mode and parse_mode.upper() == "HTML":
        try:
            plain, parsed = parse_html(text)
        except HtmlParseError as e:
            raise ApiError(400, f"Bad Request: can't parse entities: {e}") from None
        html = text
    elif parse_mode:
        raise ApiError(400, "Bad Request: this fake Telegram parses only parse_mode=HTML")
    else:
        plain, html = text, escape(text, quote=False)
        parsed = [e for e in entities if isinstance(e, dict)] if isinstance(entities, list) else []
    stripped = plain.strip(_TRIM)  # Telegram trims; entities move with the text
    shift, total = _u16(plain[: len(plain) - len(plain.lstrip(_TRIM))]), _u16(stripped)
    moved: list[Json] = []
    for item in parsed:
        start = max(int(item["offset"]) - shift, 0)
        end = min(int(item["offset"]) + int(item["length"]) - shift, total)
        if end > start:
            moved.append({**item, "offset": start, "length": end - start})
    if not stripped:
        raise ApiError(400, "Bad Request: message text is empty")
    if len(stripped) > MAX_TEXT:
        raise ApiError(400, "Bad Request: message is too long")
    return stripped, moved, html


# --- the chat's content ------------------------------------------------------------------------


class ApiError(Exception):
    """A Bot API error answer: ``{"ok": false, "error_code": status, "description": ...}``."""

    def __init__(self, status: int, description: str, retry_after: int | None = None) -> None:
        super().__init__(description)
        self.status, self.description, self.retry_after = status, description, retry_after

    def body(self) -> Json:
        body: Json = {"ok": False, "error_code": self.status, "description": self.description}
        if self.retry_after is not None:
            body["parameters"] = {"retry_after": self.retry_after}
        return body


class NoSuchButton(LookupError):
    """A press that cannot happen: the message is gone, or has no such callback button."""


@dataclass(frozen=True)
class BotUser:
    id: int
    username: str
    first_name: str

    def to_json(self) -> Json:
        return {
            "id": self.id,
            "is_bot": True,
            "first_name": self.first_name,
            "username": self.username,
        }


@dataclass(frozen=True)
class Button:
    text: str
    callback_data: str | None = None
    url: str | None = None


@dataclass(frozen=True)
class Document:
    """A file a person sent (the tests' people send ``.torrent`` files)."""

    file_id: str
    file_unique_id: str
    file_name: str
    mime_type: str
    file_size: int

    def to_json(self) -> Json:
        return dict(self.__dict__)


@dataclass
class Message:
    """A message as the people in the chat see it: ``text`` is the plain (parsed) text, or the
    caption of a document; ``html`` is what the bot sent (escaped text when it sent no HTML)."""

    chat_id: int
    message_id: int
    from_bot: bool
    sender_id: int
    text: str
    html: str
    date: int
    buttons: list[list[Button]] = field(default_factory=list)
    reply_to_message_id: int | None = None
    edits: int = 0
    edit_date: int | None = None
    entities: list[Json] = field(default_factory=list)
    document: Document | None = None
    photo: list[Json] | None = None  # the sizes of a photo a person sent (its text: the caption)
    link_preview_options: Json | None = None  # as the bot asked for them
    reply_markup: Json | None = field(default=None, repr=False)

    @property
    def button_texts(self) -> list[str]:
        return [button.text for row in self.buttons for button in row]


@dataclass(frozen=True)
class CallbackAnswer:
    """What the bot's answerCallbackQuery showed the person who pressed the button."""

    text: str | None
    show_alert: bool = False
    url: str | None = None


@dataclass
class Chat:
    id: int
    type: str
    title: str | None = None
    first_name: str | None = None
    username: str | None = None
    started: bool = False  # wrote to the bot at least once: the bot may write back
    messages: dict[int, Message] = field(default_factory=dict)
    deleted: dict[int, Message] = field(default_factory=dict)  # as they were when deleted
    last_message_id: int = 0

    def to_json(self) -> Json:
        fields = {"title": self.title, "first_name": self.first_name, "username": self.username}
        return {"id": self.id, "type": self.type} | {k: v for k, v in fields.items() if v}


class Params:
    """A request's parameters: form fields are strings, JSON bodies hold any values."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.values = values

    def get(self, key: str) -> Any:
        value = self.values.get(key)
        return None if value == "" else value

    def text(self, key: str) -> str | None:
        value = self.get(key)
        return None if value is None else str(value)

    def integer(self, key: str, default: int | None = None) -> int:
        value = self.get(key)
        if value is None:
            if default is None:
                raise ApiError(400, f'Bad Request: parameter "{key}" is required')
            return default
        try:
            return int(value)
        except (TypeError, ValueError):
            raise ApiError(400, f'Bad Request: invalid parameter "{key}"') from None

    def flag(self, key: str) -> bool:
        return self.get(key) in (True, "true", "True", "1", 1)

    def obj(self, key: str, what: str = "") -> Any:
        value = self.get(key)
        if isinstance(value, str):
            try:
                return json.loads(value)
            except ValueError:
                raise ApiError(400, f"Bad Request: can't parse {what or key} JSON object") from None
        return value


def _check_markup(markup: Any) -> tuple[Json | None, list[list[Button]]]:
    """(markup to store, inline buttons) of a reply_markup; an empty keyboard is no keyboard."""
    if markup is None:
        return None, []
    if not isinstance(markup, dict):
        raise ApiError(400, "Bad Request: can't parse reply keyboard markup JSON object")
    rows = markup.get("inline_keyboard")
    if rows is None:  # a reply keyboard, ReplyKeyboardRemove or ForceReply: not inline buttons
        return markup, []
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise ApiError(400, 'Bad Request: field "inline_keyboard" must be an Array of Arrays')
    buttons: list[list[Button]] = []
    for row in rows:
        out: list[Button] = []
        for raw in row:
            if not isinstance(raw, dict) or not isinstance(raw.get("text"), str):
                raise ApiError(
                    400,
                    "Bad Request: can't parse inline keyboard button: "
                    'Field "text" must be of type String',
                )
            if not any(key in raw for key in _BUTTON_ACTIONS):
                raise ApiError(
                    400,
                    "Bad Request: can't parse inline keyboard button: "
                    "Text buttons are unallowed in the inline keyboard",
                )
            data, url = raw.get("callback_data"), raw.get("url")
            if data is not None and (
                not isinstance(data, str) or not 1 <= len(data.encode()) <= MAX_CALLBACK_DATA
            ):
                raise ApiError(400, "Bad Request: BUTTON_DATA_INVALID")
            if url is not None and not _button_url_ok(url):
                raise ApiError(400, "Bad Request: BUTTON_URL_INVALID")
            out.append(Button(raw["text"], data, url))
        if out:
            buttons.append(out)
    return (markup, buttons) if buttons else (None, [])


def _preview_options(p: Params) -> Json | None:
    """The message's link preview options as Telegram keeps them (the legacy flag
    ``disable_web_page_preview`` becomes ``is_disabled``)."""
    options = p.obj("link_preview_options", "link preview options")
    if isinstance(options, dict):
        kept = {k: v for k, v in options.items() if k in _PREVIEW_OPTIONS and v is not None}
        return kept or None
    if p.flag("disable_web_page_preview"):
        return {"is_disabled": True}
    return None


_PREVIEW_OPTIONS = (
    "is_disabled",
    "url",
    "prefer_small_media",
    "prefer_large_media",
    "show_above_text",
)


@dataclass
class _Numbers:
    """The last update id and each chat's last message id, kept in a JSON file."""

    update_id: int = 100_000
    messages: dict[int, int] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path | None) -> _Numbers:
        try:
            data = json.loads(path.read_text()) if path is not None else {}
            return cls(
                int(data.get("update_id", 100_000)),
                {int(k): int(v) for k, v in dict(data.get("messages", {})).items()},
            )
        except (OSError, ValueError, TypeError, AttributeError):
            return cls()

    def save(self, path: Path | None) -> None:
        if path is None:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        scratch = path.with_suffix(".tmp")
        scratch.write_text(json.dumps({"update_id": self.update_id, "messages": self.messages}))
        scratch.replace(path)


def _button_url_ok(url: Any) -> bool:
    """http(s) with a dotted host (Telegram refuses ``http://localhost:8080``), or tg://."""
    try:
        parts = urlsplit(url) if isinstance(url, str) else None
        host = parts.hostname if parts is not None else None
    except ValueError:
        return False
    if parts is None:
        return False
    if parts.scheme in ("http", "https"):
        return host is not None and "." in host
    return parts.scheme == "tg" and bool(parts.netloc)


async def _read_params(request: web.Request) -> dict[str, Any]:
    """Query, JSON body or form fields; an uploaded file part is its bytes."""
    values: dict[str, Any] = dict(request.query)
    if request.method != "POST" or not request.can_read_body:
        return values
    if request.content_type == "application/json":
        body = await request.json()
        if isinstance(body, dict):
            values.update(body)
        return values
    for key, value in (await request.post()).items():
        if isinstance(value, str):
            values[key] = value
        elif isinstance(value, web.FileField):
            values[key] = value.file.read()
    return values


# --- the server --------------------------------------------------------------------------------


class BotApiServer:
    """The Bot API at ``base_url`` (127.0.0.1, a free port), for one bot ``token``."""

    def __init__(self, *, token: str, bot_username: str, state: Path | None = None) -> None:
        self.token = token
        self.bot_user = BotUser(int(token.split(":", 1)[0]), bot_username, "jellybit")
        self._chats: dict[int, Chat] = {}
        self._users: dict[int, Person] = {}
        self._updates: list[Json] = []
        # Like Telegram, numbers go on across restarts (``state``: where they are kept):
        # a new run must not hand out update or message ids the bot has seen.
        self._state = state
        self._numbers = _Numbers.load(state)
        self._update_id = self._numbers.update_id
        self._allowed_updates: list[str] = []
        self._changed = asyncio.Event()
        self._poller = 0
        self._queries: dict[str, asyncio.Future[CallbackAnswer]] = {}
        self._stopping = False
        self._runner: web.AppRunner | None = None
        self._port: int | None = None
        self._methods = {name.lower(): (name, fn) for name, fn in self._handlers().items()}
        self._app = web.Application()
        self._app.router.add_route("*", "/bot{token}/{method}", self._handle_api)
        self._files: dict[str, tuple[Document, str, bytes]] = {}  # file_id -> (doc, path, data)
        self._app.router.add_get("/file/bot{token}/{path:.+}", self._handle_file)

    def _handlers(self) -> dict[str, Handler]:
        """The Bot API methods answered, by name."""
        return {
            "getMe": self._get_me,
            "getUpdates": self._get_updates,
            "deleteWebhook": self._delete_webhook,
            "sendMessage": self._send_message,
            "editMessageText": self._edit_message_text,
            "answerCallbackQuery": self._answer_callback_query,
            "getFile": self._get_file,
            "sendPhoto": self._send_photo,
            "editMessageCaption": self._edit_message_caption,
            "editMessageReplyMarkup": self._edit_message_reply_markup,
            "editMessageMedia": self._edit_message_media,
            "deleteMessage": self._delete_message,
        }

    # lifecycle

    async def start(self) -> None:
        self._runner = web.AppRunner(self._app, access_log=None, shutdown_timeout=2.0)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        self._port = self._runner.addresses[0][1]

    async def stop(self) -> None:
        self._stopping = True
        self._notify()  # held getUpdates answer at once
        if self._runner is not None:
            await self._runner.cleanup()

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    @property
    def base_url(self) -> str:
        if self._port is None:
            raise RuntimeError("the Bot API server is not started")
        return f"http://127.0.0.1:{self._port}"

    # the people

    def user(
        self, user_id: int, *, first_name: str, language_code: str, username: str | None = None
    ) -> Person:
        """A person; their private chat with the bot has chat id == ``user_id``."""
        chat = self._private_chat(user_id, first_name, username)
        person = Person(self, user_id, first_name, language_code, username, chat)
        self._users[user_id] = person
        return person

    def _private_chat(self, user_id: int, first_name: str, username: str | None) -> Chat:
        chat = Chat(user_id, "private", first_name=first_name, username=username)
        chat.last_message_id = self._numbers.messages.get(user_id, 0)
        return self._chats.setdefault(user_id, chat)

    def _add_message(
        self, chat: Chat, *, sender_id: int, reply_to: int | None = None, **fields: Any
    ) -> Message:
        chat.last_message_id += 1
        message = Message(
            chat_id=chat.id,
            message_id=chat.last_message_id,
            from_bot=sender_id == self.bot_user.id,
            sender_id=sender_id,
            date=clock.now_ms() // 1000,
            reply_to_message_id=reply_to,
            **fields,
        )
        chat.messages[message.message_id] = message
        self._numbers.messages[chat.id] = chat.last_message_id
        self._numbers.save(self._state)
        return message

    def _from_user(self, user: Person, reply_to: Message | None, **fields: Any) -> Message:
        user.chat.started = True
        reply = None if reply_to is None else reply_to.message_id
        message = self._add_message(user.chat, sender_id=user.id, reply_to=reply, **fields)
        self._queue("message", self._message_json(user.chat, message))
        return copy.deepcopy(message)

    def _store_file(self, name: str, data: bytes, mime_type: str | None = None) -> Document:
        """A file a person sends, kept for ``getFile`` and the file URL."""
        if mime_type is None:
            guessed = "application/x-bittorrent" if name.endswith(".torrent") else None
            mime_type = guessed or mimetypes.guess_type(name)[0] or "application/octet-stream"
        doc = Document(
            file_id=f"BQACAgIAAxkBAAI{secrets.token_urlsafe(24)}",
            file_unique_id=f"AgAD{secrets.token_urlsafe(9)}",
            file_name=name,
            mime_type=mime_type,
            file_size=len(data),
        )
        suffix = name[name.rfind(".") :] if "." in name else ""
        self._files[doc.file_id] = (doc, f"documents/file_{len(self._files)}{suffix}", data)
        return doc

    async def _press(
        self, user: Person, message: Message, button_text: str, within: float, *, as_seen: bool
    ) -> CallbackAnswer | None:
        current = user.chat.messages.get(message.message_id)
        if current is None:
            raise NoSuchButton(f"message #{message.message_id} is gone")
        shown = message if as_seen else current
        button = next((b for row in shown.buttons for b in row if b.text == button_text), None)
        if button is None:
            raise NoSuchButton(
                f"no button {button_text!r} on message #{current.message_id} "
                f"(it has {current.button_texts})"
            )
        if button.callback_data is None:
            raise NoSuchButton(f"{button_text!r} opens {button.url}: the bot hears nothing")
        query_id = str(secrets.randbits(62))
        answer: asyncio.Future[CallbackAnswer] = asyncio.get_running_loop().create_future()
        self._queries[query_id] = answer
        self._queue(
            "callback_query",
            {
                "id": query_id,
                "from": user.to_json(),
                "chat_instance": str(abs(user.chat.id) * 31),
                "message": self._message_json(user.chat, current),
                "data": button.callback_data,
            },
        )
        try:
            return await asyncio.wait_for(answer, within)
        except TimeoutError:
            return None
        finally:
            self._queries.pop(query_id, None)  # a late answer is "query is too old"

    # updates

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def _queue(self, kind: str, payload: Json) -> None:
        self._update_id += 1
        self._numbers.update_id = self._update_id
        self._numbers.save(self._state)
        self._updates.append({"update_id": self._update_id, kind: payload})
        self._notify()

    # HTTP

    async def _handle_api(self, request: web.Request) -> web.StreamResponse:
        values = await _read_params(request)
        try:
            result = await self._execute(
                request.match_info["method"], values, token=request.match_info["token"]
            )
        except ApiError as e:
            return web.json_response(e.body(), status=e.status)
        return web.json_response({"ok": True, "result": result})

    async def _handle_file(self, request: web.Request) -> web.StreamResponse:
        """A file's bytes at the URL ``getFile`` gives (aiogram's ``bot.download``)."""
        if request.match_info["token"] != self.token:
            return web.json_response(ApiError(401, "Unauthorized").body(), status=401)
        path = request.match_info["path"]
        found = next((data for _, p, data in self._files.values() if p == path), None)
        if found is None:
            return web.json_response(ApiError(404, "Not Found").body(), status=404)
        return web.Response(body=found, content_type="application/octet-stream")

    async def _execute(self, name: str, values: dict[str, Any], token: str | None = None) -> Any:
        """Run method ``name``; ``token`` is None for a method in a webhook answer."""
        if token is not None and token != self.token:
            raise ApiError(401, "Unauthorized")
        known = self._methods.get(name.lower())
        if known is None:
            raise ApiError(404, "Not Found")
        return await known[1](Params(values))

    # shared pieces of methods

    def _chat_for(self, p: Params) -> Chat:
        raw = p.get("chat_id")
        if raw is None:
            raise ApiError(400, "Bad Request: chat_id is empty")
        try:
            chat = self._chats.get(int(raw))
        except (TypeError, ValueError):
            chat = None  # @username: the fake knows no public chats
        if chat is None or not chat.started:
            raise ApiError(400, "Bad Request: chat not found")
        return chat

    def _message_for(self, chat: Chat, p: Params, missing: str) -> Message:
        message = chat.messages.get(p.integer("message_id"))
        if message is None:
            raise ApiError(400, f"Bad Request: {missing}")
        return message

    def _editable(self, chat: Chat, p: Params) -> Message:
        if p.get("inline_message_id") is not None:
            raise ApiError(400, "Bad Request: this fake Telegram has no inline messages")
        message = self._message_for(chat, p, "message to edit not found")
        if not message.from_bot:
            raise ApiError(400, "Bad Request: message can't be edited")
        return message

    def _reply_to(self, chat: Chat, p: Params) -> int | None:
        params = p.obj("reply_parameters", "reply parameters")
        target = (
            params.get("message_id") if isinstance(params, dict) else p.get("reply_to_message_id")
        )
        if target is None:
            return None
        if int(target) in chat.messages:
            return int(target)
        lenient = isinstance(params, dict) and params.get("allow_sending_without_reply")
        if lenient or p.flag("allow_sending_without_reply"):
            return None
        raise ApiError(400, "Bad Request: message to be replied not found")

    def _message_json(self, chat: Chat, message: Message, *, nested: bool = False) -> Json:
        sender = self._users.get(message.sender_id)
        data: Json = {
            "message_id": message.message_id,
            "from": self.bot_user.to_json()
            if message.from_bot or sender is None
            else sender.to_json(),
            "chat": chat.to_json(),
            "date": message.date,
        }
        kind = "caption" if message.document is not None or message.photo else "text"
        if message.document is not None:
            data["document"] = message.document.to_json()
        if message.photo:
            data["photo"] = message.photo
        if message.text:
            data[kind] = message.text
        if message.entities:
            data["caption_entities" if kind == "caption" else "entities"] = message.entities
        if message.link_preview_options is not None:
            data["link_preview_options"] = message.link_preview_options
        if message.buttons and message.reply_markup is not None:
            data["reply_markup"] = {"inline_keyboard": message.reply_markup["inline_keyboard"]}
        if message.edit_date is not None:
            data["edit_date"] = message.edit_date
        replied = chat.messages.get(message.reply_to_message_id or 0)
        if replied is not None and not nested:
            data["reply_to_message"] = self._message_json(chat, replied, nested=True)
        return data

    # Bot API methods

    async def _get_me(self, p: Params) -> Json:
        """aiogram asks when a command names a bot (``/help@jellybit_sandbox_bot``)."""
        return self.bot_user.to_json() | {
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    async def _get_updates(self, p: Params) -> list[Json]:
        offset, limit = p.integer("offset", 0), min(max(p.integer("limit", 100), 1), 100)
        allowed = p.obj("allowed_updates", "allowed updates")
        if isinstance(allowed, list):
            self._allowed_updates = [str(kind) for kind in allowed]
        if offset > 0:
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
        elif offset < 0:
            self._updates = self._updates[offset:]
        self._poller += 1
        me, loop = self._poller, asyncio.get_running_loop()
        deadline = loop.time() + max(p.integer("timeout", 0), 0)
        while True:
            self._check_poll(me)
            ready = [u for u in self._updates if self._wanted(u)][:limit]
            remaining = deadline - loop.time()
            if ready or remaining <= 0 or self._stopping:
                return copy.deepcopy(ready)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), remaining)

    def _check_poll(self, me: int) -> None:
        """Raise when held getUpdates number ``me`` must end: a newer one took over."""
        if me != self._poller:
            raise ApiError(
                409,
                "Conflict: terminated by other getUpdates request; "
                "make sure that only one bot instance is running",
            )

    def _wanted(self, update: Json) -> bool:
        kind = next(key for key in update if key != "update_id")
        return not self._allowed_updates or kind in self._allowed_updates

    async def _delete_webhook(self, p: Params) -> bool:
        """No webhook here: jellybit deletes one before it polls."""
        if p.flag("drop_pending_updates"):
            self._updates.clear()
        return True

    async def _send_message(self, p: Params) -> Json:
        chat = self._chat_for(p)
        text, parsed, html = format_text(
            p.text("text") or "", p.text("parse_mode"), p.obj("entities")
        )
        markup, buttons = _check_markup(p.obj("reply_markup", "reply keyboard markup"))
        message = self._add_message(
            chat, sender_id=self.bot_user.id, reply_to=self._reply_to(chat, p), text=text,
            html=html, entities=parsed, buttons=buttons, reply_markup=markup,
            link_preview_options=_preview_options(p),
        )  # fmt: skip
        return self._message_json(chat, message)

    async def _edit_message_text(self, p: Params) -> Json:
        chat = self._chat_for(p)
        message = self._editable(chat, p)
        if message.document is not None:
            raise ApiError(400, "Bad Request: there is no text in the message to edit")
        text, parsed, html = format_text(
            p.text("text") or "", p.text("parse_mode"), p.obj("entities")
        )
        markup, buttons = _check_markup(p.obj("reply_markup", "reply keyboard markup"))
        if (text, parsed, markup) == (message.text, message.entities, message.reply_markup):
            raise ApiError(400, NOT_MODIFIED)
        message.text, message.entities, message.html = text, parsed, html
        message.reply_markup, message.buttons = markup, buttons
        message.link_preview_options = _preview_options(p) or message.link_preview_options
        message.edits += 1
        message.edit_date = clock.now_ms() // 1000
        return self._message_json(chat, message)

    async def _send_photo(self, p: Params) -> Json:
        """A photo by URL (Telegram fetches it: one it cannot is refused) or uploaded,
        with a caption of at most 1 024 characters."""
        chat = self._chat_for(p)
        sizes = await _photo_sizes(p.get("photo"))
        caption, parsed, html = _caption(p)
        markup, buttons = _check_markup(p.obj("reply_markup", "reply keyboard markup"))
        message = self._add_message(
            chat, sender_id=self.bot_user.id, reply_to=self._reply_to(chat, p), text=caption,
            html=html, entities=parsed, buttons=buttons, reply_markup=markup, photo=sizes,
        )  # fmt: skip
        return self._message_json(chat, message)

    async def _edit_message_caption(self, p: Params) -> Json:
        chat = self._chat_for(p)
        message = self._editable(chat, p)
        if not message.photo and message.document is None:
            raise ApiError(400, "Bad Request: there is no caption in the message to edit")
        caption, parsed, html = _caption(p)
        markup, buttons = _check_markup(p.obj("reply_markup", "reply keyboard markup"))
        if (caption, parsed, markup) == (message.text, message.entities, message.reply_markup):
            raise ApiError(400, NOT_MODIFIED)
        message.text, message.entities, message.html = caption, parsed, html
        message.reply_markup, message.buttons = markup, buttons
        return self._edited(chat, message)

    async def _edit_message_reply_markup(self, p: Params) -> Json:
        chat = self._chat_for(p)
        message = self._editable(chat, p)
        markup, buttons = _check_markup(p.obj("reply_markup", "reply keyboard markup"))
        if markup == message.reply_markup:
            raise ApiError(400, NOT_MODIFIED)
        message.reply_markup, message.buttons = markup, buttons
        return self._edited(chat, message)

    async def _edit_message_media(self, p: Params) -> Json:
        """A photo message's picture (and caption) changed, or a text message made a
        photo with the text as its caption (the Bot API allows both); only photos here."""
        chat = self._chat_for(p)
        message = self._editable(chat, p)
        media = p.obj("media", "input media")
        if not isinstance(media, dict) or media.get("type") != "photo":
            raise ApiError(400, "Bad Request: this fake Telegram edits only photo media")
        if message.document is not None:
            raise ApiError(400, "Bad Request: this fake Telegram keeps documents as they are")
        message.photo = await _photo_sizes(media.get("media"))
        caption, parsed, html = _caption(Params(media))
        message.text, message.entities, message.html = caption, parsed, html
        markup, buttons = _check_markup(p.obj("reply_markup", "reply keyboard markup"))
        message.reply_markup, message.buttons = markup, buttons
        return self._edited(chat, message)

    async def _delete_message(self, p: Params) -> bool:
        """Gone from the chat; Telegram lets a bot delete a message of a private chat
        for everyone only within 48 hours of its sending."""
        chat = self._chat_for(p)
        message = self._message_for(chat, p, "message to delete not found")
        if clock.now_ms() // 1000 - message.date > DELETE_WITHIN:
            raise ApiError(400, "Bad Request: message can't be deleted for everyone")
        chat.deleted[message.message_id] = chat.messages.pop(message.message_id)
        return True

    def _edited(self, chat: Chat, message: Message) -> Json:
        message.edits += 1
        message.edit_date = clock.now_ms() // 1000
        return self._message_json(chat, message)

    async def _get_file(self, p: Params) -> Json:
        stored = self._files.get(p.text("file_id") or "")
        if stored is None:
            raise ApiError(400, "Bad Request: invalid file_id")
        doc, path, _ = stored
        if doc.file_size > MAX_GETFILE_SIZE:
            raise ApiError(400, "Bad Request: file is too big")
        return {
            "file_id": doc.file_id,
            "file_unique_id": doc.file_unique_id,
            "file_size": doc.file_size,
            "file_path": path,
        }

    async def _answer_callback_query(self, p: Params) -> bool:
        answer = self._queries.pop(p.text("callback_query_id") or "", None)
        if answer is None or answer.done():
            raise ApiError(400, QUERY_TOO_OLD)
        text = p.text("text")
        if text is not None and len(text) > 200:
            raise ApiError(400, "Bad Request: MESSAGE_TOO_LONG")
        answer.set_result(CallbackAnswer(text, p.flag("show_alert"), p.text("url")))
        return True


def _caption(p: Params) -> tuple[str, list[Json], str]:
    """A caption as Telegram parses it: like a text, but at most 1 024 characters,
    and it may be empty."""
    if not (p.text("caption") or "").strip():
        return "", [], ""
    caption, parsed, html = format_text(
        p.text("caption") or "", p.text("parse_mode"), p.obj("caption_entities")
    )
    if len(caption) > MAX_CAPTION:
        raise ApiError(400, "Bad Request: message caption is too long")
    return caption, parsed, html


async def _photo_sizes(photo: Any) -> list[Json]:
    """The sizes Telegram makes of a photo: an uploaded one, or one it fetched from
    its URL (not fetchable, or not an image: refused as Telegram refuses it)."""
    if isinstance(photo, bytes):
        data = photo
    elif isinstance(photo, str) and photo.startswith(("http://", "https://")):
        try:
            timeout = aiohttp.ClientTimeout(total=FETCH_WITHIN)
            async with (
                aiohttp.ClientSession(timeout=timeout) as session,
                session.get(photo) as response,
            ):
                if response.status != 200 or not response.content_type.startswith("image/"):
                    raise ApiError(400, WRONG_PHOTO)
                data = await response.read()
        except (aiohttp.ClientError, TimeoutError):
            raise ApiError(400, WRONG_PHOTO) from None
    else:
        raise ApiError(400, WRONG_PHOTO)
    unique = hashlib.sha256(data).hexdigest()
    return [
        {"file_id": f"AgACAgIAAxkBAAI{unique[:32]}{w}", "file_unique_id": f"AQAD{unique[:12]}{w}",
         "width": w, "height": h, "file_size": max(len(data) * w // 1280, 1)}
        for w, h in ((90, 135), (320, 480), (1280, 1920))
    ]  # fmt: skip


# --- the person --------------------------------------------------------------------------------


class Person:
    """A person in one chat with the bot: writes, presses inline buttons, reads the chat."""

    def __init__(
        self,
        server: BotApiServer,
        user_id: int,
        first_name: str,
        language_code: str,
        username: str | None,
        chat: Chat,
    ) -> None:
        self.server, self.id, self.chat = server, user_id, chat
        self.first_name, self.language_code, self.username = first_name, language_code, username

    @property
    def chat_id(self) -> int:
        return self.chat.id

    def to_json(self) -> Json:
        data: Json = {
            "id": self.id,
            "is_bot": False,
            "first_name": self.first_name,
            "language_code": self.language_code,
        }
        return data | ({"username": self.username} if self.username else {})

    async def send_text(
        self, text: str, *, reply_to: Message | None = None, entities: list[Json] | None = None
    ) -> Message:
        """Write ``text`` (a ``/command`` gets its bot_command entity; ``entities`` adds
        formatting, a ``text_link`` say); ValueError unless it is 1-4096 characters, as a
        Telegram client would not send it."""
        if not 1 <= len(text) <= MAX_TEXT:
            raise ValueError("a Telegram client sends 1-4096 characters")
        command = re.match(r"/[A-Za-z0-9_]{1,32}(@[A-Za-z0-9_]+)?", text)
        found = (
            [{"type": "bot_command", "offset": 0, "length": _u16(command.group())}]
            if command
            else []
        )
        return self.server._from_user(
            self,
            reply_to,
            text=text,
            html=escape(text, quote=False),
            entities=found + list(entities or []),
        )

    async def send_document(
        self,
        filename: str,
        data: bytes,
        *,
        caption: str | None = None,
        mime_type: str | None = None,
        reply_to: Message | None = None,
    ) -> Message:
        """Send a file (a ``.torrent``), as a Telegram client does: the bot gets its
        ``document`` and fetches the bytes with ``getFile``."""
        doc = self.server._store_file(filename, data, mime_type)
        text = caption or ""
        return self.server._from_user(
            self, reply_to, text=text, html=escape(text, quote=False), document=doc
        )

    async def press(
        self,
        message: Message,
        button_text: str,
        *,
        timeout: float = 10.0,  # noqa: ASYNC109
        as_seen: bool = False,
    ) -> CallbackAnswer | None:
        """Press an inline button and wait for the bot's answerCallbackQuery: what it showed,
        or None when the bot did not answer within ``timeout``. :class:`NoSuchButton` when
        the message is gone or has no such callback button (a link button is no press).
        ``as_seen``: the button of ``message`` as the person's app still shows it (an app
        that has not caught up with an edit sends the old button's data; Telegram passes
        it on), not of the message as it is now."""
        return await self.server._press(self, message, button_text, timeout, as_seen=as_seen)

    def messages(self) -> list[Message]:
        """The chat as it is now (copies): both sides, oldest first."""
        return [copy.deepcopy(message) for message in self.chat.messages.values()]
