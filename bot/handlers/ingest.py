"""Magnets in texts, .torrent documents, and hints by reply.

A message with several magnets is handled one magnet a step (``Turn.step``): the
magnet is ingested, its reply queued and the step recorded together, so after a
crash or an error the message resumes at the first magnet not yet answered.
"""

from html import escape

from aiogram import Bot, F, Router
from aiogram.types import Message

from bot.handlers.errors import refusal_text
from bot.inbox import Turn
from bot.texts import (
    duplicate_text,
    hint_added_text,
    no_magnet_text,
    queued_text,
    rejected_text,
)
from bot.views import Views
from common.i18n import Texts
from common.logs import for_download
from core.errors import AppError
from core.ids import Id
from core.magnet import find_magnets, remaining_text
from core.torrent_file import MAX_TORRENT_BYTES, TOO_LARGE_REASON
from store import Store
from store.inbox import Reply
from worker.ingest import Created, Duplicate, Ingest, IngestResult, Rejected

DOWNLOAD_TIMEOUT = 60  # seconds to fetch a .torrent from Telegram


def router() -> Router:
    ingest = Router(name="ingest")
    ingest.message.register(on_document, F.document)
    ingest.message.register(on_text, F.text)
    return ingest


async def on_text(
    message: Message, tx: Texts, store: Store, ingest: Ingest, views: Views, turn: Turn
) -> None:
    text = message.text or ""
    magnets = find_magnets(text)
    if not magnets:
        await _hint_or_help(message, tx, store, text, turn)
        return
    hint = remaining_text(text)
    for number, uri in enumerate(magnets, start=1):
        if number <= turn.done_steps:
            continue  # answered before a crash or an error
        last = number == len(magnets)
        try:
            result = await ingest.magnet(uri, source="telegram", chat_id=message.chat.id)
        except AppError as error:  # this magnet's refusal; the message's next ones go on
            text = escape(await refusal_text(tx, store, error), quote=False)
            await turn.step(number, [Reply(text, reply_to=message.message_id)], last=last)
            continue
        result = await _resumed(result, message, store)
        reply, hinted = _answer(message, tx, views, result, hint)
        await turn.step(number, [reply], hint=hinted, last=last)


async def on_document(
    message: Message, tx: Texts, store: Store, ingest: Ingest, views: Views, bot: Bot, turn: Turn
) -> None:
    document = message.document
    assert document is not None
    if document.file_size is not None and document.file_size > MAX_TORRENT_BYTES:
        await turn.reply(Reply(rejected_text(tx, TOO_LARGE_REASON), reply_to=message.message_id))
        return
    data = await bot.download(document, timeout=DOWNLOAD_TIMEOUT)
    assert data is not None
    result = await ingest.torrent_file(data.read(), source="telegram", chat_id=message.chat.id)
    result = await _resumed(result, message, store)
    reply, hinted = _answer(message, tx, views, result, remaining_text(message.caption or ""))
    await turn.step(turn.done_steps + 1, [reply], hint=hinted, last=True)


def _answer(
    message: Message, tx: Texts, views: Views, result: IngestResult, hint: str
) -> tuple[Reply, tuple[Id, str] | None]:
    """The reply to one magnet or file, and the hint to store with it."""
    user, reply_to = message.chat.id, message.message_id
    if isinstance(result, Rejected):
        text = rejected_text(tx, result.reason)
        if result.download is None:
            return Reply(text, reply_to=reply_to), None
        # qBittorrent refused it: the failed download offers Retry.
        return views.status_reply(
            tx, user, result.download, reply_to=reply_to, text=text, role="reply"
        ), None
    download = result.download
    hinted = (download.id, hint) if hint else None
    if hint:
        for_download(download.id).info("download.hint_added", hint=hint)
    if isinstance(result, Duplicate):
        text = duplicate_text(tx, download)
        return views.status_reply(
            tx, user, download, reply_to=reply_to, text=text, role="reply"
        ), hinted
    queued = isinstance(result, Created) and result.queued
    initial = queued_text(tx, download) if queued else None
    return views.status_reply(tx, user, download, reply_to=reply_to, text=initial), hinted


async def _resumed(result: IngestResult, message: Message, store: Store) -> IngestResult:
    """A duplicate of a download this chat sent and was never answered about: this
    very update made it (ingested, then jellybit stopped before the reply was queued),
    so its answer is "accepted", not "already here"."""
    if (
        isinstance(result, Duplicate)
        and result.download.chat_id == message.chat.id
        and not await store.telegram.answered(result.download.id)
    ):
        return Created(result.download)
    return result


async def _hint_or_help(message: Message, tx: Texts, store: Store, text: str, turn: Turn) -> None:
    """A reply to the bot's message about a download adds a hint to it."""
    replied = message.reply_to_message
    if replied is not None:  # only the bot's own messages are remembered
        download_id = await store.telegram.download_of_message(message.chat.id, replied.message_id)
        hint = text.strip()
        if download_id is not None and hint:
            for_download(download_id).info("download.hint_added", hint=hint)
            download = await store.downloads.get_download(download_id)
            reply = Reply(hint_added_text(tx, download, hint), reply_to=message.message_id)
            await turn.step(turn.done_steps + 1, [reply], hint=(download_id, hint), last=True)
            return
    await turn.reply(Reply(no_magnet_text(tx), reply_to=message.message_id))
