"""Keeps each download's one message current, within Telegram's limits.

Every second at most one edit per chat (Telegram allows about one message a
second in a private chat), each message at most every ``MIN_INTERVAL``
seconds, the stalest first; an edit only when the text, buttons or poster
changed. A 429 pauses that chat for ``retry_after``. Each tick first deletes the
messages a newer one superseded that the notifier did not get to (``Views.retire``).
"""

import asyncio
from datetime import timedelta

from aiogram.exceptions import TelegramAPIError, TelegramRetryAfter

from bot.views import Views
from common.logs import for_download
from core import clock
from store import Store
from store.telegram import StatusMessage
from worker.pacing import Loop

MIN_INTERVAL = timedelta(seconds=3)
# A download at 0 % says how long it has waited, in whole minutes: looked at again
# once a minute though nothing else about it changes.
WAITING_EVERY = timedelta(seconds=60)
TICK = 1.0


class StatusUpdater:
    def __init__(self, store: Store, views: Views) -> None:
        self._store = store
        self._views = views
        self._paused_until: dict[int, float] = {}
        self.loop = Loop("status", self.tick, interval=TICK)

    async def run(self, stop: asyncio.Event) -> None:
        await self.loop.run(stop)

    async def tick(self) -> int:
        """Edit what is due; returns how many messages were edited."""
        await self._views.retire()
        before, waiting = clock.shifted(-MIN_INTERVAL), clock.shifted(-WAITING_EVERY)
        due = await self._store.telegram.status_messages_due(before, waiting)
        edited, served = 0, set()
        for message in due:
            if message.chat_id in served or self._paused(message.chat_id):
                continue
            done = await self._edit(message)
            if done is not None:  # deferred (its news is on the way): the chat's next one
                served.add(message.chat_id)
                edited += done
        return edited

    async def _edit(self, message: StatusMessage) -> int | None:
        """1 when edited, 0 when not (unchanged, refused), None when deferred."""
        tx = await self._views.texts_for(message.chat_id)
        try:
            changed = await self._views.show(
                tx,
                message.chat_id,
                message.message_id,
                message.chat_id,
                message.download,
                shown=message.shown,
                photo=message.photo,
            )
        except TelegramRetryAfter as error:
            self._paused_until[message.chat_id] = clock.monotonic() + error.retry_after
            return 0
        except TelegramAPIError as error:
            for_download(message.download.id).warning(
                "telegram.status_edit_failed", reason=str(error)
            )
            # Show it as current anyway: retrying a refused edit every second helps no one.
            await self._store.telegram.mark_shown(
                message.chat_id, message.message_id, message.shown or "", message.photo
            )
            return 0
        if changed is None:  # its news is on the way: due again until that is sent
            return None
        if not changed:  # same text: only the rate-limit clock moves
            await self._store.telegram.mark_shown(
                message.chat_id, message.message_id, message.shown or "", message.photo
            )
        return int(changed)

    def _paused(self, chat_id: int) -> bool:
        until = self._paused_until.get(chat_id)
        return until is not None and clock.monotonic() < until
