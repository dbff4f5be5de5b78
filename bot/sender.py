"""Every call to the Bot API goes through ``send``: the one pacing layer.

- **429**: aiogram raises ``TelegramRetryAfter`` and does not retry; ``send`` waits
  ``retry_after`` and calls again (a few times) — but only while the wait is at most
  ``max_wait``: a longer one is raised, for the caller to queue (the outbox tries
  again then) instead of sleeping on it. A callback answer that would come after
  Telegram's window is dropped (``answer_query``); the action still happens.
- **5xx and network errors**: retried with backoff for calls that may be repeated
  (``idempotent``: edits and callback answers); a send is not repeated here (it may
  have arrived), the outbox retries it with its own backoff.
- **Per chat**: ``PACER`` keeps the messages and edits of one chat — replies,
  notifications, the status updater's edits together — within Telegram's limits: a
  burst of ``BURST``, then one a second.
"""

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from aiogram.exceptions import (
    TelegramAPIError,
    TelegramBadRequest,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
)
from aiogram.types import CallbackQuery

from common.logs import Logger, external_call, get_logger
from core import clock

T = TypeVar("T")
MAX_WAITS = 3
MAX_WAIT = 5.0  # seconds slept on a 429 in place; longer ones are the caller's
RETRIES = 3  # of an idempotent call on a 5xx or a network error, 0.5 s, 1 s, 2 s apart
BURST = 30  # messages and edits a chat may get at once (Telegram tolerates short bursts)
PER_SECOND = 1.0  # and then, per second


class ChatPacer:
    """A token bucket per chat: ``BURST`` at once, then ``PER_SECOND``."""

    def __init__(self, burst: int = BURST, per_second: float = PER_SECOND) -> None:
        self._burst, self._rate = float(burst), per_second
        self._buckets: dict[int, tuple[float, float]] = {}  # chat → (tokens, at)

    def delay(self, chat_id: int, now: float) -> float:
        """Seconds the next call about ``chat_id`` waits (0: at once); it is counted."""
        tokens, at = self._buckets.get(chat_id, (self._burst, now))
        tokens = min(self._burst, tokens + (now - at) * self._rate) - 1.0
        self._buckets[chat_id] = (tokens, now)
        return 0.0 if tokens >= 0 else -tokens / self._rate

    async def wait(self, chat_id: int | None) -> None:
        if chat_id is not None and (pause := self.delay(chat_id, clock.monotonic())) > 0:
            await asyncio.sleep(pause)


PACER = ChatPacer()
NOT_MODIFIED = "message is not modified"
ANSWER_CHARS = 200  # of a callback query's answer
ALERT_ABOVE = 60  # characters: a longer answer shows as an alert the person closes


async def send(
    operation: str,
    call: Callable[[], Awaitable[T]],
    *,
    log: Logger | None = None,
    max_wait: float = MAX_WAIT,
    chat_id: int | None = None,
    idempotent: bool = False,
) -> T:
    """``call`` (one Bot API call, about ``chat_id`` when it sends or edits there)
    within Telegram's limits (the module's docstring)."""
    logger = log or get_logger()
    waits = failures = 0
    while True:
        await PACER.wait(chat_id)
        try:
            async with external_call(logger, "telegram", operation):
                return await call()
        except TelegramRetryAfter as error:
            waits += 1
            if waits > MAX_WAITS or error.retry_after > max_wait:
                raise
            logger.info("telegram.retry_after", operation=operation, seconds=error.retry_after)
            await asyncio.sleep(error.retry_after)
        except (TelegramServerError, TelegramNetworkError) as error:
            failures += 1
            if not idempotent or failures > RETRIES:
                raise
            logger.info("telegram.retrying", operation=operation, reason=str(error)[:200])
            await asyncio.sleep(0.5 * 2 ** (failures - 1))


def is_not_modified(error: TelegramBadRequest) -> bool:
    return NOT_MODIFIED in error.message


async def answer_query(query: CallbackQuery, text: str | None = None) -> bool:
    """Answer a button press (``text`` shortened to Telegram's 200 characters);
    False when Telegram no longer takes the answer (the press is too old, or
    Telegram is away): whoever has more to say then says it in the chat."""
    if text is not None and len(text) > ANSWER_CHARS:
        text = text[: ANSWER_CHARS - 1].rstrip() + "…"
    alert = text is not None and len(text) > ALERT_ABOVE
    try:
        await send(
            "answer_callback_query",
            lambda: query.answer(text, show_alert=alert),
            max_wait=MAX_WAIT,
            idempotent=True,
        )
    except TelegramAPIError as error:
        get_logger().info("telegram.answer_dropped", reason=str(error)[:200])
        return False
    return True
