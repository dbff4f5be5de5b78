"""A download's one message in a chat: what it shows, sending it, editing it.

A download has one message per chat (``Role.STATUS``), rendered from its current
state by ``view_of``: the progress while it downloads, the question with a button
per candidate while it waits for the person (the best candidate's poster), the
title it goes into once picked, "Done" with the title's poster. The status updater
edits it in place (``show``); where the person must hear of a change (a question,
done, a failure) the notifier sends it anew and the older one is deleted
(``retire``), so a person scrolling back sees each download once.
"""

from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import NamedTuple

from aiogram import Bot
from aiogram.exceptions import (
    TelegramAPIError,
    TelegramBadRequest,
    TelegramForbiddenError,
    TelegramNotFound,
)
from aiogram.types import InlineKeyboardMarkup, InputMediaPhoto, Message, ReplyParameters

from bot.keyboards import MAX_OFFERED, download_keyboard, review_keyboard
from bot.links import Links
from bot.sender import is_not_modified, send
from bot.texts import (
    done_caption,
    fit_caption,
    fit_message,
    moved_text,
    outcome_text,
    picked_caption,
    review_caption,
    seasons_added,
    status_text,
    title_label,
)
from common.explain import reason_text
from common.i18n import I18n, Texts
from common.logs import for_download, get_logger
from core.ids import Id
from core.library import read_entry
from core.models import Download
from core.posters import poster_url
from core.states import State
from store import Store
from store.inbox import Reply
from store.telegram import BotMessage, Role

POSTER_SIZE = "w500"


def shown_key(text: str, markup: InlineKeyboardMarkup | None, photo: str | None = None) -> str:
    """What a message shows: Telegram refuses an edit that changes nothing."""
    buttons = "" if markup is None else markup.model_dump_json(exclude_none=True)
    return f"{photo or ''}\n{text}\n{buttons}"


@dataclass(frozen=True)
class View:
    """A download's message: its HTML (a caption when it has a photo), its buttons,
    and the poster it shows (None: a text message)."""

    text: str
    markup: InlineKeyboardMarkup
    photo: str | None = None

    def key(self) -> str:
        return shown_key(self.body(), self.markup, self.photo)

    def body(self, *, caption: bool | None = None) -> str:
        as_caption = self.photo is not None if caption is None else caption
        return fit_caption(self.text) if as_caption else fit_message(self.text)

    def headed(self, line: str) -> "View":
        """The same with a first line that says why it is sent (once: an edit drops it)."""
        return replace(self, text=line + "\n" + self.text)


class Sent(NamedTuple):
    """A message Telegram accepted, and what to remember of it (None: about no
    download); the sender records both in one transaction."""

    message: Message
    about: BotMessage | None


class Views:
    def __init__(self, bot: Bot, store: Store, links: Links, i18n: I18n, posters: str = "") -> None:
        """``posters``: TMDB's image host (``metadata.tmdb_images``), "" for none."""
        self.bot = bot
        self._store = store
        self._links = links
        self._i18n = i18n
        self._posters = posters

    async def texts_for(self, chat_id: int) -> Texts:
        """The texts in the chat's language (the default for a chat never seen)."""
        return self._i18n.texts(await self._store.telegram.chat_language(chat_id))

    async def view_of(self, tx: Texts, user_id: int, download: Download) -> View:
        """The download's message as it stands now, for ``user_id``'s chat (``VIEWS``)."""
        return await VIEWS[download.state](self, tx, user_id, download)

    async def _status(self, tx: Texts, user_id: int, download: Download) -> View:
        """The status message: the progress while it downloads, what happens next."""
        markup = download_keyboard(tx, self._links, download, user_id)
        return View(status_text(tx, download), markup)

    async def _importing(self, tx: Texts, user_id: int, download: Download) -> View:
        """The title it goes into, with its poster, once one is picked."""
        recognition = await self._store.recognitions.current(download.id)
        stored = recognition.chosen() if recognition else None
        if stored is None:
            return await self._status(tx, user_id, download)
        chosen = stored.candidate
        text = picked_caption(tx, download, chosen.title, chosen.year)
        markup = download_keyboard(tx, self._links, download, user_id)
        return View(text, markup, self._poster(chosen.poster_path))

    async def _outcome(self, tx: Texts, user_id: int, download: Download) -> View:
        """What happened to it, and why."""
        markup = download_keyboard(tx, self._links, download, user_id)
        return View(outcome_text(tx, download, download.error), markup)

    async def _review(self, tx: Texts, user_id: int, download: Download) -> View:
        """Which title it is: the best candidate's poster, a button per candidate,
        Other… and Cancel. A layout question (the library has a copy, a file in the
        way), or no candidate to offer: the question, answered on the card."""
        why = await self._store.downloads.reason_of_state(download.id)
        recognition = await self._store.recognitions.current(download.id)
        offered = [] if recognition is None else list(recognition.candidates[:MAX_OFFERED])
        picking = why is None or why.code.startswith("review.")
        if not offered or not picking:
            text = outcome_text(tx, download, why)
            return View(text, download_keyboard(tx, self._links, download, user_id))
        best = offered[0].candidate
        text = review_caption(tx, download, best.title, best.year, best.kind, reason_text(tx, why))
        labels = [(c.id, title_label(c.candidate.title, c.candidate.year)) for c in offered]
        markup = review_keyboard(tx, self._links, download, labels, user_id)
        return View(text, markup, self._poster(best.poster_path))

    async def _done(self, tx: Texts, user_id: int, download: Download) -> View:
        """ "Done" with the title's poster, its plain title and year, for a show the
        seasons' episodes this download added, and where it went."""
        why = await self._store.downloads.reason_of_state(download.id)
        markup = download_keyboard(tx, self._links, download, user_id)
        card = await self._store.card(download.id)
        if card is None or card.title is None:
            return View(outcome_text(tx, download, why), markup)
        title = card.title
        added = Counter[int]()
        for link in card.links if title.kind == "series" else ():
            entry = read_entry(title.kind, title.folder, link.target_path)
            if entry.season is not None:
                added[entry.season] += len(entry.episodes)
        text = done_caption(
            tx,
            download,
            title.name,
            title.year,
            seasons_added(tx, added) if added else "",
            reason_text(tx, why),
        )
        return View(text, markup, self._poster(title.candidate.poster_path))

    def _poster(self, path: str | None) -> str | None:
        return poster_url(self._posters, POSTER_SIZE, path)

    async def send_view(
        self, chat_id: int, download: Download, view: View, *, reply_to: int | None = None
    ) -> Sent:
        """The download's message, sent anew: it supersedes the one before it in this
        chat (``retire`` deletes that one once this one is remembered)."""
        answered = _answering(reply_to)
        message = await self._deliver(
            chat_id, view.text, view.markup, photo=view.photo, answered=answered, about=download.id
        )
        photo = view.photo if message.photo else None
        shown = replace(view, photo=photo).key()
        about = BotMessage(chat_id, message.message_id, download.id, Role.STATUS, shown, photo)
        return Sent(message, about)

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
    ) -> Reply:
        """The download's message as an answer to what the person sent (``text``
        instead of its status), for the outbox: it becomes the download's one message."""
        body = text if text is not None else status_text(tx, download)
        markup = download_keyboard(tx, self._links, download, user_id)
        return Reply(
            body, markup.model_dump_json(exclude_none=True), reply_to, download.id, Role.STATUS
        )

    def view_reply(self, download: Download, view: View, *, reply_to: int | None = None) -> Reply:
        """A view as an answer to what the person sent (``/status``), for the outbox."""
        markup = view.markup.model_dump_json(exclude_none=True)
        return Reply(view.text, markup, reply_to, download.id, Role.STATUS, view.photo)

    async def send_reply(self, chat_id: int, reply: Reply) -> Sent:
        """Send a queued reply (answering its message when that still exists); what
        to remember when it is about a download."""
        markup = InlineKeyboardMarkup.model_validate_json(reply.markup) if reply.markup else None
        message = await self._deliver(
            chat_id, reply.text, markup, photo=reply.photo, answered=_answering(reply.reply_to),
            about=reply.download_id,
        )  # fmt: skip
        if reply.download_id is None or reply.role is None:
            return Sent(message, None)
        photo = reply.photo if message.photo else None
        shown = shown_key(
            fit_caption(reply.text) if photo else fit_message(reply.text), markup, photo
        )
        about = BotMessage(
            chat_id, message.message_id, reply.download_id, Role(reply.role), shown, photo
        )
        return Sent(message, about)

    async def show(
        self,
        tx: Texts,
        chat_id: int,
        message_id: int,
        user_id: int,
        download: Download,
        *,
        shown: str | None,
        photo: str | None,
    ) -> bool | None:
        """Edit a message to the download's view now. ``photo``: the poster the
        message shows (None: a text message; "": a photo not remembered). A text
        message whose view has a poster becomes a photo (``editMessageMedia``); a photo
        stays one. False when it already shows the view; None when a newer message
        about the download is on its way (it supersedes this one: not edited now)."""
        if await self._store.telegram.news_waiting(download.id, chat_id):
            return None
        view = await self.view_of(tx, user_id, download)
        if photo is not None and view.photo is None:
            view = replace(view, photo=photo)  # a photo message keeps its picture
        key = view.key()
        if key == shown:
            return False
        now = photo
        try:
            if view.photo is not None and view.photo != photo:
                now = await self._replace_media(chat_id, message_id, download.id, view, photo)
            if now == photo:
                is_photo = photo is not None
                body = view.body(caption=is_photo)
                await self._edit(chat_id, message_id, body, view.markup, is_photo=is_photo)
        except TelegramBadRequest as error:
            if not is_not_modified(error):
                raise
        await self._store.telegram.mark_shown(
            chat_id, message_id, replace(view, photo=now).key(), now
        )
        return True

    async def _replace_media(
        self, chat_id: int, message_id: int, about: Id, view: View, photo: str | None
    ) -> str | None:
        """The message shows the view's poster (a text message becomes a photo);
        Telegram refusing the picture: the message stays what it was (``photo``)."""
        media = InputMediaPhoto(media=view.photo or "", caption=view.body(caption=True))
        try:
            await send(
                "edit_message_media",
                lambda: self.bot.edit_message_media(
                    media, chat_id=chat_id, message_id=message_id, reply_markup=view.markup
                ),
                chat_id=chat_id,
                idempotent=True,
            )
        except TelegramBadRequest as error:
            if is_not_modified(error):
                return view.photo
            for_download(about).info("telegram.poster_refused", reason=str(error)[:200])
            return photo
        return view.photo

    async def _edit(
        self,
        chat_id: int,
        message_id: int,
        body: str,
        markup: InlineKeyboardMarkup | None,
        *,
        is_photo: bool,
    ) -> None:
        """A message's text, or a photo's caption, and its buttons (None: none)."""
        if is_photo:
            await send(
                "edit_message_caption",
                lambda: self.bot.edit_message_caption(
                    chat_id=chat_id, message_id=message_id, caption=body, reply_markup=markup
                ),
                chat_id=chat_id,
                idempotent=True,
            )
        else:
            await send(
                "edit_message_text",
                lambda: self.bot.edit_message_text(
                    body, chat_id=chat_id, message_id=message_id, reply_markup=markup
                ),
                chat_id=chat_id,
                idempotent=True,
            )

    async def retire(self, chat_id: int | None = None) -> int:
        """Delete from the chat the messages a download's newer one superseded (of
        one chat, or all). One Telegram no longer lets the bot delete (sent over 48
        hours ago) is edited to point below, without buttons. Returns how many."""
        done = 0
        for old in await self._store.telegram.superseded(chat_id):
            try:
                await send(
                    "delete_message",
                    partial(self.bot.delete_message, old.chat_id, old.message_id),
                    chat_id=old.chat_id,
                    idempotent=True,
                )
                deleted = True
            except TelegramBadRequest as error:
                deleted = "not found" in error.message  # gone already
                if not deleted:
                    await self._point_below(old)
            except (TelegramForbiddenError, TelegramNotFound):  # blocked, or no such chat
                deleted = True  # nothing can be done about it, ever
            except TelegramAPIError as error:  # Telegram away or busy: the next tick
                for_download(old.download_id).info("telegram.retire_later", reason=str(error))
                break
            await self._store.telegram.retire(old.chat_id, old.message_id, deleted=deleted)
            done += 1
        return done

    async def _point_below(self, old: BotMessage) -> None:
        download = await self._store.downloads.find_download(old.download_id)
        if download is None:
            return
        text = moved_text(await self.texts_for(old.chat_id), download)
        try:
            await self._edit(old.chat_id, old.message_id, text, None, is_photo=bool(old.photo))
        except TelegramAPIError as error:  # it stays as it was; nothing else to try
            for_download(download.id).info("telegram.retire_failed", reason=str(error)[:200])


# How the download's message is made in each state.
VIEWS: dict[State, Callable[[Views, Texts, int, Download], Awaitable[View]]] = {
    State.ACCEPTED: Views._status,
    State.DOWNLOADING: Views._status,
    State.STUCK: Views._status,
    State.REVIEW: Views._review,
    State.IMPORTING: Views._importing,
    State.DONE: Views._done,
    State.FAILED: Views._outcome,
    State.REMOVED: Views._outcome,
}


def _answering(reply_to: int | None) -> ReplyParameters | None:
    if reply_to is None:
        return None
    return ReplyParameters(message_id=reply_to, allow_sending_without_reply=True)
