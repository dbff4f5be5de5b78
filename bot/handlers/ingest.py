"""Magnets in texts and captions, .torrent documents, and hints by reply.

A magnet is taken wherever a person can put one: the text or the caption of a
photo, video or document, and the link behind a word (a ``text_link`` entity, as in
forwarded posts). A message with several is handled one a step (``Turn.step``): the
magnet is ingested, its reply queued and the step recorded together, so after a
crash or an error the message resumes at the first one not yet answered. An edited
message is looked at for magnets it did not have; it is never answered otherwise.
"""

from html import escape

from aiogram import Bot, F, Router
from aiogram.exceptions import TelegramBadRequest
from aiogram.types import Message, MessageEntity

from bot.handlers.errors import refusal_text
from bot.handlers.search import offer
from bot.inbox import Turn
from bot.keyboards import in_library_keyboard
from bot.links import Links
from bot.texts import (
    duplicate_text,
    hint_added_text,
    in_library_text,
    no_magnet_text,
    rejected_text,
)
from bot.views import Views
from common.i18n import Texts
from common.logs import for_download
from core.errors import AppError
from core.ids import Id
from core.magnet import find_magnets, remaining_text
from core.reasons import reason
from core.torrent_file import MAX_TORRENT_BYTES, TOO_LARGE_REASON
from store import Store
from store.inbox import Reply
from store.telegram import Role
from worker.ingest import Created, Duplicate, Ingest, IngestResult, InLibrary, Rejected
from worker.search import Finder

DOWNLOAD_TIMEOUT = 60  # seconds to fetch a .torrent from Telegram
TORRENT_MIME = "application/x-bittorrent"
# What a person sends; other messages in a private chat are Telegram's own notes
# (a pinned message, a changed auto-delete timer…) and get no answer.
_SENT_BY_PEOPLE = frozenset(
    {
        "text", "photo", "video", "animation", "audio", "voice", "video_note", "sticker",
        "contact", "location", "venue", "poll", "dice", "story", "paid_media", "checklist",
    }
)  # fmt: skip


def router() -> Router:
    ingest = Router(name="ingest")
    ingest.message.register(on_document, F.document)
    ingest.message.register(on_message)
    ingest.edited_message.register(on_edited)
    return ingest


def magnets_of(message: Message) -> list[str]:
    """Every magnet of the message: in its text or caption, and behind its links."""
    entities: list[MessageEntity] = [*(message.entities or []), *(message.caption_entities or [])]
    linked = "\n".join(e.url for e in entities if e.type == "text_link" and e.url)
    return find_magnets(f"{message.text or message.caption or ''}\n{linked}")


async def on_message(
    message: Message,
    tx: Texts,
    store: Store,
    ingest: Ingest,
    finder: Finder,
    views: Views,
    links: Links,
    turn: Turn,
) -> None:
    magnets = magnets_of(message)
    if magnets:
        await _ingest_magnets(message, magnets, tx, store, ingest, views, links, turn, first=1)
        return
    if message.content_type in _SENT_BY_PEOPLE:
        text = message.text or message.caption or ""
        await _hint_or_help(message, tx, store, finder, text, turn)
        return
    await turn.reply()  # a service message: nothing to say


async def on_edited(
    message: Message,
    tx: Texts,
    store: Store,
    ingest: Ingest,
    views: Views,
    links: Links,
    turn: Turn,
) -> None:
    """An edited message: its magnets that are new are taken; nothing else is said."""
    new = [uri for uri in magnets_of(message) if await ingest.is_new(uri)]
    if new:
        await _ingest_magnets(message, new, tx, store, ingest, views, links, turn, first=1)
    else:
        await turn.reply()


async def on_document(
    message: Message,
    tx: Texts,
    store: Store,
    ingest: Ingest,
    views: Views,
    links: Links,
    bot: Bot,
    turn: Turn,
) -> None:
    """A .torrent (or any file sent without a magnet: it is tried as one), then the
    magnets of its caption."""
    document = message.document
    assert document is not None  # the filter's promise
    magnets = magnets_of(message)
    is_torrent = (document.file_name or "").lower().endswith(".torrent") or (
        document.mime_type == TORRENT_MIME
    )
    if not is_torrent and magnets:
        await _ingest_magnets(message, magnets, tx, store, ingest, views, links, turn, first=1)
        return
    if turn.done_steps < 1:
        last = not magnets
        if document.file_size is not None and document.file_size > MAX_TORRENT_BYTES:
            reply = Reply(rejected_text(tx, TOO_LARGE_REASON), reply_to=message.message_id)
            await turn.step(1, [reply], last=last)
        else:
            result = await _ingest_document(message, ingest, bot, store)
            hint = remaining_text(message.caption or "")
            reply, hinted = await _answer(message, tx, views, links, result, hint)
            await turn.step(1, [reply], hint=hinted, last=last)
    if magnets:
        await _ingest_magnets(message, magnets, tx, store, ingest, views, links, turn, first=2)


async def _ingest_document(
    message: Message, ingest: Ingest, bot: Bot, store: Store
) -> IngestResult:
    assert message.document is not None
    try:
        data = await bot.download(message.document, timeout=DOWNLOAD_TIMEOUT)
    except TelegramBadRequest as error:  # gone, or too big for bots: asking again won't help
        return Rejected(reason("torrent.not_fetched", detail=error.message))
    assert data is not None  # no destination given: the bytes come back
    result = await ingest.torrent_file(data.read(), origin="telegram", chat_id=message.chat.id)
    return await _resumed(result, message, store)


async def _ingest_magnets(
    message: Message,
    magnets: list[str],
    tx: Texts,
    store: Store,
    ingest: Ingest,
    views: Views,
    links: Links,
    turn: Turn,
    *,
    first: int,
) -> None:
    """One step per magnet, numbered from ``first``; the message's other words are
    the hint of each."""
    hint = remaining_text(message.text or message.caption or "")
    for number, uri in enumerate(magnets, start=first):
        if number <= turn.done_steps:
            continue  # answered before a crash or an error
        last = number == first + len(magnets) - 1
        try:
            result = await ingest.magnet(uri, origin="telegram", chat_id=message.chat.id)
        except AppError as error:  # this magnet's refusal; the message's next ones go on
            text = escape(await refusal_text(tx, store, error), quote=False)
            await turn.step(number, [Reply(text, reply_to=message.message_id)], last=last)
            continue
        result = await _resumed(result, message, store)
        reply, hinted = await _answer(message, tx, views, links, result, hint)
        await turn.step(number, [reply], hint=hinted, last=last)


async def _answer(
    message: Message, tx: Texts, views: Views, links: Links, result: IngestResult, hint: str
) -> tuple[Reply, tuple[Id, str] | None]:
    """The reply to one magnet or file, and the hint to store with it."""
    user, reply_to = message.chat.id, message.message_id
    if isinstance(result, Rejected):
        return Reply(rejected_text(tx, result.reason), reply_to=reply_to), None
    download = result.download
    if isinstance(result, InLibrary):  # its message anew, the older one deleted; no hint
        title = result.title
        text = in_library_text(tx, download, title.name, title.year)
        markup = in_library_keyboard(tx, links, download, title.id, user)
        photo = (await views.view_of(tx, user, download)).photo  # the title's poster
        json = markup.model_dump_json(exclude_none=True)
        return Reply(text, json, reply_to, download.id, Role.STATUS, photo), None
    hinted = (download.id, hint) if hint else None
    if hint:
        for_download(download.id).info("download.hint_added", hint=hint)
    if isinstance(result, Duplicate):
        text = duplicate_text(tx, download)
        return views.status_reply(tx, user, download, reply_to=reply_to, text=text), hinted
    return views.status_reply(tx, user, download, reply_to=reply_to), hinted


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


async def _hint_or_help(
    message: Message, tx: Texts, store: Store, finder: Finder, text: str, turn: Turn
) -> None:
    """A reply to the bot's message about a download adds a hint to it; a text that
    is no reply is offered as a search (when search is set up)."""
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
    if finder.enabled and message.text and replied is None and not message.text.startswith("/"):
        await turn.reply(offer(tx, message.text, message.message_id))
        return
    await turn.reply(Reply(no_magnet_text(tx), reply_to=message.message_id))
