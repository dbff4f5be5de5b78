"""The front door's durable inbox: receive, store, confirm, then handle.

An update from an allowed user is written to the inbox (``store.inbox``) before
Telegram is told it arrived — the next ``getUpdates`` offset, or the webhook's
200 — and handled from there by ``run``: the updates of one chat in order, chats
side by side, button presses in a lane of their own so that they are answered at
once. A handler works in steps (``Turn.step``: one magnet of a message); a step's
replies go into the outbox in the step's transaction, so a crash or an error
resumes at the step where it stopped, and the outbox sends each reply once, with
retries, 429 waits and backoff. Strangers get one refusal and nothing is stored.
"""

import asyncio
import contextlib
import hmac
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from aiogram import Bot, Dispatcher
from aiogram.exceptions import TelegramNetworkError, TelegramRetryAfter, TelegramServerError
from aiogram.types import Update, User
from aiohttp import web

from bot.texts import refusal_text, unhandled_text
from common.i18n import I18n
from common.logs import get_logger
from core import clock
from core.ids import Id
from store import Store
from store.inbox import KEEP_HANDLED_DAYS, Entry, Received, Reply
from worker.pacing import Loop, sleep_until

LONG_POLL = 25  # seconds getUpdates waits for news
ALLOWED_UPDATES = ("message", "callback_query")
MAX_ATTEMPTS = 5  # an update that fails this often is answered with an apology
MAX_BACKOFF = 300.0
BUTTON_LANES = 8  # button presses handled at once
TICK = 1.0


@dataclass
class Turn:
    """The update being handled and how far it got (``done_steps``): a handler
    skips the steps already done and records each one it finishes."""

    entry: Entry
    chat_id: int
    store: Store
    woke: Callable[[], None]
    finished: bool = field(default=False, init=False)
    button_answered: bool = field(default=False, init=False)  # the press was answered

    @property
    def done_steps(self) -> int:
        return self.entry.done_steps

    def received_at(self) -> str:
        return self.entry.received_at

    async def step(
        self,
        number: int,
        replies: Iterable[Reply],
        *,
        hint: tuple[Id, str] | None = None,
        last: bool = False,
    ) -> None:
        """Step ``number`` (1-based) is done: its replies queued in its transaction."""
        await self.store.inbox.step_done(
            self.entry.update_id,
            self.chat_id,
            number,
            list(replies),
            hint=hint,
            handled=last,
        )
        self.finished = last
        self.woke()

    async def reply(self, *replies: Reply) -> None:
        """The whole update in one step."""
        await self.step(self.done_steps + 1, replies, last=True)


class UpdateInbox:
    def __init__(
        self,
        bot: Bot,
        dispatcher: Dispatcher,
        store: Store,
        allowed_users: Sequence[int],
        i18n: I18n,
        wake_outbox: Callable[[], None],
    ) -> None:
        self._bot = bot
        self._dispatcher = dispatcher
        self._store = store
        self._allowed = frozenset(allowed_users)
        self._i18n = i18n
        self._wake_outbox = wake_outbox
        self.wake = asyncio.Event()
        self.loop = Loop("inbox", self.tick, interval=TICK, wake=self.wake)
        self._busy: set[object] = set()  # lanes being handled: a chat id, or an update id
        self._tasks: set[asyncio.Task[None]] = set()
        self._buttons = asyncio.Semaphore(BUTTON_LANES)

    # --- receiving ----------------------------------------------------------

    async def receive(self, updates: Sequence[Update]) -> None:
        """Store the allowed users' updates (ONE transaction), refuse the rest."""
        stored: list[Received] = []
        for update in updates:
            user = _user_of(update)
            chat = _chat_of(update)
            if (
                user is None
                or user.id not in self._allowed
                or (chat is not None and chat[1] != "private")
            ):
                self._spawn(self._refuse(update, user))
                continue
            stored.append(
                Received(
                    update_id=update.update_id,
                    chat_id=None if chat is None else chat[0],
                    kind="callback_query"
                    if update.callback_query
                    else "message"
                    if update.message
                    else "other",
                    body=update.model_dump_json(exclude_none=True),
                )
            )
        await self._store.inbox.store(stored)
        if stored:
            self.wake.set()

    async def poll(self, stop: asyncio.Event) -> None:
        """Long polling: an update is confirmed (the offset moves past it) only in
        the call after the one that brought it, once it is stored."""
        offset: int | None = None
        failures = 0
        while not stop.is_set():
            call = asyncio.ensure_future(
                self._bot.get_updates(
                    offset=offset,
                    timeout=LONG_POLL,
                    allowed_updates=list(ALLOWED_UPDATES),
                    request_timeout=LONG_POLL + 15,
                )
            )
            stopping = asyncio.ensure_future(stop.wait())
            await asyncio.wait({call, stopping}, return_when=asyncio.FIRST_COMPLETED)
            stopping.cancel()
            if not call.done():
                call.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await call
                return
            try:
                updates = call.result()
            except TelegramRetryAfter as error:
                await sleep_until(min(float(error.retry_after), MAX_BACKOFF), stop)
                continue
            except (TelegramNetworkError, TelegramServerError) as error:
                if failures == 0:
                    get_logger().warning(
                        "telegram.unavailable", operation="get_updates", reason=str(error)
                    )
                failures += 1
                await sleep_until(min(2.0 * failures, 30.0), stop)
                continue
            if failures:
                get_logger().info("telegram.recovered", after_failures=failures)
            failures = 0
            await self.receive(updates)
            if updates:
                offset = updates[-1].update_id + 1

    def webhook(self, secret: str) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        """The webhook's handler: 200 only once the update is stored."""
        expected = secret.encode()

        async def handle(request: web.Request) -> web.StreamResponse:
            sent = request.headers.get("X-Telegram-Bot-Api-Secret-Token", "")
            if not hmac.compare_digest(sent.encode("utf-8", "surrogatepass"), expected):
                return web.Response(status=401)
            try:
                update = Update.model_validate(await request.json(), context={"bot": self._bot})
            except ValueError:
                return web.Response(status=400)
            await self.receive([update])
            return web.json_response({})

        return handle

    async def _refuse(self, update: Update, user: User | None) -> None:
        who = "" if user is None else str(user.id)
        get_logger(update_id=str(update.update_id), user_id=who).warning("telegram.refused")
        if user is None:
            return
        tx = self._i18n.texts(user.language_code)
        with contextlib.suppress(Exception):  # one polite try; a stranger is not retried
            if update.message is not None:
                await update.message.as_(self._bot).answer(refusal_text(tx, user.id))
            elif update.callback_query is not None:
                await update.callback_query.as_(self._bot).answer(
                    refusal_text(tx, user.id), show_alert=True
                )

    # --- handling -----------------------------------------------------------

    async def run(self, stop: asyncio.Event) -> None:
        """Handle what the inbox holds until ``stop``; an interrupted update (a
        crash) is handled again from the step where it stopped."""
        await self._store.inbox.purge(clock.shifted(-timedelta(days=KEEP_HANDLED_DAYS)))
        await self.loop.run(stop)
        if self._tasks:  # let a step in flight commit; the rest waits for the next start
            await asyncio.wait(self._tasks, timeout=2.0)

    async def tick(self) -> None:
        self._dispatch(await self._store.inbox.pending(clock.now()))

    def _dispatch(self, entries: list[Entry]) -> None:
        chats: dict[object, list[Entry]] = {}
        for entry in entries:
            if entry.kind == "callback_query":
                lane: object = ("button", entry.update_id)
            else:
                lane = ("chat", entry.chat_id)
            chats.setdefault(lane, []).append(entry)
        for lane, queued in chats.items():
            if lane not in self._busy:
                self._busy.add(lane)
                self._spawn(self._lane(lane, queued))

    async def _lane(self, lane: object, entries: list[Entry]) -> None:
        try:
            for entry in entries:
                if not await self._handle(entry):
                    break  # its retry comes later; the chat's later updates wait for it
        finally:
            self._busy.discard(lane)
            self.wake.set()

    async def _handle(self, entry: Entry) -> bool:
        try:
            update = Update.model_validate_json(entry.body, context={"bot": self._bot})
            turn = Turn(entry, entry.chat_id or 0, self._store, self._wake_outbox)
            if entry.kind == "callback_query":
                async with self._buttons:
                    await self._dispatcher.feed_update(self._bot, update, turn=turn)
            else:
                await self._dispatcher.feed_update(self._bot, update, turn=turn)
            if not turn.finished:
                await self._store.inbox.handled(entry.update_id)
            return True
        except Exception as error:  # every update gets an answer in the end
            return await self._failed(entry, error)

    async def _failed(self, entry: Entry, error: Exception) -> bool:
        attempts = entry.attempts + 1
        get_logger(update_id=str(entry.update_id)).warning(
            "telegram.update_failed",
            attempt=attempts,
            reason=f"{type(error).__name__}: {error}"[:300],
        )
        if attempts < MAX_ATTEMPTS:
            delay = min(2.0 * 2**attempts, MAX_BACKOFF)
            await self._store.inbox.failed(
                entry.update_id, str(error), clock.shifted(timedelta(seconds=delay))
            )
            return False
        language = await self._store.telegram.chat_language(entry.chat_id or 0)
        tx = self._i18n.texts(language)
        await self._store.inbox.step_done(
            entry.update_id,
            entry.chat_id or 0,
            entry.done_steps,
            [Reply(unhandled_text(tx))] if entry.chat_id else [],
            handled=True,
        )
        self._wake_outbox()
        return True

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _user_of(update: Update) -> User | None:
    if update.message is not None:
        return update.message.from_user
    if update.callback_query is not None:
        return update.callback_query.from_user
    return None


def _chat_of(update: Update) -> tuple[int, str] | None:
    if update.message is not None:
        return update.message.chat.id, update.message.chat.type
    query = update.callback_query
    if query is not None and query.message is not None:
        return query.message.chat.id, query.message.chat.type
    if query is not None:
        return query.from_user.id, "private"  # an inline-mode press has no message
    return None
