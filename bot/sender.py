"""Calls to Telegram that respect its limits.

aiogram raises ``TelegramRetryAfter`` on a 429 and does not retry: the sender
waits ``retry_after`` and sends again (a few times), logging each call — but only
while the wait is at most ``max_wait``: a longer one is raised, for the caller to
queue (the outbox tries again then) instead of sleeping on it.
"""

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from aiogram.exceptions import TelegramBadRequest, TelegramRetryAfter

from common.logs import Logger, external_call, get_logger

T = TypeVar("T")
MAX_WAITS = 3
MAX_WAIT = 5.0  # seconds slept on a 429 in place; longer ones are the caller's
NOT_MODIFIED = "message is not modified"


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
