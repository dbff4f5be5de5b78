"""The outbox dispatcher: sends notifications in order per chat, with retries.

A notification is marked sent right after Telegram accepts it; when Telegram
is down or answers 429 it stays queued and is tried again later (backoff), so
none is lost and none is sent twice after a recorded success.
"""

import asyncio
from datetime import timedelta

from aiogram.exceptions import (
    TelegramBadRequest,
    TelegramForbiddenError,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
)

from bot.sender import send
from bot.texts import notification_text, system_text
from bot.views import Views
from core import clock
from core.models import Notification
from core.notifications import SYSTEM
from jellybit.i18n import I18n
from jellybit.logs import get_logger
from store import Store
from worker.pacing import sleep_until

TICK = 1.0
MAX_BACKOFF = 300.0
FLUSH_WITHIN = 3.0  # at stop: send what is due, without holding up the exit


class Notifier:
    def __init__(
        self, store: Store, views: Views, i18n: I18n, allowed_users: tuple[int, ...]
    ) -> None:
        self._store = store
        self._views = views
        self._i18n = i18n
        self._allowed = allowed_users

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                await self.tick()
            except Exception:
                get_logger().exception("telegram.notifier_tick_failed")
            await sleep_until(TICK, stop)
        # Stopping: one more send (the poller's last tick may have queued a
        # "done"); what does not make it stays queued for the next start.
        try:
            async with asyncio.timeout(FLUSH_WITHIN):
                await self.tick()
        except Exception:
            get_logger().warning("telegram.outbox_flush_incomplete", exc_info=True)

    async def tick(self) -> int:
        """Send what is due; returns how many were sent."""
        sent = 0
        for notification in await self._store.outbox.due(clock.now()):
            if notification.chat_id is None:
                await self._store.outbox.fan_out(notification, self._allowed)
                continue
            sent += await self._deliver(notification, notification.chat_id)
        return sent

    async def _deliver(self, notification: Notification, chat_id: int) -> int:
        log = get_logger(
            notification_id=notification.id, download_id=notification.download_id or ""
        )
        download = (
            None
            if notification.download_id is None
            else await self._store.downloads.find_download(notification.download_id)
        )
        if download is None and notification.kind not in SYSTEM:
            await self._store.outbox.mark_sent(notification.id, None)  # nothing left to tell
            return 0
        tx = self._i18n.texts(await self._store.telegram.chat_language(chat_id))
        try:
            if download is None:
                text = system_text(tx, notification.kind, notification.payload)
                message = await send(
                    "send_message", lambda: self._views.bot.send_message(chat_id, text), log=log
                )
            else:
                text = notification_text(
                    tx, notification.kind, download, str(notification.payload.get("reason", ""))
                )
                message = await self._views.send_status(
                    tx, chat_id, chat_id, download, text=text, role="notification"
                )
        except (TelegramNetworkError, TelegramServerError, TelegramRetryAfter) as error:
            delay = _retry_delay(notification.attempts, error)
            await self._store.outbox.mark_failed(
                notification.id, str(error), clock.shifted(timedelta(seconds=delay))
            )
            log.warning("notification.delayed", reason=str(error), retry_in_s=delay)
            return 0
        except (TelegramBadRequest, TelegramForbiddenError) as error:
            # Will never succeed (chat gone, bot blocked): drop it, keep the chat's queue moving.
            await self._store.outbox.mark_sent(notification.id, None)
            log.warning("notification.dropped", reason=str(error))
            return 0
        await self._store.outbox.mark_sent(notification.id, message.message_id)
        log.info("notification.sent", kind=notification.kind, chat_id=chat_id)
        return 1


def _retry_delay(attempts: int, error: Exception) -> float:
    if isinstance(error, TelegramRetryAfter):
        return float(error.retry_after)
    return min(2.0 * float(2 ** min(attempts, 8)), MAX_BACKOFF)
