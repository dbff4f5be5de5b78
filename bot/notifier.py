"""The outbox dispatcher: sends replies and notifications in order per chat.

A message is marked sent right after Telegram accepts it; when Telegram is down
or answers 429 it stays queued and is tried again later (backoff, or the 429's
``retry_after``), so none is lost and none is sent twice after a recorded
success. Chats are served side by side: one chat's 429 or slow send does not
hold up another. ``wake`` sends a queued reply at once.
"""

import asyncio
import contextlib
from dataclasses import replace
from datetime import timedelta

from aiogram.exceptions import (
    TelegramBadRequest,
    TelegramForbiddenError,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
)

from bot.sender import send
from bot.texts import adopted_text, system_text
from bot.views import Views
from common.logs import get_logger
from core import clock
from core.ids import Id
from core.models import Download, Notification
from core.notifications import ADOPTED, ANNOUNCED, REPLY, SYSTEM
from store import Store
from store.inbox import Reply
from store.telegram import BotMessage, Role
from worker.pacing import Loop

TICK = 1.0
MAX_BACKOFF = 300.0
FLUSH_WITHIN = 3.0  # at stop: send what is due, without holding up the exit


class Notifier:
    def __init__(self, store: Store, views: Views, allowed_users: tuple[int, ...]) -> None:
        self._store = store
        self._views = views
        self._allowed = allowed_users
        self.wake = asyncio.Event()
        self.loop = Loop("outbox", self.tick, interval=TICK, wake=self.wake)
        self._sending: set[int] = set()  # chats with a send in flight
        self._tasks: set[asyncio.Task[None]] = set()
        # The last notification of each chat this process marked sent. A tick's read
        # can start before a send in flight commits and still see it unsent once
        # that send's chat is free again: it must not be sent twice.
        self._done_upto: dict[int, Id] = {}

    async def run(self, stop: asyncio.Event) -> None:
        await self.loop.run(stop)
        # Stopping: the sends in flight, and one more round (the poller's last
        # tick may have queued a "done"); what does not make it stays queued for
        # the next start.
        try:
            async with asyncio.timeout(FLUSH_WITHIN):
                await self.tick()
                while self._tasks:
                    await asyncio.wait(set(self._tasks))
        except Exception:
            get_logger().warning("telegram.outbox_flush_incomplete", exc_info=True)
        for task in list(self._tasks):
            task.cancel()

    async def tick(self) -> None:
        """Start sending what is due: one task per chat, so that a chat waiting out
        a 429 or a slow send holds up no other chat and not the next tick."""
        for notification in await self._store.outbox.due(clock.now()):
            if notification.chat_id is None:
                await self._store.outbox.fan_out(notification, self._allowed)
                self.wake.set()
            elif notification.id <= self._done_upto.get(notification.chat_id, ""):
                continue  # a stale read: sent since it was taken
            elif notification.chat_id not in self._sending:
                self._sending.add(notification.chat_id)
                task = asyncio.create_task(self._chat(notification, notification.chat_id))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

    async def _chat(self, notification: Notification, chat_id: int) -> None:
        try:
            if await self._deliver(notification, chat_id):
                self.wake.set()  # the chat's next message, if any, right away
        except Exception as error:  # a bug must not spin: it waits like a failed send
            get_logger(notification_id=notification.id).exception("notification.failed")
            delay = _retry_delay(notification.attempts, error)
            with contextlib.suppress(Exception):
                await self._store.outbox.mark_failed(
                    notification.id, str(error)[:300], clock.shifted(timedelta(seconds=delay))
                )
        finally:
            self._sending.discard(chat_id)

    async def _deliver(self, notification: Notification, chat_id: int) -> int:
        log = get_logger(
            notification_id=notification.id, download_id=notification.download_id or ""
        )
        download = (
            None
            if notification.download_id is None
            else await self._store.downloads.find_download(notification.download_id)
        )
        if download is None and notification.kind not in SYSTEM and notification.kind != REPLY:
            await self._mark_sent(notification, None)  # nothing left to tell
            return 0
        try:
            if notification.kind == REPLY:
                reply = _reply(notification, download)
                message, about = await self._views.send_reply(chat_id, reply)
                if about is not None:  # rendered when its update was handled
                    about = replace(about, rendered_at=notification.created_at)
            elif download is None:
                tx = await self._views.texts_for(chat_id)
                text = system_text(tx, notification.kind, notification.payload)
                message = await send(
                    "send_message",
                    lambda: self._views.bot.send_message(chat_id, text),
                    log=log,
                    chat_id=chat_id,
                )
                about = None
            elif _still_news(notification.kind, download):
                tx = await self._views.texts_for(chat_id)
                view = await self._views.view_of(tx, chat_id, download)
                if notification.kind == ADOPTED:
                    view = view.headed(adopted_text(tx))
                message, about = await self._views.send_view(chat_id, download, view)
            else:  # it moved on meanwhile: its message shows that by an edit
                await self._mark_sent(notification, None)
                return 0
        except (TelegramNetworkError, TelegramServerError, TelegramRetryAfter) as error:
            delay = _retry_delay(notification.attempts, error)
            await self._store.outbox.mark_failed(
                notification.id, str(error), clock.shifted(timedelta(seconds=delay))
            )
            log.warning("notification.delayed", reason=str(error), retry_in_s=delay)
            return 0
        except (TelegramBadRequest, TelegramForbiddenError) as error:
            # Will never succeed (chat gone, bot blocked): drop it, keep the chat's queue moving.
            await self._mark_sent(notification, None)
            log.warning("notification.dropped", reason=str(error))
            return 0
        await self._mark_sent(notification, message.message_id, about)
        log.info("notification.sent", kind=notification.kind, chat_id=chat_id)
        if about is not None and about.role == Role.STATUS:
            await self._views.retire(chat_id)  # the message this one supersedes
        return 1

    async def _mark_sent(
        self, notification: Notification, message_id: int | None, about: BotMessage | None = None
    ) -> None:
        await self._store.outbox.mark_sent(notification.id, message_id, about)
        if notification.chat_id is not None:
            self._done_upto[notification.chat_id] = notification.id


def _still_news(kind: str, download: Download) -> bool:
    """A change announced is still the download's state (a stuck one that moved on
    by itself, or that the person retried meanwhile, is not news any more)."""
    state = next((state for state, announced in ANNOUNCED.items() if announced == kind), None)
    return state is None or download.state == state


def _reply(notification: Notification, download: object) -> Reply:
    """A queued reply; one about a download that is gone says so without it."""
    payload = notification.payload
    gone = notification.download_id is not None and download is None
    return Reply(
        text=str(payload.get("text") or ""),
        markup=str(payload["markup"]) if payload.get("markup") and not gone else None,
        reply_to=int(str(payload["reply_to"])) if payload.get("reply_to") else None,
        download_id=notification.download_id if download else None,
        role=str(payload["role"]) if payload.get("role") else None,
        photo=str(payload["photo"]) if payload.get("photo") and not gone else None,
    )


def _retry_delay(attempts: int, error: Exception) -> float:
    if isinstance(error, TelegramRetryAfter):
        # +1: the next attempt is stored in whole seconds (cut, not rounded up), and
        # a try before retry_after is over only earns another 429.
        return float(error.retry_after) + 1.0
    return min(2.0 * float(2 ** min(attempts, 8)), MAX_BACKOFF)
