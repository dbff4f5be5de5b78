"""The tests' Telegram: the sandbox's Bot API server (``sandbox/botapi.py``) with what only
tests need, and a person who asserts.

jellybit's real aiogram ``Bot`` talks HTTP to :class:`FakeTelegram`
(``AiohttpSession(api=TelegramAPIServer.from_base(tg.base_url))``); :class:`FakeUser` plays a
person in a chat: sends texts and documents, presses inline buttons and waits for messages,
failing the test (AssertionError, with the chat) when the bot does not do its part.

On top of the sandbox's server:

- Faults: ``fail_next(method, ...)`` answers the next request(s) with an error (429 by default,
  which aiogram raises as ``TelegramRetryAfter``; a JSON 5xx becomes ``TelegramServerError``).
  ``set_down(True)`` closes the connection of every request without an answer, held long polls
  included: aiogram raises ``TelegramNetworkError`` ("ServerDisconnectedError: Server
  disconnected"), what an unreachable Telegram looks like (``bot.download`` is not wrapped by
  aiogram and raises aiohttp's ``ServerDisconnectedError`` itself). ``FakeUser.block`` makes
  the bot get 403 "Forbidden: bot was blocked by the user".
- Webhook mode: ``setWebhook`` wants an https URL, as Telegram does; set ``tg.webhook_target``
  to the local URL that stands for it and queued updates are POSTed there (with the secret
  token header); a method in the webhook's answer is executed. ``deliver_webhook`` POSTs one
  update. ``getUpdates`` is refused (409) while a webhook is set.
- ``getWebhookInfo`` (``jellybit check``), group chats (``tg.group``), and ``calls``: every
  request with its HTTP status and arrival time.

    async with FakeTelegram() as tg:
        bot = Bot(tg.token, session=AiohttpSession(api=TelegramAPIServer.from_base(tg.base_url)))
        ann = tg.user(42)
        await ann.send_text("/start")
        ...  # run jellybit's dispatcher with ``bot``
        menu = await ann.wait_for(lambda m: m.from_bot and "Pick" in m.text)
        answer = await ann.press(menu, "Download")
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from typing import Any
from urllib.parse import urlsplit

import aiohttp
from aiohttp import web

from core import clock
from sandbox.botapi import (
    ApiError,
    BotApiServer,
    Button,
    CallbackAnswer,
    Chat,
    Handler,
    Json,
    Message,
    NoSuchButton,
    Params,
    Person,
)

__all__ = ["Button", "Call", "CallbackAnswer", "FakeTelegram", "FakeUser", "Message"]

DEFAULT_TOKEN = "123456:TEST-token"
POLL_INTERVAL = 0.02

_STATUS_TEXT = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    409: "Conflict",
    500: "Internal Server Error",
    502: "Bad Gateway",
}


@dataclass
class Call:
    """One request to the Bot API; ``at`` is ``clock.monotonic()`` on arrival, ``status`` the
    HTTP status answered (503 = connection closed while down)."""

    method: str
    params: dict[str, Any]
    at: float
    status: int | None = None


@dataclass(frozen=True)
class _Fault:
    method: str
    status: int
    retry_after: int | None
    description: str | None
    chat_id: int | None = None  # only calls about this chat


class _Dropped(Exception):
    """The server is down: close the connection without an answer."""


class FakeTelegram(BotApiServer):
    """The sandbox's Bot API server, with faults, webhooks, documents and a log of calls."""

    def __init__(
        self, *, token: str = DEFAULT_TOKEN, bot_username: str = "jellybit_test_bot"
    ) -> None:
        super().__init__(token=token, bot_username=bot_username)
        self.calls: list[Call] = []
        self.webhook_url: str | None = None
        self.webhook_secret: str | None = None
        self.webhook_target: str | None = None  # where queued updates are POSTed when set
        self.webhook_deliveries: list[tuple[int, int]] = []  # (update_id, HTTP status)
        self._blocked: set[int] = set()  # chat ids
        self._faults: list[_Fault] = []
        self._down = False
        self._client: aiohttp.ClientSession | None = None
        self._pusher: asyncio.Task[None] | None = None

    def _handlers(self) -> dict[str, Handler]:
        return super()._handlers() | {
            "setWebhook": self._set_webhook,
            "getWebhookInfo": self._get_webhook_info,
        }

    async def stop(self) -> None:
        self._stopping = True
        if self._pusher is not None:
            self._pusher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._pusher
        if self._client is not None:
            await self._client.close()
        await super().stop()

    # what tests drive

    def user(
        self,
        user_id: int,
        *,
        first_name: str = "Test",
        language_code: str = "ru",
        username: str | None = None,
    ) -> FakeUser:
        """A person; their private chat with the bot has chat id == ``user_id``."""
        chat = self._private_chat(user_id, first_name, username)
        person = FakeUser(self, user_id, first_name, language_code, username, chat)
        self._users[user_id] = person
        return person

    def group(self, user: FakeUser, chat_id: int, *, title: str = "Test group") -> FakeUser:
        """``user`` writing in the group ``chat_id`` (a supergroup when it is -100…)."""
        kind = "supergroup" if chat_id <= -1_000_000_000_000 else "group"
        chat = self._chats.setdefault(chat_id, Chat(chat_id, kind, title=title))
        return FakeUser(self, user.id, user.first_name, user.language_code, user.username, chat)

    def fail_next(
        self,
        method: str,
        *,
        retry_after: int | None = None,
        status: int = 429,
        times: int = 1,
        description: str | None = None,
        chat_id: int | None = None,
    ) -> None:
        """Answer the next ``times`` calls of ``method`` ("*" = any; about ``chat_id``
        only, when given) with an error instead."""
        if status == 429 and retry_after is None:
            retry_after = 1
        fault = _Fault(method.lower(), status, retry_after, description, chat_id)
        self._faults += [fault] * times

    def set_down(self, down: bool = True) -> None:
        """While down, every request (held long polls too) gets its connection closed."""
        self._down = down
        self._notify()

    def queue_update(self, kind: str, payload: Json) -> int:
        """An update of any shape (``kind``: "message", "callback_query", …) as Telegram
        would hand it out; its update id."""
        self._queue(kind, copy.deepcopy(payload))
        return self._update_id

    def calls_to(self, method: str) -> list[Call]:
        return [call for call in self.calls if call.method.lower() == method.lower()]

    @property
    def pending_updates(self) -> list[Json]:
        """Updates not yet acknowledged (getUpdates offset) nor delivered to a webhook."""
        return copy.deepcopy(self._updates)

    async def deliver_webhook(
        self, url: str, update: Json, *, secret_token: str | None = None
    ) -> int:
        """POST ``update`` to ``url`` as Telegram does; a method in the answer is executed."""
        headers = {"Content-Type": "application/json"}
        if secret_token:
            headers["X-Telegram-Bot-Api-Secret-Token"] = secret_token
        if self._client is None:
            self._client = aiohttp.ClientSession()
        timeout = aiohttp.ClientTimeout(total=30)
        async with self._client.post(
            url, data=json.dumps(update), headers=headers, timeout=timeout
        ) as resp:
            if 200 <= resp.status < 300:
                await self._webhook_reply(resp)
            return resp.status

    # updates and webhooks

    def _queue(self, kind: str, payload: Json) -> None:
        super()._queue(kind, payload)
        self._kick_pusher()

    def _kick_pusher(self) -> None:
        if (
            self.webhook_url
            and self.webhook_target
            and (self._pusher is None or self._pusher.done())
        ):
            self._pusher = asyncio.get_running_loop().create_task(self._push_updates())

    async def _push_updates(self) -> None:
        while self.webhook_url and self.webhook_target and self._updates and not self._stopping:
            update = self._updates[0]
            try:
                status = await self.deliver_webhook(
                    self.webhook_target, update, secret_token=self.webhook_secret
                )
            except (aiohttp.ClientError, TimeoutError):
                status = 0  # no answer at all
            self.webhook_deliveries.append((update["update_id"], status))
            if 200 <= status < 300:
                with contextlib.suppress(ValueError):
                    self._updates.remove(update)
            else:
                await asyncio.sleep(0.2)  # Telegram retries later

    async def _webhook_reply(self, resp: aiohttp.ClientResponse) -> None:
        """Run a method given in a webhook answer (aiogram's ``handle_in_background=False``)."""
        values: dict[str, Any] = {}
        if resp.content_type == "application/json":
            body = await resp.json()
            values = body if isinstance(body, dict) else {}
        elif resp.content_type == "multipart/form-data":
            reader = aiohttp.MultipartReader.from_response(resp)
            while (part := await reader.next()) is not None:
                if isinstance(part, aiohttp.BodyPartReader) and part.name and not part.filename:
                    values[part.name] = await part.text()
        method = values.pop("method", None)
        if isinstance(method, str):
            with contextlib.suppress(ApiError):  # nobody hears errors of a webhook answer
                await self._execute(method, values)

    # HTTP

    async def _handle_api(self, request: web.Request) -> web.StreamResponse:
        if self._down:
            return self._drop(request)
        try:
            return await super()._handle_api(request)
        except _Dropped:
            return self._drop(request)

    async def _execute(self, name: str, values: dict[str, Any], token: str | None = None) -> Any:
        known = self._methods.get(name.lower())
        call = Call(known[0] if known else name, values, clock.monotonic())
        self.calls.append(call)
        try:
            if known is not None and token in (None, self.token):
                self._take_fault(call.method, values.get("chat_id"))
            result = await super()._execute(name, values, token)
        except _Dropped:
            call.status = 503
            raise
        except ApiError as e:
            call.status = e.status
            raise
        call.status = 200
        return result

    def _take_fault(self, method: str, chat_id: object) -> None:
        fault = next(
            (
                f
                for f in self._faults
                if f.method in (method.lower(), "*")
                and (f.chat_id is None or str(f.chat_id) == str(chat_id))
            ),
            None,
        )
        if fault is None:
            return
        self._faults.remove(fault)
        if fault.status == 429:
            description = fault.description or f"Too Many Requests: retry after {fault.retry_after}"
        else:
            description = fault.description or _STATUS_TEXT.get(fault.status, "Error")
        raise ApiError(fault.status, description, fault.retry_after)

    def _drop(self, request: web.Request) -> web.StreamResponse:
        if request.transport is not None:
            request.transport.close()
        return web.Response(status=503)  # never reaches the client: its connection is closed

    async def _handle_file(self, request: web.Request) -> web.StreamResponse:
        if self._down:
            return self._drop(request)
        call = Call("/file", {"file_path": request.match_info["path"]}, clock.monotonic())
        self.calls.append(call)
        response = await super()._handle_file(request)
        call.status = response.status
        return response

    # the sandbox's methods, with the tests' rules

    def _chat_for(self, p: Params) -> Chat:
        chat = super()._chat_for(p)
        if chat.id in self._blocked:
            raise ApiError(403, "Forbidden: bot was blocked by the user")
        return chat

    def _check_poll(self, me: int) -> None:
        if self._down:
            raise _Dropped
        super()._check_poll(me)
        if self.webhook_url:
            raise ApiError(409, "Conflict: terminated by setWebhook request")

    async def _get_updates(self, p: Params) -> list[Json]:
        if self.webhook_url:
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; "
                "use deleteWebhook to delete the webhook first",
            )
        return await super()._get_updates(p)

    async def _delete_webhook(self, p: Params) -> bool:
        self.webhook_url = self.webhook_secret = None
        return await super()._delete_webhook(p)

    # the methods only tests need

    async def _set_webhook(self, p: Params) -> bool:
        url = p.text("url")
        if url is None:
            return await self._delete_webhook(p)
        parts = urlsplit(url)
        if parts.scheme != "https" or not parts.hostname:
            raise ApiError(
                400, "Bad Request: bad webhook: An HTTPS URL must be provided for webhook"
            )
        if parts.port not in (None, 80, 88, 443, 8443):
            raise ApiError(
                400,
                "Bad Request: bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443",
            )
        self.webhook_url, self.webhook_secret = url, p.text("secret_token")
        allowed = p.obj("allowed_updates", "allowed updates")
        if isinstance(allowed, list):
            self._allowed_updates = [str(kind) for kind in allowed]
        if p.flag("drop_pending_updates"):
            self._updates.clear()
        self._notify()  # a held getUpdates ends: "terminated by setWebhook request"
        self._kick_pusher()
        return True

    async def _get_webhook_info(self, p: Params) -> Json:
        info: Json = {
            "url": self.webhook_url or "",
            "has_custom_certificate": False,
            "pending_update_count": len(self._updates),
        }
        if self.webhook_url:
            info |= {"max_connections": 40, "ip_address": "127.0.0.1"}
            if self._allowed_updates:
                info["allowed_updates"] = self._allowed_updates
        return info  # like Telegram, never the secret token: see ``webhook_secret``


class FakeUser(Person):
    """A person in one chat with the bot (their private chat, or a group: ``tg.group``)
    whose presses and waits fail the test, with the chat, when the bot does not answer."""

    def __init__(
        self,
        tg: FakeTelegram,
        user_id: int,
        first_name: str,
        language_code: str,
        username: str | None,
        chat: Chat,
    ) -> None:
        super().__init__(tg, user_id, first_name, language_code, username, chat)
        self.tg = tg

    async def send_photo(
        self, caption: str, *, caption_entities: list[Json] | None = None
    ) -> Message:
        """A photo with a caption, as a Telegram client sends it (the photo's sizes)."""
        sizes = [
            {"file_id": f"AgACAgIAAxkBAAI{secrets.token_urlsafe(24)}", "file_unique_id":
             f"AQAD{secrets.token_urlsafe(9)}", "width": w, "height": h, "file_size": w * h // 8}
            for w, h in ((90, 60), (320, 213), (1280, 853))
        ]  # fmt: skip
        return self.tg._from_user(
            self,
            None,
            text=caption,
            html=escape(caption, quote=False),
            entities=list(caption_entities or []),
            photo=sizes,
        )

    async def press(
        self,
        message: Message,
        button_text: str,
        *,
        timeout: float = 10.0,  # noqa: ASYNC109
        as_seen: bool = False,
    ) -> CallbackAnswer:
        """Press an inline button and wait for the bot's answerCallbackQuery: what it showed
        (``as_seen``: the button as ``message`` shows it, an app not caught up with an edit)."""
        try:
            answer = await super().press(message, button_text, timeout=timeout, as_seen=as_seen)
        except NoSuchButton as e:
            raise AssertionError(f"{e}\n{self.render()}") from None
        if answer is None:
            raise AssertionError(
                f"the bot did not answer the press of {button_text!r} within {timeout}s\n"
                f"{self.render()}"
            )
        return answer

    def block(self, blocked: bool = True) -> None:
        """Block the bot: it gets 403 "Forbidden: bot was blocked by the user"."""
        if blocked:
            self.tg._blocked.add(self.chat_id)
        else:
            self.tg._blocked.discard(self.chat_id)

    def bot_messages(self, *, deleted: bool = False) -> list[Message]:
        """The bot's messages in the chat (``deleted``: with those it deleted since)."""
        held = [message for message in self.messages() if message.from_bot]
        if not deleted:
            return held
        gone = [message for message in self.chat.deleted.values() if message.from_bot]
        return sorted([*held, *gone], key=lambda message: message.message_id)

    def last_bot_message(self) -> Message:
        found = self.bot_messages()
        if not found:
            raise AssertionError(f"the bot has not written here\n{self.render()}")
        return found[-1]

    async def wait_for(
        self,
        predicate: Callable[[Message], bool],
        timeout: float = 10.0,  # noqa: ASYNC109
    ) -> Message:
        """The first message of the chat satisfying ``predicate``, once there is one."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            for message in self.messages():
                if predicate(message):
                    return message
            if asyncio.get_running_loop().time() >= deadline:
                raise AssertionError(f"no message matched within {timeout}s\n{self.render()}")
            await asyncio.sleep(POLL_INTERVAL)

    def render(self) -> str:
        """The chat as text, for failure messages."""
        lines = [f"chat {self.chat.id} ({self.chat.type}):"]
        for m in self.chat.messages.values():
            who = "bot" if m.from_bot else f"user {m.sender_id}"
            extra = f" [document {m.document.file_name}]" if m.document else ""
            extra += f" (edited {m.edits}x)" if m.edits else ""
            extra += f" {[[b.text for b in row] for row in m.buttons]}" if m.buttons else ""
            lines.append(f"  #{m.message_id} {who}: {m.text!r}{extra}")
        return "\n".join(lines)
