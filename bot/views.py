"""Sending and refreshing the bot's messages about a download."""

from collections import Counter
from typing import NamedTuple

from aiogram import Bot
from aiogram.exceptions import TelegramBadRequest
from aiogram.types import InlineKeyboardMarkup, Message, ReplyParameters

from bot.keyboards import MAX_OFFERED, download_keyboard, review_keyboard
from bot.links import Links
from bot.sender import is_not_modified, send
from bot.texts import (
    done_caption,
    fit_caption,
    fit_message,
    review_caption,
    seasons_added,
    status_text,
    title_label,
)
from common.i18n import Texts
from common.logs import for_download, get_logger
from core.ids import Id
from core.library import read_entry
from core.models import Download
from core.posters import poster_url
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


POSTER_SIZE = "w500"


class Views:
    def __init__(self, bot: Bot, store: Store, links: Links, posters: str = "") -> None:
        """``posters``: TMDB's image host (``metadata.tmdb_images``), "" for none."""
        self.bot = bot
        self._store = store
        self._links = links
        self._posters = posters

    async def send_review(
        self, chat_id: int, download: Download, tx: Texts, why: str
    ) -> Sent | None:
        """The review notification as one message: the best candidate's poster with a
        caption (title, year, kind, why it is asked), a button per candidate, Other…
        and Cancel. A poster Telegram cannot fetch, or none: the same as text. None:
        no candidate to offer (the plain notification goes instead)."""
        recognition = await self._store.recognitions.current(download.id)
        offered = [] if recognition is None else list(recognition.candidates[:MAX_OFFERED])
        if not offered:
            return None
        best = offered[0]
        caption = fit_caption(review_caption(tx, download, best.title, best.year, best.kind, why))
        labels = [(c.id, title_label(c.title, c.year)) for c in offered]
        markup = review_keyboard(tx, self._links, download, labels, chat_id)
        poster = poster_url(self._posters, POSTER_SIZE, best.poster_path)
        message = await self._deliver(chat_id, caption, markup, photo=poster, about=download.id)
        shown = shown_key(caption, markup)
        return Sent(
            message, BotMessage(chat_id, message.message_id, download.id, "notification", shown)
        )

    async def send_done(self, chat_id: int, download: Download, tx: Texts, why: str) -> Sent | None:
        """ "Done" with the title's poster, its plain title and year, and for a show
        the seasons' episodes this download added; None when it has no library title
        (the plain notification goes instead)."""
        card = await self._store.card(download.id)
        if card is None or card.title is None:
            return None
        title = card.title
        added = Counter[int]()
        for link in card.links if title.kind == "series" else ():
            entry = read_entry(title.kind, title.folder, link.target_path)
            if entry.season is not None:
                added[entry.season] += len(entry.episodes)
        caption = done_caption(
            tx, download, title.name, title.year, seasons_added(tx, added) if added else "", why
        )
        markup = download_keyboard(tx, self._links, download, chat_id)
        poster = poster_url(self._posters, POSTER_SIZE, title.poster_path)
        message = await self._deliver(chat_id, caption, markup, photo=poster, about=download.id)
        shown = shown_key(caption, markup)
        return Sent(
            message, BotMessage(chat_id, message.message_id, download.id, "notification", shown)
        )

    async def poster_of(self, download_id: Id) -> str | None:
        """The poster of a download's title (or of its chosen candidate), if any."""
        card = await self._store.card(download_id)
        if card is None:
            return None
        chosen = card.recognition.chosen() if card.recognition else None
        path = card.title.poster_path if card.title else chosen.poster_path if chosen else None
        return poster_url(self._posters, POSTER_SIZE, path)

    async def _deliver(
        self,
        chat_id: int,
        text: str,
        markup: InlineKeyboardMarkup | None,
        *,
        photo: str | None = None,
        answered: ReplyParameters | None = None,
        about: Id | None = None,
    ) -> Message:
        """A message, as a photo with ``text`` for caption when there is one; a photo
        Telegram cannot fetch is sent as text, never lost. A 429 is raised at once
        (``max_wait=0``): the outbox tries again after it."""
        if photo is not None:
            try:
                return await send(
                    "send_photo",
                    lambda: self.bot.send_photo(
                        chat_id, photo, caption=fit_caption(text), reply_markup=markup,
                        reply_parameters=answered,
                    ),
                    max_wait=0,
                    chat_id=chat_id,
                )  # fmt: skip
            except TelegramBadRequest as error:
                log = for_download(about) if about else get_logger()
                log.info("telegram.poster_refused", reason=str(error)[:200])
        return await send(
            "send_message",
            lambda: self.bot.send_message(
                chat_id, fit_message(text), reply_markup=markup, reply_parameters=answered
            ),
            max_wait=0,
            chat_id=chat_id,
        )

    def status_reply(
        self,
        tx: Texts,
        user_id: int,
        download: Download,
        *,
        reply_to: int | None = None,
        text: str | None = None,
        role: str = "status",
        photo: str | None = None,
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
            photo,
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
        message = await self._deliver(
            chat_id, reply.text, markup, photo=reply.photo, answered=answered,
            about=reply.download_id,
        )  # fmt: skip
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
        *,
        photo: bool = False,
        text: str | None = None,
    ) -> bool:
        """Edit a message to the download's current state (``text`` instead of its
        status); a photo's caption for a photo message. False when it already shows it."""
        body = text if text is not None else status_text(tx, download)
        body = fit_caption(body) if photo else fit_message(body)
        markup = download_keyboard(tx, self._links, download, user_id)
        key = shown_key(body, markup)
        if key == shown:
            return False
        try:
            if photo:
                await send(
                    "edit_message_caption",
                    lambda: self.bot.edit_message_caption(
                        chat_id=chat_id, message_id=message_id, caption=body, reply_markup=markup
                    ),
                    log=for_download(download.id),
                    chat_id=chat_id,
                    idempotent=True,
                )
            else:
                await send(
                    "edit_message_text",
                    lambda: self.bot.edit_message_text(
                        body, chat_id=chat_id, message_id=message_id, reply_markup=markup
                    ),
                    log=for_download(download.id),
                    chat_id=chat_id,
                    idempotent=True,
                )
        except TelegramBadRequest as error:
            if not is_not_modified(error):
                raise
        await self._store.telegram.mark_shown(chat_id, message_id, key)
        return True
