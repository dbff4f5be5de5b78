"""Magnets in texts, .torrent documents, and hints by reply."""

from aiogram import Bot, F, Router
from aiogram.types import Message

from bot.texts import (
    duplicate_text,
    hint_added_text,
    no_magnet_text,
    queued_text,
    rejected_text,
)
from bot.views import Views
from core.magnet import find_magnets, remaining_text
from core.torrent_file import MAX_TORRENT_BYTES, TOO_LARGE_REASON
from jellybit.i18n import Texts
from jellybit.logs import for_download
from store import Store
from worker.engine import Engine
from worker.ingest import Created, Duplicate, IngestResult, Rejected

DOWNLOAD_TIMEOUT = 60  # seconds to fetch a .torrent from Telegram


def router() -> Router:
    ingest = Router(name="ingest")
    ingest.message.register(on_document, F.document)
    ingest.message.register(on_text, F.text)
    return ingest


async def on_text(message: Message, tx: Texts, store: Store, engine: Engine, views: Views) -> None:
    text = message.text or ""
    magnets = find_magnets(text)
    if not magnets:
        await _hint_or_help(message, tx, store, text)
        return
    hint = remaining_text(text)
    for uri in magnets:
        result = await engine.ingest.magnet(uri, source="telegram", chat_id=message.chat.id)
        await _answer(message, tx, store, views, result, hint)


async def on_document(
    message: Message, tx: Texts, store: Store, engine: Engine, views: Views, bot: Bot
) -> None:
    document = message.document
    assert document is not None
    if document.file_size is not None and document.file_size > MAX_TORRENT_BYTES:
        await message.reply(rejected_text(tx, TOO_LARGE_REASON))
        return
    data = await bot.download(document, timeout=DOWNLOAD_TIMEOUT)
    assert data is not None
    result = await engine.ingest.torrent_file(
        data.read(), source="telegram", chat_id=message.chat.id
    )
    await _answer(message, tx, store, views, result, remaining_text(message.caption or ""))


async def _answer(
    message: Message, tx: Texts, store: Store, views: Views, result: IngestResult, hint: str
) -> None:
    chat, user = message.chat.id, message.chat.id
    if isinstance(result, Rejected):
        if result.download is None:
            await message.reply(rejected_text(tx, result.reason))
        else:  # qBittorrent refused it: the failed download offers Retry
            text = rejected_text(tx, result.reason)
            await views.send_status(
                tx,
                chat,
                user,
                result.download,
                reply_to=message.message_id,
                text=text,
                role="reply",
            )
        return
    download = result.download
    if hint:
        await store.telegram.add_hint(download.id, hint)
        for_download(download.id).info("download.hint_added", hint=hint)
    if isinstance(result, Duplicate):
        text = duplicate_text(tx, download)
        await views.send_status(
            tx, chat, user, download, reply_to=message.message_id, text=text, role="reply"
        )
        return
    assert isinstance(result, Created)
    initial = queued_text(tx, download) if result.queued else None
    await views.send_status(tx, chat, user, download, reply_to=message.message_id, text=initial)


async def _hint_or_help(message: Message, tx: Texts, store: Store, text: str) -> None:
    """A reply to the bot's message about a download adds a hint to it."""
    replied = message.reply_to_message
    if replied is not None:  # only the bot's own messages are remembered
        download_id = await store.telegram.download_of_message(message.chat.id, replied.message_id)
        hint = text.strip()
        if download_id is not None and hint:
            await store.telegram.add_hint(download_id, hint)
            for_download(download_id).info("download.hint_added", hint=hint)
            download = await store.downloads.get_download(download_id)
            await message.reply(hint_added_text(tx, download, hint))
            return
    await message.reply(no_magnet_text(tx))
