"""The front door's durable inbox: receive, store, confirm, then handle.

An update from an allowed user is written to the inbox (``store.inbox``) as the JSON
Telegram sent — ``getUpdates`` is read raw, the webhook's body kept as received —
before Telegram is told it arrived (the next ``getUpdates`` offset, or the webhook's
200), and parsed with aiogram only when it is handled: no shape Telegram sends can
stop reception. ``run`` handles what the inbox holds: a chat's updates in order,
chats side by side, each button press in a lane of its own. A handler works in steps
(``Turn.step``: one magnet of a message); a step's replies go into the outbox in the
step's transaction, so a crash or an error resumes at the step where it stopped. An
update that cannot be parsed, or keeps failing, is set aside (its chat told) and
never holds anything up. Strangers get one refusal and nothing is stored.
"""

import asyncio
import contextlib
import hmac
import json
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from aiogram import Bot, Dispatcher
from aiogram.exceptions import (
    ClientDecodeError,
    TelegramAPIError,
    TelegramRetryAfter,
    TelegramUnauthorizedError,
)
from aiogram.methods import TelegramMethod
from aiogram.types import Update
from aiohttp import web

from bot.sender import send
from bot.texts import refusal_text, unhandled_text
from common.i18n import I18n
from common.logs import Logger, get_logger
from core import clock, updates
from core.ids import Id
from store import Store
from store.inbox import KEEP_HANDLED_DAYS, Entry, Received, Reply
from worker.pacing import Loop, sleep_until

LONG_POLL = 25  # seconds getUpdates waits for news
ALLOWED_UPDATES = ("message", "edited_message", "callback_query", "my_chat_member")
MAX_ATTEMPTS = 5  # an update that fails this often is set aside, its chat told
MAX_BACKOFF = 300.0
TICK = 1.0
REFUSE_WITHIN = 10.0  # seconds for the one refusal a stranger gets


class RawUpdates(TelegramMethod[list[Any]]):
    """``getUpdates`` answered as the JSON Telegram sent: aiogram's own parse of an
    update happens only when the inbox handles it."""

    __returning__ = list[Any]
    __api_method__ = "getUpdates"

    offset: int | None = None
    timeout: int | None = None
    allowed_updates: list[str] | None = None


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
            self.entry.id, self.chat_id, number, list(replies), hint=hint, handled=last
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
        self._offset: int | None = None  # getUpdates: the next update to confirm
        self._busy: set[object] = set()  # lanes being handled: a chat id, or an entry id
        # Entries a lane finished or postponed since the last read of pending ones
        # began: that read may still show them due, and must not hand them out again.
        self._settled: set[Id] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    # --- receiving ----------------------------------------------------------

    async def receive(self, batch: Sequence[object]) -> None:
        """Store the allowed users' updates (ONE transaction), refuse the rest."""
        stored: list[Received] = []
        for update in batch:
            problem = updates.insanity(update)
            if problem is not None:
                get_logger().warning("telegram.update_refused", reason=problem)
                continue
            assert isinstance(update, dict)  # insanity() says so
            sender, chat = updates.sender_of(update), updates.chat_of(update)
            if (
                sender is None
                or sender.id not in self._allowed
                or (chat is not None and chat[1] != "private")
            ):
                self._spawn(self._refuse(update, sender))
                continue
            stored.append(
                Received(
                    update_id=update["update_id"],
                    digest=updates.digest(update),
                    chat_id=None if chat is None else chat[0],
                    kind=updates.kind_of(update),
                    body=json.dumps(update, ensure_ascii=False),
                )
            )
        result = await self._store.inbox.store(stored)
        for update in result.replays:
            get_logger(update_id=str(update.update_id)).info("telegram.replay_ignored")
        for update in result.reused_ids:
            get_logger(update_id=str(update.update_id)).info(
                "telegram.update_id_reused", kind=update.kind
            )
        if result.new:
            self.wake.set()

    async def poll(self, stop: asyncio.Event) -> None:
        """Long polling: an update is confirmed (the offset moves past it) only in
        the call after the one that brought it, once it is stored. Telegram being
        away or busy is waited out; a refused token ends it (the supervisor's)."""
        failures = 0
        while not stop.is_set():
            call = asyncio.ensure_future(
                self._bot(
                    RawUpdates(
                        offset=self._offset,
                        timeout=LONG_POLL,
                        allowed_updates=list(ALLOWED_UPDATES),
                    ),
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
                batch = call.result()
            except TelegramRetryAfter as error:
                await sleep_until(float(error.retry_after), stop)
                continue
            except TelegramUnauthorizedError:
                raise  # the token was refused: nothing to wait for
            except (TelegramAPIError, ClientDecodeError) as error:
                if failures == 0:
                    get_logger().warning(
                        "telegram.unavailable", operation="get_updates", reason=str(error)[:300]
                    )
                failures += 1
                await sleep_until(min(2.0 * failures, 30.0), stop)
                continue
            if failures:
                get_logger().info("telegram.recovered", after_failures=failures)
            failures = 0
            await self.receive(batch)
            numbers = [u["update_id"] for u in batch if isinstance(u, dict) and _is_id(u)]
            if numbers:
                self._offset = max(numbers) + 1

    def webhook(self, secret: str) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        """The webhook's handler: 200 only once the update is stored; 400 for a body
        that is not a sane update; 503 (Telegram tries again) when it cannot be stored."""
        expected = secret.encode()

        async def handle(request: web.Request) -> web.StreamResponse:
            sent = request.headers.get("X-Telegram-Bot-Api-Secret-Token", "")
            if not hmac.compare_digest(sent.encode("utf-8", "surrogatepass"), expected):
                return web.Response(status=401)
            if (request.content_length or 0) > updates.MAX_UPDATE_BYTES:
                return web.Response(status=413)
            body = await request.read()
            try:
                update = updates.loads(body) if len(body) <= updates.MAX_UPDATE_BYTES else None
            except ValueError:
                update = None
            problem = "too large" if update is None else updates.insanity(update)
            if problem is not None:
                get_logger().warning("telegram.webhook_refused", reason=problem)
                return web.Response(status=400, text=f"not an update: {problem}")
            try:
                await self.receive([update])
            except Exception:
                get_logger().exception("telegram.webhook_not_stored")
                return web.Response(status=503)
            return web.json_response({})

        return handle

    async def _refuse(self, update: dict[str, Any], sender: updates.Sender | None) -> None:
        who = "" if sender is None else str(sender.id)
        get_logger(update_id=str(update.get("update_id")), user_id=who).warning(
            "telegram.refused", kind=updates.kind_of(update)
        )
        chat = updates.chat_of(update)
        if sender is None or chat is None:
            return
        text = refusal_text(self._i18n.texts(sender.language_code), sender.id)
        body = updates.body_of(update)
        with contextlib.suppress(Exception):  # one polite try; a stranger is not retried
            async with asyncio.timeout(REFUSE_WITHIN):
                if updates.kind_of(update) == "callback_query":
                    await send(
                        "answer_callback_query",
                        lambda: self._bot.answer_callback_query(
                            str(body.get("id")), text=text[:200], show_alert=True
                        ),
                        max_wait=0,
                    )
                elif updates.kind_of(update) == "message":
                    await send(
                        "send_message",
                        lambda: self._bot.send_message(chat[0], text),
                        max_wait=0,
                        chat_id=chat[0],
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
        committed = set(self._settled)
        pending = await self._store.inbox.pending(clock.now())
        self._settled -= committed  # this read began after they were committed
        self._dispatch([entry for entry in pending if entry.id not in self._settled])

    def _dispatch(self, entries: list[Entry]) -> None:
        lanes: dict[object, list[Entry]] = {}
        for entry in entries:
            if entry.kind == "callback_query":
                lane: object = ("button", entry.id)
            else:
                lane = ("chat", entry.chat_id)
            lanes.setdefault(lane, []).append(entry)
        for lane, queued in lanes.items():
            if lane not in self._busy:
                self._busy.add(lane)
                self._spawn(self._lane(lane, queued))

    async def _lane(self, lane: object, entries: list[Entry]) -> None:
        try:
            for entry in entries:
                await self._handle(entry)
                self._settled.add(entry.id)
        except Exception:  # the store failed: the update is still pending, tried later
            get_logger().exception("telegram.lane_failed")
        finally:
            self._busy.discard(lane)
            self.wake.set()

    async def _handle(self, entry: Entry) -> None:
        log = get_logger(update_id=str(entry.update_id), kind=entry.kind)
        try:
            update = Update.model_validate(json.loads(entry.body), context={"bot": self._bot})
        except ValueError as error:  # pydantic's ValidationError is one
            await self._set_aside(entry, error, log)
            return
        turn = Turn(entry, entry.chat_id or 0, self._store, self._wake_outbox)
        try:
            await self._dispatcher.feed_update(self._bot, update, turn=turn)
        except Exception as error:  # every update gets an answer in the end
            await self._failed(entry, error, log)
            return
        if not turn.finished:
            await self._store.inbox.handled(entry.id)

    async def _failed(self, entry: Entry, error: Exception, log: Logger) -> None:
        attempts = entry.attempts + 1
        if attempts >= MAX_ATTEMPTS:
            await self._set_aside(entry, error, log)
            return
        reason = f"{type(error).__name__}: {error}"[:300]
        if attempts == 1:
            log.warning("telegram.update_failed", attempt=attempts, reason=reason, exc_info=error)
        else:
            log.info("telegram.update_failed_again", attempt=attempts, reason=reason)
        delay = min(2.0 * 2**attempts, MAX_BACKOFF)
        await self._store.inbox.failed(entry.id, reason, clock.shifted(timedelta(seconds=delay)))

    async def _set_aside(self, entry: Entry, error: Exception, log: Logger) -> None:
        """Given up on, once: logged, its chat told, never tried again."""
        reason = f"{type(error).__name__}: {error}"[:300]
        log.warning("telegram.update_set_aside", attempts=entry.attempts + 1, reason=reason)
        replies: list[Reply] = []
        if entry.chat_id:
            language = await self._store.telegram.chat_language(entry.chat_id)
            replies.append(Reply(unhandled_text(self._i18n.texts(language))))
        await self._store.inbox.set_aside(
            entry.id, entry.chat_id or 0, entry.done_steps, replies, reason
        )
        self._wake_outbox()

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _is_id(update: dict[str, Any]) -> bool:
    return type(update.get("update_id")) is int
