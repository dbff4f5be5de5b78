"""Calls to Telegram that respect its limits.

aiogram raises ``TelegramRetryAfter`` on a 429 and does not retry: the sender
waits ``retry_after`` and sends again (a few times), logging each call — but only
while the wait is at most ``max_wait``: a longer one is raised, for the caller to
queue (the outbox tries again then) instead of sleeping on it.
"""

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from aiogram.exceptions import TelegramAPIError, TelegramBadRequest, TelegramRetryAfter
from aiogram.types import CallbackQuery

from common.logs import Logger, external_call, get_logger

T = TypeVar("T")
MAX_WAITS = 3
MAX_WAIT = 5.0  # seconds slept on a 429 in place; longer ones are the caller's
NOT_MODIFIED = "message is not modified"
ANSWER_CHARS = 200  # of a callback query's answer
ALERT_ABOVE = 60  # characters: a longer answer shows as an alert the person closes


async def send(
    operation: str,
    call: Callable[[], Awaitable[T]],
    *,
    log: Logger | None = None,
    max_wait: float = MAX_WAIT,
) -> T:
    logger = log or get_logger()
    for attempt in range(MAX_WAITS + 1):
        try:
            async with external_call(logger, "telegram", operation):
                return await call()
        except TelegramRetryAfter as error:
            if attempt == MAX_WAITS or error.retry_after > max_wait:
                raise
            logger.info("telegram.retry_after", operation=operation, seconds=error.retry_after)
            await asyncio.sleep(error.retry_after)
    raise AssertionError("unreachable")


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
        )
    except TelegramAPIError as error:
        get_logger().info("telegram.answer_dropped", reason=str(error)[:200])
        return False
    return True
