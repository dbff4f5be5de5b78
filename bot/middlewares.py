"""Outer middlewares: who may use the bot, which language to speak, and the
log context of every update."""

from collections.abc import Awaitable, Callable
from typing import Any

import structlog
from aiogram import BaseMiddleware
from aiogram.types import CallbackQuery, Chat, Message, TelegramObject, Update, User

from common.i18n import I18n
from common.logs import get_logger
from store import Store

Handler = Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]]


class AccessMiddleware(BaseMiddleware):
    """Only ``telegram.allowed_users``, in private chats (the inbox refused anyone
    else before storing; this holds the line should it not have), and the log
    context of every update."""

    def __init__(self, allowed_users: tuple[int, ...]) -> None:
        self._allowed = frozenset(allowed_users)

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        user: User | None = data.get("event_from_user")
        chat: Chat | None = data.get("event_chat")
        update_id = event.update_id if isinstance(event, Update) else None
        with structlog.contextvars.bound_contextvars(
            update_id=update_id, user_id=None if user is None else user.id
        ):
            if (
                user is not None
                and user.id in self._allowed
                and (chat is None or chat.type == "private")
            ):
                result = await handler(event, data)
                get_logger().info("telegram.update_handled")
                return result
            get_logger().warning("telegram.refused", chat_type=_chat_type(event))
            return None


class LanguageMiddleware(BaseMiddleware):
    """Puts ``tx`` (texts in the person's language) into the handler data and
    remembers each chat's language for notifications sent later."""

    def __init__(self, i18n: I18n, store: Store) -> None:
        self._i18n = i18n
        self._store = store

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        user: User | None = data.get("event_from_user")
        code = None if user is None else user.language_code
        data["tx"] = self._i18n.texts(code)
        chat: Chat | None = data.get("event_chat")
        if chat is not None:
            await self._store.telegram.set_chat_language(chat.id, self._i18n.language_of(code))
        return await handler(event, data)


def _chat_type(event: TelegramObject) -> str | None:
    if isinstance(event, Update):
        inner: Message | CallbackQuery | None = event.message or event.callback_query
        if isinstance(inner, Message):
            return inner.chat.type
    return None
