"""Sending and refreshing the bot's messages about a download."""

from typing import NamedTuple

from aiogram import Bot
from aiogram.exceptions import TelegramBadRequest
from aiogram.types import InlineKeyboardMarkup, Message, ReplyParameters

from bot.keyboards import download_keyboard
from bot.links import Links
from bot.sender import is_not_modified, send
from bot.texts import fit_message, status_text
from common.i18n import Texts
from common.logs import for_download
from core.models import Download
from store import Store
from store.inbox import Reply
from store.telegram import BotMessage


def shown_key(text: str, markup: InlineKeyboardMarkup | None) -> str:
    """What a message shows: Telegram refuses an edit that changes neither."""
    return text + "\n" + ("" if markup is None else markup.model_dump_json(exclude_none=True))


class Sent(NamedTuple):
    """A message Telegram accepted, and what to remember of it (None: about no
    download); the sender records both in one transaction."""

    message: Message
    about: BotMessage | None


class Views:
    def __init__(self, bot: Bot, store: Store, links: Links) -> None:
        self.bot = bot
        self._store = store
        self._links = links

    def status_reply(
        self,
        tx: Texts,
        user_id: int,
        download: Download,
        *,
        reply_to: int | None = None,
        text: str | None = None,
        role: str = "status",
    ) -> Reply:
        """A message that shows a download (``text`` or its status) with its buttons,
        for the outbox (``send_reply`` sends it)."""
        body = text if text is not None else status_text(tx, download)
        markup = download_keyboard(tx, self._links, download, user_id)
        return Reply(
            body,
            markup.model_dump_json(exclude_none=True),
            reply_to,
            download.id,
            role,
        )

    async def send_reply(self, chat_id: int, reply: Reply) -> Sent:
        """Send a queued reply (answering its message when that still exists); what
        to remember when it is about a download."""
        markup = InlineKeyboardMarkup.model_validate_json(reply.markup) if reply.markup else None
        answered = (
            ReplyParameters(message_id=reply.reply_to, allow_sending_without_reply=True)
            if reply.reply_to
            else None
        )
        message = await send(
            "send_message",
            lambda: self.bot.send_message(
                chat_id, fit_message(reply.text), reply_markup=markup, reply_parameters=answered
            ),
            max_wait=0,
        )
        if reply.download_id is None or reply.role is None:
            return Sent(message, None)
        about = BotMessage(
            chat_id,
            message.message_id,
            reply.download_id,
            reply.role,
            shown_key(reply.text, markup),
        )
        return Sent(message, about)

    async def show_current(
        self,
        tx: Texts,
        chat_id: int,
        message_id: int,
        user_id: int,
        download: Download,
        shown: str | None,
    ) -> bool:
        """Edit a message to the download's current state; False when it already shows it."""
        body = fit_message(status_text(tx, download))
        markup = download_keyboard(tx, self._links, download, user_id)
        key = shown_key(body, markup)
        if key == shown:
            return False
        try:
            await send(
                "edit_message_text",
                lambda: self.bot.edit_message_text(
                    body, chat_id=chat_id, message_id=message_id, reply_markup=markup
                ),
                log=for_download(download.id),
            )
        except TelegramBadRequest as error:
            if not is_not_modified(error):
                raise
        await self._store.telegram.mark_shown(chat_id, message_id, key)
        return True
